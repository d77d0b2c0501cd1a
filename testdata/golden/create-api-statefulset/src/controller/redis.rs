// Copyright 2026 The Memcached Authors.
// SPDX-License-Identifier: Apache-2.0

//! The Redis controller: runs `redis:7.2-alpine` as a StatefulSet that each `Redis` owns,
//! with a headless Service (stable names for the replicas), a PodDisruptionBudget and a
//! ConfigMap of the spec's configuration files.
//!
//! Each pass applies the four objects with server-side apply, then takes the rollout's next
//! step (rop's `workload::roll`): the StatefulSet updates its Pods only when they are deleted
//! (`OnDelete`), so the controller deletes them one ordinal at a time, highest first, waiting
//! for each new Pod to be ready before the next, and never below the budget (`minAvailable`):
//! when deleting the next Pod would break it, the rollout stops and `Progressing` says why
//! (reason `RolloutBlocked`). The controller watches the Pods, so a Pod that becomes ready
//! moves the rollout on at once. Deleting a `Redis` needs no cleanup here: the garbage
//! collector deletes what it owns (the volumes stay, as a StatefulSet's do).
//!
//! The ConfigMap is updated in place: a replica that restarts before its turn already reads
//! the new files. TODO(user): name it after the template hash if that matters for your image.

use std::sync::Arc;
use std::time::Duration;

use rop::controller::{
    Action, Cache, Changes, Config, Context, ObjectRef, Reconciler, Watch, Watched,
};
use rop::k8s_openapi::api::apps::v1::StatefulSet;
use rop::k8s_openapi::api::core::v1::{
    ConfigMap, ConfigMapVolumeSource, Container, ContainerPort, ServicePort, Volume, VolumeMount,
};
use rop::k8s_openapi::api::core::v1::{Probe, TCPSocketAction};
use rop::k8s_openapi::api::policy::v1::PodDisruptionBudget;
use rop::k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use rop::kube::ResourceExt;
use rop::workload::{self, Error, Rollout};

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
/// The operator, in the `app.kubernetes.io/managed-by` label of what it runs.
const MANAGED_BY: &str = "memcached-operator";
/// Name of the container in the Pods.
const CONTAINER_NAME: &str = "redis";
/// Name of each replica's volume, and of its PersistentVolumeClaim template.
const DATA_VOLUME: &str = "data";
/// Where the replica's volume is mounted.
const DATA_PATH: &str = "/data";
/// Where the configuration files are mounted.
const CONFIG_PATH: &str = "/etc/redis";
/// The user the container runs as: the image's own, which must not be root (the Pods run
/// with `runAsNonRoot`): name one with `Some(uid)` for an image that starts as root.
const RUN_AS_USER: Option<i64> = None;
/// How long a settled `Redis` waits before it is looked at again.
const RESYNC_AFTER: Duration = Duration::from_secs(5 * 60);

/// Reconciles `Redis` objects.
pub struct RedisReconciler;

impl Reconciler for RedisReconciler {
    type Kind = Redis;
    // TODO(user): an error enum of your own (with a `#[from] rop::workload::Error` variant) for
    // steps of your own.
    type Error = Error;

    async fn reconcile(
        &self,
        object: Arc<Self::Kind>,
        ctx: &Context<Self::Kind>,
    ) -> Result<Action, Error> {
        let rolled = roll(&object, ctx).await;
        // A failure is reported in `Degraded` too; the runtime logs it, records it as an Event
        // and retries.
        let status = |rollout: &Rollout| desired_status(&object, rollout);
        let rollout = workload::write_status(ctx, &object, rolled, status).await?;
        Ok(rollout.next_look(RESYNC_AFTER))
    }

    /// A change of a Pod (ready, gone) reconciles the `Redis` it runs for.
    fn map_watched(&self, pod: &Watched, _: &Cache<Redis>) -> Vec<ObjectRef<Redis>> {
        workload::instance_of(pod, MANAGED_BY)
    }

    /// The rollout reads the Pods, so an update of the StatefulSet's or the budget's status
    /// (each Pod that comes or goes makes one) starts no pass; other changes still do.
    fn config(&self) -> Config<Redis> {
        let spec_changes = || Watch::default().changes(Changes::Spec);
        Config::default()
            .watch::<StatefulSet>(spec_changes())
            .watch::<PodDisruptionBudget>(spec_changes())
    }
}

