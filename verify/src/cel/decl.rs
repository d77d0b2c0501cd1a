//! The structural schema as CEL sees it: the declared type of every node, with the two size
//! facts the cost estimate uses (the smallest serialised size of a value, and the largest
//! number of elements a string, list or map can hold).
//!
//! The rules are those of k8s.io/apiserver `pkg/cel/common/schemas.go` (`SchemaDeclType`) and
//! apiextensions-apiserver `pkg/apiserver/schema/cel/model/schemas.go` as of Kubernetes 1.37:
//! int-or-string is `dyn`; `format: byte`, `duration`, `date` and `date-time` strings are
//! `bytes`, `duration` and `timestamp`; objects with `additionalProperties` are maps; a
//! property whose schema has no type (bare preserve-unknown-fields) or whose name cannot be
//! escaped is invisible; the root of a resource and every `x-kubernetes-embedded-resource`
//! see `apiVersion`, `kind` and a `metadata` holding only `name` and `generateName`.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Map, Value};

use super::escape::escape;
use super::types::{Decl, DeclKind, Type};

/// The request size every unbounded estimate starts from (`DefaultMaxRequestSizeBytes`, 3 MiB).
pub(crate) const MAX_REQUEST_SIZE: u64 = 3 * 1024 * 1024;

/// Building declarations (their type and accessors are in [`super::types`]).
impl Decl {
    fn new(kind: DeclKind, min_size: u64, max_elements: u64) -> Decl {
        Decl { kind, min_size, max_elements, unbounded: None, location: String::new() }
    }

    fn scalar(t: Type, min_size: u64, max_elements: u64) -> Decl {
        Decl::new(DeclKind::Scalar(t), min_size, max_elements)
    }

    /// Marks the node as sized by the request limit unless the schema gives `keyword`.
    fn bounded_by(mut self, schema: &Map<String, Value>, keyword: &'static str) -> Decl {
        if !schema.contains_key(keyword) {
            self.unbounded = Some(keyword);
        }
        self
    }
}

/// The declaration of `schema`, named `name` when it is an object, or `None` when CEL cannot see
/// the node. `resource_root` is true for the root of the custom resource and for embedded
/// resources.
pub(crate) fn declare(schema: &Map<String, Value>, resource_root: bool, name: &str) -> Option<Arc<Decl>> {
    declare_at(schema, resource_root, name, "")
}

