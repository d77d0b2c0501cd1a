//! Controller for `RedisCluster`: keeps `spec.replicas` Redis Pods, named `<cluster>-<n>`.
//!
//! Observe the Pods the cluster owns, compute the difference with the desired set
//! (Δ = desired − current), act on it alone: create the missing replicas, delete the surplus.
//! A converged cluster is not written again (f(f(x)) = f(x)).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use futures::future::BoxFuture;
use k8s_openapi::api::core::v1::{Container, ContainerPort, Pod, PodSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, ObjectMeta, Time};
use k8s_openapi::jiff::Timestamp;
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams, PostParams};
use kube::runtime::controller::{Action, Controller};
use kube::runtime::finalizer::{self, Event, finalizer};
use kube::runtime::watcher;
use kube::{Client, Resource, ResourceExt};
use redis_operator_api::v1alpha1::{RedisCluster, RedisClusterStatus};
use tokio_util::sync::CancellationToken;
use tracing::{debug, info, warn};

use super::{Context, error_chain, set_condition};

/// Name of this controller in logs and metrics.
pub const CONTROLLER_NAME: &str = "rediscluster";
/// Finalizer that keeps a `RedisCluster` until `cleanup` has run.
pub const FINALIZER: &str = "cache.example.com/finalizer";
/// Label that ties a Pod to its cluster.
const CLUSTER_LABEL: &str = "cache.example.com/cluster";
/// Periodic re-check, to repair drift nobody told us about.
const REQUEUE_AFTER: Duration = Duration::from_secs(5 * 60);
/// Retry delay after a failed reconciliation.
const ERROR_REQUEUE_AFTER: Duration = Duration::from_secs(15);

/// Why a reconciliation failed. `key` is the cluster's `namespace/name`.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{key}: object has no namespace")]
    MissingNamespace { key: String },

    #[error("{key}: failed to {action}")]
    Api {
        key: String,
        /// What was attempted, e.g. `create Pod test-1`.
        action: String,
        #[source]
        source: Box<kube::Error>,
    },

    #[error("{key}: failed to update the finalizer")]
    Finalizer {
        key: String,
        #[source]
        source: Box<finalizer::Error<Error>>,
    },
}

impl Error {
    /// Short label for the `reason` of `controller_runtime_reconcile_errors_total`.
    pub fn metric_label(&self) -> &'static str {
        match self {
            Self::MissingNamespace { .. } => "missing_namespace",
            Self::Api { .. } => "api",
            Self::Finalizer { .. } => "finalizer",
        }
    }
}

/// Runs the controller until `shutdown` is cancelled.
pub fn run(
    client: Client,
    ctx: Arc<Context>,
    shutdown: CancellationToken,
) -> BoxFuture<'static, ()> {
    Box::pin(async move {
        info!(controller = CONTROLLER_NAME, "starting controller");
        ctx.metrics.init_controller(CONTROLLER_NAME);
        // `owns(Pod)` on the types: a lost Pod reconciles its cluster at once.
        let controller = Controller::new(
            Api::<RedisCluster>::all(client.clone()),
            watcher::Config::default(),
        );
        super::watch_related(controller, &client)
            .graceful_shutdown_on(shutdown.cancelled_owned())
            .run(reconcile, error_policy, ctx)
            .for_each(|result| async move {
                match result {
                    Ok((object, action)) => debug!(%object, ?action, "reconciled"),
                    Err(err) => warn!(error = error_chain(&err), "reconcile failed"),
                }
            })
            .await;
        info!(controller = CONTROLLER_NAME, "controller stopped");
    })
}

/// Brings the cluster in line with one `RedisCluster`, in a span naming it.
pub async fn reconcile(obj: Arc<RedisCluster>, ctx: Arc<Context>) -> Result<Action, Error> {
    super::instrumented(
        &ctx,
        CONTROLLER_NAME,
        obj.as_ref(),
        reconcile_object(&obj, &ctx),
    )
    .await
}

/// Retries a failed reconciliation later.
pub fn error_policy(_obj: Arc<RedisCluster>, err: &Error, ctx: Arc<Context>) -> Action {
    ctx.metrics
        .reconcile_failed(CONTROLLER_NAME, err.metric_label());
    Action::requeue(ERROR_REQUEUE_AFTER)
}

async fn reconcile_object(obj: &RedisCluster, ctx: &Context) -> Result<Action, Error> {
    let key = key(obj);
    let clusters = Api::<RedisCluster>::namespaced(ctx.client.clone(), &namespace(obj)?);
    let latest = clusters
        .get_opt(&obj.name_any())
        .await
        .map_err(|source| api_error(obj, "get the cluster", source))?;
    let Some(latest) = latest else {
        return Ok(Action::await_change());
    };
    finalizer(&clusters, FINALIZER, Arc::new(latest), |event| async move {
        match event {
            Event::Apply(obj) => apply(&obj, ctx).await,
            // The Pods carry owner references: Kubernetes deletes them with the cluster.
            Event::Cleanup(_) => Ok(Action::await_change()),
        }
    })
    .await
    .map_err(|err| match err {
        finalizer::Error::ApplyFailed(err) | finalizer::Error::CleanupFailed(err) => err,
        other => Error::Finalizer {
            key,
            source: Box::new(other),
        },
    })
}

