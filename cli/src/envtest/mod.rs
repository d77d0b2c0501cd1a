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
    /// `--index` or a `selfLink` is not an `http(s)://` or `file://` URL nor a file path, or
    /// names a file that cannot be read: a mistake building from source would not mend.
    #[error("{location}: {reason}")]
    Location { location: String, reason: String },
    /// No answer: no network, a name that does not resolve, a refused connection, a timeout,
    /// or a file that cannot be opened.
    #[error("cannot reach {url}: {reason}")]
    Unreachable { url: String, reason: String },
    /// The answer broke off, or stalled for a minute.
    #[error("the download of {url} broke off ({reason})")]
    Interrupted { url: String, reason: String },
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
    /// A binary of the archive does not run on this machine (`--version` fails).
    #[error("{name}: its {binary} does not run here ({reason}): refused")]
    Unusable { name: String, binary: &'static str, reason: String },
    /// Writing into the install folder failed.
    #[error("cannot write {path}: {source}", path = path.display())]
    Write { path: PathBuf, source: std::io::Error },
}

/// The largest index read; controller-tools' is about 30 KiB.
const INDEX_LIMIT: u64 = 10 << 20;

/// Downloads the archive `source` names into `dir` (created when missing): `dir/etcd`,
/// `dir/kube-apiserver` and the stamp [`STAMP`] naming the archive. Returns the archive.
///
/// # Errors
/// See [`DownloadError`]; `dir` is then as it was (a folder this call created is removed).
pub fn install(source: &Source, dir: &Path) -> Result<Archive, DownloadError> {
    let agent = agent();
    let index_error = |reason: &str| DownloadError::Index { url: source.index_url.clone(), reason: reason.to_string() };
    let (reader, _) = open(&agent, &source.index_url)?;
    let mut bytes = Vec::new();
    reader
        .take(INDEX_LIMIT + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| DownloadError::Interrupted { url: source.index_url.clone(), reason: e.to_string() })?;
    if bytes.len() as u64 > INDEX_LIMIT {
        return Err(index_error("it is larger than 10 MiB, which no envtest release index is"));
    }
    let text =
        String::from_utf8(bytes).map_err(|_| index_error("it is not an envtest release index (not UTF-8 text)"))?;
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

/// Opens `location`: an `http://` or `https://` URL, or a file (`file://PATH` or a plain
/// path, for a mirror on disk). Returns the reader and the size when known.
fn open(agent: &ureq::Agent, location: &str) -> Result<(Box<dyn Read>, Option<u64>), DownloadError> {
    let unreachable = |reason: String| DownloadError::Unreachable { url: location.to_string(), reason };
    if location.starts_with("http://") || location.starts_with("https://") {
        let response = agent.get(location).call().map_err(|e| unreachable(e.to_string()))?;
        let status = response.status().as_u16();
        if status != 200 {
            return Err(DownloadError::Status { url: location.to_string(), status });
        }
        let body = response.into_body();
        let size = body.content_length();
        return Ok((Box::new(body.into_reader()), size));
    }
    let path = match location.strip_prefix("file://") {
        Some(path) => path,
        None if location.contains("://") => {
            return Err(DownloadError::Location {
                location: location.to_string(),
                reason: "only http://, https:// and file:// URLs, or file paths, are read".to_string(),
            });
        }
        None => location,
    };
    let file = File::open(path).map_err(|e| DownloadError::Location {
        location: location.to_string(),
        reason: format!("cannot read it ({e})"),
    })?;
    let size = file.metadata().ok().map(|m| m.len());
    Ok((Box::new(file), size))
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

    let (mut reader, size) = open(agent, &archive.url)?;
    let step = ui::Step::bytes(&format!("downloading {}", archive.name), size);
    let copied = copy_hashing(&mut reader, &tarball, &step, &archive.url);
    let actual = match copied {
        Ok(actual) => actual,
        Err(err) => {
            step.finish("failed");
            return Err(err);
        }
    };
    if actual != archive.sha512 {
        step.finish("checksum does not match");
        return Err(DownloadError::Checksum { name: archive.name.clone(), expected: archive.sha512.clone(), actual });
    }
    step.finish("done, SHA-512 matches");

    unpack(&tarball, &archive.name, staging.path())?;
    // Binaries that do not run here never replace ones that do.
    for binary in BINARIES {
        runs(&staging.path().join(binary)).map_err(|reason| DownloadError::Unusable {
            name: archive.name.clone(),
            binary,
            reason,
        })?;
    }
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

/// Copies `reader` into the file `to`, advancing `step`; returns the SHA-512 of what it copied.
fn copy_hashing(reader: &mut dyn Read, to: &Path, step: &ui::Step, url: &str) -> Result<String, DownloadError> {
    let write_error = |source| DownloadError::Write { path: to.to_path_buf(), source };
    let mut file = File::create(to).map_err(write_error)?;
    let mut hasher = Sha512::new();
    let mut buffer = vec![0; 1 << 16];
    loop {
        let read = reader
            .read(&mut buffer)
            .map_err(|e| DownloadError::Interrupted { url: url.to_string(), reason: e.to_string() })?;
        if read == 0 {
            break;
        }
        hasher.update(&buffer[..read]);
        file.write_all(&buffer[..read]).map_err(write_error)?;
        step.advance(read as u64);
    }
    file.flush().map_err(write_error)?;
    Ok(hex(&hasher.finalize()))
}

/// Runs `binary --version`; the reason when it does not run or fails.
pub fn runs(binary: &Path) -> Result<String, String> {
    let output = std::process::Command::new(binary).arg("--version").output().map_err(|e| e.to_string())?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let said = stderr.trim().lines().next().unwrap_or_default();
        return Err(if said.is_empty() { format!("`--version` {}", output.status) } else { said.to_string() });
    }
    Ok(stdout.lines().next().unwrap_or_default().to_string())
}

/// The start of a staging folder's name; the downloading process's id follows.
const STAGING: &str = ".envtest-download-";

/// Removes staging folders left by a download that was killed (Ctrl-C, a CI timeout): those
/// whose process is gone. Only where that can be told (`/proc`); a running download's folder
/// is never touched.
pub fn remove_abandoned(dir: &Path) {
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
        if found.contains(&binary) {
            return Err(DownloadError::Archive {
                name: name.to_string(),
                reason: format!("holds {binary} twice: refused"),
            });
        }
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

/// Whether `dir` holds both [`BINARIES`], executable.
pub fn holds_both(dir: &Path) -> bool {
    holds_all(dir, &BINARIES)
}

/// Whether `dir` holds every one of `binaries`, executable.
pub fn holds_all(dir: &Path, binaries: &[&str]) -> bool {
    binaries.iter().all(|b| is_executable(&dir.join(b)))
}

fn is_executable(path: &Path) -> bool {
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
    holds_both(dir).then(|| stamp.trim().to_string())
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
            (names_release(&archive, wanted) && holds_both(&path))
                .then(|| index::parse_release(release).map(|r| (r, path.clone())))
                .flatten()
        })
        .collect();
    matching.sort();
    matching.pop().map(|(_, path)| path)
}
