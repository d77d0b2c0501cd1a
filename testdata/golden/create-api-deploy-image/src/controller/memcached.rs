// Copyright 2026 The Memcached Authors.
// SPDX-License-Identifier: Apache-2.0

//! The Memcached controller: runs `memcached:1.6.26-alpine` as a Deployment that each `Memcached` owns.
//!
//! Each pass applies the Deployment the spec asks for with server-side apply (the fields set
//! here belong to this controller and are taken back when someone changes them; a Deployment
//! already as asked is not written), then reports what the Deployment says in `status`.
//! Deleting a `Memcached` needs no cleanup here: the garbage collector deletes the Deployment
//! it owns (the runtime puts the owner reference on it), so objects get no finalizer.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::apps::v1::{Deployment, DeploymentSpec};
use k8s_openapi::api::core::v1::{
    Capabilities, Container, ContainerPort, PodSecurityContext, PodSpec, PodTemplateSpec,
    SeccompProfile, SecurityContext,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};
use kube::ResourceExt;
use rop::conditions;
use rop::controller::{Action, Context, Reconciler};

use memcached_operator_api::v1alpha1::Memcached;
use memcached_operator_api::v1alpha1::MemcachedStatus;

/// The image each `Memcached` runs, unless the manager's `MEMCACHED_IMAGE` variable names another
/// (so an image upgrade needs no new operator build).
pub const DEFAULT_IMAGE: &str = "memcached:1.6.26-alpine";
/// Environment variable of the manager that overrides [`DEFAULT_IMAGE`].
pub const IMAGE_ENV: &str = "MEMCACHED_IMAGE";
/// Name of the container in the Deployment's Pods.
const CONTAINER_NAME: &str = "memcached";
/// The container's command (`--image-container-command`).
const COMMAND: &[&str] = &["memcached", "-m=64", "-o", "modern", "-v"];
/// The user the container runs as (`--run-as-user`).
const RUN_AS_USER: i64 = 1001;
/// How long a reconciled `Memcached` waits before it is looked at again.
const RESYNC_AFTER: Duration = Duration::from_secs(5 * 60);

