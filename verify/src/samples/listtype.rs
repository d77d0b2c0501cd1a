//! `x-kubernetes-list-type: set` and `map`: no two items of a set may be equal, and no two
//! items of a map list may have the same keys (apiextensions-apiserver
//! `pkg/apiserver/schema/listtype/validation.go`). The server reports the second item of each
//! repeated value once, with Go's way of printing the value.

use serde_json::{Map, Value};

use super::path::Path;
use crate::report::Report;
use crate::rules::Rule;

const RULE: Rule = Rule::SampleDuplicate;

/// Checks every set and map list in `object` (whose schema is `schema`).
pub(crate) fn check(object: &Value, schema: &Value, report: &mut Report) {
    walk(object, schema, &Path::default(), report);
}

fn walk(value: &Value, schema: &Value, path: &Path, report: &mut Report) {
    match value {
        Value::Object(map) => {
            if let Some(additional) = schema.get("additionalProperties").filter(|a| a.is_object()) {
                for (k, v) in map {
                    walk(v, additional, &path.key(k), report);
                }
            }
            if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                for (k, v) in map {
                    if let Some(sub) = props.get(k) {
                        walk(v, sub, &path.field(k), report);
                    }
                }
            }
        }
        Value::Array(items) => {
            match schema.get("x-kubernetes-list-type").and_then(Value::as_str) {
                Some("set") => {
                    for i in repeated(items.iter().cloned()) {
                        duplicate(report, &path.index(i), &items[i]);
                    }
                }
                Some("map") => map_list(items, schema, path, report),
                _ => {}
            }
            if let Some(item_schema) = schema.get("items") {
                for (i, item) in items.iter().enumerate() {
                    walk(item, item_schema, &path.index(i), report);
                }
            }
        }
        _ => {}
    }
}

/// The items of a map list are identified by their key fields; an item without them has the
/// empty key.
fn map_list(items: &[Value], schema: &Value, path: &Path, report: &mut Report) {
    if items.iter().any(|x| !x.is_object() && !x.is_null()) {
        // The schema check reports items that are not objects.
        return;
    }
    let key_fields: Vec<&str> = schema
        .get("x-kubernetes-list-map-keys")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let keys: Vec<Value> = items
        .iter()
        .map(|x| {
            let mut key = Map::new();
            for field in &key_fields {
                if let Some(v) = x.get(field) {
                    key.insert(field.to_string(), v.clone());
                }
            }
            Value::Object(key)
        })
        .collect();
    for i in repeated(keys.iter().cloned()) {
        duplicate(report, &path.index(i), &keys[i]);
    }
}

/// The index of the second occurrence of every value that occurs more than once.
fn repeated(values: impl Iterator<Item = Value>) -> Vec<usize> {
    let mut seen: Vec<(Value, usize)> = Vec::new();
    let mut out = Vec::new();
    for (i, v) in values.enumerate() {
        match seen.iter_mut().find(|(s, _)| *s == v) {
            Some((_, times)) => {
                *times += 1;
                if *times == 2 {
                    out.push(i);
                }
            }
            None => seen.push((v, 1)),
        }
    }
    out
}

fn duplicate(report: &mut Report, at: &Path, value: &Value) {
    report.add(
        RULE,
        at.to_string(),
        format!("Duplicate value: {}", go_value(value)),
        "remove the repeated item (the list is x-kubernetes-list-type set or map: items, or their keys, must be unique)",
    );
}

/// A value as apimachinery's field errors print it: strings quoted, numbers and booleans bare,
/// lists and objects as JSON (object keys sorted, as Go's encoder writes them).
fn go_value(value: &Value) -> String {
    match value {
        Value::String(s) => format!("{s:?}"),
        other => sorted(other).to_string(),
    }
}

fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            Value::Object(entries.into_iter().map(|(k, v)| (k.clone(), sorted(v))).collect())
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn go_printing() {
        assert_eq!(super::go_value(&json!("a")), "\"a\"");
        assert_eq!(super::go_value(&json!(3)), "3");
        assert_eq!(super::go_value(&json!({"port": 80, "name": "A"})), r#"{"name":"A","port":80}"#);
        assert_eq!(super::go_value(&json!(["a", 1])), r#"["a",1]"#);
    }

    #[test]
    fn second_occurrences_only() {
        let values = [json!("a"), json!("b"), json!("a"), json!("a"), json!("b")];
        assert_eq!(super::repeated(values.into_iter()), vec![2, 4]);
    }
}
