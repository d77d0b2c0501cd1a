//! One watch of each owned or watched kind for all the controllers of a manager. Without it,
//! two controllers that own Deployments (a Memcached's and a Busybox's) each list and watch
//! every Deployment and each keep a store of all their metadata: about 2 KiB per Deployment
//! per controller (docs/benchmarks.md, "Where the memory goes"). As with controller-runtime's
//! shared informers, the controllers share one watch and one store. Each keeps its own filter
//! of changes and its own view of lists ([`Triggers`]), stepped through every event right
//! after the store has taken it; the objects of a finished list are read from the store as
//! the controller takes them, as they are then (a newer version, or none once deleted, whose
//! deletion follows).
//!
//! The watches run in the task of whoever runs the controllers ([`RelatedWatches::run`], joined
//! with them), not in a task of their own: the events are then taken on the thread that takes
//! the controllers' own, as with a watch per controller. A controller that subscribes after
//! the watches have started (none does within a manager: every controller subscribes before
//! any runs) gets watches of its own, started when its stream is first polled: the shared
//! ones' past events are gone.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use futures::{Stream, StreamExt, stream};
use kube::api::{ApiResource, DynamicObject, PartialObjectMeta};
use kube::runtime::reflector::store::Writer;
use kube::runtime::reflector::{Store, reflector};
use kube::runtime::watcher::Event;
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Api, Client};
use tokio::sync::mpsc;
use tracing::debug;

use super::config::Watch;
use super::listing;
use super::relist::{Batch, Triggers};
use super::retry::retrying;

/// An object of a related kind, as its watch keeps it: metadata only.
pub(crate) type Meta = PartialObjectMeta<DynamicObject>;

/// What a related kind's watch yields, after its reflector has applied it to the store.
pub(crate) type WatchEvent = Result<Event<Meta>, watcher::Error>;

/// Which of a subscriber's events start passes; it sees every event, in order.
pub(crate) type Filter = Box<dyn FnMut(&WatchEvent) -> bool + Send>;

/// A related kind's watch: `apiVersion`, kind, the namespace watched (`None`: all), and its
/// label and field selectors as the API server reads them (empty: none).
type Key = (String, String, Option<String>, (String, String));

/// The watches of related kinds that the controllers of one manager share: one watch and one
/// metadata store per kind, namespace and selection. Clones share the watches; [`Default`]
/// starts an empty set (what a controller run on its own gets).
#[derive(Clone, Default)]
pub(crate) struct RelatedWatches {
    registry: Arc<Mutex<Registry>>,
}

/// The shared watches, and whether [`RelatedWatches::run`] has taken them.
#[derive(Default)]
struct Registry {
    watches: HashMap<Key, Arc<Mutex<Shared>>>,
    running: bool,
}

impl fmt::Debug for RelatedWatches {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let registry = self.registry.lock().unwrap_or_else(PoisonError::into_inner);
        let kinds: Vec<_> = registry.watches.keys().collect();
        f.debug_struct("RelatedWatches").field("kinds", &kinds).field("running", &registry.running).finish()
    }
}

/// One shared watch: its store, and until it starts, what it needs to start.
struct Shared {
    store: Store<Meta>,
    pending: Option<Pending>,
}

/// A watch not started yet.
struct Pending {
    writer: Writer<Meta>,
    api: Api<Meta>,
    kind: String,
    /// The watch's selectors.
    config: watcher::Config,
    subscribers: Vec<Subscriber>,
}

/// A controller following a shared watch: its filter, its view of lists, where its triggers go.
struct Subscriber {
    passes: Filter,
    triggers: Triggers<Meta>,
    /// Each event's triggers, taken one at a time by the controller: a list's are cloned from
    /// the store only then, not all at once when the list ends. Bounded: a controller that
    /// stops taking triggers (one shutting down while its last passes finish) holds the watch
    /// back, as it held back a watch of its own, rather than piling up copies of each event.
    sender: mpsc::Sender<Batch<Meta>>,
}

/// How many events' triggers wait for a subscriber before the watch waits for it.
const BUFFERED: usize = 16;

