//! Finding `etcd` and `kube-apiserver`.

use std::path::{Path, PathBuf};

use crate::Error;

/// The name of the etcd binary.
pub const ETCD: &str = "etcd";
/// The name of the API server binary.
pub const KUBE_APISERVER: &str = "kube-apiserver";
/// The Kubernetes version the environment is meant for (what `scripts/install-testenv.sh`
/// installs; k8s-openapi's `v1_37`).
pub const KUBERNETES_VERSION: &str = "v1.37.2";

/// Where the two binaries are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binaries {
    /// The `etcd` binary.
    pub etcd: PathBuf,
    /// The `kube-apiserver` binary.
    pub kube_apiserver: PathBuf,
}

impl Binaries {
    /// Finds `etcd` and `kube-apiserver`. A folder named by `$ROP_TESTENV_DIR` (else by
    /// `$KUBEBUILDER_ASSETS`) is the only place looked in: it holds both or the search fails
    /// ([`Error::NotInFolder`]), it is never passed over. Without either variable:
    /// `~/.cache/rop-testenv/bin` when it holds both, else each on `PATH`.
    pub fn find() -> Result<Binaries, Error> {
        for variable in ["ROP_TESTENV_DIR", "KUBEBUILDER_ASSETS"] {
            if let Some(dir) = std::env::var_os(variable).filter(|v| !v.is_empty()) {
                let dir = PathBuf::from(dir);
                let found = |binary: &'static str| {
                    let path = dir.join(binary);
                    if is_executable(&path) {
                        Ok(path)
                    } else {
                        Err(Error::NotInFolder { variable, dir: dir.clone(), binary })
                    }
                };
                return Ok(Binaries { etcd: found(ETCD)?, kube_apiserver: found(KUBE_APISERVER)? });
            }
        }
        let mut searched = Vec::new();
        if let Some(home) = std::env::var_os("HOME").filter(|v| !v.is_empty()) {
            let dir = Path::new(&home).join(".cache/rop-testenv/bin");
            searched.push(dir.display().to_string());
            let (etcd, kube_apiserver) = (dir.join(ETCD), dir.join(KUBE_APISERVER));
            if is_executable(&etcd) && is_executable(&kube_apiserver) {
                return Ok(Binaries { etcd, kube_apiserver });
            }
        }
        searched.push("PATH".to_string());
        let on_path = |binary: &'static str| {
            which(binary).ok_or_else(|| Error::NotInstalled { binary, searched: searched.clone() })
        };
        Ok(Binaries { etcd: on_path(ETCD)?, kube_apiserver: on_path(KUBE_APISERVER)? })
    }
}

pub(crate) fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        path.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

pub(crate) fn which(binary: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(binary)).find(|p| is_executable(p))
}
