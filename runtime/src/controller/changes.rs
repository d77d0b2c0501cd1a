//! Which changes of a watched object start a pass: with [`super::Changes::Spec`] (the
//! reconciled kind's default), changes of its spec, labels, annotations or deletion
//! ([`changed`]); with [`super::Changes::All`], every change.

use std::collections::{HashMap, HashSet};
use std::hash::{DefaultHasher, Hash, Hasher};

use kube::runtime::watcher::{self, Event};
use kube::{Resource, ResourceExt};

/// What a change to an object must touch to start a pass: its spec (the generation), labels,
/// annotations or deletion, not its status, finalizers or managed fields, which the controller
/// writes itself (a pass already sees what it wrote). Without that filter each status write and
/// finalizer patch starts a pass of its own, and a pass applies its owned objects again: for a
/// deploy-image operator, one in three requests (docs/benchmarks.md). An object without a
/// generation (a ConfigMap, a Secret) starts a pass on every change. Always `Some`: the
/// shape kube-runtime's `predicate_filter` takes.
pub(crate) fn changed<K: Resource>(object: &K) -> Option<u64> {
    let meta = object.meta();
    let mut hasher = DefaultHasher::new();
    match meta.generation {
        Some(generation) => {
            (generation, &meta.labels, &meta.annotations, meta.deletion_timestamp.is_some()).hash(&mut hasher)
        }
        None => meta.resource_version.hash(&mut hasher),
    }
    Some(hasher.finish())
}

/// The filter of watch events for [`super::Changes::Spec`]: lets an object's
/// first sighting, its deletion and each change [`changed`] sees through, and errors and the
/// markers of a new list. kube-runtime's `predicate_filter` would hold a deletion back (the
/// deleted object looks like the last one seen), and the owner would not recreate what it
/// owns; this keeps it.
#[derive(Default)]
pub(crate) struct SpecChanges {
    /// What [`changed`] gave for each object (namespace, name) last let through.
    seen: HashMap<(Option<String>, String), u64>,
    /// The objects of the list in progress, to forget the others once it is done.
    listed: Option<HashSet<(Option<String>, String)>>,
}

impl SpecChanges {
    /// Whether `event` passes, remembering what it shows.
    pub(crate) fn pass<K: Resource>(&mut self, event: &Result<Event<K>, watcher::Error>) -> bool {
        let key = |object: &K| (object.namespace(), object.name_any());
        match event {
            Err(_) => true,
            Ok(Event::Init) => {
                self.listed = Some(HashSet::new());
                true
            }
            Ok(Event::InitApply(object)) => {
                if let Some(listed) = &mut self.listed {
                    listed.insert(key(object));
                }
                self.changed(key(object), object)
            }
            Ok(Event::InitDone) => {
                // Objects deleted while the watch was down come back in no event.
                if let Some(listed) = self.listed.take() {
                    self.seen.retain(|key, _| listed.contains(key));
                }
                true
            }
            Ok(Event::Apply(object)) => self.changed(key(object), object),
            Ok(Event::Delete(object)) => {
                self.seen.remove(&key(object));
                true
            }
        }
    }

    fn changed<K: Resource>(&mut self, key: (Option<String>, String), object: &K) -> bool {
        let Some(now) = changed(object) else { return true };
        self.seen.insert(key, now) != Some(now)
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::apps::v1::StatefulSet;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

    use super::*;

    fn set(name: &str, generation: i64, resource_version: &str) -> StatefulSet {
        StatefulSet {
            metadata: ObjectMeta {
                name: Some(name.into()),
                namespace: Some("default".into()),
                generation: Some(generation),
                resource_version: Some(resource_version.into()),
                ..ObjectMeta::default()
            },
            ..StatefulSet::default()
        }
    }

    #[test]
    fn a_status_update_is_held_back_and_the_rest_let_through() {
        let mut filter = SpecChanges::default();
        let mut pass = |event: Event<StatefulSet>| filter.pass(&Ok(event));

        assert!(pass(Event::Apply(set("a", 1, "10"))), "first sighting");
        assert!(!pass(Event::Apply(set("a", 1, "11"))), "status only");
        assert!(pass(Event::Apply(set("a", 2, "12"))), "spec");
        let mut labelled = set("a", 2, "13");
        labelled.metadata.labels = Some([("tier".to_string(), "cache".to_string())].into());
        assert!(pass(Event::Apply(labelled.clone())), "labels");
        assert!(pass(Event::Delete(labelled.clone())), "deleted, though it looks as last seen");
        assert!(pass(Event::Apply(set("a", 1, "20"))), "created again");
    }

    #[test]
    fn a_new_list_lets_through_what_changed_and_forgets_what_went() {
        let mut filter = SpecChanges::default();
        let mut pass = |event: Event<StatefulSet>| filter.pass(&Ok(event));
        assert!(pass(Event::Apply(set("a", 1, "10"))));
        assert!(pass(Event::Apply(set("b", 1, "11"))));

        assert!(pass(Event::Init));
        assert!(!pass(Event::InitApply(set("a", 1, "15"))), "a: status only");
        assert!(pass(Event::InitDone));

        // b went while the watch was down; created again, it is new.
        assert!(pass(Event::Apply(set("b", 1, "30"))));
    }
}
