//! What a controller knows of the objects it owns and watches: their metadata, from the watches
//! that reconcile their owners (shared with the manager's other controllers), and what its last
//! apply of each one returned. An apply of the same object again, unchanged since (its
//! `resourceVersion` in the watch is the one that apply returned), would change nothing, so it
//! is not sent: that is the pass each of the controller's own writes to an owned object starts.

use std::collections::HashMap;
use std::sync::Mutex;

use futures::Stream;
use kube::api::{ApiResource, DynamicObject, PartialObjectMeta};
use kube::runtime::reflector::{ObjectRef, Store};
use kube::runtime::watcher;
use kube::{Api, Client, Resource, ResourceExt};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::changes::SpecChanges;
use super::config::{Changes, Watch};
use super::shared::RelatedWatches;
use super::written::fingerprint;

/// The metadata of one related kind's objects, as the watch last saw them.
type Metadata = Store<PartialObjectMeta<DynamicObject>>;

/// An object: `apiVersion`, `kind`, namespace (empty for a cluster-scoped one), name.
type Key = (String, String, String, String);

/// What an apply sent, in short, and what the API server answered.
struct Applied {
    /// A hash of the object sent.
    fingerprint: u64,
    /// The `resourceVersion` the API server stored it at.
    resource_version: String,
    /// The object as stored: its JSON text, deflated ([`deflate`]).
    object: Box<[u8]>,
}

/// How hard [`deflate`] tries: miniz's fastest level already takes the JSON of a
/// Deployment of `rop create api --image` to under half (1,216 bytes to 528 in the test
/// below; one is kept per owned object, 1.7 KB each in the benchmark's manager).
const DEFLATE_LEVEL: u8 = 1;

/// `json` deflated (raw DEFLATE, RFC 1951).
fn deflate(json: &[u8]) -> Box<[u8]> {
    miniz_oxide::deflate::compress_to_vec(json, DEFLATE_LEVEL).into_boxed_slice()
}

/// The object [`deflate`] kept, decoded; `None` if it no longer decodes as a `D`.
fn inflate<D: DeserializeOwned>(deflated: &[u8]) -> Option<D> {
    let json = miniz_oxide::inflate::decompress_to_vec(deflated).ok()?;
    serde_json::from_slice(&json).ok()
}

/// The related kinds' metadata stores, and the controller's last apply of each object.
#[derive(Default)]
pub(crate) struct Owned {
    stores: HashMap<(String, String), (ApiResource, Metadata)>,
    applied: Mutex<HashMap<Key, Applied>>,
}

impl Owned {
    /// Follows the metadata of `resource`'s objects in `namespace` (all namespaces when
    /// `None`) that `watch` selects, through the manager's shared watch of the kind and
    /// selection (`related`), keeping its store; returns the stream of the objects whose
    /// changes start a pass (`watch`'s, every change by default), for the controller to
    /// reconcile their owners (or the objects `map_watched` names).
    pub(crate) fn watch(
        &mut self,
        related: &RelatedWatches,
        client: &Client,
        namespace: Option<&str>,
        resource: &ApiResource,
        watch: &Watch,
    ) -> impl Stream<Item = Result<PartialObjectMeta<DynamicObject>, watcher::Error>> + Send + 'static + use<> {
        let mut spec_changes = SpecChanges::default();
        let all = watch.changes.unwrap_or(Changes::All) == Changes::All;
        let passes = move |event: &_| all || spec_changes.pass(event);
        let (store, triggers) = related.subscribe(client, namespace, resource, watch, Box::new(passes), true);
        let key = (resource.api_version.clone(), resource.kind.clone());
        self.stores.insert(key, (resource.clone(), store));
        triggers
    }

    /// The object the last apply of `desired` returned, if the watch shows it unchanged since
    /// and `desired` is what that apply sent.
    pub(crate) fn unchanged<D>(&self, desired: &D) -> Option<D>
    where
        D: Resource<DynamicType = ()> + Serialize + DeserializeOwned,
    {
        let key = key(desired);
        let current = self.resource_version(&key)?;
        let applied = self.applied.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let last = applied.get(&key)?;
        if last.resource_version != current || last.fingerprint != fingerprint(desired)? {
            return None;
        }
        // Inflated without the lock, which the controller's other passes wait for.
        let object = last.object.clone();
        drop(applied);
        inflate(&object)
    }

    /// Records that applying `desired` stored `stored`. Only kinds the controller watches are
    /// recorded (the others have no watch to say they are unchanged); objects no longer in their
    /// watch are forgotten once there are more records than watched objects.
    pub(crate) fn record<D>(&self, desired: &D, stored: &D)
    where
        D: Resource<DynamicType = ()> + Serialize,
    {
        let key = key(desired);
        let (Some(fingerprint), Some(resource_version), Ok(object)) =
            (fingerprint(desired), stored.resource_version(), serde_json::to_vec(stored))
        else {
            return;
        };
        if !self.stores.contains_key(&(key.0.clone(), key.1.clone())) {
            return;
        }
        let object = deflate(&object);
        let mut applied = self.applied.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        applied.insert(key, Applied { fingerprint, resource_version, object });
        let watched: usize = self.stores.values().map(|(_, store)| store.len()).sum();
        if applied.len() > 2 * watched + 64 {
            applied.retain(|key, _| self.resource_version(key).is_some());
        }
    }

    /// Who controls the object `desired` names, when it exists and `owner_uid` is not its
    /// controller: `Some(None)` for an object without a controller, `Some(Some("Kind name"))`
    /// for one another object controls; `None` when it does not exist (or `owner_uid`
    /// controls it, or the kind is not watched). Read from the watch once it has listed, from
    /// the API server before.
    ///
    /// # Errors
    /// The API server's, when it is asked.
    pub(crate) async fn foreign_controller<D>(
        &self,
        client: &Client,
        desired: &D,
        owner_uid: &str,
    ) -> Result<Option<Option<String>>, kube::Error>
    where
        D: Resource<DynamicType = ()>,
    {
        let key = key(desired);
        let Some((resource, store)) = self.stores.get(&(key.0.clone(), key.1.clone())) else { return Ok(None) };
        let mut reference = ObjectRef::new_with(&key.3, resource.clone());
        if !key.2.is_empty() {
            reference = reference.within(&key.2);
        }
        let listed = futures::FutureExt::now_or_never(store.wait_until_ready()).is_some_and(|ready| ready.is_ok());
        let owners = if listed {
            store.get(&reference).map(|stored| stored.metadata.owner_references.clone().unwrap_or_default())
        } else {
            let api: Api<PartialObjectMeta<DynamicObject>> = match key.2.as_str() {
                "" => Api::all_with(client.clone(), resource),
                namespace => Api::namespaced_with(client.clone(), namespace, resource),
            };
            api.get_metadata_opt(&key.3).await?.map(|stored| stored.metadata.owner_references.unwrap_or_default())
        };
        let Some(owners) = owners else { return Ok(None) };
        let controller = owners.into_iter().find(|reference| reference.controller == Some(true));
        Ok(match controller {
            Some(controller) if controller.uid == owner_uid => None,
            Some(controller) => Some(Some(format!("{} {}", controller.kind, controller.name))),
            None => Some(None),
        })
    }

    /// The object's `resourceVersion` in its kind's watch.
    fn resource_version(&self, key: &Key) -> Option<String> {
        let (resource, store) = self.stores.get(&(key.0.clone(), key.1.clone()))?;
        let mut reference = ObjectRef::new_with(&key.3, resource.clone());
        if !key.2.is_empty() {
            reference = reference.within(&key.2);
        }
        store.get(&reference)?.resource_version()
    }
}

