//! How each of a controller's watches retries after an error, on its own.
//!
//! kube-runtime's `Controller` merges the watches of the reconciled kind and of every owned and
//! watched kind into one stream, and by default pauses that whole stream after any error: 800 ms
//! doubling to 30 s, reset only when an item gets through. During an API server outage the
//! pause grows to its cap, and after the restart each watch's routine `410 Gone` ("too old
//! resource version": list again) costs another full pause, during which no watch is read: the
//! controller saw a restored API server a minute or more late. Here the merged stream never
//! pauses ([`NoPause`]), and each watch retries by itself ([`retrying`]).

use std::time::{Duration, SystemTime};

use futures::{Stream, StreamExt};
use kube::runtime::utils::Backoff;
use kube::runtime::watcher::{self, Event};
use tracing::{debug, info, warn};

use super::error::error_chain;

/// The pause after a watch's first error other than `410 Gone`; it doubles with each error
/// that follows, up to [`MAX_PAUSE_BUSY`], [`MAX_PAUSE_UNREACHABLE`] or [`MAX_PAUSE_REFUSED`].
const FIRST_PAUSE: Duration = Duration::from_millis(200);
/// The longest pause while the API server cannot be reached (no answer: refused, reset, timed
/// out) or answers with another 5xx: how late, at most, a watch sees an API server that came
/// back.
const MAX_PAUSE_UNREACHABLE: Duration = Duration::from_secs(5);
/// The longest pause while the API server answers that it is busy and asks to come back soon
/// (`429`, `503`, `504`: its watch cache listing again after an etcd restart, a starting
/// server), about the `Retry-After` it sends.
const MAX_PAUSE_BUSY: Duration = Duration::from_secs(1);
/// The longest pause while the API server refuses the request (a 4xx: a 403 for a missing RBAC
/// rule, a 404 for a CRD not installed): it will answer the same until someone changes the
/// cluster (client-go's reflector waits up to 30 s too).
const MAX_PAUSE_REFUSED: Duration = Duration::from_secs(30);

/// `stream`, a watch of `what` (a kind, for the logs), retried on its own: after `410 Gone` it
/// lists again at once; after any other error it pauses [`FIRST_PAUSE`], doubling up to
/// [`MAX_PAUSE_BUSY`] when the server asked to come back soon, [`MAX_PAUSE_REFUSED`] when it
/// refused the request, or [`MAX_PAUSE_UNREACHABLE`] otherwise ([`max_pause`]), plus up to a
/// quarter at random so that many watches do not retry in step. A refusal after the server could not be reached, in the same run of errors, keeps the
/// short cap: a restarted API server answers `403` and `404` for a few seconds while its
/// authorizer and CRD handlers load. An event from the server resets the pause; the watcher's own `Init`, which starts
/// each attempt to list before any request, does not. The first error of a run is logged at
/// WARN, the rest of the run at DEBUG, and the recovery at INFO, so an outage costs a few lines.
pub(crate) fn retrying<S, K>(stream: S, what: String) -> impl Stream<Item = Result<Event<K>, watcher::Error>> + Send
where
    S: Stream<Item = Result<Event<K>, watcher::Error>> + Send,
    K: Send,
{
    let mut failures: u32 = 0;
    // Whether the server could not be reached in this run of errors: a refusal that follows is
    // the server starting (its authorizer and CRD handlers not loaded yet), not a lasting one.
    let mut was_unreachable = false;
    stream.then(move |item| {
        let pause = match &item {
            Ok(Event::Init) => None,
            Ok(_) => {
                if failures > 0 {
                    info!(watch = %what, failures, "watch recovered");
                }
                failures = 0;
                was_unreachable = false;
                None
            }
            Err(err) if gone(err) => {
                debug!(watch = %what, error = error_chain(err), "watch expired, listing again");
                None
            }
            Err(err) => {
                failures += 1;
                let max = max_pause(err);
                was_unreachable |= max == MAX_PAUSE_UNREACHABLE;
                let cap = if was_unreachable && max == MAX_PAUSE_REFUSED { MAX_PAUSE_UNREACHABLE } else { max };
                let pause = pause(failures, cap);
                if failures == 1 {
                    let message = error_chain(err);
                    super::forbidden::log_missing_rule(&message);
                    warn!(watch = %what, error = message, retry_in = ?pause, "watch failed, retrying");
                } else {
                    debug!(watch = %what, error = error_chain(err), failures, retry_in = ?pause, "watch failed again");
                }
                Some(pause)
            }
        };
        async move {
            if let Some(pause) = pause {
                tokio::time::sleep(pause).await;
            }
            item
        }
    })
}

