//! A Deployment per object, and the conditions it gives the object.

use k8s_openapi::api::apps::v1::{Deployment, DeploymentSpec};
use k8s_openapi::api::core::v1::{PodSpec, PodTemplateSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};
use kube::{Resource, ResourceExt};

use super::{labels, metadata};
use crate::conditions::{self, HasConditions};

/// The Deployment that runs `replicas` Pods of `pod` for `object`: named after it, with the
/// [`labels`](super::labels) of `object` and `managed_by` on itself and its Pods, selecting
/// them. The runtime's apply adds the owner reference, so the garbage collector deletes the
/// Deployment with `object`.
pub fn deployment<K: Resource<DynamicType = ()>>(
    object: &K,
    managed_by: &str,
    replicas: i32,
    pod: PodSpec,
) -> Deployment {
    let labels = labels(object, managed_by);
    Deployment {
        metadata: metadata(object, &labels),
        spec: DeploymentSpec {
            replicas: Some(replicas),
            selector: LabelSelector { match_labels: Some(labels.clone()), ..LabelSelector::default() },
            template: PodTemplateSpec {
                metadata: Some(ObjectMeta { labels: Some(labels), ..ObjectMeta::default() }),
                spec: Some(pod),
            },
            ..DeploymentSpec::default()
        },
        ..Deployment::default()
    }
}

/// Sets the conditions an object reports for its `deployment` of `replicas` (as the API
/// server returned it), computed at the object's `generation`:
///
/// - `Available`: `True` (reason `MinimumReplicasAvailable`) once `replicas` are available,
///   else `False` (`ReplicasUnavailable`), with `<n> of <replicas> replicas of Deployment
///   <name> are available`;
/// - `Progressing`: `False` (`RolloutComplete`) once the Deployment's controller has seen its
///   spec and updated every replica, else `True` (`RollingOut`);
/// - `Degraded`: `False` (`Reconciled`): the pass succeeded.
pub fn report_deployment(
    status: &mut impl HasConditions,
    generation: Option<i64>,
    replicas: i32,
    deployment: &Deployment,
) {
    let name = deployment.name_any();
    let observed = deployment.status.clone().unwrap_or_default();
    let available = observed.available_replicas.unwrap_or(0);
    let updated = observed.updated_replicas.unwrap_or(0);
    let mut report = |type_: &str, value: bool, reason: &str, message: String| {
        status.set_condition(conditions::new(type_, value, reason, message, generation))
    };
    let message = format!("{available} of {replicas} replicas of Deployment {name} are available");
    if available >= replicas {
        report("Available", true, "MinimumReplicasAvailable", message);
    } else {
        report("Available", false, "ReplicasUnavailable", message);
    }
    if observed.observed_generation >= deployment.metadata.generation && updated >= replicas {
        report("Progressing", false, super::ROLLOUT_COMPLETE, format!("Deployment {name} matches the spec"));
    } else {
        let message = format!("{updated} of {replicas} replicas of Deployment {name} are updated");
        report("Progressing", true, "RollingOut", message);
    }
    report("Degraded", false, "Reconciled", "The last reconciliation succeeded".into());
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::apps::v1::DeploymentStatus;
    use k8s_openapi::api::core::v1::ConfigMap;

    use super::*;

    fn owner() -> ConfigMap {
        ConfigMap { metadata: ObjectMeta { name: Some("web".into()), ..ObjectMeta::default() }, ..ConfigMap::default() }
    }

    fn observed(generation: i64, observed: i64, updated: i32, available: i32) -> Deployment {
        let mut deployment = deployment(&owner(), "web-operator", 3, PodSpec::default());
        deployment.metadata.generation = Some(generation);
        deployment.status = Some(DeploymentStatus {
            observed_generation: Some(observed),
            updated_replicas: Some(updated),
            available_replicas: Some(available),
            ..DeploymentStatus::default()
        });
        deployment
    }

    fn report(deployment: &Deployment) -> Vec<(String, String, String, String)> {
        let mut list = Vec::new();
        report_deployment(&mut list, Some(4), 3, deployment);
        list.into_iter().map(|c| (c.type_, c.status, c.reason, c.message)).collect()
    }

    fn condition(type_: &str, status: &str, reason: &str, message: &str) -> (String, String, String, String) {
        (type_.into(), status.into(), reason.into(), message.into())
    }

    #[test]
    fn the_deployment_selects_its_pods_by_the_object_s_labels() {
        let deployment = deployment(&owner(), "web-operator", 3, PodSpec::default());
        assert_eq!(deployment.metadata.name.as_deref(), Some("web"));
        let spec = deployment.spec;
        assert_eq!(spec.replicas, Some(3));
        let labels = spec.selector.match_labels.unwrap();
        assert_eq!(spec.template.metadata.unwrap().labels.as_ref(), Some(&labels));
        assert_eq!(labels["app.kubernetes.io/name"], "configmap");
        assert_eq!(labels["app.kubernetes.io/instance"], "web");
        assert_eq!(labels["app.kubernetes.io/managed-by"], "web-operator");
    }

    #[test]
    fn a_rolling_deployment_is_progressing_and_a_finished_one_available() {
        assert_eq!(
            report(&observed(2, 1, 1, 1)),
            [
                condition(
                    "Available",
                    "False",
                    "ReplicasUnavailable",
                    "1 of 3 replicas of Deployment web are available"
                ),
                condition("Progressing", "True", "RollingOut", "1 of 3 replicas of Deployment web are updated"),
                condition("Degraded", "False", "Reconciled", "The last reconciliation succeeded"),
            ]
        );
        assert_eq!(
            report(&observed(2, 2, 3, 3))[..2],
            [
                condition(
                    "Available",
                    "True",
                    "MinimumReplicasAvailable",
                    "3 of 3 replicas of Deployment web are available"
                ),
                condition("Progressing", "False", "RolloutComplete", "Deployment web matches the spec"),
            ]
        );
    }
}