fn key<D: Resource<DynamicType = ()>>(object: &D) -> Key {
    (
        D::api_version(&()).into_owned(),
        D::kind(&()).into_owned(),
        object.namespace().unwrap_or_default(),
        object.name_any(),
    )
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::apps::v1::{Deployment, DeploymentStatus};
    use k8s_openapi::api::core::v1::{ConfigMap, Container, ContainerPort};
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

    use super::*;
    use crate::workload;

    /// A Deployment as the API server returns the apply of `rop create api --image`'s.
    fn stored() -> Deployment {
        let owner = ConfigMap {
            metadata: ObjectMeta { name: Some("memcached-sample".into()), ..ObjectMeta::default() },
            ..ConfigMap::default()
        };
        let container = Container {
            name: "memcached".into(),
            image: Some("memcached:1.6.26-alpine3.19".into()),
            command: Some(vec!["memcached".into(), "--memory-limit=64".into(), "-o".into(), "modern".into()]),
            ports: Some(vec![ContainerPort {
                container_port: 11211,
                name: Some("memcached".into()),
                ..Default::default()
            }]),
            ..Container::default()
        };
        let pod = workload::restricted_pod(vec![container], Some(1001));
        let mut deployment = workload::deployment(&owner, "memcached-operator", 2, pod);
        deployment.metadata.namespace = Some("default".into());
        deployment.metadata.uid = Some("0b0d5e2e-93c1-4b8e-9a57-0c8e1f6f1d2a".into());
        deployment.metadata.resource_version = Some("123456".into());
        deployment.metadata.generation = Some(2);
        deployment.status = Some(DeploymentStatus {
            observed_generation: Some(2),
            replicas: Some(2),
            updated_replicas: Some(2),
            ..DeploymentStatus::default()
        });
        deployment
    }

    #[test]
    fn a_kept_apply_inflates_to_the_object_at_under_half_its_size() {
        let json = serde_json::to_vec(&stored()).unwrap();
        let kept = deflate(&json);
        assert_eq!(inflate::<Deployment>(&kept), Some(stored()));
        assert!(kept.len() * 2 < json.len(), "{} bytes deflated of {}", kept.len(), json.len());
    }

    #[test]
    fn a_kept_apply_that_no_longer_inflates_is_none() {
        assert_eq!(inflate::<Deployment>(b"not deflated"), None);
        let config_map = deflate(&serde_json::to_vec(&ConfigMap::default()).unwrap());
        assert_eq!(inflate::<Deployment>(&config_map[..config_map.len() - 1]), None);
    }
}