/// Whether `error` is the API server's `410 Gone`: the resource version the watch asked for is
/// no longer in its watch cache (after a restart, or a long disconnect). The watcher lists
/// again; waiting first gains nothing.
fn gone(error: &watcher::Error) -> bool {
    match error {
        watcher::Error::WatchError(status) => status.code == 410,
        watcher::Error::WatchStartFailed(kube::Error::Api(status))
        | watcher::Error::WatchFailed(kube::Error::Api(status)) => status.code == 410,
        _ => false,
    }
}

/// The cap of the pause after `error`: [`MAX_PAUSE_BUSY`] for a 429, 503 or 504,
/// [`MAX_PAUSE_REFUSED`] when the API server refused the request (another 4xx), else
/// [`MAX_PAUSE_UNREACHABLE`].
fn max_pause(error: &watcher::Error) -> Duration {
    let code = match error {
        watcher::Error::WatchError(status) => status.code,
        watcher::Error::InitialListFailed(kube::Error::Api(status))
        | watcher::Error::WatchStartFailed(kube::Error::Api(status))
        | watcher::Error::WatchFailed(kube::Error::Api(status)) => status.code,
        _ => return MAX_PAUSE_UNREACHABLE,
    };
    match code {
        429 | 503 | 504 => MAX_PAUSE_BUSY,
        400..500 => MAX_PAUSE_REFUSED,
        _ => MAX_PAUSE_UNREACHABLE,
    }
}

/// The pause after the `failures`-th error in a row: [`FIRST_PAUSE`] doubled for each earlier
/// one, at most `max`, plus up to a quarter of it.
fn pause(failures: u32, max: Duration) -> Duration {
    let doubled = FIRST_PAUSE.saturating_mul(1 << failures.saturating_sub(1).min(16));
    let pause = doubled.min(max);
    let nanos = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).unwrap_or_default().subsec_nanos();
    pause + pause.mul_f64(f64::from(nanos % 1000) / 4000.0)
}

/// The backoff of the controller's merged stream of watches: none, since each watch backs off
/// by itself ([`retrying`]). A pause there would stop every watch for one's error.
pub(crate) struct NoPause;

impl Iterator for NoPause {
    type Item = Duration;

    fn next(&mut self) -> Option<Duration> {
        Some(Duration::ZERO)
    }
}

impl Backoff for NoPause {
    fn reset(&mut self) {}
}

#[cfg(test)]
mod tests {
    use std::pin::pin;

    use futures::stream;
    use kube::core::Status;

    use super::*;

    fn status(code: u16) -> Box<Status> {
        Box::new(Status::failure("too old resource version: 1 (2)", "Expired").with_code(code))
    }

    #[test]
    fn the_pause_doubles_to_its_cap_with_a_little_jitter() {
        for (failures, base) in [(1, 200), (2, 400), (3, 800), (5, 3200), (6, 5000), (40, 5000)] {
            let pause = pause(failures, MAX_PAUSE_UNREACHABLE);
            let base = Duration::from_millis(base);
            assert!(pause >= base && pause <= base.mul_f64(1.25), "{failures}: {pause:?}");
        }
    }

    #[test]
    fn a_server_that_answers_with_an_error_is_asked_less_often() {
        let forbidden = watcher::Error::InitialListFailed(kube::Error::Api(status(403)));
        assert_eq!(max_pause(&forbidden), MAX_PAUSE_REFUSED);
        assert_eq!(max_pause(&watcher::Error::NoResourceVersion), MAX_PAUSE_UNREACHABLE);
        // A server that is starting answers 503 for a moment, a watch cache listing again 429:
        // not a refusal, and soon over.
        assert_eq!(max_pause(&watcher::Error::WatchError(status(503))), MAX_PAUSE_BUSY);
        assert_eq!(max_pause(&watcher::Error::WatchStartFailed(kube::Error::Api(status(429)))), MAX_PAUSE_BUSY);
        assert_eq!(max_pause(&watcher::Error::WatchError(status(500))), MAX_PAUSE_UNREACHABLE);
        let pause = pause(9, MAX_PAUSE_REFUSED);
        assert!(pause >= MAX_PAUSE_REFUSED && pause <= MAX_PAUSE_REFUSED.mul_f64(1.25), "{pause:?}");
    }

