//! controller-runtime's reconcile metrics, so the dashboards and alerts written for Go operators
//! (kubebuilder's Grafana plugin, for one) work unchanged:
//!
//! | metric | labels |
//! |---|---|
//! | `controller_runtime_reconcile_total` | `controller`, `result` (`success` or `error`) |
//! | `controller_runtime_reconcile_errors_total` | `controller`, `reason` |
//! | `controller_runtime_reconcile_time_seconds` (histogram) | `controller` |
//! | `controller_runtime_active_workers` (gauge) | `controller` |
//!
//! `reason` is rop's addition: a short, bounded name for the kind of error
//! (the API status of the first `kube::Error` in its chain), so alerts can tell a conflict from a failing API call.

use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

/// Labels of `controller_runtime_reconcile_total`.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(crate) struct ReconcileLabels {
    /// The controller's name, the lower-cased kind.
    pub(crate) controller: String,
    /// `success` or `error`.
    pub(crate) result: &'static str,
}

/// Labels of `controller_runtime_reconcile_errors_total`.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(crate) struct ErrorLabels {
    /// The controller's name, the lower-cased kind.
    pub(crate) controller: String,
    /// A short, bounded name for the kind of error (never the error message).
    pub(crate) reason: &'static str,
}

/// Labels of the metrics that only name the controller.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(crate) struct ControllerLabels {
    /// The controller's name, the lower-cased kind.
    pub(crate) controller: String,
}

/// controller-runtime's buckets for the reconcile time, in seconds: fine below a second, where
/// most reconciliations end, coarse up to a minute.
const RECONCILE_TIME_BUCKETS: [f64; 40] = [
    0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5,
    1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 15.0, 20.0, 25.0, 30.0, 40.0, 50.0, 60.0,
];

fn reconcile_time_histogram() -> Histogram {
    Histogram::new(RECONCILE_TIME_BUCKETS)
}

/// The reconcile metrics of every controller of a manager (`Manager::metrics`), under
/// controller-runtime's names on `/metrics`; a test reads them with the `*_count` methods.
/// Cloning is cheap and shares the values.
#[derive(Clone, Debug)]
pub struct Metrics {
    /// `controller_runtime_reconcile_total`: finished passes by controller and result.
    pub(crate) reconciles: Family<ReconcileLabels, Counter>,
    /// `controller_runtime_reconcile_errors_total`: failed passes by controller and reason.
    pub(crate) reconcile_errors: Family<ErrorLabels, Counter>,
    /// `controller_runtime_reconcile_time_seconds`: how long passes take, in seconds.
    pub(crate) reconcile_time: Family<ControllerLabels, Histogram, fn() -> Histogram>,
    /// `controller_runtime_active_workers`: passes running now.
    pub(crate) active_workers: Family<ControllerLabels, Gauge>,
    /// `controller_runtime_terminal_reconcile_errors_total`: failed passes not retried (a
    /// [`super::Terminal`] error).
    pub(crate) terminal_errors: Family<ControllerLabels, Counter>,
}

impl Default for Metrics {
    fn default() -> Self {
        Self {
            reconciles: Family::default(),
            reconcile_errors: Family::default(),
            reconcile_time: Family::new_with_constructor(reconcile_time_histogram),
            active_workers: Family::default(),
            terminal_errors: Family::default(),
        }
    }
}

impl Metrics {
    /// Creates the metrics and registers them in `registry` under controller-runtime's names.
    pub(crate) fn register(registry: &mut Registry) -> Self {
        let metrics = Self::default();
        // Counter names must not end in `_total`: prometheus-client appends it.
        registry.register(
            "controller_runtime_reconcile",
            "Total number of reconciliations per controller",
            metrics.reconciles.clone(),
        );
        registry.register(
            "controller_runtime_reconcile_errors",
            "Total number of reconciliation errors per controller and reason",
            metrics.reconcile_errors.clone(),
        );
        registry.register(
            "controller_runtime_reconcile_time_seconds",
            "Length of time per reconciliation per controller",
            metrics.reconcile_time.clone(),
        );
        registry.register(
            "controller_runtime_active_workers",
            "Number of currently used workers per controller",
            metrics.active_workers.clone(),
        );
        registry.register(
            "controller_runtime_terminal_reconcile_errors",
            "Total number of terminal reconciliation errors per controller",
            metrics.terminal_errors.clone(),
        );
        metrics
    }

