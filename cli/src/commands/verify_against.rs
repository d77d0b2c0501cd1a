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
//! A CRD with no counterpart in OLD is new: a `note:` line, not an error. A finding listed in
//! the acknowledgements file (`--acknowledged`) is printed as a `note:` and not counted; an
//! acknowledgement that matches nothing warns, so the file does not outlive the break it was
//! written for. Exit code 1 if an error remains, 2 if the input is unusable (OLD missing or
//! unreadable, an unknown git revision, two CRDs of one name on one side, a bad
//! acknowledgements file), else 0.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::bail;
use rop_verify::compat::{CompatOptions, compare_crds};
use serde_json::Value;

use super::UsageError;
use crate::compat::{Acknowledgements, git_show};

/// Where the old revision comes from.
#[derive(Debug)]
enum Old {
    /// A file, or a folder whose `*.yaml`/`*.yml` files are read.
    Path(PathBuf),
    /// Each NEW file as it was at this git revision.
    Git(String),
}

/// One CRD document: where it came from and its content.
struct Crd {
    label: String,
    doc: Value,
}

/// Runs the comparison; `files` are the NEW files, `against` the OLD argument.
pub fn run(
    root: &Path,
    files: &[PathBuf],
    against: &str,
    alpha_may_break: bool,
    acknowledged: Option<&Path>,
) -> anyhow::Result<()> {
    let old = match against.strip_prefix("git:") {
        Some("") => return Err(UsageError::new("--against git: needs a revision, e.g. --against git:HEAD").into()),
        Some(rev) => Old::Git(rev.to_string()),
        None => Old::Path(absolute(root, Path::new(against))),
    };
    let mut acks = match acknowledged {
        Some(file) => Acknowledgements::load(&absolute(root, file))?,
        None => Acknowledgements::default(),
    };
    let mut new_crds = Vec::new();
    let mut old_crds = Vec::new();
    if let Old::Path(path) = &old {
        old_crds = read_old_path(path, against)?;
    }
    for file in files {
        let full = absolute(root, file);
        let shown = file.display().to_string();
        let text = std::fs::read_to_string(&full).map_err(|e| UsageError::new(format!("cannot read {shown}: {e}")))?;
        new_crds.extend(crds_of(&text, &shown)?);
        if let Old::Git(rev) = &old
            && let Some(text) = git_show(rev, &full)?
        {
            old_crds.extend(crds_of(&text, &format!("git:{rev}:{shown}"))?);
        }
    }
    let old_by_name = by_name(&old_crds, "OLD")?;
    by_name(&new_crds, "NEW")?;

    let options = CompatOptions { alpha_may_break };
    let (mut compared, mut added, mut errors, mut warnings) = (0, 0, 0, 0);
    for crd in &new_crds {
        let name = crd_name(&crd.doc);
        let Some(before) = old_by_name.get(name) else {
            added += 1;
            crate::ui::out(&format!(
                "{}: note: {name} is new (no CRD of that name in OLD, nothing to compare)",
                crd.label
            ));
            continue;
        };
        compared += 1;
        for finding in compare_crds(&before.doc, &crd.doc, &options) {
            if let Some(reason) = acks.take(name, &finding) {
                crate::ui::out(&format!(
                    "{}: note: acknowledged {} {}: {reason}",
                    crd.label, finding.rule, finding.path
                ));
                continue;
            }
            if finding.is_error() {
                errors += 1;
            } else {
                warnings += 1;
            }
            crate::ui::out(&format!("{}: {finding}", crd.label));
        }
    }
    for ack in acks.unused() {
        warnings += 1;
        crate::ui::out(&format!(
            "{}: warning: acknowledgement of {} at {} in {} matches no finding (fix: remove it)",
            acks.file(),
            ack.rule,
            ack.path,
            ack.crd
        ));
    }
    crate::ui::out(&format!(
        "{compared} CRD{} compared, {added} new: {errors} error{}, {warnings} warning{}",
        plural(compared),
        plural(errors),
        plural(warnings)
    ));
    if errors > 0 {
        bail!("the new CRDs break objects or clients of the old ones (see the errors above)");
    }
    Ok(())
}

fn absolute(root: &Path, path: &Path) -> PathBuf {
    if path.is_absolute() { path.to_path_buf() } else { root.join(path) }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn crd_name(doc: &Value) -> &str {
    doc.get("metadata").and_then(|m| m.get("name")).and_then(Value::as_str).unwrap_or("")
}

/// The CRD documents of a YAML text; other documents are skipped.
fn crds_of(text: &str, shown: &str) -> anyhow::Result<Vec<Crd>> {
    let docs = rop_verify::yaml_documents(text).map_err(|e| UsageError::new(format!("{shown}: {e}")))?;
    let multi = docs.len() > 1;
    Ok(docs
        .into_iter()
        .filter(|(_, doc)| rop_verify::is_crd(doc))
        .map(|(index, doc)| Crd {
            label: if multi { format!("{shown}#{}", index + 1) } else { shown.to_string() },
            doc,
        })
        .collect())
}

/// OLD as a file or a folder of YAML files (sorted, not recursive).
/// `shown` is OLD as the user wrote it.
fn read_old_path(path: &Path, shown: &str) -> anyhow::Result<Vec<Crd>> {
    let files = if path.is_dir() {
        let mut files: Vec<PathBuf> = std::fs::read_dir(path)
            .map_err(|e| UsageError::new(format!("cannot read OLD {shown}: {e}")))?
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "yaml" || e == "yml"))
            .collect();
        files.sort();
        files
    } else {
        vec![path.to_path_buf()]
    };
    let mut crds = Vec::new();
    for file in files {
        let label = match file.strip_prefix(path) {
            Ok(inside) if !inside.as_os_str().is_empty() => Path::new(shown).join(inside).display().to_string(),
            _ => shown.to_string(),
        };
        let text =
            std::fs::read_to_string(&file).map_err(|e| UsageError::new(format!("cannot read OLD {label}: {e}")))?;
        crds.extend(crds_of(&text, &label)?);
    }
    if crds.is_empty() {
        return Err(UsageError::new(format!(
            "OLD {shown} holds no CustomResourceDefinition (fix: name the file or folder of the CRDs as they were)"
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
