//! `rop verify --against OLD NEW...`: compares each CRD in the NEW files with the CRD of the
//! same name in OLD (a file, a folder of YAML files, or `git:REF` for the NEW files as they
//! were at a git revision) and reports the changes that break stored objects or clients
//! (`rop_verify::compat`).
//!
//! Output, one line per finding, in NEW's file and document order:
//!
//! ```text
//! path/to/new.yaml: error[compat.field-removed] <yaml path>: <message> (fix: <hint>)
//! ```
//!
//! A NEW CRD the API server would refuse outright is reported with `rop verify`'s errors for
//! it, since the upgrade cannot happen. A CRD with no counterpart in OLD is new: a `note:` line,
//! not an error. With `git:REF`, a CRD the same files held at REF and no NEW file holds any more
//! is `compat.crd-removed` (a CRD that moved to another file of the same folder is found
//! there); with a file or folder, OLD CRDs no NEW file holds are listed as notes, since the NEW
//! files may be a selection. A finding listed in the acknowledgements file (`--acknowledged`) is
//! printed as a `note:` and not counted; an acknowledgement of a compared CRD that matches
//! nothing warns, so the file does not outlive the break it was written for. Exit code 1 if an
//! error remains, 2 if the input is unusable (OLD empty, missing, unreadable or without CRDs, a
//! v1beta1 CRD, an unknown git revision, git missing, two CRDs of one name on one side, a CRD
//! without a name, a bad acknowledgements file), else 0.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::bail;
use rop_verify::compat::{CompatOptions, compare_crds};
use serde_json::Value;

use super::UsageError;
use crate::compat::{Acknowledgements, GitRevision};
use crate::ui::plural;

/// One CRD document: where it came from and its content.
struct Crd {
    label: String,
    doc: Value,
}

/// Counts for the summary line.
#[derive(Default)]
struct Totals {
    compared: usize,
    added: usize,
    errors: usize,
    warnings: usize,
    /// Errors of the new CRDs alone, which the API server would reject (among `errors`).
    invalid: usize,
}

impl Totals {
    fn finding(&mut self, label: &str, finding: &rop_verify::Finding) {
        if finding.is_error() {
            self.errors += 1;
        } else {
            self.warnings += 1;
        }
        crate::ui::out(&format!("{label}: {finding}"));
    }
}