impl RelatedWatches {
    /// Follows the metadata of `resource`'s objects in `namespace` (all namespaces when
    /// `None`) that `watch` selects: returns the store of the kind's watch and the stream of the objects whose
    /// events `passes` lets through (deletions too when `deletions`), the objects of a list
    /// once the store holds it (see `super::relist`). Lists come from the API server's watch
    /// cache; managed fields are left out of the store. The watch's errors are logged and
    /// retried by the watch (`super::retry`), not passed on.
    pub(crate) fn subscribe(
        &self,
        client: &Client,
        namespace: Option<&str>,
        resource: &ApiResource,
        watch: &Watch,
        passes: Filter,
        deletions: bool,
    ) -> (Store<Meta>, impl Stream<Item = Result<Meta, watcher::Error>> + Send + 'static + use<>) {
        let selection = watch.selection();
        let key = (resource.api_version.clone(), resource.kind.clone(), namespace.map(String::from), selection);
        let config = watch.watcher_config();
        let (sender, mut receiver) = mpsc::channel(BUFFERED);
        let shared = {
            let mut registry = self.registry.lock().unwrap_or_else(PoisonError::into_inner);
            (!registry.running).then(|| {
                registry.watches.entry(key).or_insert_with(|| Shared::new(client, namespace, resource, &config)).clone()
            })
        };
        let joined = match &shared {
            Some(shared) => {
                shared.lock().unwrap_or_else(PoisonError::into_inner).join(resource, deletions, passes, sender)
            }
            None => Err((passes, sender)),
        };
        let triggered = stream::poll_fn(move |cx| receiver.poll_recv(cx)).flat_map(stream::iter);
        let (passes, sender) = match joined {
            Ok(store) => return (store, triggered.left_stream()),
            Err(subscriber) => subscriber,
        };
        debug!(kind = %resource.kind, "watch already started, following a watch of its own");
        let (store, pending) = Shared::own(client, namespace, resource, &config, deletions, passes, sender);
        let start = stream::once(async move {
            tokio::spawn(pending.fan_out());
        });
        (store, start.filter_map(|()| std::future::ready(None)).chain(triggered).right_stream())
    }

    /// Runs the watches subscribed so far until none of their subscribers is left (every
    /// controller following them has stopped): what runs the controllers joins this with them.
    /// A second call runs none (the first has taken them).
    pub(crate) async fn run(&self) {
        let pending: Vec<Pending> = {
            let mut registry = self.registry.lock().unwrap_or_else(PoisonError::into_inner);
            registry.running = true;
            registry
                .watches
                .values()
                .filter_map(|shared| shared.lock().unwrap_or_else(PoisonError::into_inner).pending.take())
                .collect()
        };
        futures::future::join_all(pending.into_iter().map(Pending::fan_out)).await;
    }
}

impl Shared {
    fn new(
        client: &Client,
        namespace: Option<&str>,
        resource: &ApiResource,
        config: &watcher::Config,
    ) -> Arc<Mutex<Self>> {
        let (store, pending) = Pending::new(client, namespace, resource, config);
        Arc::new(Mutex::new(Self { store, pending: Some(pending) }))
    }

    /// A watch of its own for one subscriber: its store, and the watch to start.
    fn own(
        client: &Client,
        namespace: Option<&str>,
        resource: &ApiResource,
        config: &watcher::Config,
        deletions: bool,
        passes: Filter,
        sender: mpsc::Sender<Batch<Meta>>,
    ) -> (Store<Meta>, Pending) {
        let (store, mut pending) = Pending::new(client, namespace, resource, config);
        pending.add(&store, resource, deletions, passes, sender);
        (store, pending)
    }

    /// Adds a subscriber and returns the store, unless the watch has started: then hands the
    /// subscriber back.
    fn join(
        &mut self,
        resource: &ApiResource,
        deletions: bool,
        passes: Filter,
        sender: mpsc::Sender<Batch<Meta>>,
    ) -> Result<Store<Meta>, (Filter, mpsc::Sender<Batch<Meta>>)> {
        match &mut self.pending {
            Some(pending) => {
                pending.add(&self.store, resource, deletions, passes, sender);
                Ok(self.store.clone())
            }
            None => Err((passes, sender)),
        }
    }
}

impl Pending {
    /// A watch of `resource`'s objects in `namespace` (all when `None`) that `config` selects,
    /// and its store.
    fn new(
        client: &Client,
        namespace: Option<&str>,
        resource: &ApiResource,
        config: &watcher::Config,
    ) -> (Store<Meta>, Self) {
        let api = match namespace {
            Some(ns) => Api::namespaced_with(client.clone(), ns, resource),
            None => Api::all_with(client.clone(), resource),
        };
        let writer = Writer::new(resource.clone());
        let store = writer.as_reader();
        let config = config.clone();
        (store, Self { writer, api, kind: resource.kind.clone(), config, subscribers: Vec::new() })
    }

