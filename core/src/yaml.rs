//! Deterministic YAML for manifests.
//!
//! Objects go through `serde_json::Value` first, whose maps keep keys sorted, so every
//! document has its keys in alphabetical order, as controller-gen writes them, and the same
//! input always gives the same bytes.

use serde::Serialize;

/// One YAML document, starting with `---` as controller-gen's files do.
///
/// # Errors
/// When `value` cannot be represented as JSON (a map with non-string keys).
pub fn document<T: Serialize>(value: &T) -> Result<String, serde_json::Error> {
    let mut json = serde_json::to_value(value)?;
    integral_floats_as_integers(&mut json);
    let body = serde_yaml::to_string(&json).expect("a JSON value is always valid YAML");
    Ok(format!("---\n{}", empty_strings_double_quoted(&body)))
}

/// Several documents, one after the other.
///
/// # Errors
/// As [`document`].
pub fn documents<T: Serialize>(values: &[T]) -> Result<String, serde_json::Error> {
    values.iter().map(document).collect()
}

/// `JSONSchemaProps` holds `minimum`, `maximum` and `multipleOf` as `f64`, so `0` would be
/// written `0.0`; controller-gen (Go's JSON encoding) writes integral numbers without a
/// fraction, and so does rop. Same number either way.
fn integral_floats_as_integers(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Number(n) => {
            if let Some(f) = n.as_f64().filter(|f| n.is_f64() && f.fract() == 0.0 && f.abs() < 9.0e15) {
                *value = serde_json::Value::from(f as i64);
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(integral_floats_as_integers),
        serde_json::Value::Object(map) => map.values_mut().for_each(integral_floats_as_integers),
        _ => {}
    }
}

/// serde_yaml writes an empty string as `''`; controller-gen (and kubectl) write `""`, as in
/// the core API group `apiGroups: [""]`. Same value, but byte-identical output is friendlier
/// to diffs against kubebuilder projects.
fn empty_strings_double_quoted(yaml: &str) -> String {
    yaml.lines()
        .map(|line| match line.strip_suffix("''") {
            Some(head) if head.ends_with("- ") || head.ends_with(": ") => format!("{head}\"\""),
            _ => line.to_string(),
        })
        .map(|line| line + "\n")
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn empty_strings_are_double_quoted() {
        let doc = super::document(&serde_json::json!({"apiGroups": [""], "name": "", "text": "it''s"})).unwrap();
        assert_eq!(doc, "---\napiGroups:\n- \"\"\nname: \"\"\ntext: it''s\n");
    }

    #[test]
    fn integral_floats_are_written_as_integers() {
        let doc = super::document(&serde_json::json!({"minimum": 0.0, "multipleOf": 0.5, "maximum": -2.0})).unwrap();
        assert_eq!(doc, "---\nmaximum: -2\nminimum: 0\nmultipleOf: 0.5\n");
    }
}
