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
    /// `~/.cache/rop-testenv/bin` when it holds both, else setup-envtest's store (the newest
    /// `1.37.*` folder of this platform that holds both: see [`setup_envtest_store`]), else each
    /// on `PATH`.
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
        if let Some(dir) = setup_envtest_store() {
            searched.push(dir.display().to_string());
            if let Some(found) = newest_in_store(&dir) {
                return Ok(found);
            }
        }
        searched.push("PATH".to_string());
        let on_path = |binary: &'static str| {
            which(binary).ok_or_else(|| Error::NotInstalled { binary, searched: searched.clone() })
        };
        Ok(Binaries { etcd: on_path(ETCD)?, kube_apiserver: on_path(KUBE_APISERVER)? })
    }
}

/// setup-envtest's store of unpacked releases: `${XDG_DATA_HOME:-~/.local/share}/kubebuilder-envtest/k8s`
/// (macOS: `~/Library/Application Support/io.kubebuilder.envtest/k8s`), as controller-runtime's
/// `store.DefaultStoreDir` places it; each release in a folder `<release>-<os>-<arch>`
/// (`1.37.2-linux-amd64`). `None` when neither variable is set.
pub fn setup_envtest_store() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    if cfg!(target_os = "macos") {
        return Some(var("HOME")?.join("Library/Application Support/io.kubebuilder.envtest/k8s"));
    }
    Some(var("XDG_DATA_HOME").or_else(|| Some(var("HOME")?.join(".local/share")))?.join("kubebuilder-envtest/k8s"))
}

/// The newest release folder of [`KUBERNETES_VERSION`]'s minor for this platform in `store`
/// that holds both binaries.
fn newest_in_store(store: &Path) -> Option<Binaries> {
    let os = match std::env::consts::OS {
        "macos" => "darwin",
        os => os,
    };
    let arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        "powerpc64" => "ppc64le",
        arch => arch,
    };
    let minor = KUBERNETES_VERSION.trim_start_matches('v').rsplit_once('.').map_or(KUBERNETES_VERSION, |(m, _)| m);
    let suffix = format!("-{os}-{arch}");
    let mut found: Vec<(u32, Binaries)> = std::fs::read_dir(store)
        .ok()?
        .filter_map(|entry| {
            let dir = entry.ok()?.path();
            let release = dir.file_name()?.to_str()?.strip_suffix(&suffix)?.to_string();
            let patch: u32 = release.strip_prefix(minor)?.strip_prefix('.')?.parse().ok()?;
            let (etcd, kube_apiserver) = (dir.join(ETCD), dir.join(KUBE_APISERVER));
            (is_executable(&etcd) && is_executable(&kube_apiserver))
                .then_some((patch, Binaries { etcd, kube_apiserver }))
        })
        .collect();
    found.sort_by_key(|(patch, _)| *patch);
    found.pop().map(|(_, binaries)| binaries)
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
