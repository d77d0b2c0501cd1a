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
    let json = serde_json::to_value(value)?;
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
}
