//! HTTPS for the webhook server, with the serving certificate reloaded when it changes on disk
//! (cert-manager renews it in the mounted Secret without restarting the Pod), and optionally
//! client authentication: only callers with a certificate signed by a given CA (the API server,
//! configured to present one to webhooks) get past the TLS handshake.

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
#[doc(hidden)]
pub const DEFAULT_CERT_DIR: &str = "/tmp/k8s-webhook-server/serving-certs";
/// File name of the PEM certificate chain in the certificate folder (a `kubernetes.io/tls` Secret key).
#[doc(hidden)]
pub const CERT_FILE: &str = "tls.crt";
/// File name of the PEM private key in the certificate folder.
#[doc(hidden)]
pub const KEY_FILE: &str = "tls.key";

/// How often the certificate files are checked for a change.
const RELOAD_EVERY: Duration = Duration::from_secs(30);
/// How long requests in flight get to finish at shutdown.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// Why the webhook server cannot serve: its certificate or key cannot be read or do not match,
/// its client CA cannot be read or verifies nothing, it asks conversions for a client
/// certificate kube-apiserver never presents, or its address cannot be bound. The message names
/// the file, flag or address, and what to change.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
#[doc(hidden)]
pub struct ServeError(#[from] ServeProblem);

/// What [`ServeError`] says.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ServeProblem {
    /// The serving certificate or key cannot be read, or is not PEM.
    #[error(
        "cannot read the webhook server's TLS certificate {}: {source}; mount one there (cert-manager does in a cluster, see config/default/manager_webhook_patch.yaml), pass --webhook-cert-dir, or run with ENABLE_WEBHOOKS=false",
        path.display()
    )]
    Certificate {
        /// The file, [`CERT_FILE`] or [`KEY_FILE`] in the certificate folder.
        path: PathBuf,
        /// The read error; [`io::ErrorKind::InvalidData`] when the file is not PEM.
        source: io::Error,
    },
    /// The certificate and key are PEM but do not make a TLS configuration (e.g. they do not
    /// match).
    #[error("the webhook server's TLS certificate and key in {} do not make a TLS configuration: {source}", dir.display())]
    Tls {
        /// The certificate folder.
        dir: PathBuf,
        /// rustls' error.
        source: rustls::Error,
    },
    /// The client CA file (`--webhook-client-ca-file`) cannot be read.
    #[error(
        "cannot read the webhook client CA {}: {source}; mount the CA that signs the API server's webhook client certificate there (see config/default/manager_webhook_client_ca_patch.yaml), or leave out --webhook-client-ca-file",
        path.display()
    )]
    ClientCa {
        /// The client CA file.
        path: PathBuf,
        /// The read error.
        source: io::Error,
    },
    /// The client CA file holds no certificate that can verify client certificates.
    #[error("the webhook client CA {} cannot verify client certificates: {reason}", path.display())]
    ClientCaInvalid {
        /// The client CA file.
        path: PathBuf,
        /// Why: the PEM or certificate error, the verifier's error, or `it holds no PEM certificate`.
        reason: String,
    },
    /// The server asks for client certificates and serves CRD conversions, to which
    /// kube-apiserver presents none.
    #[error(
        "the webhook server converts {} and was asked to admit only callers with a client certificate (--webhook-client-ca-file): kube-apiserver presents none to CRD conversion webhooks, so every conversion would fail; leave the flag out",
        kinds.join(", ")
    )]
    ClientCaWithConversion {
        /// The kinds the server converts, `<group> <kind>` each.
        kinds: Vec<String>,
    },
    /// Binding or serving on the address failed.
    #[error("the webhook server on {addr} failed: {source}")]
    Io {
        /// The address the server listens on.
        addr: SocketAddr,
        /// The I/O error.
        source: io::Error,
    },
}

/// The files the webhook server's TLS configuration is read from.
#[derive(Clone, Debug)]
struct Files {
    /// Holds [`CERT_FILE`] and [`KEY_FILE`].
    dir: PathBuf,
    /// PEM certificates of the CAs a client certificate must be signed by; `None` asks for
    /// no client certificate.
    client_ca: Option<PathBuf>,
}

