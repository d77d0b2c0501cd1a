//! `rop verify FILE...`: checks CustomResourceDefinition YAML files with `rop_verify`.
//!
//! Output, one line per finding, in file order then document order then the verifier's order:
//!
//! ```text
//! path/to/file.yaml: error[rule-id] <yaml path>: <message> (fix: <hint>)
//! ```
//!
//! For a file with more than one YAML document the file is written `path/to/file.yaml#N`
//! (N counts documents from 1), and an item of a `v1 List` or `CustomResourceDefinitionList`
//! (what `kubectl get crd -o yaml` writes) `path/to/file.yaml items[I]`. A document that is not
//! a CRD is skipped with a `note:` line. A folder stands for the manifests directly in it. The
//! last line is a summary. Exit code 1 if the API server would reject a CRD, 2 if a file could
//! not be read (or is not YAML) or no file held a CRD, else 0.
//!
//! With `--against OLD`, the files are instead compared with an older revision of their CRDs
//! (see [`super::verify_against`]).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use clap::Args;

use crate::ui::plural;

/// Arguments of `rop verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// CRD YAML or JSON files, or folders of them, to check (multi-document files and `kind: List` are fine;
    /// non-CRD documents are skipped, and input without any CRD is an error); `-` reads
    /// standard input.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// Compare the CRDs in FILE... with an older revision instead of checking them alone, and
    /// report the changes that break stored objects or clients (compat.* rules): OLD is a CRD
    /// file, a folder of them, or git:REF for the same files at a git revision (git:HEAD).
    #[arg(long, value_name = "OLD")]
    pub against: Option<String>,

    /// With --against: breaking changes inside alpha versions (v1alpha1) are warnings, not
    /// errors.
    #[arg(long, requires = "against")]
    pub allow_alpha_breaks: bool,

    /// With --against: a YAML file of deliberate breaks (`acknowledged: [{crd, rule, path,
    /// reason}]`) that are reported as notes and do not fail.
    #[arg(long, value_name = "FILE", requires = "against")]
    pub acknowledged: Option<PathBuf>,
}

/// Totals over all files.
#[derive(Debug, Default)]
struct Totals {
    files: usize,
    crds: usize,
    errors: usize,
    warnings: usize,
    /// The files read that hold no CRD, each with what it held.
    without_crds: Vec<String>,
}

/// Runs `rop verify`; prints the findings and a summary to stdout.
pub fn run(root: &Path, args: &VerifyArgs) -> anyhow::Result<()> {
    if let Some(against) = &args.against {
        return super::verify_against::run(
            root,
            &args.files,
            against,
            args.allow_alpha_breaks,
            args.acknowledged.as_deref(),
        );
    }
    let mut totals = Totals::default();
    let mut unreadable = Vec::new();
    // In a project, a kind with a conversion webhook gets it from config/crd/patches/.
    let converted =
        crate::project::Project::load(&crate::project::find_root(root)).map(|p| p.converted_crds()).unwrap_or_default();
    // A folder stands for the manifests directly in it, as for `--against`.
    let inputs = super::verify_against::expand(root, &args.files, "")?;
    if inputs.is_empty() {
        let named: Vec<String> = args.files.iter().map(|f| f.display().to_string()).collect();
        return Err(super::UsageError::new(format!(
            "{} holds no manifest (.yaml, .yml or .json files directly in it; folders below are not read): name the folder of the CRDs, e.g. config/crd/bases",
            named.join(", ")
        ))
        .into());
    }
    for (full, shown) in inputs {
        match verify_file(&full, &shown, &converted, &mut totals) {
            Ok(lines) => lines.iter().for_each(|l| crate::ui::out(l)),
            Err(e) => {
                crate::ui::out(&format!("{shown}: error: {e:#}"));
                unreadable.push(shown);
            }
        }
        totals.files += 1;
    }
    crate::ui::out(&format!(
        "{} file{}{}, {} CRD{}: {} error{}, {} warning{}",
        totals.files,
        plural(totals.files),
        if unreadable.is_empty() { String::new() } else { format!(" ({} unreadable)", unreadable.len()) },
        totals.crds,
        plural(totals.crds),
        totals.errors,
        plural(totals.errors),
        totals.warnings,
        plural(totals.warnings)
    ));
    if !unreadable.is_empty() {
        // Unusable input, as for --against and import: exit 2, not the 1 of an invalid CRD.
        return Err(super::UsageError::new(format!(
            "could not check {} (see the error lines above)",
            unreadable.join(", ")
        ))
        .into());
    }
    if totals.crds == 0 {
        // A gate that checked nothing must not pass: `kubectl get crd -o yaml` of the wrong
        // thing, an empty pipe, a path to the wrong file.
        return Err(super::UsageError::new(format!(
            "no CustomResourceDefinition to check in {}; rop verify reads CRDs (apiextensions.k8s.io) as YAML or JSON, one per document or as the items of a List, such as `kubectl get crd -o yaml` or `kubectl kustomize config/crd` writes",
            totals.without_crds.join(", ")
        ))
        .into());
    }
    if totals.errors > 0 {
        bail!(
            "the API server would reject {} (see the errors above)",
            if totals.crds == 1 { "the CRD" } else { "these CRDs" }
        );
    }
    Ok(())
}

/// The output lines for one file. `converted` names the CRDs whose conversion webhook the
/// project's kustomize patch sets, for which `strategy: None` in the file is not the truth.
fn verify_file(
    path: &Path,
    shown: &str,
    converted: &BTreeSet<String>,
    totals: &mut Totals,
) -> anyhow::Result<Vec<String>> {
    // `-` is standard input, as for kubectl (`kubectl kustomize config/crd | rop verify -`).
    let text = super::read_input(path, shown).with_context(|| {
        if shown == "-" { "cannot read standard input".to_string() } else { format!("cannot read {}", path.display()) }
    })?;
    let input = rop_verify::crd_documents(&text)?;
    let label = |document, item| rop_verify::document_label(shown, input.documents, document, item);
    // Notes and findings in input order, by the (document, item) each is about.
    let mut placed: Vec<(Place, Vec<String>)> = Vec::new();
    if input.documents == 0 {
        placed.push(((0, None), vec![format!("{shown}: note: no YAML documents")]));
    }
    for (document, item, what) in &input.skipped {
        let note = format!("{}: note: skipped {what} (not a CustomResourceDefinition)", label(*document, *item));
        placed.push(((*document, *item), vec![note]));
    }
    if input.crds.is_empty() {
        totals.without_crds.push(format!("{shown} ({})", input.held()));
    }
    for found in &input.crds {
        totals.crds += 1;
        let label = label(found.document, found.item);
        let name = found.crd.pointer("/metadata/name").and_then(|n| n.as_str()).unwrap_or_default();
        let mut lines = Vec::new();
        for finding in rop_verify::verify_crd(&found.crd) {
            if finding.rule == rop_verify::Rule::ConversionNoneSchemasDiffer && converted.contains(name) {
                lines.push(format!(
                    "{label}: note: {} not reported: PROJECT gives {name} a conversion webhook, which config/crd/patches/ sets when kustomize builds config/",
                    finding.rule.id()
                ));
                continue;
            }
            if finding.is_error() {
                totals.errors += 1;
            } else {
                totals.warnings += 1;
            }
            lines.push(format!("{label}: {finding}"));
        }
        placed.push(((found.document, found.item), lines));
    }
    placed.sort_by_key(|(place, _)| *place);
    Ok(placed.into_iter().flat_map(|(_, lines)| lines).collect())
}

/// Where in the input: a document's index, and an item's in a list.
type Place = (usize, Option<usize>);