    /// Starts the series of `controller` at zero, so rates work from the start.
    pub(crate) fn init_controller(&self, controller: &str) {
        for result in ["success", "error"] {
            self.reconciles.get_or_create_owned(&ReconcileLabels { controller: controller.into(), result });
        }
        let labels = ControllerLabels { controller: controller.into() };
        self.reconcile_time.get_or_create_owned(&labels);
        self.active_workers.get_or_create_owned(&labels);
        self.terminal_errors.get_or_create_owned(&labels);
    }

    /// Counts one finished reconciliation and how long it took.
    pub(crate) fn reconciled(&self, controller: &str, success: bool, elapsed: Duration) {
        let result = if success { "success" } else { "error" };
        self.reconciles.get_or_create(&ReconcileLabels { controller: controller.into(), result }).inc();
        self.reconcile_time
            .get_or_create(&ControllerLabels { controller: controller.into() })
            .observe(elapsed.as_secs_f64());
    }

    /// Counts one reconciliation error of kind `reason`.
    pub(crate) fn reconcile_failed(&self, controller: &str, reason: &'static str) {
        self.reconcile_errors.get_or_create(&ErrorLabels { controller: controller.into(), reason }).inc();
    }

    /// Counts one terminal error (a failed pass that is not retried).
    pub(crate) fn terminal_failed(&self, controller: &str) {
        self.terminal_errors.get_or_create(&ControllerLabels { controller: controller.into() }).inc();
    }

    /// `controller_runtime_reconcile_total` of `controller` with `result` (`success` or
    /// `error`): the passes that ended so.
    pub fn reconcile_count(&self, controller: &str, result: &'static str) -> u64 {
        self.reconciles.get_or_create(&ReconcileLabels { controller: controller.into(), result }).get()
    }

    /// `controller_runtime_reconcile_errors_total` of `controller` with `reason` (`conflict`,
    /// `already_exists`, `not_found`, `forbidden`, `invalid`, `api`, `finalizer` or
    /// `reconcile`): the passes that failed so.
    pub fn error_count(&self, controller: &str, reason: &'static str) -> u64 {
        self.reconcile_errors.get_or_create(&ErrorLabels { controller: controller.into(), reason }).get()
    }

    /// `controller_runtime_terminal_reconcile_errors_total` of `controller`: the passes that
    /// failed with a [`super::Terminal`] error and were not retried.
    pub fn terminal_error_count(&self, controller: &str) -> u64 {
        self.terminal_errors.get_or_create(&ControllerLabels { controller: controller.into() }).get()
    }

    /// The number of reconciliations of `controller` running now goes up by `delta` (±1).
    pub(crate) fn workers(&self, controller: &str, delta: i64) {
        self.active_workers.get_or_create(&ControllerLabels { controller: controller.into() }).inc_by(delta);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_format_carries_controller_runtime_names() {
        let mut registry = Registry::default();
        let metrics = Metrics::register(&mut registry);
        metrics.init_controller("idle");
        metrics.reconciled("example", true, Duration::from_millis(250));
        metrics.reconciled("example", false, Duration::from_secs(2));
        metrics.reconcile_failed("example", "conflict");
        metrics.terminal_failed("example");

        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();

        for line in [
            "# TYPE controller_runtime_reconcile counter",
            "controller_runtime_reconcile_total{controller=\"example\",result=\"success\"} 1",
            "controller_runtime_reconcile_total{controller=\"example\",result=\"error\"} 1",
            "controller_runtime_reconcile_total{controller=\"idle\",result=\"success\"} 0",
            "# TYPE controller_runtime_reconcile_errors counter",
            "controller_runtime_reconcile_errors_total{controller=\"example\",reason=\"conflict\"} 1",
            "# TYPE controller_runtime_reconcile_time_seconds histogram",
            "controller_runtime_reconcile_time_seconds_sum{controller=\"example\"} 2.25",
            "controller_runtime_reconcile_time_seconds_count{controller=\"example\"} 2",
            "controller_runtime_reconcile_time_seconds_bucket{le=\"0.2\",controller=\"example\"} 0",
            "controller_runtime_reconcile_time_seconds_bucket{le=\"0.25\",controller=\"example\"} 1",
            "controller_runtime_reconcile_time_seconds_bucket{le=\"+Inf\",controller=\"example\"} 2",
            "controller_runtime_active_workers{controller=\"idle\"} 0",
            "controller_runtime_terminal_reconcile_errors_total{controller=\"example\"} 1",
            "controller_runtime_terminal_reconcile_errors_total{controller=\"idle\"} 0",
        ] {
            assert!(text.lines().any(|l| l == line), "no line {line} in:\n{text}");
        }
    }
}
