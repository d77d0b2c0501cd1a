//! Why a test environment could not start.

use std::io;
use std::path::PathBuf;
use std::process::ExitStatus;
use std::time::Duration;

#[cfg(doc)]
use crate::TestEnv;
#[cfg(doc)]
use crate::binaries::{ETCD, KUBE_APISERVER};

/// Why a [`TestEnv`] could not start.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `etcd` or `kube-apiserver` is not installed. Tests treat this as "skip", not "fail".
    #[error(
        "{binary} not found (looked in {}); install both with `rop testenv install` (`make testenv`), or point ROP_TESTENV_DIR or KUBEBUILDER_ASSETS at a folder holding etcd and kube-apiserver",
        searched.join(", ")
    )]
    NotInstalled {
        /// The binary that is missing: [`ETCD`] or [`KUBE_APISERVER`].
        binary: &'static str,
        /// Where it was looked for, in order.
        searched: Vec<String>,
    },
    /// The folder a variable names does not hold a binary: it is refused, not passed over.
    #[error(
        "{variable}={} holds no executable {binary}: point it at a folder holding etcd and kube-apiserver, or unset it to use ~/.cache/rop-testenv/bin",
        dir.display()
    )]
    NotInFolder {
        /// `ROP_TESTENV_DIR` or `KUBEBUILDER_ASSETS`.
        variable: &'static str,
        /// The folder it names.
        dir: PathBuf,
        /// The binary missing there.
        binary: &'static str,
    },
    /// A file or process operation failed.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// Why it failed.
        source: io::Error,
    },
    /// Generating a key or certificate failed.
    #[error("generating certificates: {0}")]
    Certificates(#[from] rcgen::Error),
    /// The kubeconfig written for the server could not be loaded.
    #[error("loading the kubeconfig: {0}")]
    Kubeconfig(#[from] kube::config::KubeconfigError),
    /// The client could not be built.
    #[error("building the client: {0}")]
    Client(#[from] kube::Error),
    /// `etcd` or `kube-apiserver` exited before the server was ready.
    #[error("{process} exited with {status} before the server was ready; the end of its log:\n{log_tail}")]
    Exited {
        /// [`ETCD`] or [`KUBE_APISERVER`].
        process: &'static str,
        /// Its exit status.
        status: ExitStatus,
        /// The last lines of its output.
        log_tail: String,
    },
    /// The server did not become ready in time.
    #[error("the API server was not ready after {waited:?} (last answer: {last}); the end of its log:\n{log_tail}")]
    NotReady {
        /// How long [`TestEnv::start`] waited.
        waited: Duration,
        /// The last `/readyz` answer or error.
        last: String,
        /// The last lines of the API server's output.
        log_tail: String,
    },
}

impl Error {
    /// Whether the binaries are missing (the only error a test should turn into a skip).
    pub fn is_not_installed(&self) -> bool {
        matches!(self, Error::NotInstalled { .. })
    }
}

pub(crate) fn io_err(what: impl Into<String>) -> impl FnOnce(io::Error) -> Error {
    let what = what.into();
    move |source| Error::Io { what, source }
}
