//! The manager's HTTP endpoints: `/healthz` and `/readyz` for the kubelet, `/metrics` for
//! Prometheus.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

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

/// Readiness of the manager, set once it has started; `/readyz` answers 503 until then.
#[derive(Clone, Debug, Default)]
pub struct Readiness(Arc<AtomicBool>);

impl Readiness {
    /// Marks the manager ready.
    pub fn set_ready(&self) {
        self.0.store(true, Ordering::Release);
    }

    /// Whether the manager is ready.
    pub fn is_ready(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }
}

/// Routes `/healthz` (200 while the process serves) and `/readyz` (200 once ready, else 503).
pub(crate) fn health_router(readiness: Readiness) -> Router {
    Router::new().route("/healthz", get(|| async { "ok" })).route("/readyz", get(readyz)).with_state(readiness)
}

async fn readyz(State(readiness): State<Readiness>) -> impl IntoResponse {
    if readiness.is_ready() { (StatusCode::OK, "ok") } else { (StatusCode::SERVICE_UNAVAILABLE, "not ready") }
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
    info!(server = name, address = %listener.local_addr()?, "serving");
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
