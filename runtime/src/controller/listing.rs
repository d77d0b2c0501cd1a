//! How a controller's watches list their kind: as a stream of watch events, falling back to
//! pages of a list on an API server that refuses that.
//!
//! A watch with `sendInitialEvents=true` (the WatchList feature, on by default since
//! Kubernetes 1.34) sends every object as an event from the API server's watch cache, then
//! a bookmark that ends the list (kubebuilder's operator lists this way too: its
//! client-go's WatchListClient). The manager decodes one object at a time instead of one
//! answer holding every object (tens of megabytes at 10,000 objects, and the peak memory of
//! a restarted manager). Kubernetes 1.33, or a cluster with the feature off, refuses such a
//! watch (`422`, `sendInitialEvents is forbidden for watch unless the WatchList feature
//! gate is enabled`); the watch then lists in pages, as before, for the rest of the
//! manager's life (client-go's reflector falls back to a list too).

use std::fmt::Debug;

use futures::{Stream, StreamExt, stream};
use kube::runtime::watcher::{self, Event, watcher};
use kube::{Api, Resource};
use serde::de::DeserializeOwned;
use tracing::info;

/// The watch of `api`'s objects, listed as a stream of events, or in pages once the API
/// server has refused that ([`refuses_streaming`]); `what` names the kind in the log line that
/// says so. Lists are served from the watch cache (`resourceVersion=0`), as client-go's are.
pub(crate) fn watch<K>(api: Api<K>, what: String) -> impl Stream<Item = Result<Event<K>, watcher::Error>> + Send
where
    K: Resource + Clone + DeserializeOwned + Debug + Send + 'static,
{
    let config = || watcher::Config::default().any_semantic();
    let streamed = watcher(api.clone(), config().streaming_lists()).boxed();
    stream::unfold((streamed, Some(api)), move |(mut events, mut fallback)| {
        let what = what.clone();
        async move {
            loop {
                let event = events.next().await?;
                if let Err(err) = &event
                    && refuses_streaming(err)
                    && let Some(api) = fallback.take()
                {
                    info!(watch = %what, "the API server does not stream lists (WatchList is off), listing in pages");
                    events = watcher(api, config()).boxed();
                    continue;
                }
                return Some((event, (events, fallback)));
            }
        }
    })
}

/// Whether `err` is the API server's refusal of `sendInitialEvents`: a `422 Invalid` of the
/// watch's list options, or a `400` from a server that does not know the parameter's rules
/// (apimachinery's `ValidateListOptions`).
fn refuses_streaming(err: &watcher::Error) -> bool {
    let watcher::Error::WatchStartFailed(kube::Error::Api(status)) = err else { return false };
    matches!(status.code, 400 | 422) && status.message.contains("sendInitialEvents")
}
