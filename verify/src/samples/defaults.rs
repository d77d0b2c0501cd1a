//! Defaulting (R60, R62; `pkg/apiserver/schema/defaulting`): first a `null` at a non-nullable
//! field with no default is dropped, then every `default` is applied to a field that is absent
//! (or `null` and not nullable) under a parent that exists, in properties, list items and map
//! values alike, descending into the defaulted values.

use serde_json::Value;

use super::prune::{additional, is_true};

/// Applies `root`'s defaults to `object` (already pruned).
pub(crate) fn apply(object: &mut Value, root: &Value) {
    let Some(map) = object.as_object_mut() else { return };
    fill(map, root);
    let props = root.get("properties").and_then(Value::as_object);
    for (key, value) in map.iter_mut() {
        if matches!(key.as_str(), "apiVersion" | "kind" | "metadata") {
            continue;
        }
        if let Some(prop) = props.and_then(|p| p.get(key)) {
            node(value, prop);
        }
    }
}

/// A null at `schema` that the API server replaces (with the default) or removes.
fn dropped_null(value: &Value, schema: &Value) -> bool {
    value.is_null() && !is_true(schema, "nullable")
}

/// Handles the nulls and absent fields of `map`, whose schema is `schema`.
fn fill(map: &mut serde_json::Map<String, Value>, schema: &Value) {
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for (key, prop) in props {
            let default = prop.get("default");
            match map.get(key) {
                Some(v) if dropped_null(v, prop) => match default {
                    Some(d) => {
                        map.insert(key.clone(), d.clone());
                    }
                    None => {
                        map.remove(key);
                    }
                },
                None => {
                    if let Some(d) = default {
                        map.insert(key.clone(), d.clone());
                    }
                }
                Some(_) => {}
            }
        }
    }
    if let Some(values) = additional(schema) {
        let nulls: Vec<String> = map.iter().filter(|(_, v)| dropped_null(v, values)).map(|(k, _)| k.clone()).collect();
        for key in nulls {
            match values.get("default") {
                Some(d) => {
                    map.insert(key, d.clone());
                }
                None => {
                    map.remove(&key);
                }
            }
        }
    }
}

fn node(value: &mut Value, schema: &Value) {
    match value {
        Value::Object(map) => {
            fill(map, schema);
            let props = schema.get("properties").and_then(Value::as_object);
            for (key, child) in map.iter_mut() {
                if let Some(prop) = props.and_then(|p| p.get(key)) {
                    node(child, prop);
                } else if let Some(values) = additional(schema) {
                    node(child, values);
                }
            }
        }
        Value::Array(items) => {
            let Some(item_schema) = schema.get("items") else { return };
            for item in items.iter_mut() {
                if dropped_null(item, item_schema)
                    && let Some(d) = item_schema.get("default")
                {
                    *item = d.clone();
                }
                node(item, item_schema);
            }
        }
        _ => {}
    }
}
