//! The type and object metadata of embedded resources (`x-kubernetes-embedded-resource`), as
//! apiextensions' `pkg/apiserver/schema/objectmeta` validates them: `apiVersion` and `kind`
//! are required strings (a group/version, a kind that is a DNS-1035 label once lower-cased);
//! `metadata.name` and `generateName` are path segments; `metadata.namespace` is a DNS-1123
//! label; label keys, annotation keys and finalizers are qualified names and label values valid
//! label values (apimachinery's `ValidateLabels`, `ValidateAnnotations` and finalizer names).
//! Fields of the wrong JSON type are refused as Go's decoder refuses them.
//!
//! The API server runs this on every `default` (an embedded resource's default must make
//! valid metadata) and on custom objects.

use serde_json::{Map, Value};

use super::messages::quote;
use super::path::Path;
use super::prune::{additional, is_true};
use crate::dns::DNS1123_SUBDOMAIN_MSG;
use crate::report::Report;
use crate::rules::Rule;

const QUALIFIED_NAME_MSG: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end \
with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is \
'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

const LABEL_VALUE_MSG: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' \
or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex \
used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

/// apimachinery's DNS-1035 message as Kubernetes 1.37 words the examples (two spaces before
/// `or`).
const DNS1035_MSG: &str = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an \
alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation \
is '[a-z]([-a-z0-9]*[a-z0-9])?')";

