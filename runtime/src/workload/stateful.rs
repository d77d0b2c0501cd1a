//! A StatefulSet per object, with its headless Service and PodDisruptionBudget.

use std::collections::BTreeMap;

use k8s_openapi::api::apps::v1::{StatefulSet, StatefulSetSpec, StatefulSetUpdateStrategy};
use k8s_openapi::api::core::v1::{
    PersistentVolumeClaim, PersistentVolumeClaimSpec, PodSpec, PodTemplateSpec, Service, ServicePort, ServiceSpec,
    VolumeResourceRequirements,
};
use k8s_openapi::api::policy::v1::{PodDisruptionBudget, PodDisruptionBudgetSpec};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use kube::{Resource, ResourceExt};

use super::metadata;

/// The StatefulSet that runs `replicas` Pods of `pod` for `object`, `<name>-0` to
/// `<name>-<replicas - 1>`: named after it, with `labels` on itself and its Pods, selecting
/// them, a volume per replica from each of `claims`, and the [`headless_service`] of the same
/// name. Its Pods are updated only when deleted (`OnDelete`): [`super::roll`] deletes them one
/// at a time within the disruption budget. The runtime's apply adds the owner reference.
pub fn stateful_set<K: Resource<DynamicType = ()>>(
    object: &K,
    labels: &BTreeMap<String, String>,
    replicas: i32,
    pod: PodSpec,
    claims: Vec<PersistentVolumeClaim>,
) -> StatefulSet {
    StatefulSet {
        metadata: metadata(object, labels),
        spec: StatefulSetSpec {
            replicas: Some(replicas),
            service_name: Some(object.name_any()),
            selector: selector(labels),
            template: PodTemplateSpec {
                metadata: Some(ObjectMeta { labels: Some(labels.clone()), ..ObjectMeta::default() }),
                spec: Some(pod),
            },
            update_strategy: Some(StatefulSetUpdateStrategy {
                type_: Some("OnDelete".into()),
                ..StatefulSetUpdateStrategy::default()
            }),
            volume_claim_templates: Some(claims),
            ..StatefulSetSpec::default()
        },
        ..StatefulSet::default()
    }
}

/// The headless Service (`clusterIP: None`) that gives each replica a stable DNS name,
/// `<name>-<ordinal>.<name>.<namespace>.svc`, on `ports`. It publishes replicas before they
/// are ready, so that they find each other while a cluster forms; clients that should reach
/// only ready replicas need a Service of their own.
pub fn headless_service<K: Resource<DynamicType = ()>>(
    object: &K,
    labels: &BTreeMap<String, String>,
    ports: Vec<ServicePort>,
) -> Service {
    Service {
        metadata: metadata(object, labels),
        spec: Some(ServiceSpec {
            cluster_ip: Some("None".into()),
            selector: Some(labels.clone()),
            ports: Some(ports),
            publish_not_ready_addresses: Some(true),
            ..ServiceSpec::default()
        }),
        ..Service::default()
    }
}

/// The PodDisruptionBudget that keeps `min_available` of the Pods with `labels` (a count, or a
/// percentage such as `"50%"`) through voluntary disruptions: a node drain evicts no more.
pub fn disruption_budget<K: Resource<DynamicType = ()>>(
    object: &K,
    labels: &BTreeMap<String, String>,
    min_available: IntOrString,
) -> PodDisruptionBudget {
    PodDisruptionBudget {
        metadata: metadata(object, labels),
        spec: Some(PodDisruptionBudgetSpec {
            min_available: Some(min_available),
            selector: Some(selector(labels)),
            ..PodDisruptionBudgetSpec::default()
        }),
        ..PodDisruptionBudget::default()
    }
}

/// The template of each replica's volume `name` for [`stateful_set`]: `storage` (such as
/// `1Gi`) that one node mounts (`ReadWriteOnce`), of `storage_class_name` (the cluster's
/// default class when `None`). Mount it in the container under the same name.
pub fn volume_claim(name: &str, storage: Quantity, storage_class_name: Option<String>) -> PersistentVolumeClaim {
    PersistentVolumeClaim {
        metadata: ObjectMeta { name: Some(name.into()), ..ObjectMeta::default() },
        spec: Some(PersistentVolumeClaimSpec {
            access_modes: Some(vec!["ReadWriteOnce".into()]),
            storage_class_name,
            resources: Some(VolumeResourceRequirements {
                requests: Some(BTreeMap::from([("storage".to_string(), storage)])),
                ..VolumeResourceRequirements::default()
            }),
            ..PersistentVolumeClaimSpec::default()
        }),
        ..PersistentVolumeClaim::default()
    }
}

fn selector(labels: &BTreeMap<String, String>) -> LabelSelector {
    LabelSelector { match_labels: Some(labels.clone()), ..LabelSelector::default() }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::ConfigMap;

    use super::*;

    #[test]
    fn the_stateful_set_is_updated_on_delete_behind_its_headless_service() {
        let owner = ConfigMap {
            metadata: ObjectMeta { name: Some("db".into()), ..ObjectMeta::default() },
            ..ConfigMap::default()
        };
        let labels = super::super::labels(&owner, "db-operator");
        let set = stateful_set(&owner, &labels, 3, PodSpec::default(), vec![PersistentVolumeClaim::default()]);
        assert_eq!(set.spec.replicas, Some(3));
        assert_eq!(set.spec.service_name.as_deref(), Some("db"));
        assert_eq!(set.spec.update_strategy.unwrap().type_.as_deref(), Some("OnDelete"));
        assert_eq!(set.spec.selector.match_labels.as_ref(), Some(&labels));

        let service = headless_service(&owner, &labels, vec![]).spec.unwrap();
        assert_eq!((service.cluster_ip.as_deref(), service.publish_not_ready_addresses), (Some("None"), Some(true)));
        let budget = disruption_budget(&owner, &labels, IntOrString::String("50%".into())).spec.unwrap();
        assert_eq!(budget.min_available, Some(IntOrString::String("50%".into())));
    }
}