/// Builds a TLS configuration from `<dir>/tls.crt` and `<dir>/tls.key` (see [`from_pem`]).
fn load(files: &Files) -> Result<ServerConfig, ServeError> {
    let dir = &files.dir;
    let read = |name: &str| {
        let path = dir.join(name);
        std::fs::read(&path).map_err(|source| ServeProblem::Certificate { path, source })
    };
    let (cert_pem, key_pem) = (read(CERT_FILE)?, read(KEY_FILE)?);
    from_pem(&cert_pem, &key_pem, files.client_ca.as_deref()).map_err(|e| match e {
        PemError::Certificate(e) => bad_pem(dir.join(CERT_FILE), e),
        PemError::Key(e) => bad_pem(dir.join(KEY_FILE), e),
        PemError::Tls(source) => ServeProblem::Tls { dir: dir.to_path_buf(), source }.into(),
        PemError::ClientCa(e) => e,
    })
}

fn bad_pem(path: PathBuf, e: rustls::pki_types::pem::Error) -> ServeError {
    ServeProblem::Certificate { path, source: io::Error::new(io::ErrorKind::InvalidData, e.to_string()) }.into()
}

/// Why PEM text does not make a TLS configuration.
#[derive(Debug, thiserror::Error)]
pub(crate) enum PemError {
    #[error("the certificate is not PEM: {0}")]
    Certificate(rustls::pki_types::pem::Error),
    #[error("the private key is not PEM: {0}")]
    Key(rustls::pki_types::pem::Error),
    #[error("the certificate and key do not make a TLS configuration: {0}")]
    Tls(rustls::Error),
    #[error(transparent)]
    ClientCa(ServeError),
}

/// Builds a TLS configuration from a PEM certificate chain and private key, HTTP/1.1 only (as
/// controller-runtime disables HTTP/2 by default), requiring a client certificate signed by
/// one of the CAs in the file `client_ca` when it is given (controller-runtime's
/// `ClientCAName`).
pub(crate) fn from_pem(cert_pem: &[u8], key_pem: &[u8], client_ca: Option<&Path>) -> Result<ServerConfig, PemError> {
    let certs =
        CertificateDer::pem_slice_iter(cert_pem).collect::<Result<Vec<_>, _>>().map_err(PemError::Certificate)?;
    if certs.is_empty() {
        return Err(PemError::Certificate(rustls::pki_types::pem::Error::NoItemsFound));
    }
    let key = PrivateKeyDer::from_pem_slice(key_pem).map_err(PemError::Key)?;
    let provider = Arc::new(ring_provider());
    let builder = ServerConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(PemError::Tls)?;
    let builder = match client_ca {
        None => builder.with_no_client_auth(),
        Some(path) => builder.with_client_cert_verifier(client_verifier(path, provider).map_err(PemError::ClientCa)?),
    };
    let mut config = builder.with_single_cert(certs, key).map_err(PemError::Tls)?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(config)
}

/// A verifier that accepts only client certificates signed by a CA in the PEM file `path`.
fn client_verifier(
    path: &Path,
    provider: Arc<rustls::crypto::CryptoProvider>,
) -> Result<Arc<dyn rustls::server::danger::ClientCertVerifier>, ServeError> {
    let invalid = |reason: String| ServeError::from(ServeProblem::ClientCaInvalid { path: path.to_path_buf(), reason });
    let pem = std::fs::read(path).map_err(|source| ServeProblem::ClientCa { path: path.to_path_buf(), source })?;
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(&pem) {
        roots.add(cert.map_err(|e| invalid(e.to_string()))?).map_err(|e| invalid(e.to_string()))?;
    }
    if roots.is_empty() {
        return Err(invalid("it holds no PEM certificate".into()));
    }
    rustls::server::WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider)
        .build()
        .map_err(|e| invalid(e.to_string()))
}

/// Checks that `dir` holds a certificate and key the server can serve with, so a manager can
/// fail at start instead of when the first request comes.
///
/// # Errors
/// As [`Server::serve`]: a missing or unreadable file, or a certificate and key that do not match.
#[cfg_attr(not(feature = "manager"), allow(dead_code, reason = "the manager is what calls it"))]
pub fn check_certificate(dir: &Path) -> Result<(), ServeError> {
    load(&Files { dir: dir.to_path_buf(), client_ca: None }).map(drop)
}

/// Checks that `path` holds CA certificates that can verify client certificates, for a
/// manager to fail at start when `--webhook-client-ca-file` names a file that is not there.
///
/// # Errors
/// When the file cannot be read, or holds no usable certificate.
#[cfg_attr(not(feature = "manager"), allow(dead_code, reason = "the manager is what calls it"))]
pub fn check_client_ca(path: &Path) -> Result<(), ServeError> {
    client_verifier(path, Arc::new(ring_provider())).map(drop)
}

