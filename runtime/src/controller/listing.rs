//! How a controller's watches list their kind: as a stream of watch events, falling back to
//! a list and a watch on an API server that refuses that.
//!
//! A watch with `sendInitialEvents=true` (the WatchList feature, on by default since
//! Kubernetes 1.34) sends every object as an event from the API server's watch cache, then
//! a bookmark that ends the list (kubebuilder's operator lists this way too: its
//! client-go's WatchListClient). The manager decodes one object at a time instead of one
//! answer holding every object (tens of megabytes at 10,000 objects, and the peak memory of
//! a restarted manager). Kubernetes 1.33, or a cluster with the feature off, refuses such a
//! watch (`422`, `sendInitialEvents is forbidden for watch unless the WatchList feature
//! gate is enabled`), and an API server from before 1.27 (an aggregated one built on an old
//! library) refuses its `resourceVersionMatch`; the watch then lists and watches as before
//! (one answer from the watch cache, `resourceVersion=0`) for the rest of the manager's
//! life. client-go's reflector falls back to a list too, on each failed attempt.

use std::fmt::Debug;
use std::sync::Arc;

use futures::{Stream, StreamExt, stream};
use kube::runtime::watcher::{self, Event, watcher};
use kube::{Api, Resource};
use serde::de::DeserializeOwned;
use tracing::info;

/// The watch of `api`'s objects that `config`'s selectors select, listed as a stream of
/// events, or by a list once the API server has refused that ([`refuses_streaming`]); `what`
/// names the kind in the log line that says so.
pub(crate) fn watch<K>(
    api: Api<K>,
    what: String,
    config: watcher::Config,
) -> impl Stream<Item = Result<Event<K>, watcher::Error>> + Send
where
    K: Resource + Clone + DeserializeOwned + Debug + Send + 'static,
{
    let what: Arc<str> = what.into();
    let streamed = watcher(api.clone(), config.clone().streaming_lists()).boxed();
    stream::unfold((streamed, Some((api, config))), move |(mut events, mut fallback)| {
        let what = what.clone();
        async move {
            loop {
                let event = events.next().await?;
                if let Err(err) = &event
                    && refuses_streaming(err)
                    && let Some((api, config)) = fallback.take()
                {
                    info!(watch = %what, "the API server does not stream lists (WatchList is off), listing instead");
                    events = watcher(api, config.any_semantic()).boxed();
                    continue;
                }
                return Some((event, (events, fallback)));
            }
        }
    })
}

/// Whether `err` is the API server's refusal of a watch that streams its list: the `422
/// Invalid` its validation of the watch's options gives (apimachinery's
/// `ValidateListOptions`), for `sendInitialEvents` when the WatchList feature is off, or for
/// `resourceVersionMatch` from a server that does not know `sendInitialEvents` at all.
fn refuses_streaming(err: &watcher::Error) -> bool {
    let watcher::Error::WatchStartFailed(kube::Error::Api(status)) = err else { return false };
    let message = &status.message;
    status.code == 422
        && (message.contains("sendInitialEvents")
            || message.contains("resourceVersionMatch") && message.contains("forbidden for watch"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(code: u16, message: &str) -> watcher::Error {
        let status = kube::core::Status::failure(message, "Invalid").with_code(code);
        watcher::Error::WatchStartFailed(kube::Error::Api(Box::new(status)))
    }

    #[test]
    fn only_a_refused_streamed_list_falls_back() {
        // Refusals in the shape of apimachinery's validation of list options: WatchList off,
        // and a server from before sendInitialEvents.
        let off = "ListOptions.meta.k8s.io \"\" is invalid: sendInitialEvents: Forbidden: \
                   sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled";
        let older = "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: \
                     resourceVersionMatch is forbidden for watch";
        assert!(refuses_streaming(&refusal(422, off)));
        assert!(refuses_streaming(&refusal(422, older)));
        assert!(!refuses_streaming(&refusal(403, "configmaps is forbidden: User cannot watch resource")));
        assert!(!refuses_streaming(&refusal(422, "resourceVersionMatch: Unsupported value")));
        let gone = watcher::Error::WatchFailed(kube::Error::Api(Box::new(kube::core::Status::failure(off, "Gone"))));
        assert!(!refuses_streaming(&gone));
    }
}