const DNS1123_LABEL_MSG: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', \
and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is \
'[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

/// Checks every embedded resource in `value` (whose schema is `schema`, at `path`), with
/// `rule` for the findings; `resource` says `value` itself is one.
pub(crate) fn check(value: &Value, schema: &Value, path: &Path, resource: bool, rule: Rule, report: &mut Report) {
    match value {
        Value::Object(map) => {
            if resource || is_true(schema, "x-kubernetes-embedded-resource") {
                resource_meta(map, path, rule, report);
            }
            let props = schema.get("properties").and_then(Value::as_object);
            for (key, child) in map {
                if let Some(child_schema) = props.and_then(|p| p.get(key)).or_else(|| additional(schema)) {
                    check(child, child_schema, &path.field(key), false, rule, report);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for (i, item) in items.iter().enumerate() {
                    check(item, item_schema, &path.index(i), false, rule, report);
                }
            }
        }
        _ => {}
    }
}

fn resource_meta(map: &Map<String, Value>, path: &Path, rule: Rule, report: &mut Report) {
    const FIX: &str = "give the embedded resource a valid apiVersion, kind and metadata";
    let mut add = |at: Path, message: String| report.add(rule, at.to_string(), message, FIX);
    for key in ["apiVersion", "kind"] {
        if !map.contains_key(key) {
            add(path.field(key), "Required value".into());
        }
    }
    if let Some(v) = map.get("apiVersion") {
        let at = path.field("apiVersion");
        match v.as_str() {
            None => add(at, format!("Invalid value: {}: must be a string", quote(v))),
            Some("") => add(at, "Invalid value: \"\": must not be empty".into()),
            Some(s) if s.matches('/').count() > 1 => {
                add(at, format!("Invalid value: {}: unexpected GroupVersion string: {s}", quote(v)));
            }
            Some(_) => {}
        }
    }
    if let Some(v) = map.get("kind") {
        let at = path.field("kind");
        match v.as_str() {
            None => add(at, format!("Invalid value: {}: must be a string", quote(v))),
            Some("") => add(at, "Invalid value: \"\": must not be empty".into()),
            Some(s) if !rop_names::is_dns1035_label(&s.to_lowercase()) => {
                let why = if s.len() > 63 { "must be no more than 63 characters" } else { DNS1035_MSG };
                add(at, format!("Invalid value: {}: may have mixed case, but should otherwise match: {why}", quote(v)));
            }
            Some(_) => {}
        }
    }
    let meta_path = path.field("metadata");
    let Some(meta) = map.get("metadata") else { return };
    if let Some(why) = decode_error(meta) {
        add(meta_path, format!("Invalid value: {}: {why}", quote(meta)));
        return;
    }
    let Some(meta) = meta.as_object() else { return };
    for (key, prefix) in [("name", false), ("generateName", true)] {
        if let Some(s) = meta.get(key).and_then(Value::as_str)
            && let Some(why) = path_segment(s, prefix)
        {
            add(meta_path.field(key), format!("Invalid value: {}: {why}", quote(&Value::from(s))));
        }
    }
    if let Some(ns) = meta.get("namespace").and_then(Value::as_str).filter(|ns| !ns.is_empty())
        && !rop_names::is_dns1123_label(ns)
    {
        add(meta_path.field("namespace"), format!("Invalid value: {}: {DNS1123_LABEL_MSG}", quote(&Value::from(ns))));
    }
    if let Some(labels) = meta.get("labels").and_then(Value::as_object) {
        let at = meta_path.field("labels");
        for (k, v) in labels {
            for why in qualified_name(k) {
                add(at.clone(), format!("Invalid value: {}: {why}", quote(&Value::from(k.as_str()))));
            }
            if let Some(s) = v.as_str() {
                for why in label_value(s) {
                    add(at.clone(), format!("Invalid value: {}: {why}", quote(v)));
                }
            }
        }
    }
    if let Some(finalizers) = meta.get("finalizers").and_then(Value::as_array) {
        let at = meta_path.field("finalizers");
        for name in finalizers.iter().filter_map(Value::as_str) {
            for why in qualified_name(name) {
                add(at.clone(), format!("Invalid value: {}: {why}", quote(&Value::from(name))));
            }
        }
    }
    if let Some(annotations) = meta.get("annotations").and_then(Value::as_object) {
        let at = meta_path.field("annotations");
        for k in annotations.keys() {
            for why in qualified_name(&k.to_lowercase()) {
                add(at.clone(), format!("Invalid value: {}: {why}", quote(&Value::from(k.as_str()))));
            }
        }
    }
}

/// Why `meta` does not decode as an `ObjectMeta`, in Go's `encoding/json` words: `json: cannot
/// unmarshal number into Go struct field ObjectMeta.uid of type types.UID`. Covers the string
/// fields, the integer ones, labels, annotations and finalizers; `null` decodes as nothing.
fn decode_error(meta: &Value) -> Option<String> {
    let Some(map) = meta.as_object() else {
        return (!meta.is_null())
            .then(|| format!("json: cannot unmarshal {} into Go value of type v1.ObjectMeta", go_json_type(meta)));
    };
    let mismatch = |field: &str, value: &Value, go_type: &str| {
        Some(format!(
            "json: cannot unmarshal {} into Go struct field ObjectMeta.{field} of type {go_type}",
            go_json_type(value)
        ))
    };
    for (field, value) in map.iter().filter(|(_, v)| !v.is_null()) {
        match field.as_str() {
            "name" | "generateName" | "namespace" | "selfLink" | "resourceVersion" if !value.is_string() => {
                return mismatch(field, value, "string");
            }
            "uid" if !value.is_string() => return mismatch(field, value, "types.UID"),
            "generation" | "deletionGracePeriodSeconds" if !value.is_i64() => return mismatch(field, value, "int64"),
            "labels" | "annotations" => match value.as_object() {
                None => return mismatch(field, value, "map[string]string"),
                Some(entries) => {
                    if let Some(bad) = entries.values().find(|v| !v.is_string() && !v.is_null()) {
                        return mismatch(field, bad, "string");
                    }
                }
            },
            "finalizers" => match value.as_array() {
                None => return mismatch(field, value, "[]string"),
                Some(items) => {
                    if let Some(bad) = items.iter().find(|v| !v.is_string() && !v.is_null()) {
                        return mismatch(field, bad, "string");
                    }
                }
            },
            _ => {}
        }
    }
    None
}

/// The JSON type of `value` as Go's `encoding/json` names it in errors.
fn go_json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// apimachinery's `IsPathSegmentName` (or `IsPathSegmentPrefix`): why `s` cannot be a name.
fn path_segment(s: &str, prefix: bool) -> Option<String> {
    if !prefix && (s == "." || s == "..") {
        return Some(format!("may not be '{s}'"));
    }
    ["/", "%"].iter().find(|c| s.contains(*c)).map(|c| format!("may not contain '{c}'"))
}

/// apimachinery's `IsQualifiedName`: every reason `s` is not a qualified name.
fn qualified_name(s: &str) -> Vec<String> {
    let parts: Vec<&str> = s.split('/').collect();
    let (prefix, name) = match parts.as_slice() {
        [name] => (None, *name),
        [prefix, name] => (Some(*prefix), *name),
        _ => {
            return vec![format!(
                "a valid label key {QUALIFIED_NAME_MSG} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
            )];
        }
    };
    let mut out = Vec::new();
    if let Some(prefix) = prefix {
        if prefix.is_empty() {
            out.push("prefix part must be non-empty".to_string());
        } else if prefix.len() > 253 {
            out.push("prefix part must be no more than 253 characters".to_string());
        } else if !rop_names::is_dns1123_subdomain(prefix) {
            out.push(format!("prefix part {DNS1123_SUBDOMAIN_MSG}"));
        }
    }
    if name.is_empty() {
        out.push("name part must be non-empty".to_string());
    } else if name.len() > 63 {
        out.push("name part must be no more than 63 characters".to_string());
    }
    if !name.is_empty() && !rop_names::is_qualified_name(name) && name.len() <= 63 {
        out.push(format!("name part {QUALIFIED_NAME_MSG}"));
    }
    out
}

/// apimachinery's `IsValidLabelValue`: every reason `s` is not a label value.
fn label_value(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    if s.len() > 63 {
        out.push("must be no more than 63 characters".to_string());
    }
    // A qualified name without a prefix has the label value's shape.
    if !s.is_empty() && (s.contains('/') || !rop_names::is_qualified_name(s)) {
        out.push(LABEL_VALUE_MSG.to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn messages(value: Value) -> Vec<(String, String)> {
        let mut report = Report::default();
        let schema = json!({"type": "object", "x-kubernetes-embedded-resource": true,
            "x-kubernetes-preserve-unknown-fields": true});
        check(&value, &schema, &Path::default(), false, Rule::SampleSchema, &mut report);
        report.into_findings().into_iter().map(|f| (f.path, f.message)).collect()
    }

    #[test]
    fn type_meta_is_required_and_checked() {
        assert_eq!(
            messages(json!({"kind": 3, "metadata": {}})),
            vec![
                ("apiVersion".to_string(), "Required value".to_string()),
                ("kind".to_string(), "Invalid value: 3: must be a string".to_string()),
            ]
        );
        assert_eq!(messages(json!({"apiVersion": "v1", "kind": "ConfigMap"})), vec![]);
        let odd = messages(json!({"apiVersion": "a/b/c", "kind": "Config_Map"}));
        assert_eq!(odd[0].1, "Invalid value: \"a/b/c\": unexpected GroupVersion string: a/b/c");
        assert!(odd[1].1.starts_with("Invalid value: \"Config_Map\": may have mixed case"), "{odd:?}");
    }

    #[test]
    fn labels_annotations_and_names() {
        let found = messages(json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
            "name": "a/b", "labels": {"a b": "ok", "good": "bad value"}, "annotations": {"x/y/z": ""}}}));
        let paths: Vec<&str> = found.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(paths, ["metadata.name", "metadata.labels", "metadata.labels", "metadata.annotations"]);
        assert_eq!(found[0].1, "Invalid value: \"a/b\": may not contain '/'");
        assert_eq!(found[1].1, format!("Invalid value: \"a b\": name part {QUALIFIED_NAME_MSG}"));
        assert_eq!(found[2].1, format!("Invalid value: \"bad value\": {LABEL_VALUE_MSG}"));
        assert!(found[3].1.starts_with("Invalid value: \"x/y/z\": a valid label key must consist"), "{found:?}");
    }
}