/// Why a pass failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("failed to apply Deployment {0}")]
    Apply(String, #[source] kube::Error),
    #[error("failed to update the status")]
    Status(#[source] kube::Error),
    // TODO(user): add variants for the errors of your own steps.
}

/// Reconciles `Memcached` objects.
pub struct MemcachedReconciler;

impl Reconciler for MemcachedReconciler {
    type Kind = Memcached;
    type Error = Error;

    async fn reconcile(
        &self,
        object: Arc<Self::Kind>,
        ctx: &Context<Self::Kind>,
    ) -> Result<Action, Error> {
        let desired = desired_deployment(&object, &image());
        let name = desired.name_any();
        let applied = ctx.apply(&object, desired).await;
        let applied = applied.map_err(|source| Error::Apply(name, source));
        // A failure is reported in the status too; the runtime logs it, records it as an Event
        // and retries.
        let status = match &applied {
            Ok(deployment) => desired_status(&object, deployment),
            Err(error) => failed_status(&object, error),
        };
        let written = ctx.update_status(&object, status).await;
        applied?;
        written.map_err(Error::Status)?;
        Ok(Action::requeue(RESYNC_AFTER))
    }
}

/// The image to run: `MEMCACHED_IMAGE` from the manager's environment, else [`DEFAULT_IMAGE`].
fn image() -> String {
    std::env::var(IMAGE_ENV)
        .ok()
        .filter(|image| !image.is_empty())
        .unwrap_or_else(|| DEFAULT_IMAGE.into())
}

/// Labels of the Deployment and its Pods; the selector matches them, so they must not change.
fn labels(object: &Memcached) -> BTreeMap<String, String> {
    let name = object.name_any();
    let labels = [
        ("name", "memcached"),
        ("instance", &name),
        ("managed-by", "memcached-operator"),
    ];
    labels
        .into_iter()
        .map(|(key, value)| (format!("app.kubernetes.io/{key}"), value.into()))
        .collect()
}

/// The Deployment `object.spec` asks for: `size` replicas of the Memcached container under the
/// "restricted" Pod Security Standard (no root, no privilege escalation, no capabilities, the
/// runtime's default seccomp profile). The runtime adds the owner reference.
fn desired_deployment(object: &Memcached, image: &str) -> Deployment {
    let labels = labels(object);
    let container = Container {
        name: CONTAINER_NAME.into(),
        image: Some(image.into()),
        image_pull_policy: Some("IfNotPresent".into()),
        command: Some(COMMAND.iter().map(|word| word.to_string()).collect()),
        ports: Some(vec![ContainerPort {
            container_port: object.spec.container_port,
            name: Some("memcached".into()),
            ..ContainerPort::default()
        }]),
        security_context: Some(SecurityContext {
            run_as_non_root: Some(true),
            run_as_user: Some(RUN_AS_USER),
            allow_privilege_escalation: Some(false),
            capabilities: Some(Capabilities {
                drop: Some(vec!["ALL".into()]),
                ..Capabilities::default()
            }),
            ..SecurityContext::default()
        }),
        ..Container::default()
    };
    Deployment {
        metadata: ObjectMeta {
            name: Some(object.name_any()),
            labels: Some(labels.clone()),
            ..ObjectMeta::default()
        },
        spec: DeploymentSpec {
            replicas: Some(object.spec.size),
            selector: LabelSelector {
                match_labels: Some(labels.clone()),
                ..LabelSelector::default()
            },
            template: PodTemplateSpec {
                metadata: Some(ObjectMeta {
                    labels: Some(labels),
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
                    ..PodSpec::default()
                }),
            },
            ..DeploymentSpec::default()
        },
        ..Deployment::default()
    }
}

/// The status `object` reports for its `deployment`: `Available` once every replica is,
/// `Progressing` while the Deployment rolls out, `Degraded` false.
fn desired_status(object: &Memcached, deployment: &Deployment) -> MemcachedStatus {
    let generation = object.metadata.generation;
    let (size, name) = (object.spec.size, deployment.name_any());
    let observed = deployment.status.clone().unwrap_or_default();
    let available = observed.available_replicas.unwrap_or(0);
    let updated = observed.updated_replicas.unwrap_or(0);
    let mut status = MemcachedStatus {
        observed_generation: generation,
        ..object.status.clone().unwrap_or_default()
    };
    let mut report = conditions::setter(&mut status.conditions, generation);
    let message = format!("{available} of {size} replicas of Deployment {name} are available");
    if available >= size {
        report.set("Available", true, "MinimumReplicasAvailable", message);
    } else {
        report.set("Available", false, "ReplicasUnavailable", message);
    }
    if observed.observed_generation >= deployment.metadata.generation && updated >= size {
        let message = format!("Deployment {name} matches the spec");
        report.set("Progressing", false, "RolloutComplete", message);
    } else {
        let message = format!("{updated} of {size} replicas of Deployment {name} are updated");
        report.set("Progressing", true, "RollingOut", message);
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
fn failed_status(object: &Memcached, error: &Error) -> MemcachedStatus {
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
    use k8s_openapi::api::apps::v1::DeploymentStatus;

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
        let c = conditions::find(&status.conditions, type_).expect(type_);
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

    #[test]
    fn a_failure_is_reported_as_degraded() {
        let error = Error::Status(kube::Error::Api(Box::new(
            kube::core::Status::failure("the server is down", "ServiceUnavailable").with_code(503),
        )));

        let status = failed_status(&object(1), &error);

        let (degraded, reason, message) = condition(&status, "Degraded");
        assert_eq!(
            (degraded.as_str(), reason.as_str()),
            ("True", "ReconcileFailed")
        );
        assert!(
            message.starts_with("failed to update the status: "),
            "{message}"
        );
    }
}
