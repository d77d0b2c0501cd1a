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
