// Copyright 2026 The Memcached Authors.
// SPDX-License-Identifier: Apache-2.0

//! The Memcached controller: runs `memcached:1.6.26-alpine` as a Deployment that each `Memcached` owns.
//!
//! Each pass applies the Deployment the spec asks for with server-side apply (the fields set
//! here belong to this controller and are taken back when someone changes them; a Deployment
//! already as asked is not written), then reports what the Deployment says in `status`, or why
//! the pass failed in `Degraded`. Deleting a `Memcached` needs no cleanup here: the garbage
//! collector deletes the Deployment it owns, so objects get no finalizer. The restricted Pods,
//! the labels and the conditions are rop's `workload` module.

use std::sync::Arc;
use std::time::Duration;

use rop::controller::{Action, Context, Reconciler};
use rop::k8s_openapi::api::apps::v1::Deployment;
use rop::k8s_openapi::api::core::v1::{Container, ContainerPort};
use rop::workload::{self, Error};

use memcached_operator_api::v1alpha1::Memcached;
use memcached_operator_api::v1alpha1::MemcachedStatus;

/// The image each `Memcached` runs, unless the manager's `MEMCACHED_IMAGE` variable names another
/// (so an image upgrade needs no new operator build).
pub const DEFAULT_IMAGE: &str = "memcached:1.6.26-alpine";
/// Environment variable of the manager that overrides [`DEFAULT_IMAGE`].
pub const IMAGE_ENV: &str = "MEMCACHED_IMAGE";
/// The operator, in the `app.kubernetes.io/managed-by` label of what it runs.
const MANAGED_BY: &str = "memcached-operator";
/// Name of the container in the Deployment's Pods.
const CONTAINER_NAME: &str = "memcached";
/// The container's command (`--image-container-command`).
const COMMAND: &[&str] = &["memcached", "-m=64", "-o", "modern", "-v"];
/// The user the container runs as (`--run-as-user`), and the group of the Pod's volumes.
const RUN_AS_USER: Option<i64> = Some(1001);
/// How long a reconciled `Memcached` waits before it is looked at again.
const RESYNC_AFTER: Duration = Duration::from_secs(5 * 60);

/// Reconciles `Memcached` objects.
pub struct MemcachedReconciler;

impl Reconciler for MemcachedReconciler {
    type Kind = Memcached;
    // TODO(user): an error enum of your own (with a `#[from] rop::workload::Error` variant) for
    // steps of your own.
    type Error = Error;

    async fn reconcile(
        &self,
        object: Arc<Self::Kind>,
        ctx: &Context<Self::Kind>,
    ) -> Result<Action, Error> {
        let image = workload::image(IMAGE_ENV, DEFAULT_IMAGE);
        let deployment = desired_deployment(&object, &image);
        let applied = ctx.apply(&object, deployment).await;
        // A failure is reported in `Degraded` too; the runtime logs it, records it as an Event
        // and retries.
        let status = |deployment: &Deployment| desired_status(&object, deployment);
        workload::write_status(ctx, &object, applied, status).await?;
        Ok(Action::requeue(RESYNC_AFTER))
    }
}

/// The Deployment `object.spec` asks for: `size` replicas of the Memcached container under the
/// "restricted" Pod Security Standard (no root, no privilege escalation, no capabilities, the
/// runtime's default seccomp profile). The runtime adds the owner reference.
fn desired_deployment(object: &Memcached, image: &str) -> Deployment {
    let container = Container {
        name: CONTAINER_NAME.into(),
        image: Some(image.into()),
        command: Some(COMMAND.iter().map(|word| word.to_string()).collect()),
        ports: Some(vec![ContainerPort {
            container_port: object.spec.container_port,
            name: Some("memcached".into()),
            ..ContainerPort::default()
        }]),
        ..Container::default()
    };
    let pod = workload::restricted_pod(vec![container], RUN_AS_USER);
    workload::deployment(object, MANAGED_BY, object.spec.size, pod)
}

/// The status `object` reports for its `deployment`: `Available` once every replica is,
/// `Progressing` while the Deployment rolls out, `Degraded` false.
fn desired_status(object: &Memcached, deployment: &Deployment) -> MemcachedStatus {
    let generation = object.metadata.generation;
    let mut status = MemcachedStatus {
        observed_generation: generation,
        ..object.status.clone().unwrap_or_default()
    };
    workload::report_deployment(&mut status, generation, object.spec.size, deployment);
    status
}

