//! The secure metrics server (`--metrics-secure`, the default): `/metrics` over HTTPS, HTTP/1.1
//! only unless `--enable-http2`, to callers [`metrics_access`](super::metrics_access) allows, as controller-runtime's
//! metrics server with `SecureServing` and `filters.WithAuthenticationAndAuthorization` serves
//! a kubebuilder manager's. Its certificate comes from `--metrics-cert-dir` (cert-manager's
//! Secret mounted there, reloaded when it changes), or is made in memory at start and signed by
//! itself, as controller-runtime does when no certificate folder is given; Prometheus then
//! scrapes with `insecureSkipVerify` (config/prometheus/monitor.yaml).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::Router;
use axum_server::tls_rustls::RustlsConfig;
use rustls::ServerConfig;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tracing::info;

use super::metrics_access::{Access, require_access};
use crate::webhook::tls::{HttpVersions, from_pem, reload_when_changed, serve_until};
use crate::webhook::{CERT_FILE, KEY_FILE};

/// Why the secure metrics server cannot get its certificate: the files of `--metrics-cert-dir`
/// cannot be read or do not make a TLS configuration, or the self-signed one cannot be made.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CertificateError {
    #[error(
        "cannot use the metrics server's certificate in {}: {reason}; mount a `kubernetes.io/tls` Secret there (tls.crt, tls.key), or leave out --metrics-cert-dir for a self-signed one",
        dir.display()
    )]
    Files { dir: PathBuf, reason: String },
    #[error("cannot make the metrics server's self-signed certificate: {0}")]
    SelfSigned(String),
}

/// The TLS configuration of `--metrics-cert-dir`'s files.
fn load(dir: &Path) -> Result<ServerConfig, CertificateError> {
    let files = |reason: String| CertificateError::Files { dir: dir.to_path_buf(), reason };
    let read = |name: &str| std::fs::read(dir.join(name)).map_err(|e| files(format!("{name}: {e}")));
    let (cert, key) = (read(CERT_FILE)?, read(KEY_FILE)?);
    from_pem(&cert, &key, None).map_err(|e| files(e.to_string()))
}

/// A certificate for `localhost` and `127.0.0.1` signed by its own key, made now.
fn self_signed() -> Result<ServerConfig, CertificateError> {
    let made = rcgen::generate_simple_self_signed(vec!["localhost".to_string(), "127.0.0.1".to_string()])
        .map_err(|e| CertificateError::SelfSigned(e.to_string()))?;
    from_pem(made.cert.pem().as_bytes(), made.signing_key.serialize_pem().as_bytes(), None)
        .map_err(|e| CertificateError::SelfSigned(e.to_string()))
}

/// The secure metrics server's TLS, ready to serve.
pub(crate) struct Tls {
    config: Arc<ServerConfig>,
    /// The certificate folder to watch for a renewed certificate.
    watch: Option<PathBuf>,
}

impl Tls {
    /// The certificate of `cert_dir`, or a self-signed one without it.
    ///
    /// # Errors
    /// As [`CertificateError`].
    pub(crate) fn new(cert_dir: Option<&Path>) -> Result<Self, CertificateError> {
        let config = match cert_dir {
            Some(dir) => load(dir)?,
            None => self_signed()?,
        };
        Ok(Self { config: Arc::new(config), watch: cert_dir.map(Path::to_path_buf) })
    }
}

/// The router of the secure server: `router`'s routes, each behind the access check.
pub(crate) fn secure(router: Router, client: kube::Client) -> Router {
    router.route_layer(axum::middleware::from_fn_with_state(Access::new(client), require_access))
}

/// Binds `addr` (so a busy port fails the start) and serves `router` over HTTPS in a task
/// until `shutdown` is cancelled, then lets requests in flight finish (5 s at most).
///
/// # Errors
/// The address cannot be bound.
pub(crate) fn spawn(
    addr: SocketAddr,
    router: Router,
    tls: Tls,
    http: HttpVersions,
    shutdown: CancellationToken,
) -> std::io::Result<JoinHandle<std::io::Result<()>>> {
    let listener = std::net::TcpListener::bind(addr)?;
    listener.set_nonblocking(true)?;
    info!(server = "metrics", address = %listener.local_addr()?, certificate = ?tls.watch.as_deref().unwrap_or(Path::new("self-signed")), "serving over HTTPS");
    let Tls { config, watch } = tls;
    let config = RustlsConfig::from_config(http.offered_by(config));
    let reloader = watch.map(|dir| {
        let paths = vec![dir.join(CERT_FILE), dir.join(KEY_FILE)];
        tokio::spawn(reload_when_changed(config.clone(), paths, move || load(&dir), http, "metrics"))
    });
    let server = axum_server::from_tcp_rustls(listener, config)?;
    Ok(tokio::spawn(async move {
        let served = serve_until(server, router, http, shutdown.cancelled_owned()).await;
        if let Some(reloader) = reloader {
            reloader.abort();
        }
        served
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_certificate_folder_without_files_is_refused_naming_the_flag() {
        let dir = std::env::temp_dir().join(format!("rop-metrics-certs-{}", std::process::id()));
        let error = Tls::new(Some(&dir)).err().expect("no files there").to_string();
        assert_eq!(
            error,
            format!(
                "cannot use the metrics server's certificate in {}: tls.crt: No such file or directory (os error 2); mount a `kubernetes.io/tls` Secret there (tls.crt, tls.key), or leave out --metrics-cert-dir for a self-signed one",
                dir.display()
            )
        );
    }

    #[test]
    fn without_a_folder_the_certificate_is_self_signed_and_http_1_1_only() {
        let config = self_signed().unwrap();
        assert_eq!(config.alpn_protocols, vec![b"http/1.1".to_vec()]);
    }
}
