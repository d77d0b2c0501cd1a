//! Workloads an operator runs for its objects (feature `controller`): what `rop create api
//! --image` scaffolds, kept here so a fix reaches every project when it rebuilds.
//!
//! - [`deployment`] and [`report_deployment`]: a Deployment per object, and the `Available`,
//!   `Progressing` and `Degraded` conditions it gives the object (kubebuilder's deploy-image
//!   plugin's conditions);
//! - [`stateful_set`], [`headless_service`], [`disruption_budget`] and [`roll`]: a StatefulSet
//!   per object updated `OnDelete`, one ordinal at a time, highest first, within the
//!   PodDisruptionBudget's `minAvailable`, and [`report_rollout`] for its conditions;
//! - [`restricted_pod`]: a Pod under the "restricted" Pod Security Standard, and
//!   [`zone_spread`] across zones;
//! - [`image`] from the manager's `<KIND>_IMAGE` variable, [`labels`] of the objects (the
//!   `app.kubernetes.io/` ones), [`write_status`] that reports a failure in `Degraded` too,
//!   and [`instance_of`], which maps a watched Pod to the object it runs for, so a rollout
//!   moves on when a Pod changes instead of polling.
//!
//! The Deployment of a `Memcached` and the conditions it gives the object, as `rop create api
//! --image memcached:1.6` scaffolds them (the reconciler applies the Deployment with
//! `ctx.apply` and hands the outcome to [`write_status`]):
//!
//! ```
//! use rop::conditions::HasConditions;
//! use rop::k8s_openapi::api::apps::v1::Deployment;
//! use rop::k8s_openapi::api::core::v1::Container;
//! use rop::k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
//! use rop::workload;
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(rop::CustomResource, Serialize, Deserialize, Clone, Debug, rop::JsonSchema)]
//! #[rop(group = "cache.example.com", version = "v1", kind = "Memcached", namespaced)]
//! #[rop(status = "MemcachedStatus")]
//! pub struct MemcachedSpec {
//!     pub size: i32,
//! }
//!
//! #[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, rop::JsonSchema)]
//! pub struct MemcachedStatus {
//!     #[serde(default, skip_serializing_if = "Option::is_none")]
//!     pub conditions: Option<Vec<Condition>>,
//! }
//!
//! fn desired_deployment(object: &Memcached) -> Deployment {
//!     let container = Container { name: "memcached".into(), image: Some("memcached:1.6".into()), ..Container::default() };
//!     let pod = workload::restricted_pod(vec![container], Some(1001));
//!     workload::deployment(object, "memcached-operator", object.spec.size, pod)
//! }
//!
//! let mut object = Memcached::new("cache", MemcachedSpec { size: 3 });
//! object.metadata.namespace = Some("shop".into());
//! let deployment = desired_deployment(&object);
//! assert_eq!(deployment.metadata.name.as_deref(), Some("cache"));
//! let labels = deployment.spec.selector.match_labels.clone().unwrap();
//! assert_eq!(labels["app.kubernetes.io/instance"], "cache");
//!
//! // No replica is available yet: the object is Progressing, not Available.
//! let mut status = MemcachedStatus::default();
//! workload::report_deployment(&mut status, Some(1), object.spec.size, &deployment);
//! assert!(!status.is_condition_true("Available"));
//! assert!(status.is_condition_true("Progressing"));
//! ```

mod deployment;
mod pod;
mod rollout;
mod stateful;
mod status;

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::runtime::reflector::ObjectRef;
use kube::{Resource, ResourceExt};

use crate::controller::{ApplyError, KindScope, Terminal, Watched};

pub use deployment::{deployment, report_deployment};
pub use pod::{restricted_pod, zone_spread};
pub use rollout::{Rollout, Step, min_available, report_rollout, roll, stamp_template};
pub use stateful::{disruption_budget, headless_service, stateful_set, volume_claim};
pub use status::{failed_status, write_status};

/// Reason of the condition `Progressing=False` that [`report_deployment`] and
/// [`report_rollout`] set once every replica runs the current template: what a test waits for
/// after changing the spec (rop-testenv's `rolled_out`).
pub const ROLLOUT_COMPLETE: &str = "RolloutComplete";

/// Why a pass over a workload failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An object could not be applied ([`crate::controller::Context::apply`]).
    #[error(transparent)]
    Apply(#[from] ApplyError),
    /// The Pods of a StatefulSet could not be listed.
    #[error("failed to list the Pods of {0}")]
    ListPods(String, #[source] kube::Error),
    /// A Pod could not be deleted to update it.
    #[error("failed to delete Pod {0}")]
    DeletePod(String, #[source] kube::Error),
    /// The status could not be written.
    #[error("failed to update the status")]
    Status(#[source] kube::Error),
    /// `minAvailable` is neither a count nor a percentage; not retried (the schema's rule
    /// refuses such a value in new objects).
    #[error("spec.minAvailable is invalid")]
    MinAvailable(#[source] Terminal),
}

/// The image to run: the manager's environment variable `env` (`<KIND>_IMAGE`, so an image
/// upgrade needs no new operator build) when set and not empty, else `default`.
pub fn image(env: &str, default: &str) -> String {
    std::env::var(env).ok().filter(|image| !image.is_empty()).unwrap_or_else(|| default.into())
}

/// The labels of what runs for `object` (the recommended `app.kubernetes.io/` labels):
/// `name` the lower-cased kind, `instance` the object's name, `managed-by` the operator. A
/// workload's selector matches them, so they must not change.
pub fn labels<K: Resource<DynamicType = ()>>(object: &K, managed_by: &str) -> BTreeMap<String, String> {
    BTreeMap::from([
        ("app.kubernetes.io/instance".to_string(), object.name_any()),
        ("app.kubernetes.io/managed-by".to_string(), managed_by.to_string()),
        ("app.kubernetes.io/name".to_string(), K::kind(&()).to_lowercase()),
    ])
}

/// The metadata of an object that runs for `object`: its name and `labels`. The runtime's
/// apply adds the namespace and the owner reference.
pub fn metadata<K: Resource<DynamicType = ()>>(object: &K, labels: &BTreeMap<String, String>) -> ObjectMeta {
    ObjectMeta { name: Some(object.name_any()), labels: Some(labels.clone()), ..ObjectMeta::default() }
}

/// The object of kind `O` a watched object (a Pod) runs for, by its [`labels`]: what
/// [`crate::controller::Reconciler::map_watched`] returns for the kind's Pods, so that a Pod
/// that becomes ready or goes moves its object's rollout on.
pub fn instance_of<O>(watched: &Watched, managed_by: &str) -> Vec<ObjectRef<O>>
where
    O: Resource<DynamicType = (), Scope: KindScope>,
{
    let labels = watched.meta().labels.clone().unwrap_or_default();
    let label = |key: &str| labels.get(&format!("app.kubernetes.io/{key}")).map(String::as_str);
    if label("managed-by") != Some(managed_by) || label("name") != Some(&*O::kind(&()).to_lowercase()) {
        return Vec::new();
    }
    let Some(instance) = label("instance") else { return Vec::new() };
    let reference = ObjectRef::new(instance);
    match watched.namespace() {
        Some(namespace) if <O::Scope as KindScope>::NAMESPACED => vec![reference.within(&namespace)],
        _ => vec![reference],
    }
}
