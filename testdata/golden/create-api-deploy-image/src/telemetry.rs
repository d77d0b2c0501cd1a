// Copyright 2026 The Memcached Authors.
// SPDX-License-Identifier: Apache-2.0

//! Logging and tracing setup.
//!
//! Logs go to stderr through `tracing`. Each reconciliation runs in a `reconcile` span with
//! the controller and the object's name and namespace (see `controller::instrumented`), so
//! every log line names the object it is about.
//!
//! Built with the `otel` feature (`cargo build --features otel`), the spans are also
//! exported as OpenTelemetry traces over OTLP/HTTP, when `OTEL_EXPORTER_OTLP_ENDPOINT` (or
//! `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) names a collector, e.g. `http://otel-collector:4318`.
//! The exporter reads the other standard `OTEL_*` variables too (`OTEL_SERVICE_NAME`,
//! `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_EXPORTER_OTLP_HEADERS`, ...).

use tracing_subscriber::EnvFilter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// Keeps the trace export running; dropping it sends the spans not yet exported.
#[must_use = "dropping the guard stops the trace export"]
pub struct Telemetry {
    #[cfg(feature = "otel")]
    provider: Option<opentelemetry_sdk::trace::SdkTracerProvider>,
}

impl Drop for Telemetry {
    fn drop(&mut self) {
        #[cfg(feature = "otel")]
        if let Some(provider) = self.provider.take()
            && let Err(err) = provider.shutdown()
        {
            eprintln!("failed to export the last traces: {err}");
        }
    }
}

/// Installs the global `tracing` subscriber; keep the returned guard until the process ends.
///
/// Log levels come from `RUST_LOG` (default `info`), so levels can be set per
/// module, e.g. `RUST_LOG=info,memcached_operator::controller=debug`.
pub fn init() -> Telemetry {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    // TODO(user): switch to `.json()` (tracing-subscriber's "json" feature) for structured logs.
    let logs = tracing_subscriber::fmt::layer();
    let registry = tracing_subscriber::registry().with(filter).with(logs);
    #[cfg(feature = "otel")]
    {
        let (traces, provider) = otel::layer();
        registry.with(traces).init();
        Telemetry { provider }
    }
    #[cfg(not(feature = "otel"))]
    {
        registry.init();
        Telemetry {}
    }
}

#[cfg(feature = "otel")]
mod otel {
    use opentelemetry::trace::TracerProvider as _;
    use opentelemetry_otlp::SpanExporter;
    use opentelemetry_sdk::Resource;
    use opentelemetry_sdk::trace::{SdkTracer, SdkTracerProvider};
    use tracing_opentelemetry::OpenTelemetryLayer;
    use tracing_subscriber::registry::LookupSpan;

    /// The variables that name a collector; without one nothing is exported (the SDK's
    /// convention: tracing is opt-in per deployment, not per build).
    const ENDPOINT_VARIABLES: [&str; 2] = [
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    ];

    /// A layer that exports spans over OTLP/HTTP, with its provider (to flush at exit), or
    /// `None` when no collector is configured or the exporter cannot be built.
    pub fn layer<S>() -> (
        Option<OpenTelemetryLayer<S, SdkTracer>>,
        Option<SdkTracerProvider>,
    )
    where
        S: tracing::Subscriber + for<'span> LookupSpan<'span>,
    {
        if !ENDPOINT_VARIABLES
            .iter()
            .any(|name| std::env::var_os(name).is_some_and(|v| !v.is_empty()))
        {
            return (None, None);
        }
        let exporter = match SpanExporter::builder().with_http().build() {
            Ok(exporter) => exporter,
            Err(err) => {
                // The subscriber is not installed yet: say it on stderr, and run without traces.
                eprintln!("OpenTelemetry traces are off: cannot build the OTLP exporter: {err}");
                return (None, None);
            }
        };
        let mut resource = Resource::builder();
        if std::env::var_os("OTEL_SERVICE_NAME").is_none() {
            resource = resource.with_service_name(env!("CARGO_PKG_NAME"));
        }
        let provider = SdkTracerProvider::builder()
            .with_batch_exporter(exporter)
            .with_resource(resource.build())
            .build();
        let tracer = provider.tracer(env!("CARGO_PKG_NAME"));
        (
            Some(tracing_opentelemetry::layer().with_tracer(tracer)),
            Some(provider),
        )
    }
}
