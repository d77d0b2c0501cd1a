//! Object metadata on create (`ValidateObjectMetaAccessor` with `NameIsDNSSubdomain`, the
//! name rule of custom resources): a `name` or `generateName`, both DNS-1123 subdomains, and a
//! `namespace` (a DNS-1123 label) only on namespaced kinds.

use serde_json::Value;

use crate::dns::{is_dns1123_label, is_dns1123_subdomain};

use crate::report::Report;
use crate::rules::Rule;

const FIX: &str = "use lower case letters, digits, '-' and '.', starting and ending with a letter or digit";

const SUBDOMAIN_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or \
'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is \
'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

const LABEL_MSG: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and \
must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is \
'[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

/// Checks `metadata.name`, `metadata.generateName` and `metadata.namespace`.
pub(crate) fn check(object: &Value, namespaced: bool, report: &mut Report) {
    let Some(meta) = object.get("metadata").and_then(Value::as_object) else {
        report.add(Rule::SampleName, "metadata", "Required value", "add metadata.name");
        return;
    };
    let name = meta.get("name").and_then(Value::as_str).filter(|s| !s.is_empty());
    let generate = meta.get("generateName").and_then(Value::as_str).filter(|s| !s.is_empty());
    match (name, generate) {
        (None, None) => report.add(
            Rule::SampleName,
            "metadata.name",
            "Required value: name or generateName is required",
            "add metadata.name",
        ),
        (Some(name), _) if !is_dns1123_subdomain(name) => {
            report.add(Rule::SampleName, "metadata.name", format!("Invalid value: \"{name}\": {SUBDOMAIN_MSG}"), FIX)
        }
        (None, Some(prefix)) if !is_dns1123_subdomain(prefix.strip_suffix('-').unwrap_or(prefix)) => report.add(
            Rule::SampleName,
            "metadata.generateName",
            format!("Invalid value: \"{prefix}\": {SUBDOMAIN_MSG}"),
            FIX,
        ),
        _ => {}
    }
    match meta.get("namespace").and_then(Value::as_str).filter(|s| !s.is_empty()) {
        Some(_) if !namespaced => report.add(
            Rule::SampleName,
            "metadata.namespace",
            "Forbidden: not allowed on this type",
            "remove metadata.namespace: the kind is cluster-scoped",
        ),
        Some(ns) if !is_dns1123_label(ns) => report.add(
            Rule::SampleName,
            "metadata.namespace",
            format!("Invalid value: \"{ns}\": {LABEL_MSG}"),
            "use a valid namespace name",
        ),
        _ => {}
    }
}

/// Fills in `metadata.name` from `metadata.generateName` as the API server does before
/// validating a create (`rest.BeforeCreate`: the prefix plus 5 random characters; here
/// `xxxxx`), so that CEL rules reading `self.metadata.name` see a name of the right length.
pub(crate) fn generate(object: &mut Value) {
    let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) else { return };
    let has_name = meta.get("name").and_then(Value::as_str).is_some_and(|s| !s.is_empty());
    if let Some(prefix) = meta.get("generateName").and_then(Value::as_str).filter(|s| !has_name && !s.is_empty()) {
        let name = format!("{prefix}xxxxx");
        meta.insert("name".to_string(), Value::String(name));
    }
}
