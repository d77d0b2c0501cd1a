//! Nodes no structural type describes: an enum whose variants serde writes as different JSON
//! types (a unit variant's string beside a data variant's object, an untagged string beside a
//! struct). A structural schema gives every node one `type` (apiextensions' structural schema
//! rule), so the only schema such a node can have is one that keeps unknown fields, where the
//! API server validates and prunes nothing. That is a loss the author must choose:
//! [`super::structural_schema_checked`] reports each such node unless the type or the field
//! carries `#[rop(preserve_unknown_fields)]` or `#[rop(schemaless)]`, and `rop generate`
//! refuses a kind that has one.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::markers::Marker;

/// Private key on a node merged from alternatives of different JSON types, until
/// [`take`] collects it: `{"shapes": [...], "type": "RustName"}`.
pub(crate) const KEY: &str = "x-rop-unstructured";

/// A schema node whose values serde writes as more than one JSON type, so that the CRD can only
/// keep unknown fields there.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unstructured {
    /// Where the node is, from the schema's root: `spec.mode`, `spec.modes[*]` (list items
    /// and map values are `[*]`).
    pub path: String,
    /// The Rust type of the node as schemars names it (`Mode`), when it is a named type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rust_type: Option<String>,
    /// The JSON types its values take: `string`, `object`, `array`, `integer`, `number`,
    /// `boolean`, `int-or-string`, or `any`.
    pub shapes: Vec<String>,
}

impl std::fmt::Display for Unstructured {
    /// `path: reason`; [`Unstructured::FIX`] says what to do.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.reason())
    }
}

impl Unstructured {
    /// Why the node is a loss, without its path: what its type is written as.
    pub fn reason(&self) -> String {
        let what = self.rust_type.as_ref().map_or_else(|| "its type".to_string(), |t| format!("`{t}`"));
        format!(
            "{what} is written as {} (serde's form of its variants), and a CRD schema node has one type, so the API server would keep any value there unvalidated",
            or_list(&self.shapes)
        )
    }

    /// The ways out, for any [`Unstructured`] node.
    pub const FIX: &'static str = "make every value an object: tag the enum (#[serde(tag = \"type\")]), which keeps unit variants as they are and needs every data variant to hold a struct (one that wraps a string, number or list takes a named field: `Variant { value: T }`); or, untagged, give each unit variant an empty body (`Variant {}`). Or accept an unvalidated field: derive rop::JsonSchema on the enum and add #[rop(preserve_unknown_fields)] to it (or to the field)";
}

fn or_list(items: &[String]) -> String {
    let with_article = |s: &String| match s.as_str() {
        "any" => "any value".to_string(),
        s if s.starts_with(['a', 'e', 'i', 'o', 'u']) => format!("an {s}"),
        s => format!("a {s}"),
    };
    match items {
        [] => "any value".into(),
        [one] => with_article(one),
        [rest @ .., last] => {
            let rest: Vec<String> = rest.iter().map(with_article).collect();
            format!("{} or {}", rest.join(", "), with_article(last))
        }
    }
}

/// Marks `map` (just merged from alternatives of these JSON types) as unstructured.
pub(crate) fn mark(map: &mut Map<String, Value>, shapes: Vec<String>) {
    let mut unique: Vec<String> = Vec::new();
    for shape in shapes {
        if !unique.contains(&shape) {
            unique.push(shape);
        }
    }
    map.insert(KEY.into(), serde_json::json!({ "shapes": unique }));
}

/// Names the Rust type of an unstructured node that is the whole definition `name`.
pub(crate) fn name(map: &mut Map<String, Value>, name: &str) {
    if let Some(Value::Object(mark)) = map.get_mut(KEY) {
        mark.entry("type").or_insert_with(|| name.into());
    }
}

/// Drops the mark when `markers` accept a node that keeps unknown fields.
pub(crate) fn accept(map: &mut Map<String, Value>, markers: &[Marker]) {
    if markers.iter().any(|m| matches!(m, Marker::PreserveUnknownFields | Marker::Schemaless)) {
        map.remove(KEY);
    }
}

/// Removes every mark below `node` (whose path is `path`) and returns the nodes, outermost
/// first.
pub(crate) fn take(node: &mut Value, path: &str, found: &mut Vec<Unstructured>) {
    let Value::Object(map) = node else { return };
    if let Some(Value::Object(mark)) = map.remove(KEY) {
        let shapes = match mark.get("shapes") {
            Some(Value::Array(shapes)) => shapes.iter().filter_map(Value::as_str).map(String::from).collect(),
            _ => Vec::new(),
        };
        let rust_type = mark.get("type").and_then(Value::as_str).map(String::from);
        found.push(Unstructured { path: path.to_string(), rust_type, shapes });
    }
    if let Some(Value::Object(properties)) = map.get_mut("properties") {
        for (name, child) in properties.iter_mut() {
            take(child, &format!("{path}.{name}"), found);
        }
    }
    for key in ["items", "additionalProperties"] {
        if let Some(child) = map.get_mut(key) {
            take(child, &format!("{path}[*]"), found);
        }
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(branches)) = map.get_mut(key) {
            for branch in branches {
                take(branch, path, found);
            }
        }
    }
    if let Some(child) = map.get_mut("not") {
        take(child, path, found);
    }
}
