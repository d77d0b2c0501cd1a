//! Following a dot path (`.spec.replicas`) through a schema, for printer columns, selectable
//! fields, scale paths and CEL `fieldPath`s.

use serde_json::{Map, Value};

use crate::node::is_true;

/// Where a path leads.
#[derive(Debug)]
pub(crate) enum Lookup<'a> {
    /// A declared node.
    Found(&'a Map<String, Value>),
    /// Into a part whose content the schema does not declare (preserve-unknown-fields,
    /// int-or-string, `additionalProperties: true`): nothing more can be said.
    Dynamic,
    /// The field `fields[at]` is not declared.
    Missing { at: usize },
    /// The path would continue inside array items.
    ThroughArray,
}

/// Follows `fields` from `root`: declared properties first, then map values
/// (`additionalProperties`).
pub(crate) fn resolve<'a>(root: &'a Map<String, Value>, fields: &[&str]) -> Lookup<'a> {
    let mut node = root;
    for (at, field) in fields.iter().enumerate() {
        if let Some(next) = node.get("properties").and_then(|p| p.get(*field)).and_then(Value::as_object) {
            node = next;
            continue;
        }
        match node.get("additionalProperties") {
            Some(Value::Object(next)) => {
                node = next;
                continue;
            }
            Some(Value::Bool(true)) => return Lookup::Dynamic,
            _ => {}
        }
        if is_true(node, "x-kubernetes-preserve-unknown-fields") || is_true(node, "x-kubernetes-int-or-string") {
            return Lookup::Dynamic;
        }
        if node.get("type").and_then(Value::as_str) == Some("array") {
            return Lookup::ThroughArray;
        }
        return Lookup::Missing { at };
    }
    Lookup::Found(node)
}

/// Splits a simple dot path `.a.b.c` into `["a", "b", "c"]`; `None` if it does not start with
/// `.` or has an empty segment.
pub(crate) fn dot_fields(path: &str) -> Option<Vec<&str>> {
    let rest = path.strip_prefix('.')?;
    let fields: Vec<&str> = rest.split('.').collect();
    fields.iter().all(|f| !f.is_empty()).then_some(fields)
}