/// The replicas to create and the Pods to delete to get from `existing` Pod names to
/// `replicas` Pods named `<cluster>-0` .. `<cluster>-<replicas - 1>`, both sorted (the API
/// lists Pods in no particular order; the work should not depend on it).
pub fn plan(cluster: &str, replicas: i32, existing: &[String]) -> (Vec<String>, Vec<String>) {
    let desired: Vec<String> = (0..replicas.max(0))
        .map(|i| format!("{cluster}-{i}"))
        .collect();
    let missing = desired
        .iter()
        .filter(|name| !existing.contains(name))
        .cloned()
        .collect();
    let mut surplus: Vec<String> = existing
        .iter()
        .filter(|name| !desired.contains(name))
        .cloned()
        .collect();
    surplus.sort();
    (missing, surplus)
}

/// Observe → Diff → Act for the Pods, then report the ready ones in the status.
async fn apply(obj: &RedisCluster, ctx: &Context) -> Result<Action, Error> {
    let key = key(obj);
    let pods = Api::<Pod>::namespaced(ctx.client.clone(), &namespace(obj)?);
    let selector = format!("{CLUSTER_LABEL}={}", obj.name_any());
    let owned = pods
        .list(&ListParams::default().labels(&selector))
        .await
        .map_err(|source| api_error(obj, "list Pods", source))?
        .items;
    let names: Vec<String> = owned.iter().map(ResourceExt::name_any).collect();

    let (missing, surplus) = plan(&obj.name_any(), obj.spec.replicas, &names);
    for name in &missing {
        pods.create(&PostParams::default(), &desired_pod(obj, name))
            .await
            .map_err(|source| api_error(obj, &format!("create Pod {name}"), source))?;
        info!(%key, pod = %name, "created a missing replica");
    }
    for name in &surplus {
        pods.delete(name, &DeleteParams::default())
            .await
            .map_err(|source| api_error(obj, &format!("delete Pod {name}"), source))?;
        info!(%key, pod = %name, "deleted a surplus replica");
    }

    let ready = owned
        .iter()
        .filter(|pod| !surplus.contains(&pod.name_any()) && is_ready(pod))
        .count();
    let status = desired_status(
        obj,
        i32::try_from(ready).unwrap_or(i32::MAX),
        Time(Timestamp::now()),
    );
    if obj.status.as_ref() != Some(&status) {
        let patch = serde_json::json!({ "status": status });
        Api::<RedisCluster>::namespaced(ctx.client.clone(), &namespace(obj)?)
            .patch_status(
                &obj.name_any(),
                &PatchParams::default(),
                &Patch::Merge(&patch),
            )
            .await
            .map_err(|source| api_error(obj, "update the status", source))?;
    }
    Ok(Action::requeue(REQUEUE_AFTER))
}

