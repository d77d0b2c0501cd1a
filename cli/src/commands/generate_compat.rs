//! `rop generate --check-compat[=REF]`: the compatibility gate. Each generated CRD is compared
//! with the same file under `config/crd/bases/` at git revision REF (`rop_verify::compat`), and
//! each finding names the Rust type of its version and the field it is about:
//!
//! ```text
//! config/crd/bases/cache.example.com_memcacheds.yaml (v1alpha1::Memcached, spec.size): error[compat.maximum] …
//! ```
//!
//! Errors stop `rop generate` before it writes anything, unless acknowledged in
//! `config/crd/compat-acknowledged.yaml` (see [`crate::compat::Acknowledgements`]).

use std::path::Path;

use anyhow::bail;
use rop_verify::compat::{CompatOptions, compare_crds, field_of};

use crate::compat::{ACKNOWLEDGEMENTS, Acknowledgements, GitRevision};
use crate::ui;

/// The revision `rop generate` compares the CRDs with when `--check-compat` is not given: the
/// newest tag matching the git glob `tags` reachable from HEAD (the last release), else the
/// merge base of HEAD with the default branch (`origin/HEAD`), else `None`. Outside a git
/// repository (or without git) it is `None` silently; inside one without either, a note says
/// the CRDs were not compared.
pub fn last_release(root: &Path, tags: &str) -> Option<String> {
    // Without git, or outside a repository, there is no release to compare with.
    let git = |args: &[&str]| {
        let out = crate::compat::git(root, args, "").ok()?;
        out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
    };
    git(&["rev-parse", "--verify", "--quiet", "HEAD"])?;
    if let Some(tag) = git(&["describe", "--tags", "--abbrev=0", "--match", tags, "HEAD"]) {
        ui::detail(&format!("comparing the CRDs with the last release, {tag}"));
        return Some(tag);
    }
    if let Some(base) = git(&["merge-base", "HEAD", "origin/HEAD"]) {
        ui::detail(&format!("comparing the CRDs with the merge base of HEAD and origin/HEAD, {base}"));
        return Some(base);
    }
    ui::info(&format!(
        "note: no release tag ({tags}) and no default branch (origin/HEAD) to compare the CRDs with: compatibility not checked (`rop generate --check-compat=REF` compares with any revision)"
    ));
    None
}

/// Compares the generated CRDs in `files` with their revision at `rev`.
pub fn check(
    root: &Path,
    rev: &str,
    bundle: &rop::manifests::Bundle,
    files: &[rop::manifests::OutputFile],
) -> anyhow::Result<()> {
    let ack_file = root.join(ACKNOWLEDGEMENTS);
    let mut acks = if ack_file.is_file() { Acknowledgements::load(&ack_file)? } else { Acknowledgements::default() };
    if rev.trim().is_empty() {
        return Err(super::UsageError::new("--check-compat= needs a revision, e.g. --check-compat=main").into());
    }
    let git = GitRevision::open(rev, &root.join("config/crd/bases"), "run rop generate without --check-compat")?;
    let (mut compared, mut errors) = (0, 0);
    let mut names = std::collections::BTreeSet::new();
    for file in files.iter().filter(|f| f.path.starts_with("config/crd/bases/")) {
        let new: serde_json::Value = serde_yaml::from_str(&file.content)?;
        let Some(text) = git.show(&root.join(&file.path))? else {
            ui::detail(&format!("{}: new since {rev}, nothing to compare", file.path));
            continue;
        };
        let Some(old) = rop_verify::crd_documents(&text)?.crds.into_iter().map(|found| found.crd).next() else {
            continue;
        };
        compared += 1;
        let name = new["metadata"]["name"].as_str().unwrap_or_default();
        names.insert(name.to_string());
        for finding in compare_crds(&old, &new, &CompatOptions::default()) {
            // CRD-wide findings about one version (the storage move) name it in their path.
            let index = finding.version.or_else(|| {
                let rest = finding.path.strip_prefix("spec.versions[")?;
                rest[..rest.find(']')?].parse().ok()
            });
            let version = index.and_then(|i| new["spec"]["versions"][i]["name"].as_str());
            let rust_type = version.and_then(|v| {
                bundle
                    .kinds
                    .iter()
                    .find(|k| k.crd.metadata.name.as_deref() == Some(name) && k.crd.spec.versions[0].name == v)
                    .map(|k| k.rust_type.as_str())
            });
            let source = match (rust_type, field_of(&finding.path)) {
                (Some(t), Some(field)) => format!(" ({t}, {field})"),
                (Some(t), None) => format!(" ({t})"),
                _ => String::new(),
            };
            if let Some(reason) = acks.take(name, &finding) {
                eprintln!("{}{source}: note: acknowledged {} {}: {reason}", file.path, finding.rule, finding.path);
                continue;
            }
            errors += usize::from(finding.is_error());
            eprintln!("{}{source}: {finding}", file.path);
        }
    }
    // A kind deleted from the project: its CRD file is gone.
    let generated: std::collections::BTreeSet<std::path::PathBuf> = files.iter().map(|f| root.join(&f.path)).collect();
    for old_file in git.list(&root.join("config/crd/bases"))? {
        // A file rop does not generate is the user's, and stays where it is.
        if generated.contains(&old_file) || old_file.exists() || old_file.extension().is_none_or(|e| e != "yaml") {
            continue;
        }
        let Some(text) = git.show(&old_file)? else { continue };
        let Ok(input) = rop_verify::crd_documents(&text) else { continue };
        for found in &input.crds {
            let name = found.crd["metadata"]["name"].as_str().unwrap_or_default();
            let shown = old_file.strip_prefix(root).unwrap_or(&old_file).display().to_string();
            let finding = rop_verify::compat::crd_removed(name);
            names.insert(name.to_string());
            if let Some(reason) = acks.take(name, &finding) {
                eprintln!("{shown}: note: acknowledged {} {name}: {reason}", finding.rule);
                continue;
            }
            errors += 1;
            eprintln!("{shown}: {finding}");
        }
    }
    for ack in acks.unused(&names) {
        ui::warning(&format!(
            "{ACKNOWLEDGEMENTS}: the acknowledgement of {} at {} in {} matches no change since {rev}; remove it",
            ack.rule, ack.path, ack.crd
        ));
    }
    if errors > 0 {
        bail!(
            "{errors} change{} since {rev} break{} objects or clients of the CRDs (listed above; docs/compat.md says how to make each safely); nothing was written. A deliberate break is acknowledged in {ACKNOWLEDGEMENTS}",
            crate::ui::plural(errors),
            if errors == 1 { "s" } else { "" }
        );
    }
    let summary = format!("{compared} CRD{} compared with {rev}: no breaking change", crate::ui::plural(compared));
    // Every CRD new since `rev` (a first release): nothing was compared, nothing to say.
    if compared == 0 {
        ui::detail(&summary)
    } else {
        ui::info(&summary)
    }
    Ok(())
}
