//! The manager's HTTP endpoints: `/healthz` and `/readyz` for the kubelet, `/metrics` for
//! Prometheus.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::Mutex;

use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::get;
use prometheus_client::registry::Registry;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tracing::info;

/// Readiness of the manager: started, and every named check passing. `/readyz` answers 503
/// with the failing checks' reasons, one per line, until then.
#[derive(Clone, Debug, Default)]
pub struct Readiness(Arc<Mutex<Checks>>);

#[derive(Debug, Default)]
struct Checks {
    started: bool,
    /// Failing checks and why, by name.
    failing: BTreeMap<&'static str, String>,
}

impl Readiness {
    /// Marks the manager started.
    pub(crate) fn set_ready(&self) {
        self.lock().started = true;
    }

    /// Records the check `name` as passing (`Ok`) or failing with a reason.
    pub(crate) fn set_check(&self, name: &'static str, result: Result<(), String>) {
        let mut state = self.lock();
        match result {
            Ok(()) => state.failing.remove(name),
            Err(reason) => state.failing.insert(name, reason),
        };
    }

    /// Whether the manager is ready.
    pub fn is_ready(&self) -> bool {
        self.reasons().is_empty()
    }

    /// Why the manager is not ready, `<check>: <reason>` each; empty when it is.
    pub fn reasons(&self) -> Vec<String> {
        let state = self.lock();
        let mut reasons: Vec<String> = state.failing.iter().map(|(name, why)| format!("{name}: {why}")).collect();
        if !state.started {
            reasons.insert(0, "manager: starting".into());
        }
        reasons
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Checks> {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Routes `/healthz` (200 while the process serves) and `/readyz` (200 once ready, else 503).
pub(crate) fn health_router(readiness: Readiness) -> Router {
    Router::new().route("/healthz", get(|| async { "ok" })).route("/readyz", get(readyz)).with_state(readiness)
}

async fn readyz(State(readiness): State<Readiness>) -> impl IntoResponse {
    let reasons = readiness.reasons();
    if reasons.is_empty() {
        (StatusCode::OK, "ok".to_string())
    } else {
        (StatusCode::SERVICE_UNAVAILABLE, format!("not ready:\n{}\n", reasons.join("\n")))
    }
}

/// Routes `/metrics` in the OpenMetrics text format, which Prometheus scrapes.
pub(crate) fn metrics_router(registry: Arc<Registry>) -> Router {
    Router::new().route("/metrics", get(metrics)).with_state(registry)
}

async fn metrics(State(registry): State<Arc<Registry>>) -> impl IntoResponse {
    let mut body = String::new();
    match prometheus_client::encoding::text::encode(&mut body, &registry) {
        Ok(()) => (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "application/openmetrics-text; version=1.0.0; charset=utf-8")],
            body,
        )
            .into_response(),
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

/// Binds `addr` (so a busy port fails the start) and serves `router` in a task until `shutdown`
/// is cancelled.
pub(crate) async fn spawn(
    name: &'static str,
    addr: SocketAddr,
    router: Router,
    shutdown: CancellationToken,
) -> std::io::Result<JoinHandle<std::io::Result<()>>> {
    let listener = TcpListener::bind(addr).await?;
    info!(server = name, address = %listener.local_addr()?, "serving over plain HTTP");
    Ok(tokio::spawn(
        async move { axum::serve(listener, router).with_graceful_shutdown(shutdown.cancelled_owned()).await },
    ))
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use axum::body::to_bytes;

    use super::*;
    use crate::controller::Metrics;

    #[tokio::test]
    async fn readyz_fails_until_ready() {
        let readiness = Readiness::default();
        let response = readyz(State(readiness.clone())).await.into_response();
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);

        readiness.set_ready();
        let response = readyz(State(readiness)).await.into_response();
        assert_eq!(response.status(), StatusCode::OK);
    }

    #[tokio::test]
    async fn metrics_serves_the_registry_as_openmetrics() {
        let mut registry = Registry::default();
        let metrics = Metrics::register(&mut registry);
        metrics.reconciled("example", true, Duration::from_millis(250));

        let response = super::metrics(State(Arc::new(registry))).await.into_response();

        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(
            response.headers()[header::CONTENT_TYPE],
            "application/openmetrics-text; version=1.0.0; charset=utf-8"
        );
        let body = to_bytes(response.into_body(), usize::MAX).await.unwrap();
        let text = String::from_utf8(body.to_vec()).unwrap();
        assert!(
            text.lines()
                .any(|l| l == "controller_runtime_reconcile_total{controller=\"example\",result=\"success\"} 1"),
            "{text}"
        );
        assert!(text.ends_with("# EOF\n"), "{text}");
    }
}
