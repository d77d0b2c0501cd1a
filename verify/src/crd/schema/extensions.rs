//! The Kubernetes vendor extensions (R45–R52).

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::{NodeCx, SchemaCx, is_true, type_of};
use crate::report::quote;
use crate::rules::Rule;

pub(super) fn check(cx: &mut SchemaCx, obj: &Map<String, Value>, path: &str, n: &NodeCx) {
    int_or_string(cx, obj, path);
    embedded_resource(cx, obj, path, n);
    list_type(cx, obj, path);
    map_type(cx, obj, path);
}

/// R45.
fn int_or_string(cx: &mut SchemaCx, obj: &Map<String, Value>, path: &str) {
    if !is_true(obj, "x-kubernetes-int-or-string") {
        return;
    }
    for key in ["x-kubernetes-preserve-unknown-fields", "x-kubernetes-embedded-resource"] {
        if is_true(obj, key) {
            cx.report.add(
                Rule::ExtensionsIntOrString,
                format!("{path}.{key}"),
                "Invalid value: true: must be false if x-kubernetes-int-or-string is true",
                "remove it: an int-or-string value is a scalar",
            );
        }
    }
    if let Some(t) = obj.get("type").and_then(Value::as_str).filter(|t| !t.is_empty()) {
        cx.report.add(
            Rule::LintIntOrStringType,
            format!("{path}.type"),
            format!("type {t:?} next to x-kubernetes-int-or-string rejects the other kind of value at runtime"),
            "remove type and use anyOf: [{type: integer}, {type: string}]",
        );
    }
}

/// R46 (a)–(d); (e) is with the root's meta fields in `meta`.
fn embedded_resource(cx: &mut SchemaCx, obj: &Map<String, Value>, path: &str, n: &NodeCx) {
    if !is_true(obj, "x-kubernetes-embedded-resource") {
        return;
    }
    const FIX: &str = "an embedded resource is {type: object, x-kubernetes-embedded-resource: true} with either properties (apiVersion, kind, metadata, ...) or x-kubernetes-preserve-unknown-fields: true";
    if n.resource_meta {
        cx.report.add(
            Rule::ExtensionsEmbeddedInMeta,
            format!("{path}.x-kubernetes-embedded-resource"),
            "Forbidden: must not be used inside of resource meta",
            "remove x-kubernetes-embedded-resource from metadata, apiVersion and kind",
        );
    }
    match type_of(obj) {
        "object" => {}
        "" => cx.report.add(
            Rule::ExtensionsEmbeddedResource,
            format!("{path}.type"),
            "Required value: must be object if x-kubernetes-embedded-resource is true",
            FIX,
        ),
        t => cx.report.add(
            Rule::ExtensionsEmbeddedResource,
            format!("{path}.type"),
            format!("Invalid value: {t:?}: must be object if x-kubernetes-embedded-resource is true"),
            FIX,
        ),
    }
    let has_properties = obj.get("properties").and_then(Value::as_object).is_some_and(|p| !p.is_empty());
    if !has_properties && !is_true(obj, "x-kubernetes-preserve-unknown-fields") {
        cx.report.add(
            Rule::ExtensionsEmbeddedResource,
            format!("{path}.properties"),
            "Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields",
            FIX,
        );
    }
    if obj.contains_key("additionalProperties") {
        cx.report.add(
            Rule::ExtensionsEmbeddedResource,
            format!("{path}.additionalProperties"),
            "Forbidden: must not be used if x-kubernetes-embedded-resource is set",
            FIX,
        );
    }
}

/// R47–R51.
fn list_type(cx: &mut SchemaCx, obj: &Map<String, Value>, path: &str) {
    let list_type = obj.get("x-kubernetes-list-type").and_then(Value::as_str);
    let keys: Vec<&Value> =
        obj.get("x-kubernetes-list-map-keys").and_then(Value::as_array).map(|a| a.iter().collect()).unwrap_or_default();
    if let Some(lt) = list_type {
        if !["atomic", "set", "map"].contains(&lt) {
            cx.report.add(
                Rule::ExtensionsListType,
                format!("{path}.x-kubernetes-list-type"),
                format!("Unsupported value: {lt:?}: supported values: \"atomic\", \"set\", \"map\""),
                "use atomic, set or map",
            );
        }
        let t = type_of(obj);
        if t != "array" {
            let what = if t.is_empty() { "Required value".to_string() } else { format!("Invalid value: {t:?}") };
            cx.report.add(
                Rule::ExtensionsListType,
                format!("{path}.type"),
                format!("{what}: must be array if x-kubernetes-list-type is specified"),
                "put x-kubernetes-list-type only on arrays",
            );
        }
    }
    if !keys.is_empty() && list_type != Some("map") {
        let what = match list_type {
            None => "Required value".to_string(),
            Some(lt) => format!("Invalid value: {lt:?}"),
        };
        cx.report.add(
            Rule::ExtensionsListMapKeys,
            format!("{path}.x-kubernetes-list-type"),
            format!("{what}: must be map if x-kubernetes-list-map-keys is non-empty"),
            "set x-kubernetes-list-type: map, or remove x-kubernetes-list-map-keys",
        );
    }
    let items = obj.get("items");
    match list_type {
        Some("set") => {
            let Some(items) = items.and_then(Value::as_object) else { return };
            const FIX: &str = "make set items atomic: scalars, objects with x-kubernetes-map-type: atomic, or atomic lists; or use x-kubernetes-list-type: map";
            if type_of(items) == "object"
                && items.get("x-kubernetes-map-type").and_then(Value::as_str) != Some("atomic")
            {
                let shown = items.get("x-kubernetes-list-type").map(quote).unwrap_or_else(|| "\"null\"".to_string());
                cx.report.add(
                    Rule::ExtensionsListSetItems,
                    format!("{path}.items.x-kubernetes-map-type"),
                    format!("Invalid value: {shown}: must be atomic as item of a list with x-kubernetes-list-type=set"),
                    FIX,
                );
            }
            if type_of(items) == "array"
                && let Some(lt) =
                    items.get("x-kubernetes-list-type").and_then(Value::as_str).filter(|lt| *lt != "atomic")
            {
                cx.report.add(
                    Rule::ExtensionsListSetItems,
                    format!("{path}.items.x-kubernetes-list-type"),
                    format!("Invalid value: {lt:?}: must be atomic as item of a list with x-kubernetes-list-type=set"),
                    FIX,
                );
            }
            if is_true(items, "nullable") {
                cx.report.add(
                    Rule::ExtensionsListSetItems,
                    format!("{path}.items.nullable"),
                    "Forbidden: cannot be nullable when x-kubernetes-list-type is set",
                    "remove nullable from the items",
                );
            }
        }
        Some("map") => map_list(cx, obj, &keys, path),
        _ => {}
    }
}

