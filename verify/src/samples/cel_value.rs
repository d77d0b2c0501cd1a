//! The value CEL sees as `self` at a schema node (the API server's `UnstructuredToVal`): only
//! declared properties, under their CEL names (R70: reserved words as `__word__`, `__`, `.`,
//! `-` and `/` escaped, other names invisible); map values under their keys; `number` fields as
//! doubles; at the root and in embedded resources only `apiVersion`, `kind`, `metadata.name`
//! and `metadata.generateName` of the meta fields (R63).

use serde_json::{Map, Value};

use super::prune::{additional, is_true};
use crate::cel::escape;

/// `value` (whose schema is `schema`) as CEL sees it; `resource` is true at the root and at
/// embedded resources.
pub(crate) fn visible(value: &Value, schema: &Value, resource: bool) -> Value {
    match value {
        Value::Object(map) => {
            let resource = resource || is_true(schema, "x-kubernetes-embedded-resource");
            let props = schema.get("properties").and_then(Value::as_object);
            let mut out = Map::new();
            if let Some(values) = additional(schema).filter(|_| props.is_none()) {
                for (key, child) in map {
                    out.insert(key.clone(), visible(child, values, false));
                }
                return Value::Object(out);
            }
            for (key, child) in map {
                if resource && key == "metadata" {
                    let meta: Map<String, Value> = child
                        .as_object()
                        .into_iter()
                        .flatten()
                        .filter(|(k, _)| *k == "name" || *k == "generateName")
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect();
                    out.insert(key.clone(), Value::Object(meta));
                } else if resource && (key == "apiVersion" || key == "kind") {
                    out.insert(key.clone(), child.clone());
                } else if let Some(prop) = props.and_then(|p| p.get(key))
                    && let Some(name) = escape(key)
                {
                    out.insert(name, visible(child, prop, false));
                }
            }
            Value::Object(out)
        }
        Value::Array(items) => {
            let item_schema = schema.get("items").unwrap_or(&Value::Null);
            Value::Array(items.iter().map(|i| visible(i, item_schema, false)).collect())
        }
        Value::Number(n) if schema.get("type").and_then(Value::as_str) == Some("number") => {
            n.as_f64().and_then(serde_json::Number::from_f64).map_or_else(|| value.clone(), Value::Number)
        }
        other => other.clone(),
    }
}

/// A JSON value as a CEL value: integers as `int` (`uint` only beyond `int`'s range), other
/// numbers as `double`.
pub(crate) fn to_cel(value: &Value) -> cel::Value {
    match value {
        Value::Null => cel::Value::Null,
        Value::Bool(b) => cel::Value::Bool(*b),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => cel::Value::Int(i),
            (None, Some(u)) => cel::Value::UInt(u),
            _ => cel::Value::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => cel::Value::from(s.clone()),
        Value::Array(items) => cel::Value::from(items.iter().map(to_cel).collect::<Vec<_>>()),
        Value::Object(map) => cel::Value::from(
            map.iter().map(|(k, v)| (k.clone(), to_cel(v))).collect::<std::collections::HashMap<String, cel::Value>>(),
        ),
    }
}
