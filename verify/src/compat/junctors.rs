//! `allOf`, `anyOf`, `oneOf` and `not`: value checks a structural schema may combine (R42).
//! Entries present in both revisions are compared like any node; an entry added or removed is
//! judged by what it does to the set of valid values:
//! - `allOf`: every entry must match, so an entry added tightens and one removed loosens;
//! - `anyOf`: one entry must match, so an `anyOf` added where there was none, or an entry
//!   removed, tightens, and an entry added loosens;
//! - `oneOf`: exactly one must match, so any entry added or removed may tighten;
//! - `not`: added, or changed in any way, may tighten (inside it, looser means tighter, so its
//!   content is not compared keyword by keyword); removed loosens.
//!
//! Findings are at the node that carries the junctor and name the entry.

use serde_json::{Map, Value};

use crate::report::Report;
use crate::rules::Rule;

type Node = Map<String, Value>;

const FIX: &str = "make sure every value the old schema allowed still matches, or add the check only in a new version";

fn entries<'a>(node: &'a Node, key: &str) -> Option<Vec<&'a Node>> {
    node.get(key).and_then(Value::as_array).map(|list| list.iter().filter_map(Value::as_object).collect())
}

pub(super) fn compare(old: &Node, new: &Node, path: &str, report: &mut Report) {
    for key in ["allOf", "anyOf", "oneOf"] {
        let (before, after) = (entries(old, key), entries(new, key));
        let (before, after) = (before.unwrap_or_default(), after.unwrap_or_default());
        for (i, (a, b)) in before.iter().zip(&after).enumerate() {
            super::schema::compare(a, b, &format!("{path}.{key}[{i}]"), report);
        }
        let message = match key {
            "allOf" if after.len() > before.len() => {
                format!("allOf entry added: {}", Value::Object(after[before.len()].clone()))
            }
            "anyOf" if before.is_empty() && !after.is_empty() => "anyOf added where there was none".to_string(),
            "anyOf" if after.len() < before.len() => {
                format!("anyOf entry removed: {}", Value::Object(before[after.len()].clone()))
            }
            "oneOf" if after.len() != before.len() => {
                format!("oneOf changed from {} to {} entries", before.len(), after.len())
            }
            _ => continue,
        };
        report.add(Rule::CompatJunctor, path, format!("{message}: values valid before may no longer match"), FIX);
    }
    match (old.get("not"), new.get("not")) {
        (None, Some(added)) => {
            report.add(Rule::CompatJunctor, path, format!("not added: {added}: values that match it are refused"), FIX)
        }
        (Some(before), Some(after)) if before != after => report.add(
            Rule::CompatJunctor,
            path,
            format!("not changed: {before} -> {after}: values valid before may now match it and be refused"),
            FIX,
        ),
        _ => {}
    }
}