fn declare_at(schema: &Map<String, Value>, resource_root: bool, name: &str, location: &str) -> Option<Arc<Decl>> {
    let unbounded = MAX_REQUEST_SIZE - 2;
    let non_negative = |key: &str| schema.get(key).and_then(Value::as_i64).map(|v| v.max(0) as u64);
    if flag(schema, "x-kubernetes-int-or-string") {
        let max = non_negative("maxLength").map_or(unbounded, |m| m.saturating_mul(4));
        let decl = Decl::scalar(Type::Dyn, 1, max).bounded_by(schema, "maxLength");
        return Some(Arc::new(Decl { location: location.to_string(), ..decl }));
    }
    let with_meta;
    let schema = if resource_root {
        with_meta = with_type_and_object_meta(schema);
        with_meta.as_ref().unwrap_or(schema)
    } else {
        schema
    };
    let decl = match schema.get("type").and_then(Value::as_str).unwrap_or("") {
        "array" => {
            let items = schema.get("items")?.as_object()?;
            let elem = declare_at(items, embedded(items), &format!("{name}.@idx"), &format!("{location}.items"))?;
            let max = non_negative("maxItems").unwrap_or(unbounded / (elem.min_size + 1));
            Decl::new(DeclKind::List(elem), 2, max).bounded_by(schema, "maxItems")
        }
        "object" => {
            if let Some(additional) = schema.get("additionalProperties").and_then(Value::as_object) {
                let at = format!("{location}.additionalProperties");
                let value = declare_at(additional, embedded(additional), &format!("{name}.@elem"), &at)?;
                let max = non_negative("maxProperties").unwrap_or(unbounded / (value.min_size + 6));
                Decl::new(DeclKind::Map(value), 2, max).bounded_by(schema, "maxProperties")
            } else {
                object(schema, name, location)
            }
        }
        "string" => {
            let max_length = non_negative("maxLength");
            match schema.get("format").and_then(Value::as_str).unwrap_or("") {
                "byte" => Decl::scalar(Type::Bytes, 2, max_length.unwrap_or(unbounded)).bounded_by(schema, "maxLength"),
                "duration" => Decl::scalar(Type::Duration, 3, 32),
                "date" => Decl::scalar(Type::Timestamp, 12, 12),
                "date-time" => Decl::scalar(Type::Timestamp, 21, 32),
                _ => {
                    let longest_enum = schema
                        .get("enum")
                        .and_then(Value::as_array)
                        .filter(|e| !e.is_empty())
                        .map(|e| e.iter().filter_map(Value::as_str).map(|s| s.len() as u64).max().unwrap_or(0));
                    let max = max_length.map(|m| m.saturating_mul(4)).or(longest_enum).unwrap_or(unbounded);
                    let decl = Decl::scalar(Type::String, 2, max);
                    if longest_enum.is_some() { decl } else { decl.bounded_by(schema, "maxLength") }
                }
            }
        }
        "boolean" => Decl::scalar(Type::Bool, 4, 0),
        "number" => Decl::scalar(Type::Double, 1, 0),
        "integer" => Decl::scalar(Type::Int, 1, 0),
        _ => return None,
    };
    Some(Arc::new(Decl { location: location.to_string(), ..decl }))
}

/// An object with its visible properties; its smallest size counts `{}` plus every required
/// property without a default.
fn object(schema: &Map<String, Value>, name: &str, location: &str) -> Decl {
    let required: Vec<&str> =
        schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
    let mut fields = BTreeMap::new();
    let mut min_size = 2u64;
    for (prop_name, prop) in schema.get("properties").and_then(Value::as_object).into_iter().flatten() {
        let Some(prop) = prop.as_object() else { continue };
        let Some(escaped) = escape(prop_name) else {
            // An unescapable name hides the property, but a required one still counts.
            if let Some(decl) = declare(prop, embedded(prop), "")
                && required.contains(&prop_name.as_str())
                && no_default(prop)
            {
                min_size += prop_name.len() as u64 + decl.min_size + 4;
            }
            continue;
        };
        let at = format!("{location}.properties[{prop_name}]");
        let Some(decl) = declare_at(prop, embedded(prop), &format!("{name}.{escaped}"), &at) else { continue };
        if required.contains(&prop_name.as_str()) && no_default(prop) {
            min_size += prop_name.len() as u64 + decl.min_size + 4;
        }
        fields.insert(escaped, decl);
    }
    Decl::new(DeclKind::Object { name: name.to_string(), fields }, min_size, 0)
}

