//! Waiting, in a test, for a controller to get the cluster somewhere (envtest's `Eventually`).
//!
//! Each helper polls every 100 ms for at most [`WAIT`] and panics, with what it waited for, when
//! the time runs out: they are assertions about what a controller does eventually. Their panic
//! messages start with the test's line that called them (`tests/memcached_controller.rs:21:45:
//! memcached-sample did not get there within 30s`): the panic itself is raised in this crate.

use std::fmt::Debug;
use std::panic::Location;
use std::time::{Duration, Instant};

use kube::Api;
use serde::de::DeserializeOwned;

/// How long a controller gets for each step a test waits for.
pub const WAIT: Duration = Duration::from_secs(30);

/// How often the helpers look.
const POLL: Duration = Duration::from_millis(100);

/// Where the test called a helper, for the helper's panic messages. `#[track_caller]` does not
/// reach into an `async fn`, so each helper is a plain `#[track_caller]` function that takes
/// the place and returns the future doing the work.
pub(crate) type Caller = &'static Location<'static>;

/// Polls the object `name` until it exists and `done` holds for it; returns it.
///
/// # Panics
/// When that does not happen within [`WAIT`], or a read fails.
#[track_caller]
pub fn wait_for<K>(api: &Api<K>, name: &str, done: impl Fn(&K) -> bool) -> impl Future<Output = K>
where
    K: kube::Resource + Clone + Debug + DeserializeOwned,
{
    wait_for_or(api, name, done, String::new, Location::caller())
}

/// [`wait_for`] called at `at`, whose time-out message ends with what `why` says then (the
/// controller's last error) before the object as last seen, without its `managedFields`.
pub(crate) async fn wait_for_or<K>(
    api: &Api<K>,
    name: &str,
    done: impl Fn(&K) -> bool,
    why: impl Fn() -> String,
    at: Caller,
) -> K
where
    K: kube::Resource + Clone + Debug + DeserializeOwned,
{
    let deadline = Instant::now() + WAIT;
    loop {
        let mut last = match api.get_opt(name).await {
            Ok(Some(object)) if done(&object) => return object,
            Ok(object) => object,
            Err(err) => panic!("{at}: cannot read {name}: {err}"),
        };
        if Instant::now() >= deadline {
            if let Some(object) = &mut last {
                object.meta_mut().managed_fields = None;
            }
            panic!("{at}: {name} did not get there within {WAIT:?}{}; last seen: {last:#?}", why());
        }
        tokio::time::sleep(POLL).await;
    }
}

/// Polls until the object `name` is gone (its finalizers let it go).
///
/// # Panics
/// When it is still there after [`WAIT`], or a read fails.
#[track_caller]
pub fn wait_until_gone<K>(api: &Api<K>, name: &str) -> impl Future<Output = ()>
where
    K: kube::Resource + Clone + Debug + DeserializeOwned,
{
    wait_until_gone_at(api, name, Location::caller())
}

pub(crate) async fn wait_until_gone_at<K>(api: &Api<K>, name: &str, at: Caller)
where
    K: kube::Resource + Clone + Debug + DeserializeOwned,
{
    let deadline = Instant::now() + WAIT;
    loop {
        match api.get_opt(name).await {
            Ok(None) => return,
            Ok(Some(object)) => {
                let finalizers = object.meta().finalizers.clone().unwrap_or_default();
                assert!(
                    Instant::now() < deadline,
                    "{at}: {name} is still there after {WAIT:?}, with finalizers {finalizers:?}"
                );
            }
            Err(err) => panic!("{at}: cannot read {name}: {err}"),
        }
        tokio::time::sleep(POLL).await;
    }
}

/// Polls `done` until it holds.
///
/// # Panics
/// When it does not within [`WAIT`].
#[track_caller]
pub fn wait_until(what: &str, done: impl Fn() -> bool) -> impl Future<Output = ()> {
    wait_until_at(what, done, Location::caller())
}

pub(crate) async fn wait_until_at(what: &str, done: impl Fn() -> bool, at: Caller) {
    let deadline = Instant::now() + WAIT;
    while !done() {
        assert!(Instant::now() < deadline, "{at}: {what}: not within {WAIT:?}");
        tokio::time::sleep(POLL).await;
    }
}
