//! The CRD verifier: checks a `CustomResourceDefinition` the way the Kubernetes API server
//! (`k8s.io/apiextensions-apiserver`, Kubernetes 1.37) validates it on create, plus a few
//! API-convention lints.
//!
//! The rules are the ones listed in `shared/reference/crd-validation-rules.md`; every rule id
//! in [`RULES`] names the rule numbers (`R1`…`R113`) it implements. The verifier works on the
//! CRD as a [`serde_json::Value`], so hand-written and third-party CRDs with fields the typed
//! model does not know still verify, and it is a pure function: `rop generate` runs it on its
//! own output.
//!
//! Paths in findings use the API server's notation (`properties[spec].items.type`,
//! `x-kubernetes-validations[0].rule`) but always name the place in the v1 document as
//! written: `spec.versions[i].schema.openAPIV3Schema…` rather than the server's hoisted
//! `spec.validation.openAPIV3Schema…`, `spec.conversion.webhook.clientConfig` rather than
//! `spec.conversion.webhookClientConfig`, and `additionalPrinterColumns[i].jsonPath` rather
//! than `…JSONPath`, so that a path always leads to a line of the file.
//!
//! ```
//! let crd: serde_json::Value = serde_yaml::from_str(r#"
//! apiVersion: apiextensions.k8s.io/v1
//! kind: CustomResourceDefinition
//! metadata: {name: widgets.example.com}
//! spec:
//!   group: example.com
//!   names: {kind: Widget, plural: widgets}
//!   scope: Namespaced
//!   versions:
//!   - name: v1
//!     served: true
//!     storage: true
//!     schema:
//!       openAPIV3Schema:
//!         type: object
//!         properties:
//!           spec: {type: object, properties: {size: {}}}
//! "#).unwrap();
//! let findings = rop::verify::verify_crd(&crd);
//! assert_eq!(findings[0].rule, "structural.missing-type");
//! assert_eq!(findings[0].path, "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[size].type");
//! ```

pub(crate) mod cel;
mod conversion;
mod defaults;
pub mod dns;
mod document;
mod jsonpath;
mod names;
mod printer_columns;
pub(crate) mod report;
mod rules;
mod schema;
mod selectable_fields;
mod size;
mod subresources;
mod versions;

use std::fmt;

use serde_json::Value;

pub use rules::{RULES, RuleInfo};

/// How bad a [`Finding`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The API server rejects the CRD (or, for size, etcd or `kubectl apply` does).
    Error,
    /// The API server accepts the CRD, but it will not behave as its author probably meant,
    /// or it breaks a Kubernetes API convention.
    Warning,
}

impl Severity {
    /// `"error"` or `"warning"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One problem found in a CRD.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Finding {
    /// Error (the server rejects it) or warning (accepted, but probably wrong).
    pub severity: Severity,
    /// A short stable rule id such as `structural.missing-type`; see [`RULES`].
    pub rule: &'static str,
    /// Where, in the API server's path notation, e.g.
    /// `spec.versions[0].schema.openAPIV3Schema.properties[spec].type`.
    pub path: String,
    /// What is wrong, close to the API server's own message.
    pub message: String,
    /// How to fix it.
    pub fix: String,
    /// For a CEL cost finding (`cel.cost`, `cel.cost-total`, `lint.cel-cost`): the schema nodes
    /// the estimate had to assume as large as a 3 MiB request allows, each with the keyword that
    /// would bound it. Empty for other findings.
    pub unbounded: Vec<Unbounded>,
}

/// A schema node with no size bound that a CEL rule's cost estimate depends on.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Unbounded {
    /// The node, in the API server's path notation
    /// (`spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[targets]`).
    pub path: String,
    /// `maxItems`, `maxProperties` or `maxLength`.
    pub keyword: &'static str,
}

impl From<serde_yaml::Error> for VerifyError {
    fn from(e: serde_yaml::Error) -> Self {
        VerifyError::Yaml(e.to_string())
    }
}

impl fmt::Display for Finding {
    /// `error[rule-id] <path>: <message> (fix: <hint>)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}[{}] {}: {} (fix: {})", self.severity, self.rule, self.path, self.message, self.fix)
    }
}

impl Finding {
    /// Whether this finding is an [`Severity::Error`].
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

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

/// Checks one CRD (any `apiextensions.k8s.io` `CustomResourceDefinition` value) against every
/// rule in [`RULES`]: the document's shape (R1, R2), names (R3–R12), versions (R13–R19),
/// conversion (R20–R29), each version's schema (R30–R72), subresources (R78–R84), printer
/// columns (R85–R89), selectable fields (R90–R95) and size (R100–R102), and the API-convention
/// lints. Findings come in a deterministic order: document, names, versions, conversion, then
/// each version in order, then size.
pub fn verify_crd(crd: &Value) -> Vec<Finding> {
    let mut report = report::Report::default();
    let Some(obj) = crd.as_object() else {
        report.error(
            "document.not-object",
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
    }
    size::check(crd, &mut report);
    report.into_findings()
}

/// Whether `doc` is a `CustomResourceDefinition` of the `apiextensions.k8s.io` group (any
/// version: `v1beta1` documents are CRDs too, and [`verify_crd`] rejects them under R1).
pub fn is_crd(doc: &Value) -> bool {
    doc.get("kind").and_then(Value::as_str) == Some("CustomResourceDefinition")
        && doc.get("apiVersion").and_then(Value::as_str).is_some_and(|v| v.starts_with("apiextensions.k8s.io/"))
}

/// Splits a YAML stream (documents separated by `---`) into JSON values, dropping empty
/// documents but keeping the index each document had in the stream.
pub fn yaml_documents(text: &str) -> Result<Vec<(usize, Value)>, VerifyError> {
    use serde::Deserialize;
    let mut docs = Vec::new();
    for (index, de) in serde_yaml::Deserializer::from_str(text).enumerate() {
        let yaml = serde_yaml::Value::deserialize(de)?;
        if yaml.is_null() {
            continue;
        }
        let json = serde_json::to_value(&yaml).map_err(|source| VerifyError::Json { index, source })?;
        docs.push((index, json));
    }
    Ok(docs)
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
