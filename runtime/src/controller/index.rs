//! A controller's objects indexed by the keys [`super::Config::index`] gives them, so
//! that mapping a watched object to the objects that refer to it is a lookup instead of a scan
//! of every object (controller-runtime's field indexer, `IndexField` and `MatchingFields`).
//!
//! The index follows the same watch as the controller's cache: it is updated as each change
//! reaches the controller, and rebuilt from the full list when the watch lists again.

use std::collections::{HashMap, HashSet};
use std::sync::{Mutex, PoisonError};

use kube::Resource;
use kube::runtime::reflector::ObjectRef;
use kube::runtime::watcher::Event;

/// The keys under which an object is indexed.
pub(crate) type Keys<O> = std::sync::Arc<dyn Fn(&O) -> Vec<String> + Send + Sync>;

/// The keys of each object, and the objects of each key.
pub(crate) struct Index<O: Resource<DynamicType = ()>> {
    /// The keys of an object; without it the index stays empty.
    keys: Option<Keys<O>>,
    state: Mutex<State<O>>,
}

struct State<O: Resource<DynamicType = ()>> {
    keys_of: HashMap<ObjectRef<O>, Vec<String>>,
    objects_of: HashMap<String, HashSet<ObjectRef<O>>>,
    /// The keys of the objects listed so far while the watch lists again.
    relisting: Option<HashMap<ObjectRef<O>, Vec<String>>>,
}

impl<O: Resource<DynamicType = ()>> Index<O> {
    /// An empty index by `keys` (none: an index that stays empty).
    pub(crate) fn new(keys: Option<Keys<O>>) -> Self {
        let state = State { keys_of: HashMap::new(), objects_of: HashMap::new(), relisting: None };
        Self { keys, state: Mutex::new(state) }
    }

    /// Follows one event of the controller's watch.
    pub(crate) fn follow(&self, event: &Event<O>) {
        let Some(keys) = &self.keys else { return };
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        match event {
            Event::Apply(object) => state.set(ObjectRef::from_obj(object), keys(object)),
            Event::Delete(object) => state.set(ObjectRef::from_obj(object), Vec::new()),
            Event::Init => state.relisting = Some(HashMap::new()),
            Event::InitApply(object) => {
                let keys = keys(object);
                if !keys.is_empty() {
                    state.relisting.get_or_insert_with(HashMap::new).insert(ObjectRef::from_obj(object), keys);
                }
            }
            Event::InitDone => {
                let listed = state.relisting.take().unwrap_or_default();
                state.keys_of.clear();
                state.objects_of.clear();
                for (reference, keys) in listed {
                    state.set(reference, keys);
                }
            }
        }
    }

    /// The objects with `key`, in `namespace` (in every namespace: `None`), sorted by
    /// namespace and name.
    pub(crate) fn lookup(&self, namespace: Option<&str>, key: &str) -> Vec<ObjectRef<O>> {
        let state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(objects) = state.objects_of.get(key) else { return Vec::new() };
        let mut found: Vec<ObjectRef<O>> =
            objects.iter().filter(|o| namespace.is_none() || o.namespace.as_deref() == namespace).cloned().collect();
        found.sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
        found
    }
}

impl<O: Resource<DynamicType = ()>> State<O> {
    /// Gives `reference` the keys `keys` (none: out of the index).
    fn set(&mut self, reference: ObjectRef<O>, keys: Vec<String>) {
        for old in self.keys_of.remove(&reference).unwrap_or_default() {
            if let Some(objects) = self.objects_of.get_mut(&old) {
                objects.remove(&reference);
                if objects.is_empty() {
                    self.objects_of.remove(&old);
                }
            }
        }
        if keys.is_empty() {
            return;
        }
        for key in &keys {
            self.objects_of.entry(key.clone()).or_default().insert(reference.clone());
        }
        self.keys_of.insert(reference, keys);
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::ConfigMap;
    use kube::api::ObjectMeta;

    use super::*;

    /// A ConfigMap indexed by the values of its data.
    fn config_map(namespace: &str, name: &str, refers_to: &[&str]) -> ConfigMap {
        ConfigMap {
            metadata: ObjectMeta {
                name: Some(name.into()),
                namespace: Some(namespace.into()),
                ..ObjectMeta::default()
            },
            data: Some(refers_to.iter().enumerate().map(|(i, r)| (i.to_string(), r.to_string())).collect()),
            ..ConfigMap::default()
        }
    }

    fn index() -> Index<ConfigMap> {
        Index::new(Some(std::sync::Arc::new(|c: &ConfigMap| c.data.iter().flatten().map(|(_, v)| v.clone()).collect())))
    }

    fn names(found: Vec<ObjectRef<ConfigMap>>) -> Vec<String> {
        found.into_iter().map(|r| format!("{}/{}", r.namespace.unwrap_or_default(), r.name)).collect()
    }

    #[test]
    fn lookups_follow_changes_and_deletions_in_each_namespace() {
        let index = index();
        index.follow(&Event::Apply(config_map("a", "one", &["secret-x", "secret-y"])));
        index.follow(&Event::Apply(config_map("b", "two", &["secret-x"])));
        assert_eq!(names(index.lookup(None, "secret-x")), ["a/one", "b/two"]);
        assert_eq!(names(index.lookup(Some("b"), "secret-x")), ["b/two"]);
        assert_eq!(names(index.lookup(None, "secret-y")), ["a/one"]);

        index.follow(&Event::Apply(config_map("a", "one", &["secret-z"])));
        assert_eq!(names(index.lookup(None, "secret-x")), ["b/two"]);
        assert!(index.lookup(None, "secret-y").is_empty());
        index.follow(&Event::Delete(config_map("b", "two", &["secret-x"])));
        assert!(index.lookup(None, "secret-x").is_empty());
        assert_eq!(names(index.lookup(Some("a"), "secret-z")), ["a/one"]);
    }

    #[test]
    fn a_relist_replaces_the_index_once_it_is_done() {
        let index = index();
        index.follow(&Event::Apply(config_map("a", "gone", &["secret-x"])));
        index.follow(&Event::Init);
        index.follow(&Event::InitApply(config_map("a", "kept", &["secret-x"])));
        // Until the list is done, lookups see the index as it was.
        assert_eq!(names(index.lookup(None, "secret-x")), ["a/gone"]);
        index.follow(&Event::InitDone);
        assert_eq!(names(index.lookup(None, "secret-x")), ["a/kept"]);
    }
}
