// The Tenant controller of scripts/bench.sh's operator-selector section (docs/benchmarks.md),
// copied over the one `rop create api` writes. Tenant's spec names Pod in `watches(...)`; the
// reconciler's `config()` reads SELECTOR_BENCH_VARIANT, so one build serves both variants:
//
// - `selected`: `watch::<Pod>(Watch::default().labels(bench.example.com/selected=true))`,
// - `all`: the Pod watch with no selector.
//
// `map_watched` counts the watch events of Pods it is called with and, when
// SELECTOR_BENCH_COUNTS names a file, writes the count there (every 200 ms when it changed):
// the script reads it to tell that the manager has seen the Pods, and which ones.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use rop::controller::{Action, Cache, Config, Context, ObjectRef, Reconciler, Watch, Watched};
use rop::k8s_openapi::api::core::v1::Pod;
use rop::kube::core::Selector;

use selector_operator_api::v1::Tenant;

/// The label the selected variant's Pod watch selects.
pub const LABEL: (&str, &str) = ("bench.example.com/selected", "true");

/// Watch events of Pods passed to `map_watched`.
static POD_EVENTS: AtomicU64 = AtomicU64::new(0);

/// Reconciles `Tenant` objects: nothing to do but be called.
pub struct TenantReconciler;

impl Reconciler for TenantReconciler {
    type Kind = Tenant;
    type Error = rop::kube::Error;

    async fn reconcile(
        &self,
        _object: Arc<Self::Kind>,
        _ctx: &Context<Self::Kind>,
    ) -> Result<Action, rop::kube::Error> {
        Ok(Action::await_change())
    }

    fn map_watched(&self, watched: &Watched, _cache: &Cache<Tenant>) -> Vec<ObjectRef<Tenant>> {
        if watched.is::<Pod>() {
            POD_EVENTS.fetch_add(1, Ordering::Relaxed);
        }
        watched.controller_owner()
    }

    fn config(&self) -> Config<Tenant> {
        if let Ok(path) = std::env::var("SELECTOR_BENCH_COUNTS") {
            std::thread::spawn(move || report_counts(&path));
        }
        match std::env::var("SELECTOR_BENCH_VARIANT").as_deref() {
            Ok("selected") => Config::default().watch::<Pod>(Watch::default().labels(Selector::from_iter([LABEL]))),
            Ok("all") => Config::default(),
            other => panic!("SELECTOR_BENCH_VARIANT is `selected` or `all`, not {other:?}"),
        }
    }
}

/// Writes the event count to `path` whenever it changed (through a temporary file, so a reader
/// never sees half a number).
fn report_counts(path: &str) {
    let mut last = u64::MAX;
    loop {
        let now = POD_EVENTS.load(Ordering::Relaxed);
        if now != last {
            let tmp = format!("{path}.tmp");
            if std::fs::write(&tmp, format!("{now}\n")).and_then(|()| std::fs::rename(&tmp, path)).is_ok() {
                last = now;
            }
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}