/// Replica `name` of `obj`, owned by it.
fn desired_pod(obj: &RedisCluster, name: &str) -> Pod {
    Pod {
        metadata: ObjectMeta {
            name: Some(name.into()),
            namespace: obj.namespace(),
            labels: Some(BTreeMap::from([(
                CLUSTER_LABEL.to_string(),
                obj.name_any(),
            )])),
            owner_references: obj.controller_owner_ref(&()).map(|owner| vec![owner]),
            ..ObjectMeta::default()
        },
        spec: Some(PodSpec {
            containers: vec![Container {
                name: "redis".into(),
                image: Some(obj.spec.image.clone()),
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

fn is_ready(pod: &Pod) -> bool {
    let conditions = pod
        .status
        .as_ref()
        .and_then(|s| s.conditions.as_deref())
        .unwrap_or_default();
    conditions
        .iter()
        .any(|c| c.type_ == "Ready" && c.status == "True")
}

/// The status for `ready` ready replicas; `now` stamps conditions that change.
fn desired_status(obj: &RedisCluster, ready: i32, now: Time) -> RedisClusterStatus {
    let generation = obj.metadata.generation;
    let mut status = RedisClusterStatus {
        ready_replicas: ready,
        observed_generation: generation,
        ..obj.status.clone().unwrap_or_default()
    };
    let all = ready >= obj.spec.replicas;
    set_condition(
        &mut status.conditions,
        Condition {
            type_: "Available".into(),
            status: if all { "True" } else { "False" }.into(),
            reason: if all {
                "AllReplicasReady"
            } else {
                "ReplicasNotReady"
            }
            .into(),
            message: format!("{ready} of {} replicas are ready", obj.spec.replicas),
            observed_generation: generation,
            last_transition_time: now,
        },
    );
    status
}

fn api_error(obj: &RedisCluster, action: &str, source: kube::Error) -> Error {
    Error::Api {
        key: key(obj),
        action: action.into(),
        source: Box::new(source),
    }
}

fn key(obj: &RedisCluster) -> String {
    format!("{}/{}", obj.namespace().unwrap_or_default(), obj.name_any())
}

fn namespace(obj: &RedisCluster) -> Result<String, Error> {
    obj.namespace()
        .ok_or_else(|| Error::MissingNamespace { key: key(obj) })
}

#[cfg(test)]
mod tests {
    use redis_operator_api::v1alpha1::RedisClusterSpec;

    use super::*;
    use crate::controller::testing::FakeApi;
    use crate::metrics::Metrics;

    const NAMESPACE: &str = "default";

    async fn cluster(replicas: i32) -> (FakeApi, Arc<Context>) {
        let fake = FakeApi::start::<RedisCluster>(Vec::new(), None).await;
        let ctx = Arc::new(Context {
            client: fake.client.clone(),
            metrics: Metrics::default(),
        });
        let mut obj = RedisCluster::new(
            "test",
            RedisClusterSpec {
                replicas,
                image: "redis:7.2-alpine".into(),
            },
        );
        obj.metadata.namespace = Some(NAMESPACE.into());
        clusters(&ctx)
            .create(&PostParams::default(), &obj)
            .await
            .unwrap();
        (fake, ctx)
    }

    fn clusters(ctx: &Context) -> Api<RedisCluster> {
        Api::namespaced(ctx.client.clone(), NAMESPACE)
    }

    async fn pass(ctx: &Arc<Context>) {
        let obj = clusters(ctx).get("test").await.unwrap();
        reconcile(Arc::new(obj), ctx.clone()).await.unwrap();
    }

    async fn pod_names(ctx: &Context) -> Vec<String> {
        let pods = Api::<Pod>::namespaced(ctx.client.clone(), NAMESPACE);
        let mut names: Vec<String> = pods
            .list(&ListParams::default())
            .await
            .unwrap()
            .items
            .iter()
            .map(ResourceExt::name_any)
            .collect();
        names.sort();
        names
    }

    #[test]
    fn plan_creates_the_missing_and_deletes_the_surplus() {
        let existing = ["db-0".to_string(), "db-2".to_string(), "db-7".to_string()];
        assert_eq!(
            plan("db", 3, &existing),
            (vec!["db-1".to_string()], vec!["db-7".to_string()])
        );
        assert_eq!(plan("db", 0, &existing).1, existing);
    }

    #[tokio::test]
    async fn lost_replicas_are_created_again() {
        let (fake, ctx) = cluster(3).await;
        pass(&ctx).await; // adds the finalizer
        pass(&ctx).await;
        assert_eq!(pod_names(&ctx).await, ["test-0", "test-1", "test-2"]);

        // Two replicas are lost (a node went away).
        let pods = Api::<Pod>::namespaced(ctx.client.clone(), NAMESPACE);
        for name in ["test-0", "test-2"] {
            pods.delete(name, &DeleteParams::default()).await.unwrap();
        }
        fake.take_writes();

        pass(&ctx).await;

        assert_eq!(pod_names(&ctx).await, ["test-0", "test-1", "test-2"]);
        assert_eq!(
            fake.take_writes(),
            ["create Pod default/test-0", "create Pod default/test-2"]
        );
        let recreated = pods.get("test-0").await.unwrap();
        let owner = &recreated.owner_references()[0];
        assert_eq!(
            (owner.kind.as_str(), owner.name.as_str()),
            ("RedisCluster", "test")
        );
    }

    #[tokio::test]
    async fn a_healthy_cluster_is_not_written_again() {
        let (fake, ctx) = cluster(2).await;
        pass(&ctx).await;
        pass(&ctx).await;
        fake.take_writes();

        pass(&ctx).await;
        pass(&ctx).await;

        assert_eq!(fake.take_writes(), Vec::<String>::new());
    }

    #[tokio::test]
    async fn scaling_down_removes_the_highest_replicas_and_reports_readiness() {
        let (fake, ctx) = cluster(3).await;
        pass(&ctx).await;
        pass(&ctx).await;
        let scale = serde_json::json!({ "spec": { "replicas": 1 } });
        clusters(&ctx)
            .patch("test", &PatchParams::default(), &Patch::Merge(&scale))
            .await
            .unwrap();
        fake.take_writes();

        pass(&ctx).await;

        assert_eq!(pod_names(&ctx).await, ["test-0"]);
        assert_eq!(
            fake.take_writes(),
            [
                "delete default/test-1",
                "delete default/test-2",
                "patch status default/test"
            ]
        );
        let status = clusters(&ctx).get("test").await.unwrap().status.unwrap();
        assert_eq!(
            status.ready_replicas, 0,
            "the fake runs no kubelet: no Pod is ready"
        );
        assert_eq!(status.conditions[0].message, "0 of 1 replicas are ready");
    }
}