/// Runs the comparison; `files` are the NEW files (or folders of them), `against` the OLD
/// argument.
pub fn run(
    root: &Path,
    files: &[PathBuf],
    against: &str,
    alpha_may_break: bool,
    acknowledged: Option<&Path>,
) -> anyhow::Result<()> {
    if against.trim().is_empty() {
        return Err(UsageError::new("--against is empty (fix: name a CRD file, a folder of them, or git:REF)").into());
    }
    let stdin_new = files.iter().any(|f| f.as_os_str() == "-");
    if stdin_new && against == "-" {
        return Err(UsageError::new(
            "--against - and - both name standard input, which can be read once (fix: give OLD or the new CRDs as a file)",
        )
        .into());
    }
    if stdin_new && against.starts_with("git:") {
        return Err(UsageError::new(format!(
            "--against {against} compares files with their revision in git, and standard input has none (fix: name the new CRD files or folders in the repository, or give OLD as a file: --against OLD.yaml -)"
        ))
        .into());
    }
    let git = match against.strip_prefix("git:") {
        Some("") => return Err(UsageError::new("--against git: needs a revision, e.g. --against git:HEAD").into()),
        Some(rev) => Some(GitRevision::open(
            rev,
            &absolute(root, files.first().map_or(Path::new("."), |f| f)),
            "name the old CRDs by file instead of git:REF",
        )?),
        None => None,
    };
    let mut acks = match acknowledged {
        Some(file) => Acknowledgements::load(&absolute(root, file))?,
        None => Acknowledgements::default(),
    };
    let new_files = expand(root, files, "")?;
    let mut new_crds = Vec::new();
    let mut old_crds = Vec::new();
    for (full, shown) in &new_files {
        let text = super::read_input(full, shown)
            .map_err(|e| UsageError::new(format!("cannot read {shown}: {e} (fix: check the path)")))?;
        new_crds.extend(crds_of(&text, shown)?);
        if let Some(git) = &git {
            if !git.holds(full) {
                return Err(UsageError::new(format!(
                    "{shown} is not in the git repository of {} (fix: run rop verify --against git:REF once per repository)",
                    new_files[0].1
                ))
                .into());
            }
            if let Some(text) = git.show(full)? {
                old_crds.extend(read_at_revision(&text, &format!("git:{}:{shown}", git.rev())));
            }
        }
    }
    if let Some(git) = &git {
        // Files a named folder held at the revision and holds no longer: their CRDs are gone.
        for folder in files.iter().map(|f| absolute(root, f)).filter(|f| f.is_dir()) {
            for file in git.list(&folder)? {
                if is_manifest(&file) && !file.exists() {
                    let Some(text) = git.show(&file)? else { continue };
                    let shown = file.strip_prefix(root).unwrap_or(&file).display().to_string();
                    old_crds.extend(read_at_revision(&text, &format!("git:{}:{shown}", git.rev())));
                }
            }
        }
    } else {
        old_crds = read_old_path(root, against)?;
    }
    if new_crds.is_empty() && git.is_none() {
        return Err(UsageError::new(
            "the new files hold no CustomResourceDefinition (fix: name the CRD files or folders to compare)",
        )
        .into());
    }
    let new_by_name = by_name(&new_crds, "NEW")?;
    let mut old_by_name = by_name(&old_crds, "OLD")?;
    if let Some(git) = &git {
        // A CRD that moved to another file of the same folder.
        let missing: Vec<&str> = new_by_name.keys().filter(|n| !old_by_name.contains_key(*n)).copied().collect();
        if !missing.is_empty() {
            let moved = moved_crds(git, &new_files, &missing)?;
            old_crds.extend(moved);
            old_by_name = by_name(&old_crds, "OLD")?;
        }
    }

    let options = CompatOptions { alpha_may_break };
    let mut totals = Totals::default();
    let mut compared = BTreeSet::new();
    for crd in &new_crds {
        let name = crd_name(&crd.doc);
        // The upgrade cannot happen if the server refuses the new CRD.
        for finding in rop_verify::verify_crd(&crd.doc).iter().filter(|f| f.is_error()) {
            totals.invalid += 1;
            totals.finding(&crd.label, finding);
        }
        let Some(before) = old_by_name.get(name) else {
            totals.added += 1;
            crate::ui::info(&format!(
                "{}: note: {name} is new (no CRD of that name in OLD, nothing to compare)",
                crd.label
            ));
            continue;
        };
        totals.compared += 1;
        compared.insert(name.to_string());
        for finding in compare_crds(&before.doc, &crd.doc, &options) {
            match acks.take(name, &finding) {
                Some(reason) => crate::ui::info(&format!(
                    "{}: note: acknowledged {} {}: {reason}",
                    crd.label, finding.rule, finding.path
                )),
                None => totals.finding(&crd.label, &finding),
            }
        }
    }
    for (name, crd) in old_by_name.iter().filter(|(n, _)| !new_by_name.contains_key(*n)) {
        if git.is_some() {
            let finding = rop_verify::compat::crd_removed(name);
            compared.insert(name.to_string());
            match acks.take(name, &finding) {
                Some(reason) => {
                    crate::ui::info(&format!("{}: note: acknowledged {} {name}: {reason}", crd.label, finding.rule))
                }
                None => totals.finding(&crd.label, &finding),
            }
        } else {
            crate::ui::info(&format!(
                "{}: note: {name} is in OLD but in none of the new files (not compared)",
                crd.label
            ));
        }
    }
    for ack in acks.unused(&compared) {
        totals.warnings += 1;
        crate::ui::out(&format!(
            "{}: warning: acknowledgement of {} at {} in {} matches no finding (fix: remove it)",
            acks.file(),
            ack.rule,
            ack.path,
            ack.crd
        ));
    }
    crate::ui::info(&format!(
        "{} CRD{} compared, {} new: {} error{}, {} warning{}",
        totals.compared,
        plural(totals.compared),
        totals.added,
        totals.errors,
        plural(totals.errors),
        totals.warnings,
        plural(totals.warnings)
    ));
    if totals.invalid > 0 {
        bail!("the API server would reject the new CRDs (see the errors above; `rop verify` checks them alone)");
    }
    if totals.errors > 0 {
        bail!("the new CRDs break objects or clients of the old ones (see the errors above)");
    }
    Ok(())
}

/// The CRDs of a file as it was at the revision. A file that was broken there (not YAML, a
/// v1beta1 CRD) and has been fixed or deleted since is not the new files' fault: it is noted
/// and its CRDs count as absent.
fn read_at_revision(text: &str, label: &str) -> Vec<Crd> {
    crds_of(text, label).unwrap_or_else(|e| {
        crate::ui::info(&format!("{label}: note: not compared, it could not be read at the revision: {e:#}"));
        Vec::new()
    })
}

/// The CRDs named in `missing` that the folders of the NEW files held at the revision in files
/// other than the NEW ones.
fn moved_crds(git: &GitRevision, new_files: &[(PathBuf, String)], missing: &[&str]) -> anyhow::Result<Vec<Crd>> {
    let known: BTreeSet<&Path> = new_files.iter().map(|(p, _)| p.as_path()).collect();
    let folders: BTreeSet<&Path> = new_files.iter().filter_map(|(p, _)| p.parent()).collect();
    let mut found = Vec::new();
    for folder in folders {
        for file in git.list(folder)? {
            if known.contains(file.as_path()) || !is_manifest(&file) {
                continue;
            }
            let Some(text) = git.show(&file)? else { continue };
            let label = format!("git:{}:{}", git.rev(), file.display());
            // Another file's content is only looked through: a file that is not YAML is skipped.
            let Ok(crds) = crds_of(&text, &label) else { continue };
            found.extend(crds.into_iter().filter(|c| missing.contains(&crd_name(&c.doc))));
        }
    }
    Ok(found)
}

