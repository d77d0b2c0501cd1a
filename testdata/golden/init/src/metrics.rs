// Copyright 2026 The Memcached Authors.
// SPDX-License-Identifier: Apache-2.0

//! Prometheus metrics shared by all controllers.
//!
//! The reconcile metrics carry controller-runtime's names and labels, so the dashboards and
//! alerts written for Go operators (kubebuilder's Grafana plugin, for one) work unchanged:
//!
//! | metric | labels |
//! |---|---|
//! | `controller_runtime_reconcile_total` | `controller`, `result` (`success` or `error`) |
//! | `controller_runtime_reconcile_errors_total` | `controller`, `reason` |
//! | `controller_runtime_reconcile_time_seconds` (histogram) | `controller` |
//!
//! `reason` is rop's addition: a short, bounded name for the kind of error (each controller's
//! `Error::metric_label`), so alerts can tell a conflict from a failing API call.

use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

/// Labels of `controller_runtime_reconcile_total`.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ReconcileLabels {
    pub controller: &'static str,
    /// `success` or `error`.
    pub result: &'static str,
}

/// Labels of `controller_runtime_reconcile_errors_total`.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ErrorLabels {
    pub controller: &'static str,
    /// A short, bounded name for the kind of error (never the error message).
    pub reason: &'static str,
}

/// Labels of `controller_runtime_reconcile_time_seconds`.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ControllerLabels {
    pub controller: &'static str,
}

/// controller-runtime's buckets for the reconcile time, in seconds: fine below a second,
/// where most reconciliations end, coarse up to a minute.
const RECONCILE_TIME_BUCKETS: [f64; 40] = [
    0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9,
    1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 15.0, 20.0,
    25.0, 30.0, 40.0, 50.0, 60.0,
];

fn reconcile_time_histogram() -> Histogram {
    Histogram::new(RECONCILE_TIME_BUCKETS)
}

/// Handles to the operator's metrics. Cloning is cheap and shares the values.
#[derive(Clone, Debug)]
pub struct Metrics {
    pub reconciles: Family<ReconcileLabels, Counter>,
    pub reconcile_errors: Family<ErrorLabels, Counter>,
    pub reconcile_time: Family<ControllerLabels, Histogram, fn() -> Histogram>,
    // TODO(user): add your own metrics here and register them below.
}

impl Default for Metrics {
    fn default() -> Self {
        Self {
            reconciles: Family::default(),
            reconcile_errors: Family::default(),
            reconcile_time: Family::new_with_constructor(reconcile_time_histogram),
        }
    }
}

impl Metrics {
    /// Creates the metrics and registers them in `registry`.
    pub fn register(registry: &mut Registry) -> Self {
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
        metrics
    }

    /// Starts the series of `controller` at zero, so rates work from the start.
    pub fn init_controller(&self, controller: &'static str) {
        for result in ["success", "error"] {
            self.reconciles
                .get_or_create_owned(&ReconcileLabels { controller, result });
        }
        self.reconcile_time
            .get_or_create_owned(&ControllerLabels { controller });
    }

    /// Counts one finished reconciliation and how long it took.
    pub fn reconciled(&self, controller: &'static str, success: bool, elapsed: Duration) {
        let result = if success { "success" } else { "error" };
        self.reconciles
            .get_or_create(&ReconcileLabels { controller, result })
            .inc();
        self.reconcile_time
            .get_or_create(&ControllerLabels { controller })
            .observe(elapsed.as_secs_f64());
    }

    /// Counts one reconciliation error of kind `reason`.
    pub fn reconcile_failed(&self, controller: &'static str, reason: &'static str) {
        self.reconcile_errors
            .get_or_create(&ErrorLabels { controller, reason })
            .inc();
    }
}
