//! Which watched objects start passes, and when: a watch that lists again starts the passes
//! of its list only once the cache holds the whole list.
//!
//! A watch lists again after a `410 Gone` or a reconnection the API server's history no longer
//! covers (an API server restart, a long outage). kube-runtime's store takes the new list in
//! one piece at its end (`InitDone`), while each listed object comes as an event of its own
//! (`InitApply`) before that. A pass started by one of those events reads the store before the
//! swap: the object as it was before the watch went down, or none at all for one created
//! meanwhile (kube-runtime's `ObjectNotFound`). That pass acts on the old spec or not at all,
//! the filter of changes has already let the new one through, and nothing starts another pass:
//! the change waited for the next periodic pass (5 minutes for `rop::workload`) or for ever.
//! So here the listed objects that pass the filter are held until the list is done, then
//! started from the store. And the objects the new list no longer has, deleted while the watch
//! was down, of which no event tells, are passed on like deletions when the caller wants
//! deletions (an owned kind: the owner recreates what it owns).

use std::hash::Hash;
use std::sync::Arc;

use futures::{Stream, StreamExt, stream};
use kube::runtime::reflector::{Lookup, ObjectRef, Store};
use kube::runtime::watcher::{self, Event};

/// The objects of `events` (a reflector's output, so `store` already shows each event) that
/// `passes` lets through, deletions too when `deletions`; the objects of a list once the list
/// is done, as `store` holds them. `dyntype` is the kind's dynamic type (`()` for a static
/// kind). `passes` sees every event, list markers included, in order.
pub(crate) fn triggers<K, S, F>(
    events: S,
    store: Store<K>,
    dyntype: K::DynamicType,
    mut passes: F,
    deletions: bool,
) -> impl Stream<Item = Result<K, watcher::Error>>
where
    K: Lookup + Clone + 'static,
    K::DynamicType: Eq + Hash + Clone,
    S: Stream<Item = Result<Event<K>, watcher::Error>>,
    F: FnMut(&Result<Event<K>, watcher::Error>) -> bool,
{
    let mut state = Triggers::new(store, dyntype, deletions);
    events
        .map(move |event| {
            let passed = passes(&event);
            state.step(event, passed)
        })
        .flat_map(stream::iter)
}

/// What [`triggers`] keeps between events: one subscriber's share of a watch that several
/// controllers follow (`super::shared`) keeps one too.
pub(crate) struct Triggers<K: Lookup + 'static>
where
    K::DynamicType: Eq + Hash + Clone,
{
    store: Store<K>,
    dyntype: K::DynamicType,
    deletions: bool,
    /// While a list is in progress.
    listing: Option<Listing<K>>,
}

/// A list in progress: the objects in it that passed, and (for deletions) the store before it.
struct Listing<K: Lookup> {
    changed: Vec<ObjectRef<K>>,
    before: Vec<Arc<K>>,
}

impl<K> Triggers<K>
where
    K: Lookup + Clone + 'static,
    K::DynamicType: Eq + Hash + Clone,
{
    /// Before any event: `store` is the reflector's the events come from, `dyntype` the
    /// kind's dynamic type; deletions are released when `deletions`.
    pub(crate) fn new(store: Store<K>, dyntype: K::DynamicType, deletions: bool) -> Self {
        Self { store, dyntype, deletions, listing: None }
    }

    /// The triggers `event` releases; `passed`: whether the filter let it through.
    pub(crate) fn step(&mut self, event: Result<Event<K>, watcher::Error>, passed: bool) -> Batch<K> {
        let event = match event {
            Ok(event) => event,
            Err(err) => return Batch::One(Some(Err(err))),
        };
        match event {
            Event::Init => {
                // A list that failed half-way and starts again keeps what the first half
                // found: the filter has seen those changes and will not pass them twice.
                if self.listing.is_none() {
                    let before = if self.deletions { self.store.state() } else { Vec::new() };
                    self.listing = Some(Listing { changed: Vec::new(), before });
                }
                Batch::One(None)
            }
            Event::InitApply(object) if passed => match &mut self.listing {
                Some(listing) => {
                    listing.changed.push(object.to_object_ref(self.dyntype.clone()));
                    Batch::One(None)
                }
                None => Batch::One(Some(Ok(object))),
            },
            Event::InitDone => {
                let Some(listing) = self.listing.take() else { return Batch::One(None) };
                let dyntype = self.dyntype.clone();
                let gone: Vec<_> = listing
                    .before
                    .into_iter()
                    .filter(|object| self.store.get(&object.to_object_ref(dyntype.clone())).is_none())
                    .collect();
                Batch::Listed {
                    changed: listing.changed.into_iter(),
                    gone: gone.into_iter(),
                    store: self.store.clone(),
                }
            }
            Event::Apply(object) if passed => Batch::One(Some(Ok(object))),
            Event::Delete(object) if passed && self.deletions => Batch::One(Some(Ok(object))),
            Event::InitApply(_) | Event::Apply(_) | Event::Delete(_) => Batch::One(None),
        }
    }
}

