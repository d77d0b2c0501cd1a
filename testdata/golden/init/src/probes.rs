// Copyright 2026 The Memcached Authors.
// SPDX-License-Identifier: Apache-2.0

//! HTTP endpoints: `/healthz` and `/readyz` for the kubelet, `/metrics` for Prometheus.

use std::net::SocketAddr;
use std::str::FromStr;
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

/// Address to serve on; `0` disables the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BindAddress(pub Option<SocketAddr>);

impl FromStr for BindAddress {
    type Err = std::net::AddrParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "0" => Ok(Self(None)),
            addr => addr.parse().map(|addr| Self(Some(addr))),
        }
    }
}

/// Readiness of the manager (set once it has started), shared between `main`
/// and the `/readyz` handler.
#[derive(Clone, Debug, Default)]
pub struct Readiness(Arc<AtomicBool>);

impl Readiness {
    pub fn set_ready(&self) {
        self.0.store(true, Ordering::Release);
    }

    pub fn is_ready(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }
}

/// Routes `/healthz` (always OK while the process serves) and `/readyz`.
pub fn health_router(readiness: Readiness) -> Router {
    Router::new()
        .route("/healthz", get(|| async { "ok" }))
        .route("/readyz", get(readyz))
        .with_state(readiness)
}

async fn readyz(State(readiness): State<Readiness>) -> impl IntoResponse {
    // TODO(user): add checks your operator needs before it takes traffic.
    if readiness.is_ready() {
        (StatusCode::OK, "ok")
    } else {
        (StatusCode::SERVICE_UNAVAILABLE, "not ready")
    }
}

/// Routes `/metrics` in the OpenMetrics text format, which Prometheus scrapes.
pub fn metrics_router(registry: Arc<Registry>) -> Router {
    Router::new()
        .route("/metrics", get(metrics))
        .with_state(registry)
}

async fn metrics(State(registry): State<Arc<Registry>>) -> impl IntoResponse {
    let mut body = String::new();
    match prometheus_client::encoding::text::encode(&mut body, &registry) {
        Ok(()) => (
            StatusCode::OK,
            [(
                header::CONTENT_TYPE,
                "application/openmetrics-text; version=1.0.0; charset=utf-8",
            )],
            body,
        )
            .into_response(),
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

/// Binds `addr` (so a busy port fails start-up) and serves `router` in a
/// background task until `shutdown` is cancelled.
pub async fn spawn(
    name: &'static str,
    addr: SocketAddr,
    router: Router,
    shutdown: CancellationToken,
) -> std::io::Result<JoinHandle<std::io::Result<()>>> {
    let listener = TcpListener::bind(addr).await?;
    info!(server = name, %addr, "serving");
    Ok(tokio::spawn(async move {
        axum::serve(listener, router)
            .with_graceful_shutdown(shutdown.cancelled_owned())
            .await
    }))
}

#[cfg(test)]
mod tests {
    use axum::body::to_bytes;
    use axum::response::Response;

    use std::time::Duration;

    use super::*;
    use crate::metrics::Metrics;

    async fn body(response: Response) -> String {
        let bytes = to_bytes(response.into_body(), usize::MAX).await.unwrap();
        String::from_utf8(bytes.to_vec()).unwrap()
    }

    #[test]
    fn bind_address_zero_disables() {
        assert_eq!("0".parse::<BindAddress>(), Ok(BindAddress(None)));
        let addr: SocketAddr = "127.0.0.1:8080".parse().unwrap();
        assert_eq!("127.0.0.1:8080".parse(), Ok(BindAddress(Some(addr))));
        assert!("localhost".parse::<BindAddress>().is_err());
    }

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
    async fn metrics_serves_the_reconcile_metrics_by_controller_runtime_names() {
        let mut registry = Registry::default();
        let metrics = Metrics::register(&mut registry);
        metrics.reconciled("example", true, Duration::from_millis(250));
        metrics.reconciled("example", false, Duration::from_secs(2));
        metrics.reconcile_failed("example", "conflict");

        let response = super::metrics(State(Arc::new(registry)))
            .await
            .into_response();

        assert_eq!(response.status(), StatusCode::OK);
        let text = body(response).await;
        for line in [
            "# TYPE controller_runtime_reconcile counter",
            "controller_runtime_reconcile_total{controller=\"example\",result=\"success\"} 1",
            "controller_runtime_reconcile_total{controller=\"example\",result=\"error\"} 1",
            "# TYPE controller_runtime_reconcile_errors counter",
            "controller_runtime_reconcile_errors_total{controller=\"example\",reason=\"conflict\"} 1",
            "# TYPE controller_runtime_reconcile_time_seconds histogram",
            "controller_runtime_reconcile_time_seconds_sum{controller=\"example\"} 2.25",
            "controller_runtime_reconcile_time_seconds_count{controller=\"example\"} 2",
            "controller_runtime_reconcile_time_seconds_bucket{le=\"0.2\",controller=\"example\"} 0",
            "controller_runtime_reconcile_time_seconds_bucket{le=\"0.25\",controller=\"example\"} 1",
            "controller_runtime_reconcile_time_seconds_bucket{le=\"2.0\",controller=\"example\"} 2",
            "controller_runtime_reconcile_time_seconds_bucket{le=\"+Inf\",controller=\"example\"} 2",
        ] {
            assert!(
                text.lines().any(|l| l == line),
                "no line {line} in:\n{text}"
            );
        }
    }
}
