//! The Kubernetes OpenAPI v3 schema subset, converted to a JSON Schema (draft 4, whose boolean
//! `exclusiveMinimum`/`exclusiveMaximum` OpenAPI v3.0 shares) for the `jsonschema` crate:
//!
//! - `nullable: true` adds `"null"` to `type` (and to `enum`), as kube-openapi lets a null
//!   through every check of a nullable node;
//! - `x-kubernetes-int-or-string: true` becomes `type: [integer, string]`, and the
//!   `anyOf: [{type: integer}, {type: string}]` that spells it out for structural schemas is
//!   dropped (as the first `allOf` entry too), so a wrong type gives one type error;
//! - `format` is dropped: [`super::formats`] checks the formats the API server checks;
//! - `default`, `description`, `example`, `externalDocs`, `title` and every `x-kubernetes-*`
//!   key are dropped (pruning, defaulting and CEL are separate steps).
//!
//! The remaining value checks (`type`, `properties`, `items`, `additionalProperties`,
//! `required`, `enum`, bounds, lengths, `pattern`, `multipleOf`, item and property counts and
//! the junctors `allOf`/`anyOf`/`oneOf`/`not`) mean the same in both.

use serde_json::{Map, Value, json};

use super::prune::is_true;

const DROPPED: &[&str] = &["format", "default", "description", "example", "externalDocs", "title", "nullable"];

/// The keyword `pattern` is renamed to: checked with Go's regular expression syntax
/// (`schema::GoPattern`), not JSON Schema's.
pub(crate) const GO_PATTERN: &str = "x-rop-go-pattern";

/// The keyword `multipleOf` is renamed to: checked as kube-openapi does (`schema::GoMultipleOf`),
/// which truncates the factor to an integer for an integer value.
pub(crate) const GO_MULTIPLE_OF: &str = "x-rop-go-multiple-of";

/// The JSON Schema equivalent of the Kubernetes schema `node`.
pub(crate) fn convert(node: &Value) -> Value {
    let Some(map) = node.as_object() else { return json!({}) };
    let mut out = Map::new();
    for (key, value) in map {
        if DROPPED.contains(&key.as_str()) || key.starts_with("x-kubernetes-") || key == "uniqueItems" {
            continue;
        }
        let converted = match key.as_str() {
            "properties" => {
                Value::Object(value.as_object().into_iter().flatten().map(|(k, v)| (k.clone(), convert(v))).collect())
            }
            "items" | "not" => convert(value),
            "additionalProperties" if value.is_object() => convert(value),
            "allOf" | "anyOf" | "oneOf" => Value::Array(value.as_array().into_iter().flatten().map(convert).collect()),
            _ => value.clone(),
        };
        let key = match key.as_str() {
            "pattern" => GO_PATTERN,
            "multipleOf" => GO_MULTIPLE_OF,
            other => other,
        };
        out.insert(key.to_string(), converted);
    }
    let nullable = is_true(node, "nullable");
    if is_true(node, "x-kubernetes-int-or-string") {
        drop_int_or_string_junctor(&mut out);
        out.insert("type".into(), json!(["integer", "string"]));
    }
    if nullable {
        match out.get_mut("type") {
            Some(Value::String(t)) => {
                let t = std::mem::take(t);
                out.insert("type".into(), json!([t, "null"]));
            }
            Some(Value::Array(types)) => types.push(json!("null")),
            _ => {}
        }
        if let Some(Value::Array(values)) = out.get_mut("enum")
            && !values.contains(&Value::Null)
        {
            values.push(Value::Null);
        }
    }
    Value::Object(out)
}

fn is_int_or_string_pair(v: &Value) -> bool {
    *v == json!([{"type": "integer"}, {"type": "string"}])
}

fn drop_int_or_string_junctor(out: &mut Map<String, Value>) {
    if out.get("anyOf").is_some_and(is_int_or_string_pair) {
        out.remove("anyOf");
    }
    if let Some(Value::Array(all)) = out.get_mut("allOf")
        && all.first().and_then(|f| f.get("anyOf")).is_some_and(is_int_or_string_pair)
    {
        all.remove(0);
        if all.is_empty() {
            out.remove("allOf");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nullable_and_int_or_string() {
        let k8s = json!({"type": "object", "properties": {
            "a": {"type": "string", "nullable": true, "enum": ["x"], "format": "date"},
            "b": {"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]},
        }});
        assert_eq!(
            convert(&k8s),
            json!({"type": "object", "properties": {
                "a": {"type": ["string", "null"], "enum": ["x", null]},
                "b": {"type": ["integer", "string"]},
            }})
        );
    }
}