    /// Adds a subscriber whose list view reads `store`.
    fn add(
        &mut self,
        store: &Store<Meta>,
        resource: &ApiResource,
        deletions: bool,
        passes: Filter,
        sender: mpsc::Sender<Batch<Meta>>,
    ) {
        let triggers = Triggers::new(store.clone(), resource.clone(), deletions);
        self.subscribers.push(Subscriber { passes, triggers, sender });
    }

    /// The watch, handing its events to the subscribers until none is left.
    async fn fan_out(self) {
        // Managed fields are most of an object's metadata, and nothing here reads them; nor
        // the type of the metadata-only answer.
        let watch = listing::watch(self.api, self.kind.clone(), self.config).modify(|object| {
            object.metadata.managed_fields = None;
            object.types = None;
        });
        let events = reflector(self.writer, retrying(watch, self.kind));
        fan_out(events, self.subscribers).await;
    }
}

/// Hands each of `events` to every subscriber, each taking what it releases before the next
/// event is read (waiting for a subscriber whose buffer is full); ends with the events or once
/// every subscriber is gone.
async fn fan_out(events: impl Stream<Item = WatchEvent>, mut subscribers: Vec<Subscriber>) {
    let mut events = std::pin::pin!(events);
    while !subscribers.is_empty() {
        let event = {
            let gone = futures::future::join_all(subscribers.iter().map(|s| s.sender.closed()));
            match futures::future::select(events.next(), std::pin::pin!(gone)).await {
                futures::future::Either::Left((Some(event), _)) => event,
                futures::future::Either::Left((None, _)) | futures::future::Either::Right(_) => return,
            }
        };
        for subscriber in &mut subscribers {
            let passed = (subscriber.passes)(&event);
            let Ok(event) = &event else { continue };
            let batch = subscriber.triggers.step(Ok(event.clone()), passed);
            if !matches!(batch, Batch::One(None)) {
                // A subscriber whose controller stopped is dropped below.
                let _ = subscriber.sender.send(batch).await;
            }
        }
        subscribers.retain(|subscriber| !subscriber.sender.is_closed());
    }
}

#[cfg(test)]
mod tests {
    use kube::api::ObjectMeta;

    use super::*;

    fn meta(name: &str, version: &str, generation: i64) -> Meta {
        let metadata = ObjectMeta {
            name: Some(name.into()),
            namespace: Some("default".into()),
            resource_version: Some(version.into()),
            generation: Some(generation),
            ..ObjectMeta::default()
        };
        PartialObjectMeta { types: None, metadata, _phantom: std::marker::PhantomData }
    }

    /// A watch of Deployments not started: its kind, its writer and its store.
    fn deployments() -> (ApiResource, Writer<Meta>, Store<Meta>) {
        let resource = ApiResource::erase::<k8s_openapi::api::apps::v1::Deployment>(&());
        let writer = Writer::new(resource.clone());
        let store = writer.as_reader();
        (resource, writer, store)
    }

    fn subscriber(
        store: &Store<Meta>,
        resource: &ApiResource,
        passes: impl FnMut(&WatchEvent) -> bool + Send + 'static,
    ) -> (Subscriber, mpsc::Receiver<Batch<Meta>>) {
        let (sender, receiver) = mpsc::channel(BUFFERED);
        let triggers = Triggers::new(store.clone(), resource.clone(), true);
        (Subscriber { passes: Box::new(passes), triggers, sender }, receiver)
    }

    fn drain(receiver: &mut mpsc::Receiver<Batch<Meta>>) -> Vec<String> {
        std::iter::from_fn(|| receiver.try_recv().ok())
            .flatten()
            .map(|released| released.unwrap())
            .map(|o| format!("{}@{}", o.metadata.name.unwrap(), o.metadata.resource_version.unwrap()))
            .collect()
    }

