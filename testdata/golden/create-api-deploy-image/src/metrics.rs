// Copyright 2026 The Memcached Authors.
// SPDX-License-Identifier: Apache-2.0

//! Prometheus metrics shared by all controllers.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::registry::Registry;

/// Labels of `reconcile_total`.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ReconcileLabels {
    pub controller: &'static str,
    /// `success` or `error`.
    pub result: &'static str,
}

/// Labels of `reconcile_errors_total`.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ErrorLabels {
    pub controller: &'static str,
    /// A short, bounded name for the kind of error (never the error message).
    pub error: &'static str,
}

/// Handles to the operator's metrics. Cloning is cheap and shares the values.
#[derive(Clone, Debug, Default)]
pub struct Metrics {
    pub reconciles: Family<ReconcileLabels, Counter>,
    pub reconcile_errors: Family<ErrorLabels, Counter>,
    // TODO(user): add your own metrics here and register them below.
}

impl Metrics {
    /// Creates the metrics and registers them in `registry`.
    pub fn register(registry: &mut Registry) -> Self {
        let metrics = Self::default();
        // Counter names must not end in `_total`: prometheus-client appends it.
        registry.register(
            "reconcile",
            "Number of reconciliations per controller and result",
            metrics.reconciles.clone(),
        );
        registry.register(
            "reconcile_errors",
            "Number of failed reconciliations per controller and kind of error",
            metrics.reconcile_errors.clone(),
        );
        metrics
    }

    /// Starts the counters of `controller` at zero, so rates work from the start.
    pub fn init_controller(&self, controller: &'static str) {
        for result in ["success", "error"] {
            self.reconciles
                .get_or_create_owned(&ReconcileLabels { controller, result });
        }
    }

    /// Counts one finished reconciliation.
    pub fn reconciled(&self, controller: &'static str, success: bool) {
        let result = if success { "success" } else { "error" };
        self.reconciles
            .get_or_create(&ReconcileLabels { controller, result })
            .inc();
    }

    /// Counts one reconciliation error.
    pub fn reconcile_failed(&self, controller: &'static str, error: &'static str) {
        self.reconcile_errors
            .get_or_create(&ErrorLabels { controller, error })
            .inc();
    }
}