/// Applies the objects `object` owns, then takes the rollout's next step.
async fn roll(object: &Redis, ctx: &Context<Redis>) -> Result<Rollout, Error> {
    // A budget that is neither a count nor a percentage stops here, before it is applied.
    let (replicas, budget) = (object.spec.replicas, &object.spec.min_available);
    let keep = workload::min_available(replicas, budget).map_err(Error::MinAvailable)?;
    let labels = workload::labels(object, MANAGED_BY);
    if !object.spec.config.is_empty() {
        let config = ConfigMap {
            metadata: workload::metadata(object, &labels),
            data: Some(object.spec.config.clone()),
            ..ConfigMap::default()
        };
        ctx.apply(object, config).await?;
    }
    let service = workload::headless_service(object, &labels, service_ports(object));
    ctx.apply(object, service).await?;
    let min_available = object.spec.min_available.clone();
    let budget = workload::disruption_budget(object, &labels, min_available);
    ctx.apply(object, budget).await?;
    let image = workload::image(IMAGE_ENV, DEFAULT_IMAGE);
    let desired = desired_stateful_set(object, &image);
    let set = ctx.apply(object, desired).await?;
    workload::roll(ctx, object, &set, TEMPLATE_HASH, keep).await
}

/// The ports the replicas talk to each other and to clients on.
fn service_ports(object: &Redis) -> Vec<ServicePort> {
    vec![ServicePort {
        name: Some("redis".into()),
        port: object.spec.container_port,
        ..ServicePort::default()
    }]
}

/// The StatefulSet `object.spec` asks for: `replicas` Pods of the Redis container under the
/// "restricted" Pod Security Standard, each with its own volume, spread across zones, updated
/// only when this controller deletes them (`OnDelete`). The Pod template's [`TEMPLATE_HASH`]
/// annotation is set from the rest. The runtime adds the owner reference.
fn desired_stateful_set(object: &Redis, image: &str) -> StatefulSet {
    let labels = workload::labels(object, MANAGED_BY);
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
        ports: Some(vec![ContainerPort {
            container_port: object.spec.container_port,
            name: Some("redis".into()),
            ..ContainerPort::default()
        }]),
        readiness_probe: Some(readiness_probe(object.spec.container_port)),
        volume_mounts: Some(mounts),
        ..Container::default()
    };
    let mut pod = workload::restricted_pod(vec![container], RUN_AS_USER);
    pod.volumes = Some(volumes);
    if object.spec.zone_spread {
        pod.topology_spread_constraints = Some(vec![workload::zone_spread(&labels)]);
    }
    let (size, class) = (&object.spec.storage_size, &object.spec.storage_class_name);
    let claim = workload::volume_claim(DATA_VOLUME, size.clone(), class.clone());
    let replicas = object.spec.replicas;
    let mut set = workload::stateful_set(object, &labels, replicas, pod, vec![claim]);
    // The configuration is part of what a replica runs: a change of it rolls them too.
    workload::stamp_template(&mut set.spec.template, TEMPLATE_HASH, &object.spec.config);
    set
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

/// The status `object` reports for its `rollout`: the replicas ready and updated, and the
/// conditions (`Available`, `Progressing`, `Degraded` false).
fn desired_status(object: &Redis, rollout: &Rollout) -> RedisStatus {
    let generation = object.metadata.generation;
    let mut status = RedisStatus {
        observed_generation: generation,
        ready_replicas: rollout.ready,
        updated_replicas: rollout.updated,
        ..object.status.clone().unwrap_or_default()
    };
    workload::report_rollout(&mut status, generation, rollout);
    status
}

#[cfg(test)]
mod tests {
    use rop::conditions::HasConditions;
    use rop::k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
    use rop::workload::Step;

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

    fn template_hash(set: &StatefulSet) -> String {
        let template = set.spec.template.metadata.as_ref().unwrap();
        template.annotations.as_ref().unwrap()[TEMPLATE_HASH].clone()
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
    fn the_status_reports_the_rollout() {
        let object = object(3, IntOrString::Int(2));
        let rollout = Rollout {
            replicas: 3,
            ready: 3,
            updated: 1,
            step: Step::Delete("test-1".into()),
        };

        let status = desired_status(&object, &rollout);

        assert_eq!((status.ready_replicas, status.updated_replicas), (3, 1));
        let progressing = status.condition("Progressing").unwrap();
        assert_eq!(
            progressing.message,
            "1 of 3 replicas are updated; updating Pod test-1"
        );
        assert!(status.is_condition_true("Available"));
    }
}
