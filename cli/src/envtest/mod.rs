//! Downloading the test API server's binaries as setup-envtest does: read controller-tools'
//! envtest release index, pick the archive for a Kubernetes release and this platform, check
//! its SHA-512, and unpack `etcd` and `kube-apiserver` into a folder.
//!
//! Nothing half-done is left behind: the archive is downloaded and unpacked into a temporary
//! folder inside the target folder, and the two binaries are moved into place only once the
//! checksum matched and both were read whole.

pub mod index;

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use sha2::{Digest, Sha512};

pub use index::{Archive, Platform, Wanted};

use crate::ui;

/// The file, beside the binaries, that names the archive they came from.
pub const STAMP: &str = ".envtest";
/// The two binaries taken from an archive (it also holds `kubectl`, which the tests do not use).
pub const BINARIES: [&str; 2] = ["etcd", "kube-apiserver"];

/// What to download.
#[derive(Debug, Clone)]
pub struct Source {
    /// The index's URL (`http://` or `https://`).
    pub index_url: String,
    pub wanted: Wanted,
    pub platform: Platform,
}

/// Why a download did not install the binaries. Each message says what was wrong where.
#[derive(Debug, thiserror::Error)]
pub enum DownloadError {
    /// No answer: no network, a name that does not resolve, a refused connection, a timeout.
    #[error("cannot reach {url}: {reason}")]
    Unreachable { url: String, reason: String },
    /// An answer other than 200.
    #[error("{url} answered {status}")]
    Status { url: String, status: u16 },
    /// The index is not one, or lacks the release.
    #[error("the envtest index {url}: {reason}")]
    Index { url: String, reason: String },
    /// The archive's SHA-512 is not the index's.
    #[error("{name} does not match the index's SHA-512 (expected {expected}, got {actual}): refused")]
    Checksum { name: String, expected: String, actual: String },
    /// The archive does not unpack, or lacks a binary.
    #[error("{name} {reason}")]
    Archive { name: String, reason: String },
    /// Writing into the install folder failed.
    #[error("cannot write {path}: {source}", path = path.display())]
    Write { path: PathBuf, source: std::io::Error },
}

/// Downloads the archive `source` names into `dir` (created when missing): `dir/etcd`,
/// `dir/kube-apiserver` and the stamp [`STAMP`] naming the archive. Returns the archive.
///
/// # Errors
/// See [`DownloadError`]; `dir` is then as it was (a folder this call created is removed).
pub fn install(source: &Source, dir: &Path) -> Result<Archive, DownloadError> {
    let agent = agent();
    let bytes = get(&agent, &source.index_url)?
        .read_to_vec()
        .map_err(|e| DownloadError::Unreachable { url: source.index_url.clone(), reason: e.to_string() })?;
    let text = String::from_utf8(bytes).map_err(|_| DownloadError::Index {
        url: source.index_url.clone(),
        reason: "it is not an envtest release index (not UTF-8 text)".to_string(),
    })?;
    let archive = index::choose(&text, source.wanted, &source.platform)
        .map_err(|reason| DownloadError::Index { url: source.index_url.clone(), reason })?;

    let created = !dir.exists();
    let written = std::fs::create_dir_all(dir)
        .map_err(|source| DownloadError::Write { path: dir.to_path_buf(), source })
        .and_then(|()| download_into(&agent, &archive, dir));
    if written.is_err() && created {
        let _ = std::fs::remove_dir(dir);
    }
    written.map(|()| archive)
}

/// Connections give up after 15 s, and a download that stalls for 60 s fails: a machine with
/// no network learns it at once and builds instead.
fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_connect(Some(Duration::from_secs(15)))
        .timeout_per_read(Some(Duration::from_secs(60)))
        .http_status_as_error(false)
        .user_agent(concat!("rop/", env!("CARGO_PKG_VERSION")))
        .build()
        .into()
}

fn get(agent: &ureq::Agent, url: &str) -> Result<ureq::Body, DownloadError> {
    let response = agent
        .get(url)
        .call()
        .map_err(|e| DownloadError::Unreachable { url: url.to_string(), reason: e.to_string() })?;
    let status = response.status().as_u16();
    if status != 200 {
        return Err(DownloadError::Status { url: url.to_string(), status });
    }
    Ok(response.into_body())
}

fn download_into(agent: &ureq::Agent, archive: &Archive, dir: &Path) -> Result<(), DownloadError> {
    let write_error = |path: &Path| {
        let path = path.to_path_buf();
        move |source| DownloadError::Write { path, source }
    };
    remove_abandoned(dir);
    let prefix = format!("{STAGING}{}-", std::process::id());
    let staging = tempfile::Builder::new().prefix(&prefix).tempdir_in(dir).map_err(write_error(dir))?;
    let tarball = staging.path().join(&archive.name);

    let body = get(agent, &archive.url)?;
    let step = ui::Step::bytes(&format!("downloading {}", archive.name), body.content_length());
    let mut reader = body.into_reader();
    let mut file = File::create(&tarball).map_err(write_error(&tarball))?;
    let mut hasher = Sha512::new();
    let mut buffer = vec![0; 1 << 16];
    loop {
        let read = reader
            .read(&mut buffer)
            .map_err(|e| DownloadError::Unreachable { url: archive.url.clone(), reason: e.to_string() })?;
        if read == 0 {
            break;
        }
        hasher.update(&buffer[..read]);
        file.write_all(&buffer[..read]).map_err(write_error(&tarball))?;
        step.advance(read as u64);
    }
    file.flush().map_err(write_error(&tarball))?;
    drop(file);
    let actual = hex(&hasher.finalize());
    if actual != archive.sha512 {
        step.finish("checksum does not match");
        return Err(DownloadError::Checksum { name: archive.name.clone(), expected: archive.sha512.clone(), actual });
    }
    step.finish("done, SHA-512 matches");

    unpack(&tarball, &archive.name, staging.path())?;
    for binary in BINARIES {
        let target = dir.join(binary);
        std::fs::rename(staging.path().join(binary), &target).map_err(write_error(&target))?;
    }
    // A build's version stamps describe binaries that are no longer there.
    for stale in [".etcd.version", ".kube-apiserver.version"] {
        let _ = std::fs::remove_file(dir.join(stale));
    }
    let stamp = dir.join(STAMP);
    std::fs::write(&stamp, format!("{}\n", archive.name)).map_err(write_error(&stamp))?;
    Ok(())
}

