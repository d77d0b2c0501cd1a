//! Reading YAML streams into the JSON documents the checks work on.

use serde_json::Value;

/// A YAML input that could not be read as documents.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    /// The text is not valid YAML.
    #[error("not valid YAML: {0}")]
    Yaml(
        // The parser's message, not the error itself: as a `source` it would be printed twice
        // in an error chain.
        String,
    ),
    /// A document is valid YAML but cannot be represented as JSON (for example a map with
    /// non-string keys).
    #[error("document {index} cannot be represented as JSON: {source}")]
    Json {
        /// 0-based index of the document in the stream.
        index: usize,
        /// Why.
        source: serde_json::Error,
    },
}

impl From<serde_yaml::Error> for VerifyError {
    fn from(e: serde_yaml::Error) -> Self {
        VerifyError::Yaml(e.to_string())
    }
}

/// Whether `doc` is a `CustomResourceDefinition` of the `apiextensions.k8s.io` group (any
/// version: `v1beta1` documents are CRDs too, and [`crate::verify_crd`] rejects them under R1).
pub fn is_crd(doc: &Value) -> bool {
    doc.get("kind").and_then(Value::as_str) == Some("CustomResourceDefinition")
        && doc.get("apiVersion").and_then(Value::as_str).is_some_and(|v| v.starts_with("apiextensions.k8s.io/"))
}

/// Splits a YAML stream (documents separated by `---`) into JSON values, dropping empty
/// documents but keeping the index each document had in the stream. Merge keys (`<<: *a`) are
/// expanded and a leading byte order mark is skipped, as kubectl does.
pub fn yaml_documents(text: &str) -> Result<Vec<(usize, Value)>, VerifyError> {
    use serde::Deserialize;
    let mut docs = Vec::new();
    // A byte order mark is not part of the YAML (kubectl skips it too).
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    for (index, de) in serde_yaml::Deserializer::from_str(text).enumerate() {
        let mut yaml = serde_yaml::Value::deserialize(de)?;
        if yaml.is_null() {
            continue;
        }
        // Merge keys (`<<: *anchor`), as kubectl's YAML reader expands them.
        yaml.apply_merge()?;
        let json = serde_json::to_value(&yaml).map_err(|source| VerifyError::Json { index, source })?;
        docs.push((index, json));
    }
    Ok(docs)
}
