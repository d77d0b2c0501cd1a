//! HTTPS for the webhook server, with the serving certificate reloaded when it changes on disk
//! (cert-manager renews it in the mounted Secret without restarting the Pod).

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use axum_server::tls_rustls::RustlsConfig;
use rustls::ServerConfig;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

use super::Server;

/// Where controller-runtime (and so kubebuilder's manifests) mount the serving certificate.
pub const DEFAULT_CERT_DIR: &str = "/tmp/k8s-webhook-server/serving-certs";
/// File name of the PEM certificate chain in the certificate folder (a `kubernetes.io/tls` Secret key).
pub const CERT_FILE: &str = "tls.crt";
/// File name of the PEM private key in the certificate folder.
pub const KEY_FILE: &str = "tls.key";

/// How often the certificate files are checked for a change.
const RELOAD_EVERY: Duration = Duration::from_secs(30);
/// How long requests in flight get to finish at shutdown.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// Why the webhook server cannot serve.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error(
        "cannot read the webhook server's TLS certificate {}: {source}; mount one there (cert-manager does in a cluster, see config/default/manager_webhook_patch.yaml), pass --webhook-cert-dir, or run with ENABLE_WEBHOOKS=false",
        path.display()
    )]
    Certificate { path: PathBuf, source: io::Error },
    #[error("the webhook server's TLS certificate and key in {} do not make a TLS configuration: {source}", dir.display())]
    Tls { dir: PathBuf, source: rustls::Error },
    #[error("the webhook server on {addr} failed: {source}")]
    Io { addr: SocketAddr, source: io::Error },
}

/// Builds a TLS configuration from `<dir>/tls.crt` and `<dir>/tls.key`, HTTP/1.1 only (as
/// controller-runtime disables HTTP/2 by default).
fn load(dir: &Path) -> Result<ServerConfig, ServeError> {
    let read = |name: &str| {
        let path = dir.join(name);
        std::fs::read(&path).map_err(|source| ServeError::Certificate { path, source })
    };
    let (cert_pem, key_pem) = (read(CERT_FILE)?, read(KEY_FILE)?);
    let bad_pem = |name: &str, e: rustls::pki_types::pem::Error| ServeError::Certificate {
        path: dir.join(name),
        source: io::Error::new(io::ErrorKind::InvalidData, e.to_string()),
    };
    let certs =
        CertificateDer::pem_slice_iter(&cert_pem).collect::<Result<Vec<_>, _>>().map_err(|e| bad_pem(CERT_FILE, e))?;
    let key = PrivateKeyDer::from_pem_slice(&key_pem).map_err(|e| bad_pem(KEY_FILE, e))?;
    let tls = |source| ServeError::Tls { dir: dir.to_path_buf(), source };
    let mut config = ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .map_err(tls)?
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .map_err(tls)?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(config)
}

/// Checks that `dir` holds a certificate and key the server can serve with, so a manager can
/// fail at start instead of when the first request comes.
///
/// # Errors
/// As [`Server::serve`]: a missing or unreadable file, or a certificate and key that do not match.
pub fn check_certificate(dir: &Path) -> Result<(), ServeError> {
    load(dir).map(drop)
}

fn modified(dir: &Path) -> Option<(SystemTime, SystemTime)> {
    let time = |name| std::fs::metadata(dir.join(name)).and_then(|m| m.modified()).ok();
    Some((time(CERT_FILE)?, time(KEY_FILE)?))
}

impl Server {
    /// Serves the webhooks over HTTPS on `addr` with the certificate in `cert_dir`
    /// ([`CERT_FILE`], [`KEY_FILE`]) until `shutdown` completes, then lets requests in flight
    /// finish (5 s at most). A changed certificate is picked up within 30 s.
    ///
    /// # Errors
    /// A missing or unreadable certificate or key, or a failure to bind `addr`.
    pub async fn serve(
        self,
        addr: SocketAddr,
        cert_dir: &Path,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), ServeError> {
        let tls = RustlsConfig::from_config(Arc::new(load(cert_dir)?));
        let reloader = tokio::spawn(reload_on_change(tls.clone(), cert_dir.to_path_buf()));
        let handle = axum_server::Handle::new();
        let stopper = handle.clone();
        tokio::spawn(async move {
            shutdown.await;
            stopper.graceful_shutdown(Some(SHUTDOWN_GRACE));
        });
        let result = axum_server::bind_rustls(addr, tls)
            .handle(handle)
            .serve(self.router().into_make_service())
            .await
            .map_err(|source| ServeError::Io { addr, source });
        reloader.abort();
        result
    }
}

async fn reload_on_change(tls: RustlsConfig, dir: PathBuf) {
    let mut seen = modified(&dir);
    loop {
        tokio::time::sleep(RELOAD_EVERY).await;
        let now = modified(&dir);
        if now.is_none() || now == seen {
            continue;
        }
        match load(&dir) {
            Ok(config) => {
                tls.reload_from_config(Arc::new(config));
                seen = now;
                tracing::info!(dir = %dir.display(), "reloaded the webhook server certificate");
            }
            // cert-manager writes the two files one after the other: try again next time.
            Err(e) => tracing::warn!(error = %e, "cannot reload the webhook server certificate yet"),
        }
    }
}
