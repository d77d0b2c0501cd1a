//! What `rop verify --against` and `rop generate --check-compat` share: reading a file as it
//! was at a git revision, and the acknowledgements file of deliberate breaks.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::Context;
use rop_verify::Finding;
use serde::Deserialize;

use crate::commands::UsageError;

/// Where `rop generate --check-compat` looks for acknowledgements, relative to the project.
pub const ACKNOWLEDGEMENTS: &str = "config/crd/compat-acknowledged.yaml";

/// A git revision of the repository that holds some path: files as they were at it.
#[derive(Debug)]
pub struct GitRevision {
    rev: String,
    /// The repository's top folder, with symbolic links resolved.
    top: PathBuf,
}

impl GitRevision {
    /// The revision `rev` of the repository holding `near` (a file or folder that need not
    /// exist yet). Git missing, `near` outside a repository, or a revision git does not know
    /// are [`UsageError`]s.
    ///
    /// `otherwise` says what else the caller can do, for the error messages ("name the old
    /// CRDs by file instead").
    pub fn open(rev: &str, near: &Path, otherwise: &str) -> anyhow::Result<Self> {
        let dir = existing_ancestor(near);
        let top = git(&dir, &["rev-parse", "--show-toplevel"], otherwise)?;
        if !top.status.success() {
            return Err(UsageError::new(format!(
                "{} is not in a git repository, so it has no revision {rev:?} (fix: commit it to git first, or {otherwise})",
                near.display()
            ))
            .into());
        }
        let top = PathBuf::from(String::from_utf8_lossy(&top.stdout).trim());
        let commit = git(&dir, &["rev-parse", "--verify", "--quiet", &format!("{rev}^{{commit}}")], otherwise)?;
        if !commit.status.success() {
            let any = git(&dir, &["rev-parse", "--verify", "--quiet", "HEAD"], otherwise)?;
            let fix = if any.status.success() {
                "name a commit, branch or tag that exists there, e.g. HEAD or main".to_string()
            } else {
                format!("the repository has no commit yet: commit first (git add -A && git commit), or {otherwise}")
            };
            return Err(UsageError::new(format!("no git revision {rev:?} in {} (fix: {fix})", top.display())).into());
        }
        let top = top.canonicalize().with_context(|| format!("cannot resolve {}", top.display()))?;
        Ok(Self { rev: rev.to_string(), top })
    }

    /// The revision as given (`HEAD`, `main`).
    pub fn rev(&self) -> &str {
        &self.rev
    }

    /// `path` relative to the repository's top, symbolic links resolved as far as `path` exists.
    fn relative(&self, path: &Path) -> PathBuf {
        let dir = existing_ancestor(path);
        let real = dir.canonicalize().unwrap_or_else(|_| dir.clone());
        let rest = path.strip_prefix(&dir).unwrap_or(Path::new(""));
        real.join(rest).strip_prefix(&self.top).map(Path::to_path_buf).unwrap_or_else(|_| path.to_path_buf())
    }

    /// Whether `path` is inside the repository.
    pub fn holds(&self, path: &Path) -> bool {
        self.relative(path).is_relative()
    }

    /// The content of `file` at the revision; `None` if it did not exist there.
    pub fn show(&self, file: &Path) -> anyhow::Result<Option<String>> {
        let spec = format!("{}:{}", self.rev, self.relative(file).display());
        let shown = git(&self.top, &["show", &spec], "")?;
        Ok(shown.status.success().then(|| String::from_utf8_lossy(&shown.stdout).into_owned()))
    }

    /// The files directly in folder `dir` at the revision, as paths under `dir`.
    pub fn list(&self, dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
        let relative = self.relative(dir);
        let spec = format!("{}:{}", self.rev, relative.display());
        let listed = git(&self.top, &["ls-tree", "--name-only", &spec], "")?;
        if !listed.status.success() {
            return Ok(Vec::new());
        }
        Ok(String::from_utf8_lossy(&listed.stdout).lines().map(|name| dir.join(name)).collect())
    }
}

/// `path` itself if it exists, else its nearest ancestor that does (`.` at worst).
fn existing_ancestor(path: &Path) -> PathBuf {
    let mut dir = path;
    while !dir.exists()
        && let Some(parent) = dir.parent().filter(|d| !d.as_os_str().is_empty())
    {
        dir = parent;
    }
    if dir.exists() { dir.to_path_buf() } else { PathBuf::from(".") }
}