/// R50, R51: the shape of a `list-type: map` node.
fn map_list(cx: &mut SchemaCx, obj: &Map<String, Value>, keys: &[&Value], path: &str) {
    const FIX: &str =
        "a map list has items {type: object} whose key properties are scalars, each required or defaulted";
    let keys_path = format!("{path}.x-kubernetes-list-map-keys");
    if keys.is_empty() {
        cx.report.add(
            Rule::ExtensionsListMapKeys,
            keys_path.clone(),
            "Required value: must not be empty if x-kubernetes-list-type is map",
            FIX,
        );
    }
    let items = match obj.get("items") {
        None => {
            cx.report.add(
                Rule::ExtensionsListMapKeys,
                format!("{path}.items"),
                "Required value: must have a schema if x-kubernetes-list-type is map",
                FIX,
            );
            return;
        }
        Some(Value::Object(items)) => items,
        Some(other) => {
            cx.report.add(
                Rule::ExtensionsListMapKeys,
                format!("{path}.items"),
                format!("Invalid value: {other}: must only have a single schema if x-kubernetes-list-type is map"),
                FIX,
            );
            return;
        }
    };
    if type_of(items) != "object" {
        cx.report.add(
            Rule::ExtensionsListMapKeys,
            format!("{path}.items.type"),
            format!(
                "Invalid value: {:?}: must be object if parent array's x-kubernetes-list-type is map",
                type_of(items)
            ),
            FIX,
        );
        return;
    }
    let shown = || format!("[]string{{{}}}", keys.iter().map(|k| quote(k)).collect::<Vec<_>>().join(","));
    let props = items.get("properties").and_then(Value::as_object);
    let key_names: Vec<&str> = keys.iter().filter_map(|k| k.as_str()).collect();
    if key_names.len() != keys.len() || key_names.iter().any(|k| props.is_none_or(|p| !p.contains_key(*k))) {
        cx.report.add(
            Rule::ExtensionsListMapKeys,
            keys_path.clone(),
            format!("Invalid value: {}: entries must all be names of item properties", shown()),
            FIX,
        );
    }
    let unique: BTreeSet<&str> = key_names.iter().copied().collect();
    if unique.len() != key_names.len() {
        cx.report.add(
            Rule::ExtensionsListMapKeys,
            keys_path,
            format!("Invalid value: {}: must not contain duplicate entries", shown()),
            FIX,
        );
    }
    let required: Vec<&str> = items
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for key in unique {
        let Some(prop) = props.and_then(|p| p.get(key)).and_then(Value::as_object) else { continue };
        let prop_path = format!("{path}.items.properties[{key}]");
        let t = type_of(prop);
        if t == "object" || t == "array" {
            cx.report.add(
                Rule::ExtensionsListMapKeys,
                format!("{prop_path}.type"),
                format!("Invalid value: {t:?}: must be a scalar type if parent array's x-kubernetes-list-type is map"),
                FIX,
            );
        }
        if !required.contains(&key) && prop.get("default").is_none_or(Value::is_null) {
            cx.report.add(
                Rule::ExtensionsListMapKeyRequired,
                format!("{prop_path}.default"),
                "Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property",
                "add the key to the items' required list, or give it a default",
            );
        }
        if is_true(prop, "nullable") {
            cx.report.add(
                Rule::ExtensionsListMapKeyRequired,
                format!("{prop_path}.nullable"),
                "Forbidden: this property is in x-kubernetes-list-map-keys, so it cannot be nullable",
                "remove nullable from the key property",
            );
        }
    }
    if is_true(items, "nullable") {
        cx.report.add(
            Rule::ExtensionsListMapKeyRequired,
            format!("{path}.items.nullable"),
            "Forbidden: cannot be nullable when x-kubernetes-list-type is map",
            "remove nullable from the items",
        );
    }
}

/// R52.
fn map_type(cx: &mut SchemaCx, obj: &Map<String, Value>, path: &str) {
    let Some(mt) = obj.get("x-kubernetes-map-type").and_then(Value::as_str) else { return };
    if mt != "atomic" && mt != "granular" {
        cx.report.add(
            Rule::ExtensionsMapType,
            format!("{path}.x-kubernetes-map-type"),
            format!("Unsupported value: {mt:?}: supported values: \"atomic\", \"granular\""),
            "use atomic or granular",
        );
    }
    let t = type_of(obj);
    if t != "object" {
        let what = if t.is_empty() { "Required value".to_string() } else { format!("Invalid value: {t:?}") };
        cx.report.add(
            Rule::ExtensionsMapType,
            format!("{path}.type"),
            format!("{what}: must be object if x-kubernetes-map-type is specified"),
            "put x-kubernetes-map-type only on objects",
        );
    }
}
