// Copyright 2026 The Memcached Authors.
// SPDX-License-Identifier: Apache-2.0

//! The Redis controller: runs `redis:7.2-alpine` as a StatefulSet that each `Redis` owns,
//! with a headless Service (stable names for the replicas), a PodDisruptionBudget and a
//! ConfigMap of the spec's configuration files.
//!
//! Each pass applies the four objects with server-side apply. The StatefulSet updates its Pods
//! only when they are deleted (`OnDelete`), so this controller rolls an update itself: one
//! ordinal at a time, highest first, waiting for each new Pod to be ready before the next,
//! and never below the budget (`minAvailable`): when deleting the next Pod would break it, the
//! rollout stops and `Progressing` says why (reason `RolloutBlocked`). A Pod that runs an old
//! template and is not ready anyway is replaced first, so a broken update can be fixed by
//! the next one.
//!
//! The ConfigMap is updated in place: a replica that restarts before its turn already reads
//! the new files. TODO(user): name it after the template hash if that matters for your image.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::apps::v1::{StatefulSet, StatefulSetSpec, StatefulSetUpdateStrategy};
use k8s_openapi::api::core::v1::{
    Capabilities, ConfigMap, ConfigMapVolumeSource, Container, ContainerPort,
    PersistentVolumeClaim, PersistentVolumeClaimSpec, Pod, PodSecurityContext, PodSpec,
    PodTemplateSpec, SeccompProfile, SecurityContext, Service, ServicePort, ServiceSpec,
    TopologySpreadConstraint, Volume, VolumeMount, VolumeResourceRequirements,
};
use k8s_openapi::api::core::v1::{Probe, TCPSocketAction};
use k8s_openapi::api::policy::v1::{PodDisruptionBudget, PodDisruptionBudgetSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use kube::ResourceExt;
use kube::api::{Api, DeleteParams, ListParams};
use rop::conditions;
use rop::controller::{Action, Context, EventType, Reconciler};

use memcached_operator_api::v1alpha1::Redis;
use memcached_operator_api::v1alpha1::RedisStatus;

/// The image each `Redis` runs, unless the manager's `REDIS_IMAGE` variable names another
/// (so an image upgrade needs no new operator build).
pub const DEFAULT_IMAGE: &str = "redis:7.2-alpine";
/// Environment variable of the manager that overrides [`DEFAULT_IMAGE`].
pub const IMAGE_ENV: &str = "REDIS_IMAGE";
/// Annotation of the Pod template with a hash of the template and the configuration: a Pod
/// whose value differs runs an old version and is updated.
pub const TEMPLATE_HASH: &str = "example.com/template-hash";
/// The `app.kubernetes.io/managed-by` label of the objects: the operator's name.
const MANAGED_BY: &str = "memcached-operator";
/// Name of the container in the Pods.
const CONTAINER_NAME: &str = "redis";
/// Name of each replica's volume, and of its PersistentVolumeClaim template.
const DATA_VOLUME: &str = "data";
/// Where the replica's volume is mounted.
const DATA_PATH: &str = "/data";
/// Where the configuration files are mounted.
const CONFIG_PATH: &str = "/etc/redis";
/// How long a settled `Redis` waits before it is looked at again.
const RESYNC_AFTER: Duration = Duration::from_secs(5 * 60);
/// How often a rollout in progress is looked at: Pods are not watched (the StatefulSet owns
/// them), so readiness is polled.
const ROLLOUT_POLL: Duration = Duration::from_secs(2);
/// How often a rollout the budget blocks is looked at again; a change of the object (a new
/// `minAvailable`) starts a pass at once.
const BLOCKED_POLL: Duration = Duration::from_secs(30);

/// Why a pass failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("failed to apply {0}")]
    Apply(String, #[source] kube::Error),
    #[error("failed to list the Pods of {0}")]
    ListPods(String, #[source] kube::Error),
    #[error("failed to delete {0}")]
    Delete(String, #[source] kube::Error),
    #[error("failed to update the status")]
    Status(#[source] kube::Error),
    // TODO(user): add variants for the errors of your own steps.
}

/// Reconciles `Redis` objects.
pub struct RedisReconciler;

impl Reconciler for RedisReconciler {
    type Kind = Redis;
    type Error = Error;

    async fn reconcile(
        &self,
        object: Arc<Self::Kind>,
        ctx: &Context<Self::Kind>,
    ) -> Result<Action, Error> {
        let result = self.roll(&object, ctx).await;
        // A failure is reported in the status too; the runtime logs it, records it as an Event
        // and retries.
        let status = match &result {
            Ok((status, _)) => status.clone(),
            Err(error) => failed_status(&object, error),
        };
        let written = ctx.update_status(&object, status).await;
        let (_, step) = result?;
        written.map_err(Error::Status)?;
        Ok(match step {
            Step::Done => Action::requeue(RESYNC_AFTER),
            Step::Blocked(_) => Action::requeue(BLOCKED_POLL),
            Step::Wait(_) | Step::Delete(_) => Action::requeue(ROLLOUT_POLL),
        })
    }
}

impl RedisReconciler {
    /// Applies the objects, takes the rollout's next step, and returns the status and the step.
    async fn roll(
        &self,
        object: &Redis,
        ctx: &Context<Redis>,
    ) -> Result<(RedisStatus, Step), Error> {
        let name = object.name_any();
        let apply_error = |what: &str| {
            let what = format!("{what} {name}");
            move |source| Error::Apply(what, source)
        };
        if !object.spec.config.is_empty() {
            let config = desired_config_map(object);
            ctx.apply(object, config)
                .await
                .map_err(apply_error("ConfigMap"))?;
        }
        let service = desired_service(object);
        ctx.apply(object, service)
            .await
            .map_err(apply_error("Service"))?;
        let budget = desired_budget(object);
        ctx.apply(object, budget)
            .await
            .map_err(apply_error("PodDisruptionBudget"))?;
        let set = desired_stateful_set(object, &image());
        let hash = template_hash(&set);
        ctx.apply(object, set)
            .await
            .map_err(apply_error("StatefulSet"))?;

        let namespace = object.namespace().unwrap_or_default();
        let pods = Api::<Pod>::namespaced(ctx.client().clone(), &namespace);
        let selector = selector(&labels(object));
        let listed = pods.list(&ListParams::default().labels(&selector)).await;
        let listed = listed.map_err(|source| Error::ListPods(name.clone(), source))?;
        let step = next_step(object, &listed.items, &hash);
        if let Step::Delete(pod) = &step {
            let deleted = pods.delete(pod, &DeleteParams::default()).await;
            match deleted {
                Ok(_) => {}
                Err(kube::Error::Api(status)) if status.code == 404 => {}
                Err(source) => return Err(Error::Delete(format!("Pod {pod}"), source)),
            }
            let note = format!("Deleted Pod {pod} to update it");
            ctx.event(object, EventType::Normal, "RollingUpdate", note)
                .await;
        }
        let (ready, updated) = counts(object, &listed.items, &hash);
        Ok((desired_status(object, ready, updated, &step), step))
    }
}

/// What the rollout does next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Every replica runs the current template and is ready.
    Done,
    /// Waits for a replica (named in the message) to be created or to become ready.
    Wait(String),
    /// Deletes this Pod, the highest ordinal that runs an old template, so that the
    /// StatefulSet creates it anew.
    Delete(String),
    /// Deleting the next Pod would leave fewer ready replicas than the budget asks (message).
    Blocked(String),
}

/// The image to run: `REDIS_IMAGE` from the manager's environment, else [`DEFAULT_IMAGE`].
fn image() -> String {
    std::env::var(IMAGE_ENV)
        .ok()
        .filter(|image| !image.is_empty())
        .unwrap_or_else(|| DEFAULT_IMAGE.into())
}

/// Labels of the StatefulSet, its Pods and the other objects; the selector matches them, so
/// they must not change.
fn labels(object: &Redis) -> BTreeMap<String, String> {
    let name = object.name_any();
    let labels = [
        ("app.kubernetes.io/name", "redis"),
        ("app.kubernetes.io/instance", name.as_str()),
        ("app.kubernetes.io/managed-by", MANAGED_BY),
    ];
    labels
        .into_iter()
        .map(|(key, value)| (key.to_string(), value.to_string()))
        .collect()
}

/// `labels` as a label selector, `key=value,...`.
fn selector(labels: &BTreeMap<String, String>) -> String {
    let pairs: Vec<String> = labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
    pairs.join(",")
}

fn metadata(object: &Redis) -> ObjectMeta {
    ObjectMeta {
        name: Some(object.name_any()),
        labels: Some(labels(object)),
        ..ObjectMeta::default()
    }
}

/// The ConfigMap of the spec's configuration files.
fn desired_config_map(object: &Redis) -> ConfigMap {
    ConfigMap {
        metadata: metadata(object),
        data: Some(object.spec.config.clone()),
        ..ConfigMap::default()
    }
}

/// The headless Service that gives each replica a stable DNS name,
/// `<name>-<ordinal>.<name>.<namespace>.svc`.
fn desired_service(object: &Redis) -> Service {
    Service {
        metadata: metadata(object),
        spec: Some(ServiceSpec {
            cluster_ip: Some("None".into()),
            selector: Some(labels(object)),
            ports: Some(vec![ServicePort {
                name: Some("redis".into()),
                port: object.spec.container_port,
                ..ServicePort::default()
            }]),
            // Replicas find each other before they are ready (a cluster forming); clients that
            // should reach only ready replicas need a Service of their own.
            publish_not_ready_addresses: Some(true),
            ..ServiceSpec::default()
        }),
        ..Service::default()
    }
}

/// The PodDisruptionBudget: `minAvailable` of the replicas stay through voluntary disruptions
/// (a node drain evicts no more).
fn desired_budget(object: &Redis) -> PodDisruptionBudget {
    PodDisruptionBudget {
        metadata: metadata(object),
        spec: Some(PodDisruptionBudgetSpec {
            min_available: Some(object.spec.min_available.clone()),
            selector: Some(LabelSelector {
                match_labels: Some(labels(object)),
                ..LabelSelector::default()
            }),
            ..PodDisruptionBudgetSpec::default()
        }),
        ..PodDisruptionBudget::default()
    }
}

/// The StatefulSet `object.spec` asks for: `replicas` Pods of the Redis container under the
/// "restricted" Pod Security Standard, each with its own volume, spread across zones, updated
/// only when this controller deletes them (`OnDelete`). The Pod template's
/// [`TEMPLATE_HASH`] annotation is set from the rest. The runtime adds the owner reference.
fn desired_stateful_set(object: &Redis, image: &str) -> StatefulSet {
    let labels = labels(object);
    let mut mounts = vec![VolumeMount {
        name: DATA_VOLUME.into(),
        mount_path: DATA_PATH.into(),
        ..VolumeMount::default()
    }];
    let mut volumes = Vec::new();
    if !object.spec.config.is_empty() {
        mounts.push(VolumeMount {
            name: "config".into(),
            mount_path: CONFIG_PATH.into(),
            read_only: Some(true),
            ..VolumeMount::default()
        });
        volumes.push(Volume {
            name: "config".into(),
            config_map: Some(ConfigMapVolumeSource {
                name: object.name_any(),
                ..ConfigMapVolumeSource::default()
            }),
            ..Volume::default()
        });
    }
    let container = Container {
        name: CONTAINER_NAME.into(),
        image: Some(image.into()),
        image_pull_policy: Some("IfNotPresent".into()),
        ports: Some(vec![ContainerPort {
            container_port: object.spec.container_port,
            name: Some("redis".into()),
            ..ContainerPort::default()
        }]),
        readiness_probe: Some(readiness_probe(object.spec.container_port)),
        volume_mounts: Some(mounts),
        security_context: Some(SecurityContext {
            run_as_non_root: Some(true),
            allow_privilege_escalation: Some(false),
            capabilities: Some(Capabilities {
                drop: Some(vec!["ALL".into()]),
                ..Capabilities::default()
            }),
            ..SecurityContext::default()
        }),
        ..Container::default()
    };
    let spread = object.spec.zone_spread.then(|| {
        vec![TopologySpreadConstraint {
            max_skew: 1,
            topology_key: "topology.kubernetes.io/zone".into(),
            when_unsatisfiable: "DoNotSchedule".into(),
            label_selector: Some(LabelSelector {
                match_labels: Some(labels.clone()),
                ..LabelSelector::default()
            }),
            ..TopologySpreadConstraint::default()
        }]
    });
    let claim = PersistentVolumeClaim {
        metadata: ObjectMeta {
            name: Some(DATA_VOLUME.into()),
            ..ObjectMeta::default()
        },
        spec: Some(PersistentVolumeClaimSpec {
            access_modes: Some(vec!["ReadWriteOnce".into()]),
            storage_class_name: object.spec.storage_class_name.clone(),
            resources: Some(VolumeResourceRequirements {
                requests: Some(BTreeMap::from([(
                    "storage".to_string(),
                    object.spec.storage_size.clone(),
                )])),
                ..VolumeResourceRequirements::default()
            }),
            ..PersistentVolumeClaimSpec::default()
        }),
        ..PersistentVolumeClaim::default()
    };
    let mut template = PodTemplateSpec {
        metadata: Some(ObjectMeta {
            labels: Some(labels.clone()),
            ..ObjectMeta::default()
        }),
        spec: Some(PodSpec {
            security_context: Some(PodSecurityContext {
                run_as_non_root: Some(true),
                seccomp_profile: Some(SeccompProfile {
                    type_: "RuntimeDefault".into(),
                    ..SeccompProfile::default()
                }),
                ..PodSecurityContext::default()
            }),
            containers: vec![container],
            volumes: Some(volumes),
            topology_spread_constraints: spread,
            ..PodSpec::default()
        }),
    };
    // The configuration is part of what a replica runs: a change of it rolls them too.
    let hashed = serde_json::to_string(&(&template, &object.spec.config))
        .expect("a Pod template serializes");
    let annotations = BTreeMap::from([(TEMPLATE_HASH.to_string(), fnv1a(&hashed))]);
    template.metadata.as_mut().expect("set above").annotations = Some(annotations);
    StatefulSet {
        metadata: metadata(object),
        spec: StatefulSetSpec {
            replicas: Some(object.spec.replicas),
            service_name: Some(object.name_any()),
            selector: LabelSelector {
                match_labels: Some(labels),
                ..LabelSelector::default()
            },
            template,
            update_strategy: Some(StatefulSetUpdateStrategy {
                type_: Some("OnDelete".into()),
                ..StatefulSetUpdateStrategy::default()
            }),
            volume_claim_templates: Some(vec![claim]),
            ..StatefulSetSpec::default()
        },
        ..StatefulSet::default()
    }
}

/// Ready once the port takes connections: the rollout waits for that before the next replica.
/// TODO(user): a probe that knows the image (a command that asks it whether it is in sync).
fn readiness_probe(port: i32) -> Probe {
    Probe {
        tcp_socket: Some(TCPSocketAction {
            port: IntOrString::Int(port),
            ..TCPSocketAction::default()
        }),
        period_seconds: Some(5),
        ..Probe::default()
    }
}

/// The [`TEMPLATE_HASH`] of a StatefulSet's Pod template.
fn template_hash(set: &StatefulSet) -> String {
    let template = set.spec.template.metadata.as_ref();
    let annotations = template.and_then(|metadata| metadata.annotations.as_ref());
    annotations
        .and_then(|annotations| annotations.get(TEMPLATE_HASH).cloned())
        .unwrap_or_default()
}

/// 64-bit FNV-1a of `text` in hex: the same on every build, unlike std's `DefaultHasher`.
fn fnv1a(text: &str) -> String {
    let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("{hash:016x}")
}

/// `minAvailable` as a number of replicas: a percentage of `replicas` rounded up, as the
/// disruption controller counts it.
fn min_available(object: &Redis) -> i32 {
    let replicas = object.spec.replicas;
    match &object.spec.min_available {
        IntOrString::Int(count) => *count,
        IntOrString::String(text) => {
            let percent: i32 = text.trim_end_matches('%').parse().unwrap_or(100);
            (replicas * percent + 99) / 100
        }
    }
}

/// The ordinal of Pod `<name>-<ordinal>`.
fn ordinal(object: &Redis, pod: &Pod) -> Option<i32> {
    let prefix = format!("{}-", object.name_any());
    pod.name_any().strip_prefix(&prefix)?.parse().ok()
}

fn is_ready(pod: &Pod) -> bool {
    let status = pod.status.as_ref();
    let conditions = status.and_then(|status| status.conditions.as_ref());
    let ready = conditions.is_some_and(|conditions| {
        conditions
            .iter()
            .any(|c| c.type_ == "Ready" && c.status == "True")
    });
    ready && pod.metadata.deletion_timestamp.is_none()
}

fn is_current(pod: &Pod, hash: &str) -> bool {
    pod.annotations().get(TEMPLATE_HASH).map(String::as_str) == Some(hash)
}

/// The rollout's next step for `object`'s `pods`, `hash` being the current template's: replace
/// a Pod that runs an old template and is not ready (it costs no availability), highest
/// first; wait while a replica is missing or not ready; else delete the highest ordinal that
/// runs an old template, if the replicas left ready keep the budget.
fn next_step(object: &Redis, pods: &[Pod], hash: &str) -> Step {
    let name = object.name_any();
    let mut replicas: Vec<(i32, &Pod)> = pods
        .iter()
        .filter_map(|pod| Some((ordinal(object, pod)?, pod)))
        .filter(|(ordinal, _)| *ordinal < object.spec.replicas)
        .collect();
    replicas.sort_by_key(|(ordinal, _)| -ordinal);
    let broken = replicas.iter().find(|(_, pod)| {
        let going = pod.metadata.deletion_timestamp.is_some();
        !is_current(pod, hash) && !is_ready(pod) && !going
    });
    if let Some((_, pod)) = broken {
        return Step::Delete(pod.name_any());
    }
    for ordinal in 0..object.spec.replicas {
        let pod = replicas
            .iter()
            .find(|(o, _)| *o == ordinal)
            .map(|(_, pod)| pod);
        match pod {
            None => return Step::Wait(format!("waiting for Pod {name}-{ordinal} to be created")),
            Some(pod) if pod.metadata.deletion_timestamp.is_some() => {
                return Step::Wait(format!("waiting for Pod {name}-{ordinal} to be replaced"));
            }
            Some(pod) if !is_ready(pod) => {
                return Step::Wait(format!("waiting for Pod {name}-{ordinal} to be ready"));
            }
            Some(_) => {}
        }
    }
    let Some((_, outdated)) = replicas.iter().find(|(_, pod)| !is_current(pod, hash)) else {
        return Step::Done;
    };
    let ready = replicas.len() as i32;
    let needed = min_available(object);
    if ready - 1 < needed {
        let pod = outdated.name_any();
        return Step::Blocked(format!(
            "updating Pod {pod} would leave {} of {} replicas ready, and the disruption budget keeps {needed}",
            ready - 1,
            object.spec.replicas,
        ));
    }
    Step::Delete(outdated.name_any())
}

/// How many of `object`'s `pods` are ready, and how many run the template `hash`.
fn counts(object: &Redis, pods: &[Pod], hash: &str) -> (i32, i32) {
    let replicas = object.spec.replicas;
    let ours = || {
        pods.iter()
            .filter(|pod| ordinal(object, pod).is_some_and(|o| o < replicas))
    };
    let ready = ours().filter(|pod| is_ready(pod)).count();
    let updated = ours().filter(|pod| is_current(pod, hash)).count();
    (ready as i32, updated as i32)
}

/// The status `object` reports with `ready` and `updated` replicas and the rollout's `step`.
fn desired_status(object: &Redis, ready: i32, updated: i32, step: &Step) -> RedisStatus {
    let generation = object.metadata.generation;
    let replicas = object.spec.replicas;
    let mut status = RedisStatus {
        observed_generation: generation,
        ready_replicas: ready,
        updated_replicas: updated,
        ..object.status.clone().unwrap_or_default()
    };
    let mut report = conditions::setter(&mut status.conditions, generation);
    let message = format!("{ready} of {replicas} replicas are ready");
    if ready >= replicas {
        report.set("Available", true, "AllReplicasReady", message);
    } else {
        report.set("Available", false, "ReplicasNotReady", message);
    }
    let updated_message = format!("{updated} of {replicas} replicas are updated");
    match step {
        Step::Done => {
            report.set("Progressing", false, "RolloutComplete", updated_message);
        }
        Step::Wait(why) => {
            let message = format!("{updated_message}; {why}");
            report.set("Progressing", true, "RollingUpdate", message);
        }
        Step::Delete(pod) => {
            let message = format!("{updated_message}; updating Pod {pod}");
            report.set("Progressing", true, "RollingUpdate", message);
        }
        Step::Blocked(why) => {
            report.set("Progressing", false, "RolloutBlocked", why.clone());
        }
    }
    report.set(
        "Degraded",
        false,
        "Reconciled",
        "The last reconciliation succeeded",
    );
    status
}

/// `object`'s status with `Degraded` true and the error as its message.
fn failed_status(object: &Redis, error: &Error) -> RedisStatus {
    let mut status = object.status.clone().unwrap_or_default();
    let message = rop::controller::error_chain(error);
    conditions::setter(&mut status.conditions, object.metadata.generation).set(
        "Degraded",
        true,
        "ReconcileFailed",
        message,
    );
    status
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::{PodCondition, PodStatus};

    use super::*;

    /// An object as the API server would hand it over: the spec's defaults filled in.
    fn object(replicas: i32, min_available: IntOrString) -> Redis {
        let spec = serde_json::json!({ "replicas": replicas, "minAvailable": min_available });
        let spec = serde_json::from_value(spec).expect("a valid spec");
        let mut object = Redis::new("test", spec);
        object.metadata.namespace = Some("default".into());
        object.metadata.generation = Some(1);
        object
    }

    /// Pod `test-<ordinal>` running the template `hash`, ready or not.
    fn pod(ordinal: i32, hash: &str, ready: bool) -> Pod {
        let annotations = BTreeMap::from([(TEMPLATE_HASH.to_string(), hash.to_string())]);
        Pod {
            metadata: ObjectMeta {
                name: Some(format!("test-{ordinal}")),
                annotations: Some(annotations),
                ..ObjectMeta::default()
            },
            status: Some(PodStatus {
                conditions: Some(vec![PodCondition {
                    type_: "Ready".into(),
                    status: if ready { "True" } else { "False" }.into(),
                    ..PodCondition::default()
                }]),
                ..PodStatus::default()
            }),
            ..Pod::default()
        }
    }

    #[test]
    fn the_stateful_set_is_restricted_spread_and_updated_on_delete() {
        let set = desired_stateful_set(&object(3, IntOrString::Int(2)), DEFAULT_IMAGE);

        let spec = set.spec;
        assert_eq!(spec.replicas, Some(3));
        assert_eq!(spec.service_name.as_deref(), Some("test"));
        assert_eq!(
            spec.update_strategy.unwrap().type_.as_deref(),
            Some("OnDelete")
        );
        let pod = spec.template.spec.unwrap();
        let spread = &pod.topology_spread_constraints.unwrap()[0];
        assert_eq!(
            (spread.max_skew, spread.topology_key.as_str()),
            (1, "topology.kubernetes.io/zone")
        );
        assert_eq!(spread.when_unsatisfiable, "DoNotSchedule");
        let container = &pod.containers[0];
        assert_eq!(container.image.as_deref(), Some(DEFAULT_IMAGE));
        let security = container.security_context.as_ref().unwrap();
        assert_eq!(security.allow_privilege_escalation, Some(false));
        let claim = &spec.volume_claim_templates.unwrap()[0];
        let requests = claim.spec.as_ref().unwrap().resources.as_ref().unwrap();
        assert_eq!(requests.requests.as_ref().unwrap()["storage"].0, "1Gi");
    }

    #[test]
    fn a_configuration_change_changes_the_template_hash() {
        let mut object = object(3, IntOrString::Int(2));
        let before = template_hash(&desired_stateful_set(&object, DEFAULT_IMAGE));
        object
            .spec
            .config
            .insert("app.conf".into(), "debug yes".into());
        let after = template_hash(&desired_stateful_set(&object, DEFAULT_IMAGE));
        assert_eq!(before.len(), 16);
        assert_ne!(before, after);
    }

    #[test]
    fn the_budget_counts_percentages_rounded_up() {
        let count = |min: IntOrString| min_available(&object(3, min));
        assert_eq!(count(IntOrString::Int(2)), 2);
        assert_eq!(count(IntOrString::String("50%".into())), 2);
        assert_eq!(count(IntOrString::String("100%".into())), 3);
    }

    #[test]
    fn the_rollout_goes_highest_ordinal_first_one_ready_pod_at_a_time() {
        let object = object(3, IntOrString::Int(2));
        let old = [
            pod(0, "old", true),
            pod(1, "old", true),
            pod(2, "old", true),
        ];
        assert_eq!(
            next_step(&object, &old, "new"),
            Step::Delete("test-2".into())
        );

        let waiting = [
            pod(0, "old", true),
            pod(1, "old", true),
            pod(2, "new", false),
        ];
        assert_eq!(
            next_step(&object, &waiting, "new"),
            Step::Wait("waiting for Pod test-2 to be ready".into())
        );
        // A Pod of an old template that is not ready is replaced before anything waits on it.
        let broken = [
            pod(0, "old", true),
            pod(1, "old", true),
            pod(2, "older", false),
        ];
        assert_eq!(
            next_step(&object, &broken, "new"),
            Step::Delete("test-2".into())
        );
        // A Pod on its way out is waited for, not deleted again.
        let mut going = pod(2, "older", false);
        let now = serde_json::json!("2026-01-01T00:00:00Z");
        going.metadata.deletion_timestamp = serde_json::from_value(now).ok();
        let replacing = [pod(0, "old", true), pod(1, "old", true), going];
        assert_eq!(
            next_step(&object, &replacing, "new"),
            Step::Wait("waiting for Pod test-2 to be replaced".into())
        );
        let missing = [pod(0, "old", true), pod(1, "old", true)];
        assert_eq!(
            next_step(&object, &missing, "new"),
            Step::Wait("waiting for Pod test-2 to be created".into())
        );

        let next = [
            pod(0, "old", true),
            pod(1, "old", true),
            pod(2, "new", true),
        ];
        assert_eq!(
            next_step(&object, &next, "new"),
            Step::Delete("test-1".into())
        );
        let done = [
            pod(0, "new", true),
            pod(1, "new", true),
            pod(2, "new", true),
        ];
        assert_eq!(next_step(&object, &done, "new"), Step::Done);
    }

    #[test]
    fn an_update_that_would_break_the_budget_is_blocked_and_reported() {
        let object = object(3, IntOrString::String("100%".into()));
        let old = [
            pod(0, "old", true),
            pod(1, "old", true),
            pod(2, "old", true),
        ];

        let step = next_step(&object, &old, "new");
        let (ready, updated) = counts(&object, &old, "new");
        let status = desired_status(&object, ready, updated, &step);

        let progressing = conditions::find(&status.conditions, "Progressing").unwrap();
        assert_eq!(
            (progressing.status.as_str(), progressing.reason.as_str()),
            ("False", "RolloutBlocked")
        );
        assert_eq!(
            progressing.message,
            "updating Pod test-2 would leave 2 of 3 replicas ready, and the disruption budget keeps 3"
        );
        assert_eq!((status.ready_replicas, status.updated_replicas), (3, 0));
        assert!(conditions::is_true(&status.conditions, "Available"));
    }
}