/// The start of a staging folder's name; the downloading process's id follows.
const STAGING: &str = ".envtest-download-";

/// Removes staging folders left by a download that was killed (Ctrl-C, a CI timeout): those
/// whose process is gone. Only where that can be told (`/proc`); a running download's folder
/// is never touched.
fn remove_abandoned(dir: &Path) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.strip_prefix(STAGING)?.split('-').next()?.parse::<u32>().ok())
        else {
            continue;
        };
        if !Path::new("/proc").join(pid.to_string()).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Unpacks the regular files of `tarball` named [`BINARIES`] (at any depth: the archives keep
/// them under `controller-tools/envtest/`) into `into`, executable.
fn unpack(tarball: &Path, name: &str, into: &Path) -> Result<(), DownloadError> {
    let unreadable = |e: std::io::Error| DownloadError::Archive {
        name: name.to_string(),
        reason: format!("is not a readable .tar.gz ({e}): refused"),
    };
    let file = File::open(tarball).map_err(|source| DownloadError::Write { path: tarball.to_path_buf(), source })?;
    let mut tar = tar::Archive::new(flate2::read::GzDecoder::new(file));
    let mut found = Vec::new();
    for entry in tar.entries().map_err(unreadable)? {
        let mut entry = entry.map_err(unreadable)?;
        if entry.header().entry_type() != tar::EntryType::Regular {
            continue;
        }
        let path = entry.path().map_err(unreadable)?.into_owned();
        let Some(binary) = BINARIES.into_iter().find(|b| path.file_name().is_some_and(|n| n == *b)) else {
            continue;
        };
        let target = into.join(binary);
        let mut out = File::create(&target).map_err(|source| DownloadError::Write { path: target.clone(), source })?;
        std::io::copy(&mut entry, &mut out).map_err(unreadable)?;
        make_executable(&target).map_err(|source| DownloadError::Write { path: target.clone(), source })?;
        found.push(binary);
    }
    if let Some(missing) = BINARIES.into_iter().find(|b| !found.contains(b)) {
        return Err(DownloadError::Archive { name: name.to_string(), reason: format!("holds no {missing}: refused") });
    }
    Ok(())
}

fn make_executable(path: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        Ok(())
    }
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::with_capacity(bytes.len() * 2), |mut out, b| {
        let _ = write!(out, "{b:02x}");
        out
    })
}

/// The archive named by the stamp in `dir`, when both binaries are there too.
pub fn installed(dir: &Path) -> Option<String> {
    let stamp = std::fs::read_to_string(dir.join(STAMP)).ok()?;
    BINARIES.iter().all(|b| dir.join(b).is_file()).then(|| stamp.trim().to_string())
}

/// Whether an archive name is of the wanted release (`envtest-v1.37.2-...` for 1.37).
pub fn names_release(archive: &str, wanted: Wanted) -> bool {
    let prefix = match wanted.patch {
        Some(patch) => format!("envtest-v{}.{}.{patch}-", wanted.major, wanted.minor),
        None => format!("envtest-v{}.{}.", wanted.major, wanted.minor),
    };
    archive.starts_with(&prefix)
}

/// setup-envtest's store: `${XDG_DATA_HOME:-~/.local/share}/kubebuilder-envtest/k8s` on Linux,
/// `~/Library/Application Support/io.kubebuilder.envtest/k8s` on macOS; its folders are named
/// `<release>-<os>-<arch>` (`1.37.2-linux-amd64`).
pub fn setup_envtest_folder(wanted: Wanted, platform: &Platform) -> Option<PathBuf> {
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
    let store = if platform.os == "darwin" {
        home?.join("Library/Application Support/io.kubebuilder.envtest/k8s")
    } else {
        let data = std::env::var_os("XDG_DATA_HOME").filter(|d| !d.is_empty()).map(PathBuf::from);
        data.or_else(|| home.map(|h| h.join(".local/share")))?.join("kubebuilder-envtest/k8s")
    };
    let suffix = format!("-{}-{}", platform.os, platform.arch);
    let mut matching: Vec<(index::Release, PathBuf)> = std::fs::read_dir(&store)
        .ok()?
        .filter_map(|entry| {
            let path = entry.ok()?.path();
            let name = path.file_name()?.to_str()?;
            let release = name.strip_suffix(&suffix)?;
            let archive = format!("envtest-v{release}{suffix}.tar.gz");
            let holds_both = BINARIES.iter().all(|b| path.join(b).is_file());
            (names_release(&archive, wanted) && holds_both)
                .then(|| index::parse_release(release).map(|r| (r, path.clone())))
                .flatten()
        })
        .collect();
    matching.sort();
    matching.pop().map(|(_, path)| path)
}
