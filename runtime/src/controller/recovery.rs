//! Failed passes retried as soon as the API server is back.
//!
//! A pass that fails because the API server cannot be reached waits for its object's backoff
//! (5 ms doubling per failure): after a 20 s outage the objects whose passes failed throughout
//! wait about 20 s more, though the server answers again. The watch of the reconciled kind
//! sees the server back first (its list after the restart, or its first event after an error),
//! and then every object still backing off gets a pass at once. A retried pass that fails
//! again goes on backing off where it was. controller-runtime has no such step: its objects
//! wait out their backoff.

use std::sync::Arc;

use futures::{Stream, StreamExt};
use kube::Resource;
use kube::runtime::reflector::Store;
use kube::runtime::watcher::{self, Event};
use tokio::sync::watch;

use super::backoff::Backoff;

/// `events` (a reflector's output) passed on unchanged, and a signal that ticks each time the
/// watch has an answer from the server again after one or more errors: a list done
/// (`InitDone`), or an event, so the cache already shows what the server holds now.
pub(crate) fn outages<K, S>(events: S) -> (impl Stream<Item = S::Item> + Send, watch::Receiver<u64>)
where
    S: Stream<Item = Result<Event<K>, watcher::Error>> + Send,
{
    let (recovered, signal) = watch::channel(0u64);
    let mut failing = false;
    let events = events.inspect(move |event| match event {
        Err(_) => failing = true,
        Ok(Event::InitDone | Event::Apply(_) | Event::Delete(_)) if failing => {
            failing = false;
            recovered.send_modify(|count| *count += 1);
        }
        Ok(_) => {}
    });
    (events, signal)
}

/// Each time `recovered` ticks, the objects of `store` that `backoff` holds a failure for, to
/// start their passes now.
pub(crate) fn retries<K>(
    recovered: watch::Receiver<u64>,
    backoff: Arc<Backoff<K>>,
    store: Store<K>,
) -> impl Stream<Item = K> + Send
where
    K: Resource<DynamicType = ()> + Clone + Send + Sync + 'static,
{
    ticks(recovered).flat_map(move |()| {
        let objects: Vec<K> =
            backoff.failing().iter().filter_map(|reference| store.get(reference)).map(|o| K::clone(&o)).collect();
        futures::stream::iter(objects)
    })
}

/// One item per change of `signal` after its first value.
fn ticks(signal: watch::Receiver<u64>) -> impl Stream<Item = ()> + Send {
    futures::stream::unfold(signal, |mut signal| async move {
        signal.changed().await.ok()?;
        Some(((), signal))
    })
}

#[cfg(test)]
mod tests {
    use futures::StreamExt;
    use k8s_openapi::api::core::v1::ConfigMap;
    use kube::api::ObjectMeta;
    use kube::runtime::reflector::store::Writer;
    use kube::runtime::reflector::{ObjectRef, reflector};
    use kube::runtime::watcher::{self, Event};

    use super::*;

    fn map(name: &str) -> ConfigMap {
        let metadata = ObjectMeta { name: Some(name.into()), namespace: Some("ns".into()), ..ObjectMeta::default() };
        ConfigMap { metadata, ..ConfigMap::default() }
    }

    fn failed() -> Result<Event<ConfigMap>, watcher::Error> {
        Err(watcher::Error::NoResourceVersion)
    }

    /// How many recoveries the signal counted after each event.
    async fn recoveries(events: Vec<Result<Event<ConfigMap>, watcher::Error>>) -> Vec<u64> {
        let (events, signal) = outages(futures::stream::iter(events));
        events.map(|_| *signal.borrow()).collect().await
    }

    #[tokio::test]
    async fn the_server_is_back_when_a_list_is_done_or_an_event_comes_after_errors() {
        let events = vec![
            Ok(Event::Apply(map("a"))),
            failed(),
            failed(),
            Ok(Event::Init),
            Ok(Event::InitApply(map("a"))),
            Ok(Event::InitDone),
            Ok(Event::Apply(map("a"))),
            failed(),
            Ok(Event::Delete(map("a"))),
        ];
        assert_eq!(recoveries(events).await, [0, 0, 0, 0, 0, 1, 1, 1, 2]);
    }

    #[tokio::test]
    async fn a_first_list_is_no_recovery() {
        let events = vec![Ok(Event::Init), Ok(Event::InitApply(map("a"))), Ok(Event::InitDone)];
        assert_eq!(recoveries(events).await, [0, 0, 0]);
    }

    #[tokio::test]
    async fn a_recovery_retries_the_cached_objects_that_are_backing_off() {
        let writer = Writer::<ConfigMap>::default();
        let store = writer.as_reader();
        let listed = [Event::Init, Event::InitApply(map("a")), Event::InitApply(map("b")), Event::InitDone];
        reflector(writer, futures::stream::iter(listed.map(Ok))).for_each(|_| async {}).await;
        let backoff = Arc::new(Backoff::<ConfigMap>::new(
            std::time::Duration::from_millis(5),
            std::time::Duration::from_secs(1000),
        ));
        backoff.failed(ObjectRef::new("a").within("ns"));
        // Failing, but gone from the cache: nothing to retry.
        backoff.failed(ObjectRef::new("c").within("ns"));

        let (recovered, signal) = watch::channel(0u64);
        let retried = retries(signal, backoff.clone(), store);
        recovered.send_modify(|count| *count += 1);
        drop(recovered);
        let names: Vec<String> = retried.map(|object| object.metadata.name.unwrap()).collect().await;
        assert_eq!(names, ["a"]);
    }
}
