//! `allOf`, `anyOf`, `oneOf` and `not`: value checks a structural schema may combine (R42).
//! Entries are matched by content, so reordering them changes nothing; an entry of one side
//! that the other lacks is judged by what it does to the set of valid values:
//! - `allOf`: every entry must match, so an entry added (or changed) tightens and one removed
//!   loosens;
//! - `anyOf`: one entry must match, so an `anyOf` added where there was none, or an entry
//!   removed (or changed), tightens, and an entry added loosens. The `anyOf` of an
//!   int-or-string field (`[{type: integer}, {type: string}]`, as controller-gen writes it)
//!   restricts nothing;
//! - `oneOf`: exactly one must match, so an entry removed may refuse objects that matched only
//!   it, and an entry added may refuse objects that now match two. An entry added to an
//!   existing `oneOf` that requires a property the old node did not declare, kept no unknown
//!   fields for and the new node gives no default cannot match a stored object (the server
//!   pruned any such key): that is how a new variant of an enum with data looks;
//! - `not`: added, or changed in any way, may tighten; removed loosens.
//!
//! Findings are at the node that carries the junctor and quote the entry.

use serde_json::{Map, Value};

use crate::node::is_true;
use crate::report::Report;
use crate::rules::Rule;

type Node = Map<String, Value>;

const FIX: &str = "make sure every value the old schema allowed still matches, or add the check only in a new version";

fn entries<'a>(node: &'a Node, key: &str) -> &'a [Value] {
    node.get(key).and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

/// The entries of `a` that `b` does not have, compared by [`super::canonical`] form.
fn missing<'a>(a: &'a [Value], b: &[Value]) -> Vec<&'a Value> {
    let present: std::collections::HashSet<String> = b.iter().map(super::canonical).collect();
    a.iter().filter(|entry| !present.contains(&super::canonical(entry))).collect()
}

/// `anyOf: [{type: integer}, {type: string}]` (also inside an `allOf` entry, the API server's
/// other spelling) on an int-or-string node.
fn int_or_string_any_of(node: &Node, any_of: &Value) -> bool {
    let types: Vec<Option<&str>> = any_of
        .as_array()
        .map_or(&[][..], Vec::as_slice)
        .iter()
        .map(|e| e.get("type").and_then(Value::as_str))
        .collect();
    is_true(node, "x-kubernetes-int-or-string") && types == [Some("integer"), Some("string")]
}

/// Whether `entry`, added to the `oneOf` of a node that had one, is a new variant of an enum
/// with data: it requires a property no stored object can hold, because the old node did not
/// declare it and kept no unknown fields (the server pruned any such key), and the new node
/// gives it no default (a default would put it in every stored object as it is read).
fn new_variant(entry: &Value, old: &Node, new: &Node) -> bool {
    if entries(old, "oneOf").is_empty()
        || is_true(old, "x-kubernetes-preserve-unknown-fields")
        || old.get("additionalProperties").is_some_and(|a| a != &Value::Bool(false))
    {
        return false;
    }
    let declared_before = |name: &str| old.get("properties").and_then(|p| p.get(name)).is_some();
    let defaulted_now =
        |name: &str| new.get("properties").and_then(|p| p.get(name)).and_then(|f| f.get("default")).is_some();
    entry
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .any(|name| !declared_before(name) && !defaulted_now(name))
}

pub(super) fn compare(old: &Node, new: &Node, path: &str, report: &mut Report) {
    let mut add = |message: String| {
        report.add(Rule::CompatJunctor, path, format!("{message}: values valid before may no longer match"), FIX)
    };
    let (old_all, new_all) = (entries(old, "allOf"), entries(new, "allOf"));
    for entry in missing(new_all, old_all) {
        if !entry.get("anyOf").is_some_and(|any_of| int_or_string_any_of(new, any_of)) {
            add(format!("allOf entry added or changed: {entry}"));
        }
    }
    let (old_any, new_any) = (entries(old, "anyOf"), entries(new, "anyOf"));
    if old_any.is_empty()
        && !new_any.is_empty()
        && !new.get("anyOf").is_some_and(|any_of| int_or_string_any_of(new, any_of))
    {
        add("anyOf added where there was none".to_string());
    } else if !new_any.is_empty() {
        for entry in missing(old_any, new_any) {
            add(format!("anyOf entry removed or changed: {entry}"));
        }
    }
    let (old_one, new_one) = (entries(old, "oneOf"), entries(new, "oneOf"));
    for entry in missing(old_one, new_one) {
        add(format!("oneOf entry removed or changed: {entry}"));
    }
    for entry in missing(new_one, old_one).into_iter().filter(|e| !new_variant(e, old, new)) {
        add(format!("oneOf entry added: {entry}"));
    }
    match (old.get("not"), new.get("not")) {
        (None, Some(added)) => add(format!("not added: {added}")),
        (Some(before), Some(after)) if before != after => add(format!("not changed: {before} -> {after}")),
        _ => {}
    }
}