/// Runs git in `dir`; git missing is a [`UsageError`] that offers `otherwise`.
pub(crate) fn git(dir: &Path, args: &[&str], otherwise: &str) -> anyhow::Result<std::process::Output> {
    let dir = if dir.is_file() { dir.parent().unwrap_or(Path::new(".")) } else { dir };
    Command::new("git").arg("-C").arg(dir).args(args).output().map_err(|e| {
        let or = if otherwise.is_empty() { String::new() } else { format!(", or {otherwise}") };
        UsageError::new(format!("cannot run git: {e} (fix: install git and put it on PATH{or})")).into()
    })
}

/// The acknowledgements file: deliberate breaks, reviewed once.
///
/// ```yaml
/// acknowledged:
/// - crd: widgets.example.com
///   rule: compat.field-removed
///   path: spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[legacy]
///   reason: deprecated since 1.2, removed in 2.0
/// ```
#[derive(Debug, Default)]
pub struct Acknowledgements {
    file: String,
    entries: Vec<(Acknowledgement, bool)>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AcknowledgementsFile {
    acknowledged: Vec<Acknowledgement>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Acknowledgement {
    /// The CRD's `metadata.name`.
    pub crd: String,
    /// The rule id, `compat.field-removed`.
    pub rule: String,
    /// The finding's path.
    pub path: String,
    /// Why the break is deliberate.
    pub reason: String,
}

impl Acknowledgements {
    /// Reads and checks the file; an unreadable file, unknown keys, an unknown rule or an empty
    /// reason are [`UsageError`]s.
    pub fn load(path: &Path) -> anyhow::Result<Self> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path)
            .map_err(|e| UsageError::new(format!("cannot read {file}: {e} (fix: check the path of --acknowledged)")))?;
        let parsed: AcknowledgementsFile = serde_yaml::from_str(&text).map_err(|e| {
            let e = e.to_string().replace("struct AcknowledgementsFile", "a mapping").replace("struct Acknowledgement", "a mapping");
            UsageError::new(format!(
                "{file}: {e} (fix: write `acknowledged:` and under it a list of entries with crd, rule, path and reason, as docs/compat.md shows)"
            ))
        })?;
        for (i, ack) in parsed.acknowledged.iter().enumerate() {
            if let Some(first) = parsed.acknowledged[..i]
                .iter()
                .position(|a| a.crd == ack.crd && a.rule == ack.rule && a.path == ack.path)
            {
                return Err(UsageError::new(format!(
                    "{file}: acknowledged[{i}] repeats acknowledged[{first}] (fix: remove one of them)"
                ))
                .into());
            }
            if !rop_verify::COMPAT_RULES.iter().any(|r| r.id == ack.rule) {
                return Err(UsageError::new(format!(
                    "{file}: acknowledged[{i}].rule: {:?} is not a compatibility rule (fix: use a compat.* id from `rop verify --against`'s output)",
                    ack.rule
                ))
                .into());
            }
            if ack.reason.trim().is_empty() {
                return Err(UsageError::new(format!(
                    "{file}: acknowledged[{i}].reason is empty (fix: say why the break is deliberate)"
                ))
                .into());
            }
        }
        Ok(Self { file, entries: parsed.acknowledged.into_iter().map(|a| (a, false)).collect() })
    }

    /// The file it was read from, as given.
    pub fn file(&self) -> &str {
        &self.file
    }

    /// The reason of the acknowledgement matching `finding` of CRD `crd`, marked as used.
    pub fn take(&mut self, crd: &str, finding: &Finding) -> Option<String> {
        let (ack, used) = self
            .entries
            .iter_mut()
            .find(|(a, _)| a.crd == crd && finding.rule == a.rule.as_str() && a.path == finding.path)?;
        *used = true;
        Some(ack.reason.clone())
    }

    /// The acknowledgements of the CRDs in `compared` that no finding matched: stale once
    /// those CRDs were compared. Entries of other CRDs say nothing yet.
    pub fn unused<'a>(&'a self, compared: &'a BTreeSet<String>) -> impl Iterator<Item = &'a Acknowledgement> {
        self.entries.iter().filter(move |(a, used)| !used && compared.contains(&a.crd)).map(|(a, _)| a)
    }
}