    #[tokio::test]
    async fn each_subscriber_filters_one_watch_and_sees_its_lists_whole() {
        let (resource, writer, store) = deployments();
        let (every, mut every_out) = subscriber(&store, &resource, |_| true);
        let mut generations = super::super::changes::SpecChanges::default();
        let (spec, mut spec_out) = subscriber(&store, &resource, move |event| generations.pass(event));
        let events = vec![
            Event::Apply(meta("a", "1", 1)),
            Event::Apply(meta("a", "2", 1)),
            // The watch lists again: a's spec changed, b is new.
            Event::Init,
            Event::InitApply(meta("a", "5", 2)),
            Event::InitApply(meta("b", "6", 1)),
            Event::InitDone,
            Event::Apply(meta("c", "7", 1)),
        ];
        let events = reflector(writer, stream::iter(events.into_iter().map(Ok)));

        fan_out(events, vec![every, spec]).await;

        assert_eq!(drain(&mut every_out), ["a@1", "a@2", "a@5", "b@6", "c@7"]);
        assert_eq!(drain(&mut spec_out), ["a@1", "a@5", "b@6", "c@7"], "status-only change held back");
        assert_eq!(store.state().len(), 3, "one store of both");
    }

    #[tokio::test]
    async fn a_subscriber_that_stopped_is_dropped_and_the_rest_go_on() {
        let (resource, writer, store) = deployments();
        let (first, first_out) = subscriber(&store, &resource, |_| true);
        let (second, mut second_out) = subscriber(&store, &resource, |_| true);
        drop(first_out);
        let events = vec![Event::Apply(meta("a", "1", 1)), Event::Apply(meta("b", "2", 1))];
        let events = reflector(writer, stream::iter(events.into_iter().map(Ok)));

        fan_out(events, vec![first, second]).await;

        assert_eq!(drain(&mut second_out), ["a@1", "b@2"]);
    }

    #[tokio::test]
    async fn a_subscriber_that_takes_nothing_holds_the_watch_back() {
        let (resource, writer, store) = deployments();
        let (slow, mut slow_out) = subscriber(&store, &resource, |_| true);
        let events: Vec<_> = (0..BUFFERED + 4).map(|i| Ok(Event::Apply(meta(&format!("o{i}"), "1", 1)))).collect();
        let events = reflector(writer, stream::iter(events));
        let running = tokio::spawn(fan_out(events, vec![slow]));
        for _ in 0..100 {
            tokio::task::yield_now().await;
        }

        // The buffer is full, and the event after it waits: read, so in the store, not sent.
        assert_eq!(store.state().len(), BUFFERED + 1);
        let mut taken = 0;
        while taken < BUFFERED + 4 {
            taken += slow_out.recv().await.unwrap().count();
        }
        running.await.unwrap();
        assert_eq!(store.state().len(), BUFFERED + 4);
    }

    #[tokio::test]
    async fn controllers_subscribed_before_the_run_share_a_watch_and_later_ones_get_their_own() {
        let config = kube::Config::new("http://127.0.0.1:9".parse().unwrap());
        let client = Client::try_from(config).unwrap();
        let (resource, _, _) = deployments();
        let related = RelatedWatches::default();
        let subscribe =
            || related.subscribe(&client, Some("default"), &resource, &Watch::default(), Box::new(|_| true), true);
        let (first, _first_triggers) = subscribe();
        let (second, _second_triggers) = subscribe();
        let subscribers = |related: &RelatedWatches| -> Vec<usize> {
            let registry = related.registry.lock().unwrap();
            let watches = registry.watches.values();
            watches.map(|shared| shared.lock().unwrap().pending.as_ref().map_or(0, |p| p.subscribers.len())).collect()
        };
        assert_eq!(subscribers(&related), [2], "one watch, two subscribers");
        assert!(first.state().is_empty() && second.state().is_empty());

        // With nothing subscribed the run ends at once; a later subscriber gets a watch of its own.
        let started = RelatedWatches::default();
        started.run().await;
        let (_, _own) =
            started.subscribe(&client, Some("default"), &resource, &Watch::default(), Box::new(|_| true), true);
        assert_eq!(subscribers(&started), Vec::<usize>::new());
    }

    #[tokio::test]
    async fn a_watch_ends_once_no_subscriber_is_left() {
        let (resource, _writer, store) = deployments();
        let (only, out) = subscriber(&store, &resource, |_| true);
        drop(out);
        // A watch that never yields: only the subscriber's going ends the fan-out.
        fan_out(stream::pending(), vec![only]).await;
    }
}