/// The root of a resource sees `apiVersion`, `kind`, `metadata.name` and
/// `metadata.generateName` as strings even when the schema does not declare them; a declared
/// `metadata` is replaced. Kubernetes 1.37 bounds the two names (253 and 252 characters, or
/// the schema's smaller `maxLength`).
/// `None` when the schema already declares all four as strings.
fn with_type_and_object_meta(schema: &Map<String, Value>) -> Option<Map<String, Value>> {
    let props = schema.get("properties").and_then(Value::as_object);
    let typed = |v: Option<&Value>, t: &str| v.and_then(|v| v.get("type")).and_then(Value::as_str) == Some(t);
    if let Some(props) = props {
        let meta = props.get("metadata").and_then(|m| m.get("properties"));
        if typed(props.get("kind"), "string")
            && typed(props.get("apiVersion"), "string")
            && typed(props.get("metadata"), "object")
            && typed(meta.and_then(|m| m.get("name")), "string")
            && typed(meta.and_then(|m| m.get("generateName")), "string")
        {
            return None;
        }
    }
    // A declared smaller bound on the name is kept.
    let declared = |field: &str| {
        props
            .and_then(|p| p.get("metadata"))
            .and_then(|m| m.get("properties"))
            .and_then(|p| p.get(field))
            .and_then(|f| f.get("maxLength"))
            .and_then(Value::as_i64)
    };
    let name_max = declared("name").map_or(253, |m| m.clamp(0, 253));
    let generate_name_max = declared("generateName").map_or(252, |m| m.clamp(0, 252));
    let mut out = schema.clone();
    let mut props = props.cloned().unwrap_or_default();
    props.insert("kind".into(), serde_json::json!({"type": "string"}));
    props.insert("apiVersion".into(), serde_json::json!({"type": "string"}));
    props.insert(
        "metadata".into(),
        serde_json::json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "maxLength": name_max},
                "generateName": {"type": "string", "maxLength": generate_name_max},
            },
        }),
    );
    out.insert("properties".into(), Value::Object(props));
    Some(out)
}

/// `default: null` counts as no default.
fn no_default(prop: &Map<String, Value>) -> bool {
    prop.get("default").is_none_or(Value::is_null)
}

fn flag(schema: &Map<String, Value>, key: &str) -> bool {
    schema.get(key).and_then(Value::as_bool) == Some(true)
}

fn embedded(schema: &Map<String, Value>) -> bool {
    flag(schema, "x-kubernetes-embedded-resource")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn decl(schema: Value) -> Arc<Decl> {
        declare(schema.as_object().unwrap(), false, "selfType").unwrap()
    }

    #[test]
    fn unbounded_sizes_follow_the_element_size() {
        // The table of cel-cost-and-types.md §4.2.
        let list = |items: Value| decl(json!({"type": "array", "items": items})).max_elements;
        assert_eq!(list(json!({"type": "string"})), 1_048_575);
        assert_eq!(list(json!({"type": "integer"})), 1_572_863);
        assert_eq!(list(json!({"type": "boolean"})), 629_145);
        assert_eq!(list(json!({"type": "string", "format": "date-time"})), 142_987);
        let map = |v: Value| decl(json!({"type": "object", "additionalProperties": v})).max_elements;
        assert_eq!(map(json!({"type": "string"})), 393_215);
        assert_eq!(map(json!({"type": "string", "format": "date"})), 174_762);
    }

    #[test]
    fn strings_take_max_length_times_four_then_the_longest_enum() {
        assert_eq!(decl(json!({"type": "string", "maxLength": 10})).max_elements, 40);
        assert_eq!(decl(json!({"type": "string", "enum": ["abc", "de"]})).max_elements, 3);
        assert_eq!(decl(json!({"type": "string", "format": "byte", "maxLength": 10})).max_elements, 10);
        assert_eq!(decl(json!({"x-kubernetes-int-or-string": true})).max_elements, 3_145_726);
    }

    #[test]
    fn required_properties_without_defaults_raise_the_minimum() {
        let d = decl(json!({
            "type": "object",
            "required": ["name", "port"],
            "properties": {"name": {"type": "string"}, "port": {"type": "integer", "default": 80}},
        }));
        assert_eq!(d.min_size, 2 + 4 + 2 + 4);
    }

    #[test]
    fn untyped_and_unescapable_properties_are_invisible() {
        let d = decl(json!({
            "type": "object",
            "properties": {"a": {"x-kubernetes-preserve-unknown-fields": true}, "b:c": {"type": "string"}, "d-e": {"type": "string"}},
        }));
        let DeclKind::Object { fields, .. } = &d.kind else { panic!() };
        assert_eq!(fields.keys().collect::<Vec<_>>(), ["d__dash__e"]);
    }
}
