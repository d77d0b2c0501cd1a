//! What `rop verify --against` and `rop generate --check-compat` share: reading a file as it
//! was at a git revision, and the acknowledgements file of deliberate breaks.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::Context;
use rop_verify::Finding;
use serde::Deserialize;

use crate::commands::UsageError;

/// Where `rop generate --check-compat` looks for acknowledgements, relative to the project.
pub const ACKNOWLEDGEMENTS: &str = "config/crd/compat-acknowledged.yaml";

/// The file at `rev` (`None` if it did not exist there); `file` need not exist now. A file
/// outside a git repository, or a revision git does not know, is a [`UsageError`].
pub fn git_show(rev: &str, file: &Path) -> anyhow::Result<Option<String>> {
    // The nearest folder that exists: a file generated for the first time may have none yet.
    let mut dir = file.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    while !dir.is_dir()
        && let Some(parent) = dir.parent().filter(|d| !d.as_os_str().is_empty())
    {
        dir = parent;
    }
    let git = |args: &[&str]| Command::new("git").arg("-C").arg(dir).args(args).output().context("cannot run git");
    let top = git(&["rev-parse", "--show-toplevel"])?;
    if !top.status.success() {
        return Err(UsageError::new(format!(
            "{} is not in a git repository, so it has no revision {rev:?} (fix: name the old CRDs by file instead)",
            file.display()
        ))
        .into());
    }
    let top = PathBuf::from(String::from_utf8_lossy(&top.stdout).trim());
    let commit = git(&["rev-parse", "--verify", "--quiet", &format!("{rev}^{{commit}}")])?;
    if !commit.status.success() {
        return Err(UsageError::new(format!(
            "no git revision {rev:?} in {} (fix: name a commit, branch or tag that exists there, e.g. HEAD or main)",
            top.display()
        ))
        .into());
    }
    let here = dir.canonicalize().with_context(|| format!("cannot resolve {}", dir.display()))?;
    let below = file.strip_prefix(dir).unwrap_or(file);
    let relative = here.strip_prefix(top.canonicalize()?).unwrap_or(&here).join(below);
    let shown = git(&["show", &format!("{rev}:{}", relative.display())])?;
    Ok(shown.status.success().then(|| String::from_utf8_lossy(&shown.stdout).into_owned()))
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
        let text = std::fs::read_to_string(path).map_err(|e| UsageError::new(format!("cannot read {file}: {e}")))?;
        let parsed: AcknowledgementsFile =
            serde_yaml::from_str(&text).map_err(|e| UsageError::new(format!("{file}: {e}")))?;
        for (i, ack) in parsed.acknowledged.iter().enumerate() {
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

    /// The acknowledgements no finding matched so far.
    pub fn unused(&self) -> impl Iterator<Item = &Acknowledgement> {
        self.entries.iter().filter(|(_, used)| !used).map(|(a, _)| a)
    }
}
