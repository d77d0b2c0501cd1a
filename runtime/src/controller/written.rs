//! What the controller wrote to an object on top of a version its cache may still show.
//!
//! The watch that fills the cache lags behind the controller's own writes: a pass that starts
//! right after another (an owned object changed) can see the object as it was before the
//! status or the finalizer the last pass wrote, and would write them again. A write is
//! remembered with the `resourceVersion` it was based on; while the cache shows that very
//! version, the same write is known to be done. Any other version (the cache caught up, or
//! someone else changed the object) is compared as usual.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Mutex;

use kube::{Resource, ResourceExt};
use serde::Serialize;

/// How many writes are remembered at most.
const MAX_ENTRIES: usize = 65_536;

/// The object's namespace and name, and which write (`status`, `finalizer`).
type Key = (String, String, &'static str);

/// Writes remembered per object: a hash of what was written, and the version it was based on.
#[derive(Default)]
pub(crate) struct Written {
    writes: Mutex<HashMap<Key, (u64, String)>>,
}

impl Written {
    /// Whether `write` of `value` was made on top of the version of `object` the cache shows.
    /// Forgets the write once the cache shows another version.
    pub(crate) fn done<K: Resource, V: Serialize>(&self, object: &K, write: &'static str, value: &V) -> bool {
        let key = key(object, write);
        let mut writes = self.writes.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let Some((hash, based_on)) = writes.get(&key) else { return false };
        if object.resource_version().as_deref() != Some(based_on.as_str()) {
            writes.remove(&key);
            return false;
        }
        Some(*hash) == fingerprint(value)
    }

    /// Remembers that `write` of `value` succeeded on top of `object` as the cache showed it.
    pub(crate) fn record<K: Resource, V: Serialize>(&self, object: &K, write: &'static str, value: &V) {
        let (Some(based_on), Some(hash)) = (object.resource_version(), fingerprint(value)) else { return };
        let mut writes = self.writes.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        // Objects deleted without a last pass leave their entries; an entry only saves a write,
        // so past a bound they all go rather than grow with every object ever written.
        if writes.len() >= MAX_ENTRIES {
            writes.clear();
        }
        writes.insert(key(object, write), (hash, based_on));
    }

    /// Forgets the writes to `object` (it is gone).
    pub(crate) fn forget<K: Resource>(&self, object: &K) {
        let (namespace, name) = (object.namespace().unwrap_or_default(), object.name_any());
        let mut writes = self.writes.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        writes.retain(|(ns, n, _), _| *ns != namespace || *n != name);
    }
}

fn key<K: Resource>(object: &K, write: &'static str) -> Key {
    (object.namespace().unwrap_or_default(), object.name_any(), write)
}

/// A hash of `value`'s JSON.
pub(crate) fn fingerprint<V: Serialize>(value: &V) -> Option<u64> {
    let bytes = serde_json::to_vec(value).ok()?;
    let mut hasher = DefaultHasher::new();
    bytes.hash(&mut hasher);
    Some(hasher.finish())
}
