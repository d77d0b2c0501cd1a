//! `selectableFields` (R90–R95).

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::schema::type_of;
use crate::lookup::{Lookup, resolve};
use crate::report::{Report, unknown_keys};
use crate::rules::Rule;

const MAX_SELECTABLE_FIELDS: usize = 8;

pub(crate) fn check(version: &Map<String, Value>, schema: Option<&Value>, path: &str, report: &mut Report) {
    let Some(fields) = version.get("selectableFields").and_then(Value::as_array) else { return };
    let root = schema.and_then(Value::as_object);
    let mut seen = BTreeSet::new();
    const FIX: &str =
        "point jsonPath at a declared string, integer or boolean field outside metadata, e.g. .spec.color";
    for (i, field) in fields.iter().enumerate() {
        let base = format!("{path}.selectableFields[{i}]");
        let Some(field) = field.as_object() else { continue };
        unknown_keys(field, &["jsonPath"], &base, report);
        let json_path = field.get("jsonPath").and_then(Value::as_str).unwrap_or("");
        let at = format!("{base}.jsonPath");
        if json_path.is_empty() {
            report.add(Rule::SelectableFieldsJsonPath, at, "Required value", FIX);
            continue;
        }
        if !seen.insert(json_path) {
            report.add(
                Rule::SelectableFieldsDuplicate,
                at,
                format!("Duplicate value: {json_path:?}"),
                "remove the repeated entry",
            );
            continue;
        }
        let invalid = |detail: &str| format!("Invalid value: {json_path:?}: {detail}");
        let Some(rest) = json_path.strip_prefix('.') else {
            let first = json_path.split('.').next().unwrap_or("");
            report.add(
                Rule::SelectableFieldsJsonPath,
                at,
                invalid(&format!("is an invalid path: expected [ or . but got: {first}")),
                FIX,
            );
            continue;
        };
        if json_path.contains('[') {
            report.add(
                Rule::SelectableFieldsJsonPath,
                at,
                invalid("is an invalid path: array notation is not allowed"),
                FIX,
            );
            continue;
        }
        let steps: Vec<&str> = rest.split('.').collect();
        if steps[0] == "metadata" {
            report.add(Rule::SelectableFieldsMetadata, at, invalid("must not point to fields in metadata"), FIX);
            continue;
        }
        let Some(root) = root else { continue };
        match resolve(root, &steps) {
            Lookup::Found(node) => {
                let t = type_of(node);
                if !["string", "boolean", "integer"].contains(&t) {
                    report.add(
                        Rule::SelectableFieldsType,
                        at,
                        invalid("must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed."),
                        FIX,
                    );
                }
            }
            Lookup::ThroughArray => report.add(
                Rule::SelectableFieldsJsonPath,
                at,
                invalid("is an invalid path: array notation is not allowed"),
                FIX,
            ),
            Lookup::Missing { .. } | Lookup::Dynamic => report.add(
                Rule::SelectableFieldsJsonPath,
                at,
                invalid("is an invalid path: does not refer to a valid field"),
                FIX,
            ),
        }
    }
    if seen.len() > MAX_SELECTABLE_FIELDS {
        report.add(
            Rule::SelectableFieldsTooMany,
            format!("{path}.selectableFields"),
            format!("Too many: {}: must have at most {MAX_SELECTABLE_FIELDS} items", seen.len()),
            "keep at most 8 selectable fields per version",
        );
    }
}

/// kube-apiserver 1.37.2 moves what every version of a CRD shares to the CRD level (the
/// internal type's `spec.validation`, `spec.selectableFields`, …; reference §0), each part on
/// its own, and then accepts selectable fields at the CRD level only next to a CRD-level schema,
/// and per-version selectable fields only next to per-version schemas. So with several versions,
/// the same non-empty `selectableFields` on every version needs the same schema on every
/// version, and selectable fields on only some versions (or different ones) need schemas that
/// differ. Found by creating such CRDs on the server; single-version CRDs are always fine.
pub(crate) fn check_hoisting(spec: &Map<String, Value>, report: &mut Report) {
    let Some(versions) = spec.get("versions").and_then(Value::as_array) else { return };
    if versions.len() < 2 {
        return;
    }
    fn fields(v: &Value) -> Option<&Vec<Value>> {
        v.get("selectableFields").and_then(Value::as_array).filter(|f| !f.is_empty())
    }
    fn schema(v: &Value) -> Option<&Value> {
        v.get("schema").and_then(|s| s.get("openAPIV3Schema"))
    }
    let Some(first_with_fields) = versions.iter().position(|v| fields(v).is_some()) else { return };
    let same_fields = versions.iter().all(|v| fields(v) == fields(&versions[0]));
    let same_schema = versions.iter().all(|v| schema(v) == schema(&versions[0]));
    if same_fields && !same_schema {
        report.add(
            Rule::SelectableFieldsHoisting,
            "spec.versions[0].selectableFields",
            "Invalid value: \"\": may only be set when validations.schema is included: every version lists the same selectableFields but their schemas differ, so the API server moves the list to the CRD level, where it needs a schema every version shares",
            "list the selectable fields in another order in one version (they then stay per version), or give every version the same schema",
        );
    } else if !same_fields && same_schema {
        report.add(
            Rule::SelectableFieldsHoisting,
            format!("spec.versions[{first_with_fields}].selectableFields"),
            "Invalid value: \"\": may only be set when `version.schema.openAPIV3Schema` is not included: every version has the same schema, so the API server moves it to the CRD level, and per-version selectableFields then have no per-version schema to point into",
            "list the same selectableFields on every version, or let the versions' schemas differ",
        );
    }
}