impl Server {
    /// Serves the webhooks over HTTPS on `addr` with the certificate in `cert_dir`
    /// ([`CERT_FILE`], [`KEY_FILE`]) until `shutdown` completes, then lets requests in flight
    /// finish (5 s at most). A changed certificate (or client CA) is picked up within 30 s.
    /// With [`Server::client_ca_file`], a caller without a certificate signed by that CA is
    /// refused in the TLS handshake.
    ///
    /// # Errors
    /// A missing or unreadable certificate, key or client CA, a client CA on a server with
    /// conversion webhooks (the API server would be refused), or a failure to bind `addr`.
    #[doc(hidden)]
    pub async fn serve(
        self,
        addr: SocketAddr,
        cert_dir: &Path,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), ServeError> {
        self.check_client_auth_without_conversion()?;
        let files = Files { dir: cert_dir.to_path_buf(), client_ca: self.client_ca.clone() };
        let tls = RustlsConfig::from_config(self.http.offered_by(Arc::new(load(&files)?)));
        let reloader = tokio::spawn(reload_on_change(tls.clone(), files, self.http));
        let result = self.serve_tls(addr, tls, shutdown).await;
        reloader.abort();
        result
    }

    /// Serves the webhooks over HTTPS on `addr` with the TLS configurations `configs` sends:
    /// from the first one on (nothing is bound before it), each new one taking over at once.
    /// The manager's self-managed certificates come this way.
    #[cfg(feature = "manager")]
    pub(crate) async fn serve_configs(
        self,
        addr: SocketAddr,
        mut configs: tokio::sync::watch::Receiver<Option<Arc<ServerConfig>>>,
        shutdown: tokio_util::sync::CancellationToken,
    ) -> Result<(), ServeError> {
        self.check_client_auth_without_conversion()?;
        let first = tokio::select! {
            first = configs.wait_for(Option::is_some) => match first {
                Ok(config) => config.clone().expect("waited for a configuration"),
                Err(_) => return Ok(()),
            },
            () = shutdown.cancelled() => return Ok(()),
        };
        let http = self.http;
        let tls = RustlsConfig::from_config(http.offered_by(first));
        let forward = tls.clone();
        let reloader = tokio::spawn(async move {
            while configs.changed().await.is_ok() {
                let next = configs.borrow_and_update().clone();
                if let Some(config) = next {
                    forward.reload_from_config(http.offered_by(config));
                }
            }
        });
        let result = self.serve_tls(addr, tls, shutdown.cancelled_owned()).await;
        reloader.abort();
        result
    }

    async fn serve_tls(
        self,
        addr: SocketAddr,
        tls: RustlsConfig,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), ServeError> {
        let http = self.http;
        serve_until(axum_server::bind_rustls(addr, tls), self.router(), http, shutdown)
            .await
            .map_err(|source| ServeProblem::Io { addr, source }.into())
    }
}

/// Serves `router` on `server` (an address with its TLS), speaking `http`'s versions, until
/// `shutdown` completes, then lets requests in flight finish (5 s at most): the webhook and
/// the secure metrics servers.
///
/// # Errors
/// Binding or serving failed.
pub(crate) async fn serve_until(
    server: axum_server::Server<SocketAddr, axum_server::tls_rustls::RustlsAcceptor>,
    router: axum::Router,
    http: HttpVersions,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    let handle = axum_server::Handle::new();
    let stopper = handle.clone();
    let stop = tokio::spawn(async move {
        shutdown.await;
        stopper.graceful_shutdown(Some(SHUTDOWN_GRACE));
    });
    let served = http.limit(server.handle(handle)).serve(router.into_make_service()).await;
    stop.abort();
    served
}

impl Server {
    /// Fails when the server asks for client certificates ([`Server::client_ca_file`]) and
    /// serves conversions: kube-apiserver presents no client certificate to CRD conversion
    /// webhooks, so it would be refused every time. [`Server::serve`] checks it; a manager
    /// checks it at start.
    ///
    /// # Errors
    /// One that names the converted kinds.
    pub(crate) fn check_client_auth_without_conversion(&self) -> Result<(), ServeError> {
        if self.client_ca.is_some() && !self.converted_kinds().is_empty() {
            return Err(ServeProblem::ClientCaWithConversion { kinds: self.converted_kinds() }.into());
        }
        Ok(())
    }
}

