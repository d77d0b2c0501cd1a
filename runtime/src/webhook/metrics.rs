//! controller-runtime's webhook metrics, so dashboards written for Go operators work unchanged:
//!
//! | metric | labels |
//! |---|---|
//! | `controller_runtime_webhook_requests_total` | `webhook` (the path), `code` (the HTTP status) |
//! | `controller_runtime_webhook_requests_in_flight` (gauge) | `webhook` |
//! | `controller_runtime_webhook_latency_seconds` (histogram) | `webhook` |
//!
//! Only the paths the server serves are counted: a request to any other path gets a 404 and
//! no series, so a scanner cannot grow the label set.

use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

/// Labels of `controller_runtime_webhook_requests_total`.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(crate) struct RequestLabels {
    /// The webhook's URL path, e.g. `/mutate-cache-example-com-v1-memcached` or `/convert`.
    pub(crate) webhook: String,
    /// The HTTP status code of the answer, e.g. `200` (a denial is a 200 too).
    pub(crate) code: u16,
}

/// Labels of the metrics that only name the webhook.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(crate) struct WebhookLabels {
    /// The webhook's URL path.
    pub(crate) webhook: String,
}

/// controller-runtime's latency buckets, in seconds (Prometheus' default buckets).
const LATENCY_BUCKETS: [f64; 11] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0];

fn latency_histogram() -> Histogram {
    Histogram::new(LATENCY_BUCKETS)
}

/// Handles to the metrics of one webhook server. Cloning is cheap and shares the values: a test
/// keeps a clone to read what the server counted.
#[derive(Clone, Debug)]
pub struct Metrics {
    /// `controller_runtime_webhook_requests_total`: answered requests by path and status code.
    pub(crate) requests: Family<RequestLabels, Counter>,
    /// `controller_runtime_webhook_requests_in_flight`: requests being answered now.
    pub(crate) in_flight: Family<WebhookLabels, Gauge>,
    /// `controller_runtime_webhook_latency_seconds`: how long answers take, in seconds.
    pub(crate) latency: Family<WebhookLabels, Histogram, fn() -> Histogram>,
}

impl Default for Metrics {
    fn default() -> Self {
        Self {
            requests: Family::default(),
            in_flight: Family::default(),
            latency: Family::new_with_constructor(latency_histogram),
        }
    }
}

impl Metrics {
    /// Creates the metrics and registers them in `registry` under controller-runtime's names.
    pub fn register(registry: &mut Registry) -> Self {
        let metrics = Self::default();
        // Counter names must not end in `_total`: prometheus-client appends it.
        registry.register(
            "controller_runtime_webhook_requests",
            "Total number of admission requests by HTTP status code",
            metrics.requests.clone(),
        );
        registry.register(
            "controller_runtime_webhook_requests_in_flight",
            "Current number of admission requests being served",
            metrics.in_flight.clone(),
        );
        registry.register(
            "controller_runtime_webhook_latency_seconds",
            "Histogram of the latency of processing admission requests",
            metrics.latency.clone(),
        );
        metrics
    }

    /// The requests to `path` answered with `200 OK` so far: each one a review the API server
    /// sent and the webhook answered (allowed or denied).
    pub fn answered(&self, path: &str) -> u64 {
        self.requests.get_or_create(&RequestLabels { webhook: path.into(), code: 200 }).get()
    }

    /// Counts one answered request to `path`.
    pub(super) fn record(&self, path: &str, code: u16, elapsed: Duration) {
        self.requests.get_or_create(&RequestLabels { webhook: path.into(), code }).inc();
        self.latency.get_or_create(&WebhookLabels { webhook: path.into() }).observe(elapsed.as_secs_f64());
    }

    /// Marks a request to `path` as in flight until the guard is dropped.
    pub(super) fn in_flight(&self, path: &str) -> InFlight {
        let gauge = self.in_flight.get_or_create_owned(&WebhookLabels { webhook: path.into() });
        gauge.inc();
        InFlight(gauge)
    }
}

/// A request in flight: counted while it lives.
pub(super) struct InFlight(Gauge);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.dec();
    }
}
