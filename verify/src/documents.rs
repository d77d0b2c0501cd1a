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

/// A CustomResourceDefinition found by [`crd_documents`], and where it was.
#[derive(Clone, Debug, PartialEq)]
pub struct FoundCrd {
    /// 0-based index of its document in the stream.
    pub document: usize,
    /// 0-based index in the `items` of the list that document is, when it is one.
    pub item: Option<usize>,
    /// The CRD, as JSON.
    pub crd: Value,
}

/// What [`crd_documents`] read: the CRDs, and what else the input held.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CrdInput {
    /// The CRDs, in input order.
    pub crds: Vec<FoundCrd>,
    /// The other documents (and list items), in input order: where, and what each is
    /// (`v1 ConfigMap`, `a document without apiVersion and kind`).
    pub skipped: Vec<(usize, Option<usize>, String)>,
    /// How many documents the stream held (empty ones not counted).
    pub documents: usize,
}

impl CrdInput {
    /// What the input held, for an error that found no CRD: `no YAML documents`, or the
    /// skipped documents (`a v1 ConfigMap, a v1 List with no items`).
    pub fn held(&self) -> String {
        if self.documents == 0 {
            return "no YAML documents".into();
        }
        let mut kinds: Vec<String> = Vec::new();
        for (_, _, what) in &self.skipped {
            if !kinds.contains(what) {
                kinds.push(what.clone());
            }
        }
        kinds.join(", ")
    }
}

/// Where a document or list item is, as rop's commands write it: `FILE` for the only document
/// of a stream, `FILE#N` (N counting documents from 1) in a stream of several, followed by
/// ` items[I]` for an item of a list.
pub fn document_label(shown: &str, documents: usize, document: usize, item: Option<usize>) -> String {
    let mut label = if documents > 1 { format!("{shown}#{}", document + 1) } else { shown.to_string() };
    if let Some(item) = item {
        label.push_str(&format!(" items[{item}]"));
    }
    label
}

/// The CustomResourceDefinitions of a YAML stream or a JSON text (JSON is YAML), as `kubectl
/// apply -f` reads them: each document, and each item of a `v1 List` (what `kubectl get crd -o
/// yaml` writes for several) or of an `apiextensions.k8s.io/v1 CustomResourceDefinitionList`
/// (what the API answers a list with). Every other document or item is named in
/// [`CrdInput::skipped`]. A CRD of any `apiextensions.k8s.io` version counts (`v1beta1` too:
/// [`crate::verify_crd`] rejects it).
///
/// # Errors
/// As [`yaml_documents`]: text that is not YAML, or a document JSON cannot hold.
pub fn crd_documents(text: &str) -> Result<CrdInput, VerifyError> {
    let docs = yaml_documents(text)?;
    let mut input = CrdInput { documents: docs.len(), ..CrdInput::default() };
    for (document, doc) in docs {
        match list_items(&doc) {
            Some(items) => {
                if items.is_empty() {
                    input.skipped.push((document, None, format!("{} with no items", describe(&doc))));
                }
                for (item, value) in items.iter().enumerate() {
                    input.take(document, Some(item), value.clone());
                }
            }
            None => input.take(document, None, doc),
        }
    }
    Ok(input)
}

impl CrdInput {
    fn take(&mut self, document: usize, item: Option<usize>, doc: Value) {
        if is_crd(&doc) {
            self.crds.push(FoundCrd { document, item, crd: doc });
        } else {
            self.skipped.push((document, item, describe(&doc)));
        }
    }
}

/// The items of a `v1 List` or a `CustomResourceDefinitionList`; `None` for any other document.
fn list_items(doc: &Value) -> Option<&Vec<Value>> {
    let api_version = doc.get("apiVersion").and_then(Value::as_str)?;
    let kind = doc.get("kind").and_then(Value::as_str)?;
    let list = (api_version == "v1" && kind == "List")
        || (api_version.starts_with("apiextensions.k8s.io/") && kind == "CustomResourceDefinitionList");
    if !list {
        return None;
    }
    static EMPTY: Vec<Value> = Vec::new();
    Some(doc.get("items").and_then(Value::as_array).unwrap_or(&EMPTY))
}

/// `a v1 ConfigMap`, `an apps/v1 Deployment`, or `a document without apiVersion and kind`.
fn describe(doc: &Value) -> String {
    let field = |name: &str| doc.get(name).and_then(Value::as_str).filter(|s| !s.is_empty());
    let article = |word: &str| if word.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" };
    match (field("apiVersion"), field("kind")) {
        (Some(api_version), Some(kind)) => format!("{} {api_version} {kind}", article(api_version)),
        (None, Some(kind)) => format!("a {kind} without apiVersion"),
        (Some(api_version), None) => format!("{} {api_version} document without kind", article(api_version)),
        _ if doc.is_object() => "a document without apiVersion and kind".into(),
        _ => "a document that is not a mapping".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CRD: &str =
        "{apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, metadata: {name: a.example.com}}";

    #[test]
    fn lists_of_kubectl_and_of_the_api_are_opened_other_kinds_named() {
        let text = format!(
            "apiVersion: v1\nkind: List\nitems: [{CRD}, {{apiVersion: v1, kind: ConfigMap}}]\n---\n\
             apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinitionList\nitems: [{CRD}]\n---\n\
             {CRD}\n---\n\
             apiVersion: example.com/v1\nkind: WidgetList\nitems: [{CRD}]\n---\n\
             apiVersion: v1\nkind: List\n---\n\
             [1, 2]\n"
        );
        let input = crd_documents(&text).unwrap();
        let found: Vec<(usize, Option<usize>)> = input.crds.iter().map(|c| (c.document, c.item)).collect();
        assert_eq!(found, [(0, Some(0)), (1, Some(0)), (2, None)]);
        assert_eq!(
            input.skipped,
            [
                (0, Some(1), "a v1 ConfigMap".to_string()),
                (3, None, "an example.com/v1 WidgetList".to_string()),
                (4, None, "a v1 List with no items".to_string()),
                (5, None, "a document that is not a mapping".to_string()),
            ]
        );
        assert_eq!(input.documents, 6);
        assert_eq!(document_label("-", 6, 0, Some(1)), "-#1 items[1]");
        assert_eq!(document_label("crds.yaml", 1, 0, None), "crds.yaml");
    }

    #[test]
    fn json_is_read_as_yaml_and_what_an_input_held_is_said() {
        let json = r#"{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Namespace"}, {"kind": "Thing"}, {}, {"apiVersion": "apiextensions.k8s.io/v1"}]}"#;
        let input = crd_documents(json).unwrap();
        assert!(input.crds.is_empty());
        assert_eq!(
            input.held(),
            "a v1 Namespace, a Thing without apiVersion, a document without apiVersion and kind, an apiextensions.k8s.io/v1 document without kind"
        );
        assert_eq!(crd_documents("# nothing\n---\n").unwrap().held(), "no YAML documents");
    }
}