#[cfg(test)]
mod tests {
    use rop::conditions::HasConditions;
    use rop::k8s_openapi::api::apps::v1::DeploymentStatus;

    use memcached_operator_api::v1alpha1::MemcachedSpec;

    use super::*;

    fn object(size: i32) -> Memcached {
        let spec = MemcachedSpec {
            size,
            container_port: 11211,
        };

        let mut object = Memcached::new("test", spec);
        object.metadata.namespace = Some("default".into());
        object.metadata.generation = Some(1);
        object
    }

    /// The Deployment of `object` as the API server reports it with `available` of `updated`
    /// replicas ready.
    fn observed(object: &Memcached, updated: i32, available: i32) -> Deployment {
        let mut deployment = desired_deployment(object, DEFAULT_IMAGE);
        deployment.metadata.generation = Some(1);
        deployment.status = Some(DeploymentStatus {
            observed_generation: Some(1),
            updated_replicas: Some(updated),
            available_replicas: Some(available),
            ..DeploymentStatus::default()
        });
        deployment
    }

    fn condition(status: &MemcachedStatus, type_: &str) -> (String, String, String) {
        let c = status.condition(type_).expect(type_);
        (c.status.clone(), c.reason.clone(), c.message.clone())
    }

    fn expected(status: &str, reason: &str, message: &str) -> (String, String, String) {
        (status.into(), reason.into(), message.into())
    }

    #[test]
    fn the_deployment_runs_the_image_restricted_with_the_spec_replicas() {
        let deployment = desired_deployment(&object(2), DEFAULT_IMAGE);

        let spec = deployment.spec;
        assert_eq!(spec.replicas, Some(2));
        assert_eq!(
            spec.selector.match_labels.as_ref(),
            spec.template.metadata.unwrap().labels.as_ref()
        );
        let pod = spec.template.spec.unwrap();
        let pod_security = pod.security_context.unwrap();
        assert_eq!(pod_security.run_as_non_root, Some(true));
        assert_eq!(
            pod_security.seccomp_profile.unwrap().type_,
            "RuntimeDefault"
        );
        let [container] = pod.containers.as_slice() else {
            panic!("one container: {:?}", pod.containers)
        };
        assert_eq!(container.image.as_deref(), Some(DEFAULT_IMAGE));
        assert_eq!(
            container.command.as_deref(),
            Some(
                &[
                    "memcached".to_string(),
                    "-m=64".to_string(),
                    "-o".to_string(),
                    "modern".to_string(),
                    "-v".to_string(),
                ][..]
            )
        );
        assert_eq!(container.ports.as_deref().unwrap()[0].container_port, 11211);
        let security = container.security_context.as_ref().unwrap();
        assert_eq!(security.run_as_non_root, Some(true));
        assert_eq!(security.run_as_user, Some(1001));
        assert_eq!(security.allow_privilege_escalation, Some(false));
        assert_eq!(
            security.capabilities.as_ref().unwrap().drop.as_deref(),
            Some(&["ALL".to_string()][..])
        );
    }

    #[test]
    fn a_rolling_deployment_is_progressing_and_not_yet_available() {
        let object = object(3);

        let status = desired_status(&object, &observed(&object, 1, 1));

        assert_eq!(status.observed_generation, Some(1));
        assert_eq!(
            condition(&status, "Available"),
            expected(
                "False",
                "ReplicasUnavailable",
                "1 of 3 replicas of Deployment test are available"
            )
        );
        assert_eq!(
            condition(&status, "Progressing"),
            expected(
                "True",
                "RollingOut",
                "1 of 3 replicas of Deployment test are updated"
            )
        );
        assert_eq!(
            condition(&status, "Degraded"),
            expected("False", "Reconciled", "The last reconciliation succeeded")
        );
    }

    #[test]
    fn a_rolled_out_deployment_is_available_and_its_status_is_stable() {
        let mut object = object(2);

        let status = desired_status(&object, &observed(&object, 2, 2));
        assert_eq!(
            condition(&status, "Available"),
            expected(
                "True",
                "MinimumReplicasAvailable",
                "2 of 2 replicas of Deployment test are available"
            )
        );
        assert_eq!(
            condition(&status, "Progressing"),
            expected(
                "False",
                "RolloutComplete",
                "Deployment test matches the spec"
            )
        );

        object.status = Some(status.clone());
        assert_eq!(
            desired_status(&object, &observed(&object, 2, 2)),
            status,
            "no status write on the next pass"
        );
    }
}
