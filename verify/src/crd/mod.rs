//! The CustomResourceDefinition checks, one module per part of the CRD, in the order
//! [`verify_crd`] runs them.

mod conversion;
mod defaults;
mod document;
mod jsonpath;
mod names;
mod printer_columns;
mod schema;
mod selectable_fields;
mod size;
mod subresources;
mod versions;

use serde_json::Value;

use crate::documents::{VerifyError, is_crd, yaml_documents};
use crate::report::{Finding, Report};
use crate::rules::Rule;

/// Checks one CRD (any `apiextensions.k8s.io` `CustomResourceDefinition` value) against every
/// rule in [`crate::RULES`]: the document's shape (R1, R2), names (R3–R12), versions (R13–R19),
/// conversion (R20–R29), each version's schema (R30–R72), subresources (R78–R84), printer
/// columns (R85–R89), selectable fields (R90–R95) and size (R100–R102), and the API-convention
/// lints. Findings come in a deterministic order: document, names, versions, conversion, then
/// each version in order, then size.
pub fn verify_crd(crd: &Value) -> Vec<Finding> {
    let mut report = Report::default();
    let Some(obj) = crd.as_object() else {
        report.add(
            Rule::DocumentNotObject,
            "(document)",
            "the CRD must be a mapping",
            "write the CRD as a YAML mapping",
        );
        return report.into_findings();
    };
    if !document::check(obj, &mut report) {
        return report.into_findings();
    }
    let spec = obj.get("spec").and_then(Value::as_object);
    names::check(obj, spec, &mut report);
    if let Some(spec) = spec {
        versions::check(obj, spec, &mut report);
        conversion::check(spec, &mut report);
        let status_or_defaults = spec.get("preserveUnknownFields").and_then(Value::as_bool) == Some(true);
        if let Some(list) = spec.get("versions").and_then(Value::as_array) {
            for (i, version) in list.iter().enumerate() {
                let Some(version) = version.as_object() else { continue };
                let path = format!("spec.versions[{i}]");
                let status = version.get("subresources").and_then(|s| s.get("status")).is_some();
                let schema_root = version.get("schema").and_then(|s| s.get("openAPIV3Schema"));
                if let Some(root) = schema_root {
                    let root_path = format!("{path}.schema.openAPIV3Schema");
                    schema::check(root, &root_path, status, status_or_defaults, &mut report);
                }
                subresources::check(version, schema_root, &path, &mut report);
                printer_columns::check(version, schema_root, &path, &mut report);
                selectable_fields::check(version, schema_root, &path, &mut report);
            }
        }
        selectable_fields::check_hoisting(spec, &mut report);
    }
    size::check(crd, &mut report);
    let mut findings = report.into_findings();
    for finding in &mut findings {
        finding.version = version_index(&finding.path);
    }
    findings
}

/// Verifies every `CustomResourceDefinition` in a YAML stream with [`verify_crd`]; documents
/// of other kinds are skipped. Each finding comes with the 0-based index of its document.
pub fn verify_yaml(text: &str) -> Result<Vec<(usize, Finding)>, VerifyError> {
    let mut out = Vec::new();
    for (index, doc) in yaml_documents(text)? {
        if is_crd(&doc) {
            out.extend(verify_crd(&doc).into_iter().map(|f| (index, f)));
        }
    }
    Ok(out)
}

/// The `i` of a path that starts with `spec.versions[i]`.
fn version_index(path: &str) -> Option<usize> {
    let rest = path.strip_prefix("spec.versions[")?;
    rest[..rest.find(']')?].parse().ok()
}
