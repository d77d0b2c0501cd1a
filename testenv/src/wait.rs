//! Waiting, in a test, for a controller to get the cluster somewhere (envtest's `Eventually`).
//!
//! Each helper polls every 100 ms for at most [`WAIT`] and panics, with what it waited for, when
//! the time runs out: they are assertions about what a controller does eventually.

use std::fmt::Debug;
use std::time::{Duration, Instant};

use kube::Api;
use serde::de::DeserializeOwned;

/// How long a controller gets for each step a test waits for.
pub const WAIT: Duration = Duration::from_secs(30);

/// How often the helpers look.
const POLL: Duration = Duration::from_millis(100);

/// Polls the object `name` until it exists and `done` holds for it; returns it.
///
/// # Panics
/// When that does not happen within [`WAIT`], or a read fails.
pub async fn wait_for<K>(api: &Api<K>, name: &str, done: impl Fn(&K) -> bool) -> K
where
    K: kube::Resource + Clone + Debug + DeserializeOwned,
{
    wait_for_or(api, name, done, String::new).await
}

/// [`wait_for`], whose time-out message ends with what `why` says then (the controller's last
/// error) before the object as last seen, without its `managedFields`.
pub(crate) async fn wait_for_or<K>(api: &Api<K>, name: &str, done: impl Fn(&K) -> bool, why: impl Fn() -> String) -> K
where
    K: kube::Resource + Clone + Debug + DeserializeOwned,
{
    let deadline = Instant::now() + WAIT;
    loop {
        let mut last = match api.get_opt(name).await {
            Ok(Some(object)) if done(&object) => return object,
            Ok(object) => object,
            Err(err) => panic!("cannot read {name}: {err}"),
        };
        if Instant::now() >= deadline {
            if let Some(object) = &mut last {
                object.meta_mut().managed_fields = None;
            }
            panic!("{name} did not get there within {WAIT:?}{}; last seen: {last:#?}", why());
        }
        tokio::time::sleep(POLL).await;
    }
}

/// Polls until the object `name` is gone (its finalizers let it go).
///
/// # Panics
/// When it is still there after [`WAIT`], or a read fails.
pub async fn wait_until_gone<K>(api: &Api<K>, name: &str)
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
                    "{name} is still there after {WAIT:?}, with finalizers {finalizers:?}"
                );
            }
            Err(err) => panic!("cannot read {name}: {err}"),
        }
        tokio::time::sleep(POLL).await;
    }
}

/// Polls `done` until it holds.
///
/// # Panics
/// When it does not within [`WAIT`].
pub async fn wait_until(what: &str, done: impl Fn() -> bool) {
    let deadline = Instant::now() + WAIT;
    while !done() {
        assert!(Instant::now() < deadline, "{what}: not within {WAIT:?}");
        tokio::time::sleep(POLL).await;
    }
}
