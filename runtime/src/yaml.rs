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
    Ok(format!("---\n{body}"))
}

/// Several documents, one after the other.
///
/// # Errors
/// As [`document`].
pub fn documents<T: Serialize>(values: &[T]) -> Result<String, serde_json::Error> {
    values.iter().map(document).collect()
}
