//! The value CEL sees as `self` at a schema node (the API server's `UnstructuredToVal`): only
//! declared properties, under their CEL names (R70: reserved words as `__word__`, `__`, `.`,
//! `-` and `/` escaped, other names invisible); map values under their keys; `number` fields as
//! doubles; strings of `format: duration` as durations, `date-time` and `date` as timestamps,
//! `byte` as bytes; a property set to `null` as absent; at the root and in embedded resources only `apiVersion`, `kind`,
//! `metadata.name` and `metadata.generateName` of the meta fields (R63).

use std::collections::HashMap;
use std::sync::Arc;

use base64::Engine;
use serde_json::Value;

use super::prune::{additional, is_true};
use crate::cel::escape;

/// `value` (whose schema is `schema`) as CEL sees it; `resource` is true at the root and at
/// embedded resources.
pub(crate) fn self_value(value: &Value, schema: &Value, resource: bool) -> cel::Value {
    match value {
        Value::Object(map) => {
            let resource = resource || is_true(schema, "x-kubernetes-embedded-resource");
            let props = schema.get("properties").and_then(Value::as_object);
            let mut out = HashMap::new();
            if let Some(values) = additional(schema).filter(|_| props.is_none()) {
                for (key, child) in map {
                    out.insert(key.clone(), self_value(child, values, false));
                }
                return cel::Value::from(out);
            }
            for (key, child) in map {
                if resource && key == "metadata" {
                    let meta: HashMap<String, cel::Value> = child
                        .as_object()
                        .into_iter()
                        .flatten()
                        .filter(|(k, _)| *k == "name" || *k == "generateName")
                        .map(|(k, v)| (k.clone(), plain(v)))
                        .collect();
                    out.insert(key.clone(), cel::Value::from(meta));
                } else if resource && (key == "apiVersion" || key == "kind") {
                    out.insert(key.clone(), plain(child));
                } else if let Some(prop) = props.and_then(|p| p.get(key))
                    && !child.is_null()
                    && let Some(name) = escape(key)
                {
                    out.insert(name, self_value(child, prop, false));
                }
            }
            cel::Value::from(out)
        }
        Value::Array(items) => {
            let item_schema = schema.get("items").unwrap_or(&Value::Null);
            cel::Value::from(items.iter().map(|i| self_value(i, item_schema, false)).collect::<Vec<_>>())
        }
        Value::Number(n) if schema.get("type").and_then(Value::as_str) == Some("number") => {
            cel::Value::Float(n.as_f64().unwrap_or(f64::NAN))
        }
        Value::String(s) => formatted(s, schema.get("format").and_then(Value::as_str)).unwrap_or_else(|| plain(value)),
        other => plain(other),
    }
}

/// A string of a format CEL gives its own type, as that type; `None` for other formats and
/// for strings that do not parse (the format check reports those first).
fn formatted(s: &str, format: Option<&str>) -> Option<cel::Value> {
    match format? {
        "duration" => duration(s).map(cel::Value::Duration),
        "date-time" | "datetime" => chrono::DateTime::parse_from_rfc3339(s).ok().map(cel::Value::Timestamp),
        "date" => {
            let day = chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").ok()?;
            Some(cel::Value::Timestamp(day.and_hms_opt(0, 0, 0)?.and_utc().fixed_offset()))
        }
        "byte" => base64::engine::general_purpose::STANDARD.decode(s).ok().map(|b| cel::Value::Bytes(Arc::new(b))),
        _ => None,
    }
}

/// A duration string as kube-openapi's `strfmt.ParseDuration` reads it.
fn duration(s: &str) -> Option<chrono::Duration> {
    let nanos = super::strfmt::duration_nanos(s)?;
    (nanos.abs() < i64::MAX as f64).then(|| chrono::Duration::nanoseconds(nanos as i64))
}

/// A JSON value as a CEL value with no schema to go by: integers as `int` (`uint` only beyond
/// `int`'s range), other numbers as `double`.
fn plain(value: &Value) -> cel::Value {
    match value {
        Value::Null => cel::Value::Null,
        Value::Bool(b) => cel::Value::Bool(*b),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => cel::Value::Int(i),
            (None, Some(u)) => cel::Value::UInt(u),
            _ => cel::Value::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => cel::Value::from(s.clone()),
        Value::Array(items) => cel::Value::from(items.iter().map(plain).collect::<Vec<_>>()),
        Value::Object(map) => {
            cel::Value::from(map.iter().map(|(k, v)| (k.clone(), plain(v))).collect::<HashMap<String, cel::Value>>())
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn durations_parse_like_strfmt() {
        let secs = |s| duration(s).map(|d| d.num_milliseconds() as f64 / 1000.0);
        assert_eq!(secs("1h30m"), Some(5400.0));
        assert_eq!(secs("-1.5s"), Some(-1.5));
        assert_eq!(secs("2d"), Some(172800.0));
        assert_eq!(secs("3 days"), Some(259200.0));
        assert_eq!(secs("1H"), Some(3600.0));
        assert_eq!(secs("0"), Some(0.0));
        assert_eq!(secs("1x"), None);
        assert_eq!(secs("h"), None);
    }

    #[test]
    fn formats_become_cel_types() {
        let schema = json!({"type": "object", "properties": {
            "d": {"type": "string", "format": "duration"},
            "t": {"type": "string", "format": "date-time"},
            "b": {"type": "string", "format": "byte"},
            "n": {"type": "number"},
        }});
        let value = self_value(&json!({"d": "1m", "t": "2024-01-02T03:04:05Z", "b": "aGk=", "n": 2}), &schema, false);
        let cel::Value::Map(map) = value else { panic!("{value:?}") };
        let get = |k: &str| map.get(&cel::objects::Key::from(k)).cloned();
        assert_eq!(get("d"), Some(cel::Value::Duration(chrono::Duration::seconds(60))));
        assert!(matches!(get("t"), Some(cel::Value::Timestamp(_))));
        assert_eq!(get("b"), Some(cel::Value::Bytes(Arc::new(b"hi".to_vec()))));
        assert_eq!(get("n"), Some(cel::Value::Float(2.0)));
    }
}
