//! Logging and tracing of the manager.
//!
//! Logs go to stdout through `tracing`, at the levels `RUST_LOG` sets per module (default
//! [`DEFAULT_LEVELS`]), with colours only on a terminal and never when `NO_COLOR` is set (pod logs stay
//! plain). Each reconciliation runs in a `reconcile` span with the controller and the object's
//! name and namespace, so every log line of it names the object.
//!
//! With the `otel` feature the spans are also exported as OpenTelemetry traces over OTLP/HTTP
//! when `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) names a
//! collector, e.g. `http://otel-collector:4318`. The exporter reads the other standard `OTEL_*`
//! variables too (`OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_EXPORTER_OTLP_HEADERS`).

use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// The log levels without `RUST_LOG`: `info`, except kube-client's lines about a failed
/// request, which repeat an error its caller gets and logs itself (a watch's retry, a failed
/// pass): `kube_client::client::builder` logs each connection error at ERROR (a line per
/// attempt of every watch during an API server outage), and `kube_client::client` warns
/// about each broken watch and each answer that is not JSON, with the whole body (a proxy's
/// HTML error page, every few hundred milliseconds). Its TLS warnings stay
/// (`kube_client::client::tls`: a CA bundle that cannot be reloaded, a skipped verification).
/// kube-runtime's watcher warns about each `403` a watch gets (three lines each time a
/// restarted API server answers before its RBAC is loaded), which the watch's own retry logs.
pub const DEFAULT_LEVELS: &str = "info,kube_client::client=error,kube_client::client::builder=off,kube_client::client::tls=warn,kube_runtime::watcher=error";

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

/// The target of kube-client's TLS warnings.
const KUBE_TLS: &str = "kube_client::client::tls";

/// Lets each of kube-client's TLS warnings through once: with `insecure-skip-tls-verify` in
/// the kubeconfig it warns `Server cert bypassed` at every new connection (hundreds of lines
/// in a run), which the manager says once itself when it connects.
fn kube_tls_warnings_once<S>() -> impl tracing_subscriber::Layer<S>
where
    S: tracing::Subscriber + 'static,
{
    let seen = std::sync::Mutex::new(std::collections::HashSet::new());
    tracing_subscriber::filter::DynFilterFn::new(move |meta, _: &tracing_subscriber::layer::Context<'_, S>| {
        !meta.is_event()
            || !meta.target().starts_with(KUBE_TLS)
            || seen.lock().unwrap_or_else(std::sync::PoisonError::into_inner).insert(meta.callsite())
    })
    // Asked at every event of those callsites, not once per callsite.
    .with_callsite_filter(|meta| {
        if meta.target().starts_with(KUBE_TLS) {
            tracing::subscriber::Interest::sometimes()
        } else {
            tracing::subscriber::Interest::always()
        }
    })
}

/// Whether log lines get ANSI colours: only on a terminal, and never with `NO_COLOR` set.
fn colours() -> bool {
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// Installs the global `tracing` subscriber for the manager named `service` (the traces'
/// service name unless `OTEL_SERVICE_NAME` says otherwise). Keep the guard until the process
/// ends. A subscriber installed before (by a test, say) is kept.
pub fn init(service: &str) -> Telemetry {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(DEFAULT_LEVELS));
    let logs = tracing_subscriber::fmt::layer().with_ansi(colours());
    let registry = tracing_subscriber::registry().with(filter).with(kube_tls_warnings_once()).with(logs);
    #[cfg(feature = "otel")]
    {
        let (traces, provider) = otel::layer(service);
        let _ = registry.with(traces).try_init();
        Telemetry { provider }
    }
    #[cfg(not(feature = "otel"))]
    {
        let _ = service;
        let _ = registry.try_init();
        Telemetry {}
    }
}

/// Installs a subscriber that writes through the test harness's capture (shown for a failed test
/// or with `--nocapture`), at `RUST_LOG`'s levels (default [`DEFAULT_LEVELS`]), unless one is installed
/// already: a manager run inside a test (`Manager::run_until`) logs like a deployed one.
pub(crate) fn init_unless_set() {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(DEFAULT_LEVELS));
    let logs = tracing_subscriber::fmt().with_env_filter(filter).with_test_writer().with_ansi(false).finish();
    let _ = logs.with(kube_tls_warnings_once()).try_init();
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
    /// convention: tracing is switched on per deployment, not per build).
    const ENDPOINT_VARIABLES: [&str; 2] = ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"];

    /// A layer that exports spans over OTLP/HTTP, with its provider (to flush at exit), or
    /// `None` when no collector is configured or the exporter cannot be built.
    pub(super) fn layer<S>(service: &str) -> (Option<OpenTelemetryLayer<S, SdkTracer>>, Option<SdkTracerProvider>)
    where
        S: tracing::Subscriber + for<'span> LookupSpan<'span>,
    {
        if !ENDPOINT_VARIABLES.iter().any(|name| std::env::var_os(name).is_some_and(|v| !v.is_empty())) {
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
            resource = resource.with_service_name(service.to_string());
        }
        let provider =
            SdkTracerProvider::builder().with_batch_exporter(exporter).with_resource(resource.build()).build();
        let tracer = provider.tracer(service.to_string());
        (Some(tracing_opentelemetry::layer().with_tracer(tracer)), Some(provider))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use tracing_subscriber::layer::SubscriberExt;

    /// The lines written, shared with the subscriber.
    #[derive(Clone, Default)]
    struct Lines(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Lines {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn kube_clients_tls_warning_is_logged_once() {
        let lines = Lines::default();
        let writer = lines.clone();
        let logs = tracing_subscriber::fmt().with_writer(move || writer.clone()).with_ansi(false).finish();
        tracing::subscriber::with_default(logs.with(super::kube_tls_warnings_once()), || {
            for _ in 0..3 {
                tracing::warn!(target: "kube_client::client::tls::rustls_tls", "Server cert bypassed");
                tracing::warn!(target: "rop::controller::retry", "watch failed, retrying");
            }
        });
        let text = String::from_utf8(lines.0.lock().unwrap().clone()).unwrap();
        assert_eq!(text.matches("Server cert bypassed").count(), 1, "{text}");
        assert_eq!(text.matches("watch failed, retrying").count(), 3, "{text}");
    }
}