    /// After an outage a restarted server refuses for a moment (`403` before its RBAC is
    /// loaded): the pause stays under the short cap however many errors came before.
    #[tokio::test(start_paused = true)]
    async fn a_refusal_right_after_an_outage_is_retried_within_seconds() {
        let refused = watcher::Error::InitialListFailed(kube::Error::Api(status(403)));
        let paused = pause_after_an_outage(refused).await;
        assert!(paused <= MAX_PAUSE_UNREACHABLE.mul_f64(1.25), "{paused:?}");
    }

    /// The pause before `error` is passed on when 8 errors of an unreachable server came first.
    async fn pause_after_an_outage(error: watcher::Error) -> Duration {
        let unreachable = || Err(watcher::Error::NoResourceVersion);
        let mut items: Vec<Result<Event<u32>, watcher::Error>> = (0..8).map(|_| unreachable()).collect();
        items.push(Err(error));
        let mut retried = pin!(retrying(stream::iter(items), "test".into()));
        for _ in 0..8 {
            assert!(retried.next().await.unwrap().is_err());
        }
        let start = tokio::time::Instant::now();
        assert!(retried.next().await.unwrap().is_err());
        start.elapsed()
    }

    /// After an etcd restart the API server's watch cache answers `429` until it has listed
    /// again: however long the errors before, the watch asks again within a second or so.
    #[tokio::test(start_paused = true)]
    async fn a_busy_server_is_asked_again_within_a_second() {
        let busy = watcher::Error::WatchStartFailed(kube::Error::Api(status(429)));
        let paused = pause_after_an_outage(busy).await;
        assert!(paused <= MAX_PAUSE_BUSY.mul_f64(1.25), "{paused:?}");
    }

    /// kube-runtime's watcher yields `Init` before each attempt to list, without a request:
    /// a list that keeps failing must not reset the pause.
    #[tokio::test(start_paused = true)]
    async fn a_list_that_keeps_failing_backs_off_further() {
        let refused = || Err(watcher::Error::WatchError(status(500)));
        let items: Vec<Result<Event<u32>, watcher::Error>> =
            vec![Ok(Event::Init), refused(), Ok(Event::Init), refused(), Ok(Event::Init), refused()];
        let mut retried = pin!(retrying(stream::iter(items), "test".into()));
        let start = tokio::time::Instant::now();
        let mut at = Vec::new();
        while retried.next().await.is_some() {
            at.push(start.elapsed().as_millis());
        }
        // 200, then 400 more, then 800 more (each with up to a quarter of jitter).
        assert!((200..=250).contains(&at[1]), "{at:?}");
        assert!((600..=750).contains(&at[3]), "{at:?}");
        assert!((1400..=1750).contains(&at[5]), "{at:?}");
    }

    #[test]
    fn only_410_gone_is_routine() {
        assert!(gone(&watcher::Error::WatchError(status(410))));
        assert!(gone(&watcher::Error::WatchStartFailed(kube::Error::Api(status(410)))));
        assert!(!gone(&watcher::Error::WatchError(status(500))));
        assert!(!gone(&watcher::Error::NoResourceVersion));
    }

    #[tokio::test(start_paused = true)]
    async fn a_410_is_retried_at_once_and_other_errors_after_a_growing_pause() {
        let items: Vec<Result<Event<u32>, watcher::Error>> = vec![
            Err(watcher::Error::WatchError(status(410))),
            Ok(Event::Apply(1)),
            Err(watcher::Error::WatchError(status(500))),
            Err(watcher::Error::WatchError(status(500))),
            Ok(Event::Apply(2)),
            Err(watcher::Error::WatchError(status(500))),
            Ok(Event::Apply(3)),
        ];
        let mut retried = pin!(retrying(stream::iter(items), "test".into()));
        let start = tokio::time::Instant::now();
        let mut at = Vec::new();
        while let Some(item) = retried.next().await {
            at.push((item.is_ok(), start.elapsed().as_millis()));
        }
        // Each error's pause runs before it is passed on, so before the watch is read again.
        let (ok, millis): (Vec<bool>, Vec<u128>) = at.into_iter().unzip();
        assert_eq!(ok, [false, true, false, false, true, false, true]);
        assert_eq!(millis[0], 0, "410: no pause");
        assert!((200..=250).contains(&millis[2]), "first error: {millis:?}");
        assert!((600..=750).contains(&millis[3]), "second: 400 ms more: {millis:?}");
        assert!((200..=250).contains(&(millis[5] - millis[4])), "reset by an item: {millis:?}");
    }
}
