//! Root and embedded `metadata`, `apiVersion` and `kind` (R46e, R54–R56).

use serde_json::{Map, Value};

use super::{Level, NodeCx, SchemaCx, is_true, type_of};
use crate::rules::Rule;

pub(super) fn check(cx: &mut SchemaCx, obj: &Map<String, Value>, path: &str, n: &NodeCx) {
    let is_root = n.level == Level::Root;
    if is_root || is_true(obj, "x-kubernetes-embedded-resource") {
        field_types(cx, obj, path);
    }
    if is_root {
        root_metadata(cx, obj, path);
    }
    let has_default = obj.get("default").is_some_and(|d| !d.is_null());
    if has_default && n.root_meta {
        cx.report.add(
            Rule::MetadataDefault,
            format!("{path}.default"),
            "Forbidden: must not be set in top-level metadata",
            "remove the default; put defaults under spec",
        );
    } else if has_default && n.meta_additional {
        cx.report.add(
            Rule::MetadataDefault,
            format!("{path}.default"),
            "Forbidden: must not be set inside additionalProperties applying to object metadata",
            "remove the default from the labels/annotations value schema",
        );
    }
}

/// R55 / R46(e): declared meta fields have the meta types.
fn field_types(cx: &mut SchemaCx, obj: &Map<String, Value>, path: &str) {
    let Some(props) = obj.get("properties").and_then(Value::as_object) else { return };
    for (key, want) in [("metadata", "object"), ("apiVersion", "string"), ("kind", "string")] {
        let Some(field) = props.get(key).and_then(Value::as_object) else { continue };
        let t = type_of(field);
        if !t.is_empty() && t != want {
            cx.report.add(
                Rule::MetadataFieldType,
                format!("{path}.properties[{key}].type"),
                format!("Invalid value: {t:?}: must be {want}"),
                &format!("declare {key} as type: {want}, or leave it out (the API server provides it)"),
            );
        }
    }
}

/// R54: the root `metadata` may only be `{type: object, properties: {name, generateName}}`.
fn root_metadata(cx: &mut SchemaCx, obj: &Map<String, Value>, path: &str) {
    let Some(metadata) = obj.get("properties").and_then(|p| p.get("metadata")).and_then(Value::as_object) else {
        return;
    };
    let mut rest = metadata.clone();
    if rest.get("type").and_then(Value::as_str).is_some_and(|t| t == "object" || t.is_empty()) {
        rest.remove("type");
    }
    if let Some(Value::Object(props)) = rest.get_mut("properties") {
        props.remove("name");
        props.remove("generateName");
        if props.is_empty() {
            rest.remove("properties");
        }
    }
    // A wrong type has its own error (R55).
    if rest.get("type").is_some() && rest.len() == 1 {
        return;
    }
    if !rest.is_empty() {
        let keys: Vec<String> = rest
            .iter()
            .flat_map(|(k, v)| match (k.as_str(), v) {
                ("properties", Value::Object(p)) => p.keys().map(|p| format!("properties[{p}]")).collect(),
                _ => vec![k.clone()],
            })
            .collect();
        cx.report.add(
            Rule::MetadataRootRestricted,
            format!("{path}.properties[metadata]"),
            format!(
                "Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified (found {})",
                keys.join(", ")
            ),
            "reduce the root metadata schema to {type: object} (optionally restricting properties name and generateName); move CEL rules to the root and use self.metadata.name",
        );
    }
}