async fn reload_on_change(tls: RustlsConfig, files: Files, http: HttpVersions) {
    let mut paths = vec![files.dir.join(CERT_FILE), files.dir.join(KEY_FILE)];
    paths.extend(files.client_ca.clone());
    reload_when_changed(tls, paths, move || load(&files), http, "webhook").await;
}

/// Checks the files `paths` every 30 s and, when one changed, serves the TLS configuration
/// `load` builds from them from then on. A configuration that cannot be built yet (cert-manager
/// writes the certificate and the key one after the other) is tried again next time. `server`
/// names the server in the logs (`webhook`, `metrics`).
pub(crate) async fn reload_when_changed<E: std::fmt::Display>(
    tls: RustlsConfig,
    paths: Vec<PathBuf>,
    load: impl Fn() -> Result<ServerConfig, E>,
    http: HttpVersions,
    server: &'static str,
) {
    let modified = || {
        paths
            .iter()
            .map(|path| std::fs::metadata(path).and_then(|m| m.modified()).ok())
            .collect::<Option<Vec<SystemTime>>>()
    };
    let mut seen = modified();
    loop {
        tokio::time::sleep(RELOAD_EVERY).await;
        let now = modified();
        if now.is_none() || now == seen {
            continue;
        }
        match load() {
            Ok(config) => {
                tls.reload_from_config(http.offered_by(Arc::new(config)));
                seen = now;
                tracing::info!(server, "reloaded the server certificate");
            }
            Err(e) => tracing::warn!(server, error = %e, "cannot reload the server certificate yet"),
        }
    }
}

/// The HTTP versions a TLS server speaks. HTTP/1.1 only by default, as kubebuilder's manager
/// (`--enable-http2=false`) because of HTTP/2's Rapid Reset (CVE-2023-44487) and Stream
/// Cancellation (CVE-2023-39325) attacks: HTTP/2 is neither offered over ALPN nor spoken to a
/// client that starts it without asking (prior knowledge).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum HttpVersions {
    /// HTTP/1.1 alone.
    #[default]
    Http1Only,
    /// HTTP/2 (preferred over ALPN) and HTTP/1.1: the manager's `--enable-http2`.
    #[cfg(feature = "manager")]
    Http1AndHttp2,
}

impl HttpVersions {
    /// `config` (from [`from_pem`], which offers `http/1.1`) offering these versions over ALPN.
    pub(crate) fn offered_by(self, config: Arc<ServerConfig>) -> Arc<ServerConfig> {
        match self {
            Self::Http1Only => config,
            #[cfg(feature = "manager")]
            Self::Http1AndHttp2 => {
                let mut config = (*config).clone();
                config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
                Arc::new(config)
            }
        }
    }

    /// `server`, speaking these versions only.
    pub(crate) fn limit<A: axum_server::Address, Acceptor>(
        self,
        server: axum_server::Server<A, Acceptor>,
    ) -> axum_server::Server<A, Acceptor> {
        match self {
            Self::Http1Only => server.http1_only(),
            #[cfg(feature = "manager")]
            Self::Http1AndHttp2 => server,
        }
    }
}

/// rustls' provider backed by *ring*, the one kube's `ring` feature uses too. rustls 0.23.48
/// deprecated it (no post-quantum key exchange) in favour of aws-lc-rs, whose C build would
/// add minutes to every generated project's cold build; the manager's TLS (webhooks, the API
/// server connection) keeps ring until kube moves.
#[allow(deprecated)]
pub(crate) fn ring_provider() -> rustls::crypto::CryptoProvider {
    rustls::crypto::ring::default_provider()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_client_ca_that_cannot_verify_says_what_is_wrong_with_it() {
        let dir = std::env::temp_dir().join(format!("rop-webhook-client-ca-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let empty = dir.join("empty.crt");
        std::fs::write(&empty, "not a certificate\n").unwrap();
        let missing = dir.join("missing.crt");
        assert_eq!(
            super::check_client_ca(&missing).unwrap_err().to_string(),
            format!(
                "cannot read the webhook client CA {}: No such file or directory (os error 2); mount the CA that \
                 signs the API server's webhook client certificate there (see \
                 config/default/manager_webhook_client_ca_patch.yaml), or leave out --webhook-client-ca-file",
                missing.display()
            )
        );
        assert_eq!(
            super::check_client_ca(&empty).unwrap_err().to_string(),
            format!(
                "the webhook client CA {} cannot verify client certificates: it holds no PEM certificate",
                empty.display()
            )
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
