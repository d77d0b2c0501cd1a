//! Kubernetes API-convention lints (warnings): camelCase field names and no floats.

use serde_json::{Map, Value};

use super::{SchemaCx, type_of};
use crate::rules::Rule;

pub(super) fn check(cx: &mut SchemaCx, obj: &Map<String, Value>, path: &str) {
    if type_of(obj) == "number" {
        cx.report.add(
            Rule::LintFloat,
            format!("{path}.type"),
            "type: number is a float: Kubernetes API conventions avoid floats in specs (they do not round-trip across languages)",
            "use an integer (e.g. milli-units), a resource.Quantity string, or a decimal string",
        );
    }
    for key in obj.get("properties").and_then(Value::as_object).into_iter().flat_map(|p| p.keys()) {
        if !is_camel_case(key) {
            cx.report.add(
                Rule::LintCamelCase,
                format!("{path}.properties[{key}]"),
                format!("field name {key:?} is not camelCase"),
                "name JSON fields in lowerCamelCase (serde: #[serde(rename_all = \"camelCase\")])",
            );
        }
    }
}

/// `^[a-z][a-zA-Z0-9]*$`.
fn is_camel_case(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase()) && chars.all(|c| c.is_ascii_alphanumeric())
}
