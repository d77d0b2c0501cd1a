//! The RedisCluster controller: keeps `spec.replicas` Redis Pods named `<cluster>-0` ..
//! `<cluster>-<N-1>`, and reports how many are ready.
//!
//! Each pass compares the Pods the cluster owns with the names it should have and acts on the
//! difference alone ([`plan`]): a lost replica is created again, the surplus is deleted, the
//! highest first. A converged cluster is not written at all.

use std::cmp::Reverse;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use redis_operator_api::v1alpha1::{RedisCluster, RedisClusterStatus};
use rop::conditions::{self, HasConditions};
use rop::controller::{Action, ApplyError, Context, Reconciler};
use rop::k8s_openapi::api::core::v1::{Container, ContainerPort, Pod, PodSpec};
use rop::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rop::kube::ResourceExt;
use rop::kube::api::{Api, DeleteParams, ListParams};
use tracing::info;

/// Label that ties a Pod to its cluster, to list a cluster's Pods.
const CLUSTER_LABEL: &str = "cache.example.com/cluster";

/// How long a reconciled cluster waits before it is looked at again, to repair drift no watch
/// reported.
const RESYNC_AFTER: Duration = Duration::from_secs(5 * 60);

/// Why a pass failed; the variants name the step, and `rop::kube::Error` says why.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("failed to list the cluster's Pods")]
    List(#[source] rop::kube::Error),
    #[error(transparent)]
    Create(#[from] ApplyError),
    #[error("failed to delete Pod {0}")]
    Delete(String, #[source] rop::kube::Error),
    #[error("failed to update the status")]
    Status(#[source] rop::kube::Error),
}

/// Reconciles `RedisCluster` objects.
pub struct RedisClusterReconciler;

impl Reconciler for RedisClusterReconciler {
    type Kind = RedisCluster;
    // No `cleanup`: the Pods carry owner references, and the garbage collector deletes them
    // with the cluster.
    type Error = Error;

    async fn reconcile(
        &self,
        cluster: Arc<RedisCluster>,
        ctx: &Context<RedisCluster>,
    ) -> Result<Action, Error> {
        // A RedisCluster is namespaced: it always has one.
        let namespace = cluster.namespace().unwrap_or_default();
        let pods: Api<Pod> = Api::namespaced(ctx.client().clone(), &namespace);
        let selector = format!("{CLUSTER_LABEL}={}", cluster.name_any());
        let owned = pods
            .list(&ListParams::default().labels(&selector))
            .await
            .map_err(Error::List)?
            .items;
        let names: Vec<String> = owned.iter().map(ResourceExt::name_any).collect();

        let plan = plan(&cluster.name_any(), cluster.spec.replicas, &names);
        for name in &plan.create {
            ctx.apply(&cluster, desired_pod(&cluster, name)).await?;
            info!(pod = %name, "created a missing replica");
        }
        // A Pod already terminating is on its way out: deleting it again is no news.
        let terminating = |name: &String| {
            owned
                .iter()
                .any(|pod| pod.name_any() == *name && pod.metadata.deletion_timestamp.is_some())
        };
        for name in plan.delete.iter().filter(|name| !terminating(name)) {
            pods.delete(name, &DeleteParams::default())
                .await
                .map_err(|e| Error::Delete(name.clone(), e))?;
            info!(pod = %name, "deleted a surplus replica");
        }

        let ready = owned
            .iter()
            .filter(|pod| !plan.delete.contains(&pod.name_any()) && is_ready(pod))
            .count();
        let status = desired_status(&cluster, i32::try_from(ready).unwrap_or(i32::MAX));
        ctx.update_status(&cluster, status)
            .await
            .map_err(Error::Status)?;
        Ok(Action::requeue(RESYNC_AFTER))
    }
}

/// What a pass changes: the replicas to create and the Pods to delete.
#[derive(Debug, PartialEq, Eq)]
pub struct Plan {
    pub create: Vec<String>,
    pub delete: Vec<String>,
}

/// The plan that takes the Pods named `existing` to `replicas` Pods named `<cluster>-0` ..
/// `<cluster>-<replicas - 1>`. The surplus goes highest ordinal first, as a StatefulSet scales
/// down, so the replicas that stay are always the lowest; the API lists Pods in no particular
/// order, and the plan does not depend on it.
pub fn plan(cluster: &str, replicas: i32, existing: &[String]) -> Plan {
    let desired: Vec<String> = (0..replicas.max(0))
        .map(|i| format!("{cluster}-{i}"))
        .collect();
    let create = desired
        .iter()
        .filter(|name| !existing.contains(name))
        .cloned()
        .collect();
    let mut delete: Vec<String> = existing
        .iter()
        .filter(|name| !desired.contains(name))
        .cloned()
        .collect();
    delete.sort_by_key(|name| Reverse(ordinal(cluster, name)));
    Plan { create, delete }
}

/// The `n` of a Pod named `<cluster>-<n>`.
fn ordinal(cluster: &str, name: &str) -> Option<u32> {
    name.strip_prefix(cluster)?.strip_prefix('-')?.parse().ok()
}

/// Replica `name` of `cluster`: only the fields this controller manages (the apply adds the
/// owner reference and the namespace).
fn desired_pod(cluster: &RedisCluster, name: &str) -> Pod {
    Pod {
        metadata: ObjectMeta {
            name: Some(name.into()),
            labels: Some(BTreeMap::from([(
                CLUSTER_LABEL.to_string(),
                cluster.name_any(),
            )])),
            ..ObjectMeta::default()
        },
        spec: Some(PodSpec {
            containers: vec![Container {
                name: "redis".into(),
                image: Some(cluster.spec.image.clone()),
                ports: Some(vec![ContainerPort {
                    container_port: 6379,
                    name: Some("redis".into()),
                    protocol: Some("TCP".into()),
                    ..ContainerPort::default()
                }]),
                ..Container::default()
            }],
            ..PodSpec::default()
        }),
        ..Pod::default()
    }
}

/// Whether the kubelet reports `pod` ready.
fn is_ready(pod: &Pod) -> bool {
    let conditions = pod.status.as_ref().and_then(|s| s.conditions.as_deref());
    conditions
        .unwrap_or_default()
        .iter()
        .any(|c| c.type_ == "Ready" && c.status == "True")
}

/// The status of `cluster` with `ready` ready replicas: `Available` once all of them are.
fn desired_status(cluster: &RedisCluster, ready: i32) -> RedisClusterStatus {
    let generation = cluster.metadata.generation;
    let mut status = RedisClusterStatus {
        ready_replicas: ready,
        observed_generation: generation,
        ..cluster.status.clone().unwrap_or_default()
    };
    let all = ready >= cluster.spec.replicas;
    let reason = if all {
        "AllReplicasReady"
    } else {
        "ReplicasNotReady"
    };
    let message = format!("{ready} of {} replicas are ready", cluster.spec.replicas);
    let available = conditions::new("Available", all, reason, message, generation);
    status.set_condition(available);
    status
}

#[cfg(test)]
mod tests {
    use redis_operator_api::v1alpha1::RedisClusterSpec;
    use rop::k8s_openapi::api::core::v1::{PodCondition, PodStatus};

    use super::*;

    fn cluster(replicas: i32) -> RedisCluster {
        let mut cluster = RedisCluster::new(
            "db",
            RedisClusterSpec {
                replicas,
                image: "redis:7.2-alpine".into(),
            },
        );
        cluster.metadata.generation = Some(2);
        cluster
    }

    fn names(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn plan_creates_the_missing_and_deletes_the_surplus() {
        let existing = names(&["db-0", "db-2", "db-7"]);
        assert_eq!(
            plan("db", 3, &existing),
            Plan {
                create: names(&["db-1"]),
                delete: names(&["db-7"]),
            }
        );
        assert_eq!(
            plan("db", 3, &names(&["db-0", "db-1", "db-2"])),
            Plan {
                create: Vec::new(),
                delete: Vec::new(),
            },
            "a converged cluster needs nothing"
        );
    }

    #[test]
    fn the_surplus_goes_highest_first() {
        let existing = names(&["db-2", "db-10", "db-0", "db-9", "db-1"]);
        assert_eq!(
            plan("db", 1, &existing).delete,
            names(&["db-10", "db-9", "db-2", "db-1"])
        );
    }

    #[test]
    fn a_replica_is_a_redis_pod_labelled_with_its_cluster() {
        let pod = desired_pod(&cluster(3), "db-1");

        assert_eq!(pod.metadata.name.as_deref(), Some("db-1"));
        assert_eq!(pod.labels()[CLUSTER_LABEL], "db");
        let container = &pod.spec.unwrap().containers[0];
        assert_eq!(container.image.as_deref(), Some("redis:7.2-alpine"));
        assert_eq!(container.ports.as_ref().unwrap()[0].container_port, 6379);
    }

    #[test]
    fn only_a_pod_the_kubelet_reports_ready_counts() {
        let with_ready = |status: &str| Pod {
            status: Some(PodStatus {
                conditions: Some(vec![PodCondition {
                    type_: "Ready".into(),
                    status: status.into(),
                    ..PodCondition::default()
                }]),
                ..PodStatus::default()
            }),
            ..Pod::default()
        };
        assert!(is_ready(&with_ready("True")));
        assert!(!is_ready(&with_ready("False")));
        assert!(!is_ready(&Pod::default()));
    }

    #[test]
    fn the_status_counts_the_ready_replicas() {
        let status = desired_status(&cluster(3), 1);

        assert_eq!(
            (status.ready_replicas, status.observed_generation),
            (1, Some(2))
        );
        let available = status.condition("Available").unwrap();
        assert_eq!(
            (available.status.as_str(), available.message.as_str()),
            ("False", "1 of 3 replicas are ready")
        );
        let status = desired_status(&cluster(3), 3);
        assert!(status.is_condition_true("Available"));
    }

    #[test]
    fn a_converged_status_is_computed_again_unchanged() {
        let mut converged = cluster(2);
        converged.status = Some(desired_status(&converged, 2));

        assert_eq!(
            Some(desired_status(&converged, 2)),
            converged.status,
            "no status write on the next pass"
        );
    }
}