/// The triggers one event releases. A finished list's are cloned from the store one at a
/// time, as the controller takes them.
pub(crate) enum Batch<K: Lookup + 'static>
where
    K::DynamicType: Eq + Hash + Clone,
{
    One(Option<Result<K, watcher::Error>>),
    Listed { changed: std::vec::IntoIter<ObjectRef<K>>, gone: std::vec::IntoIter<Arc<K>>, store: Store<K> },
}

impl<K> Iterator for Batch<K>
where
    K: Lookup + Clone + 'static,
    K::DynamicType: Eq + Hash + Clone,
{
    type Item = Result<K, watcher::Error>;

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Batch::One(item) => item.take(),
            Batch::Listed { changed, gone, store } => {
                // An object deleted since it was listed is in neither: nothing to start.
                let object = changed.by_ref().find_map(|reference| store.get(&reference)).or_else(|| gone.next())?;
                Some(Ok(K::clone(&object)))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use futures::StreamExt;
    use k8s_openapi::api::core::v1::ConfigMap;
    use kube::api::ObjectMeta;
    use kube::runtime::reflector::store::Writer;
    use kube::runtime::reflector::{Store, reflector};
    use kube::runtime::watcher::Event;

    use super::triggers;

    fn map(name: &str, version: &str) -> ConfigMap {
        ConfigMap {
            metadata: ObjectMeta {
                name: Some(name.into()),
                namespace: Some("default".into()),
                resource_version: Some(version.into()),
                ..ObjectMeta::default()
            },
            ..ConfigMap::default()
        }
    }

    /// What each event releases, as `name@resourceVersion`, with what `reader` showed for
    /// each released object at the moment it was released.
    async fn released(events: Vec<Event<ConfigMap>>, deletions: bool) -> Vec<Vec<String>> {
        let writer = Writer::<ConfigMap>::default();
        let reader: Store<ConfigMap> = writer.as_reader();
        let events = reflector(writer, futures::stream::iter(events.into_iter().map(Ok)));
        let count = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counting = count.clone();
        // Every event is counted as it enters, so each trigger says after which event it left.
        let events = events.inspect(move |_| {
            counting.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        });
        let out = triggers(events, reader.clone(), (), |_| true, deletions).map(|object| {
            let object = object.unwrap();
            let name = object.metadata.name.clone().unwrap();
            let cached = reader
                .get(&kube::runtime::reflector::ObjectRef::new(&name).within("default"))
                .and_then(|cached| cached.metadata.resource_version.clone())
                .unwrap_or_else(|| "-".into());
            (
                count.load(std::sync::atomic::Ordering::SeqCst),
                format!("{name}@{} cached {cached}", object.metadata.resource_version.unwrap()),
            )
        });
        let out: Vec<(usize, String)> = out.collect().await;
        let mut by_event = vec![Vec::new(); out.iter().map(|(n, _)| *n).max().unwrap_or(0)];
        for (n, text) in out {
            by_event[n - 1].push(text);
        }
        by_event
    }

    #[tokio::test]
    async fn a_list_starts_its_passes_when_the_cache_holds_it() {
        let events = vec![
            Event::Apply(map("a", "1")),
            Event::Apply(map("b", "2")),
            // The watch lists again: a changed, b gone, c new.
            Event::Init,
            Event::InitApply(map("a", "5")),
            Event::InitApply(map("c", "6")),
            Event::InitDone,
            Event::Apply(map("c", "7")),
        ];
        let released = released(events, false).await;
        let expected: Vec<Vec<String>> = vec![
            vec!["a@1 cached 1".into()],
            vec!["b@2 cached 2".into()],
            vec![],
            vec![],
            vec![],
            vec!["a@5 cached 5".into(), "c@6 cached 6".into()],
            vec!["c@7 cached 7".into()],
        ];
        assert_eq!(released, expected);
    }

    #[tokio::test]
    async fn objects_a_list_no_longer_has_pass_as_deletions() {
        let events = vec![
            Event::Apply(map("a", "1")),
            Event::Apply(map("b", "2")),
            Event::Init,
            Event::InitApply(map("a", "1")),
            // The list breaks off and starts again.
            Event::Init,
            Event::InitApply(map("a", "1")),
            Event::InitDone,
            Event::Delete(map("a", "9")),
        ];
        let released = released(events, true).await;
        let expected: Vec<Vec<String>> = vec![
            vec!["a@1 cached 1".into()],
            vec!["b@2 cached 2".into()],
            vec![],
            vec![],
            vec![],
            vec![],
            vec!["a@1 cached 1".into(), "a@1 cached 1".into(), "b@2 cached -".into()],
            vec!["a@9 cached -".into()],
        ];
        assert_eq!(released, expected);
    }
}