fn absolute(root: &Path, path: &Path) -> PathBuf {
    if path.is_absolute() { path.to_path_buf() } else { root.join(path) }
}

fn crd_name(doc: &Value) -> &str {
    doc.get("metadata").and_then(|m| m.get("name")).and_then(Value::as_str).unwrap_or("")
}

/// `.yaml`, `.yml` or `.json`, in any case.
fn is_manifest(path: &Path) -> bool {
    path.extension().and_then(|e| e.to_str()).is_some_and(|e| {
        let e = e.to_ascii_lowercase();
        e == "yaml" || e == "yml" || e == "json"
    })
}

/// The files named, with each folder replaced by the manifests directly in it (sorted), each
/// as `(full path, path as shown)`; a path given twice is read once. `side` names OLD in
/// messages, or is empty for NEW.
pub(super) fn expand(root: &Path, paths: &[PathBuf], side: &str) -> anyhow::Result<Vec<(PathBuf, String)>> {
    let mut out: Vec<(PathBuf, String)> = Vec::new();
    for path in paths {
        let full = absolute(root, path);
        let shown = path.display().to_string();
        let mut found = Vec::new();
        if full.is_dir() {
            let entries = std::fs::read_dir(&full)
                .map_err(|e| UsageError::new(format!("cannot read {side}{shown}: {e} (fix: check the path)")))?;
            let mut files: Vec<PathBuf> =
                entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.is_file() && is_manifest(p)).collect();
            files.sort();
            for file in files {
                let inside = file.strip_prefix(&full).unwrap_or(&file);
                found.push((file.clone(), path.join(inside).display().to_string()));
            }
        } else {
            found.push((full, shown));
        }
        for entry in found {
            let same =
                |a: &Path, b: &Path| a == b || a.canonicalize().ok().is_some_and(|a| b.canonicalize().ok() == Some(a));
            if !out.iter().any(|(p, _)| same(p, &entry.0)) {
                out.push(entry);
            }
        }
    }
    Ok(out)
}

/// The CRDs of a YAML or JSON text, read as `rop verify` reads them
/// ([`rop_verify::crd_documents`]: the items of a `v1 List` too, what `kubectl get crds -o
/// yaml` writes); other documents are skipped. A `v1beta1` CRD or one without a name is a
/// [`UsageError`].
fn crds_of(text: &str, shown: &str) -> anyhow::Result<Vec<Crd>> {
    let input = rop_verify::crd_documents(text).map_err(|e| UsageError::new(format!("{shown}: {e}")))?;
    let mut crds = Vec::new();
    for found in input.crds {
        let label = rop_verify::document_label(shown, input.documents, found.document, found.item);
        let doc = found.crd;
        let version = doc.get("apiVersion").and_then(Value::as_str).unwrap_or_default();
        if version != "apiextensions.k8s.io/v1" {
            return Err(UsageError::new(format!(
                "{label}: a CustomResourceDefinition of {version}; only apiextensions.k8s.io/v1 CRDs are compared (fix: convert it to v1, e.g. read it back from a cluster with kubectl get crd NAME -o yaml)"
            ))
            .into());
        }
        if crd_name(&doc).is_empty() {
            return Err(UsageError::new(format!(
                "{label}: the CRD has no metadata.name (fix: name it <plural>.<group>)"
            ))
            .into());
        }
        crds.push(Crd { label, doc });
    }
    Ok(crds)
}

/// OLD as a file or a folder of manifests (sorted, not recursive); it must hold a CRD.
fn read_old_path(root: &Path, against: &str) -> anyhow::Result<Vec<Crd>> {
    let mut crds = Vec::new();
    for (file, label) in expand(root, &[PathBuf::from(against)], "OLD ")? {
        let text = super::read_input(&file, &label)
            .map_err(|e| UsageError::new(format!("cannot read OLD {label}: {e} (fix: check the path)")))?;
        crds.extend(crds_of(&text, &label)?);
    }
    if crds.is_empty() {
        return Err(UsageError::new(format!(
            "OLD {against} holds no CustomResourceDefinition (fix: name the file or folder of the CRDs as they were)"
        ))
        .into());
    }
    Ok(crds)
}

/// Indexes CRDs by `metadata.name`; two of one name on one side is a usage error.
fn by_name<'a>(crds: &'a [Crd], side: &str) -> anyhow::Result<BTreeMap<&'a str, &'a Crd>> {
    let mut map = BTreeMap::new();
    for crd in crds {
        if let Some(first) = map.insert(crd_name(&crd.doc), crd) {
            return Err(UsageError::new(format!(
                "{side} has two CRDs named {:?} ({} and {}): pass one revision of each CRD",
                crd_name(&crd.doc),
                first.label,
                crd.label
            ))
            .into());
        }
    }
    Ok(map)
}
