//! Schema compatibility: a node of the old `openAPIV3Schema` against the node at the same
//! place in the new one.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use crate::node::is_true;
use crate::report::Report;
use crate::rules::{Rule, Severity};

type Node = Map<String, Value>;

/// Compares `old` with `new` (both at `path`), then their common children; a child `old` has
/// and `new` lacks is reported as removed, without looking further down.
pub(super) fn compare(old: &Node, new: &Node, path: &str, report: &mut Report) {
    if !compare_type(old, new, path, report) {
        // Everything below a retyped node changed meaning; one finding says it.
        return;
    }
    compare_required(old, new, path, report);
    compare_default(old, new, path, report);
    compare_enum(old, new, path, report);
    compare_bounds(old, new, path, report);
    compare_pattern_and_format(old, new, path, report);
    compare_nullable(old, new, path, report);
    compare_extensions(old, new, path, report);
    compare_rules(old, new, path, report);
    for (child, old_child) in children(old) {
        let child_path = format!("{path}{child}");
        match find_child(new, &child) {
            Some(new_child) => compare(old_child, new_child, &child_path, report),
            None => report.add(
                Rule::CompatFieldRemoved,
                &child_path,
                format!("{} removed: stored objects lose it on their next write, and clients that set or read it break", describe(&child)),
                "keep the field (say it is deprecated in its description), or add a new version without it and convert between the two",
            ),
        }
    }
}

/// The child schemas of a node, each with the path step that leads to it
/// (`.properties[name]`, `.items`, `.additionalProperties`, `.allOf[0]`, `.not`).
fn children(node: &Node) -> Vec<(String, &Node)> {
    let mut out = Vec::new();
    if let Some(properties) = node.get("properties").and_then(Value::as_object) {
        for (name, schema) in properties {
            if let Some(schema) = schema.as_object() {
                out.push((format!(".properties[{name}]"), schema));
            }
        }
    }
    for key in ["items", "additionalProperties", "not"] {
        if let Some(schema) = node.get(key).and_then(Value::as_object) {
            out.push((format!(".{key}"), schema));
        }
    }
    for key in ["allOf", "anyOf", "oneOf"] {
        for (i, schema) in node.get(key).and_then(Value::as_array).into_iter().flatten().enumerate() {
            if let Some(schema) = schema.as_object() {
                out.push((format!(".{key}[{i}]"), schema));
            }
        }
    }
    out
}

fn find_child<'a>(node: &'a Node, step: &str) -> Option<&'a Node> {
    children(node).into_iter().find(|(s, _)| s == step).map(|(_, n)| n)
}

/// `field "size"` for `.properties[size]`, else the step itself.
fn describe(step: &str) -> String {
    match step.strip_prefix(".properties[").and_then(|s| s.strip_suffix(']')) {
        Some(name) => format!("field {name:?}"),
        None => format!("{:?}", step.trim_start_matches('.')),
    }
}

/// The node's type as a client sees it: `int-or-string` for `x-kubernetes-int-or-string`.
fn effective_type(node: &Node) -> &str {
    if is_true(node, "x-kubernetes-int-or-string") {
        "int-or-string"
    } else {
        node.get("type").and_then(Value::as_str).unwrap_or("")
    }
}

/// Returns false if the type changed.
fn compare_type(old: &Node, new: &Node, path: &str, report: &mut Report) -> bool {
    let (before, after) = (effective_type(old), effective_type(new));
    if before == after {
        return true;
    }
    report.add(
        Rule::CompatType,
        path,
        format!("type changed: {before:?} -> {after:?}: clients decode the field with the old type, and stored values of the old type may no longer validate"),
        "keep the type; add a new field (or a new version with a conversion) for the new type",
    );
    false
}

fn names(node: &Node, key: &str) -> BTreeSet<String> {
    node.get(key).and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).map(String::from).collect()
}

fn compare_required(old: &Node, new: &Node, path: &str, report: &mut Report) {
    let added: Vec<String> = names(new, "required").difference(&names(old, "required")).cloned().collect();
    if !added.is_empty() {
        report.add(
            Rule::CompatRequired,
            path,
            format!("new required fields: {}: stored objects without them fail validation on their next update, and clients that omit them are refused", quoted(&added)),
            "make the new field optional with a default, or require it only in a new version",
        );
    }
}

fn quoted(values: &[String]) -> String {
    values.iter().map(|v| format!("{v:?}")).collect::<Vec<_>>().join(", ")
}

fn compare_default(old: &Node, new: &Node, path: &str, report: &mut Report) {
    let message = match (old.get("default"), new.get("default")) {
        (None, Some(after)) => {
            format!("default added: {after}: objects that omit the field now read as if it were set")
        }
        (Some(before), None) => {
            format!("default removed: {before}: objects that omitted the field now read without it")
        }
        (Some(before), Some(after)) if before != after => {
            format!("default changed: {before} -> {after}: objects that omit the field now read differently")
        }
        _ => return,
    };
    report.add(
        Rule::CompatDefault,
        path,
        message,
        "keep the default; the API server applies it when objects are read, so changing it changes existing objects",
    );
}

fn enum_values(node: &Node) -> Option<BTreeSet<String>> {
    node.get("enum").and_then(Value::as_array).map(|values| values.iter().map(Value::to_string).collect())
}

fn compare_enum(old: &Node, new: &Node, path: &str, report: &mut Report) {
    let Some(after) = enum_values(new) else { return };
    let Some(before) = enum_values(old) else {
        report.add(
            Rule::CompatEnum,
            path,
            format!("enum added where there was none: {}: stored objects with other values fail validation on their next update", list(&after)),
            "list every value clients may already use, or validate new values only in a new version",
        );
        return;
    };
    let removed: BTreeSet<String> = before.difference(&after).cloned().collect();
    if !removed.is_empty() {
        report.add(
            Rule::CompatEnum,
            path,
            format!(
                "allowed enum values removed: {}: stored objects with them fail validation on their next update",
                list(&removed)
            ),
            "keep the values (say they are deprecated in the description)",
        );
    }
    let added: BTreeSet<String> = after.difference(&before).cloned().collect();
    if !added.is_empty() {
        report.add_with(
            Severity::Warning,
            Rule::CompatEnum,
            path,
            format!("allowed enum values added: {}: clients that handle every known value meet new ones", list(&added)),
            "say in the field's description how clients should treat values they do not know",
        );
    }
}

fn list(values: &BTreeSet<String>) -> String {
    values.iter().cloned().collect::<Vec<_>>().join(", ")
}

/// Which way a bound tightens.
#[derive(Clone, Copy)]
enum Bound {
    /// A lower bound: raising it tightens.
    Lower,
    /// An upper bound: lowering it tightens.
    Upper,
}

fn compare_bounds(old: &Node, new: &Node, path: &str, report: &mut Report) {
    const BOUNDS: &[(&str, Bound, Rule)] = &[
        ("minimum", Bound::Lower, Rule::CompatMinimum),
        ("maximum", Bound::Upper, Rule::CompatMaximum),
        ("minLength", Bound::Lower, Rule::CompatMinLength),
        ("maxLength", Bound::Upper, Rule::CompatMaxLength),
        ("minItems", Bound::Lower, Rule::CompatMinItems),
        ("maxItems", Bound::Upper, Rule::CompatMaxItems),
        ("minProperties", Bound::Lower, Rule::CompatMinProperties),
        ("maxProperties", Bound::Upper, Rule::CompatMaxProperties),
    ];
    for &(key, bound, rule) in BOUNDS {
        let (before, after) = (old.get(key).and_then(Value::as_f64), new.get(key).and_then(Value::as_f64));
        let shown = |side: &Node| side.get(key).map(Value::to_string).unwrap_or_default();
        let message = match (before, after, bound) {
            (None, Some(_), _) => format!("{key} added where there was none: {}", shown(new)),
            (Some(b), Some(a), Bound::Lower) if a > b => format!("{key} raised: {} -> {}", shown(old), shown(new)),
            (Some(b), Some(a), Bound::Upper) if a < b => format!("{key} lowered: {} -> {}", shown(old), shown(new)),
            _ => {
                compare_exclusive(old, new, key, rule, path, report);
                continue;
            }
        };
        report.add(rule, path, message, FIX_BOUND);
    }
}

const FIX_BOUND: &str = "keep the old bound (values stored under it must stay valid), or tighten it only in a new version; the API server ratchets unchanged fields, but every write that touches the field must pass";

/// `exclusiveMinimum`/`exclusiveMaximum` turned on with the bound unchanged excludes the
/// bound itself.
fn compare_exclusive(old: &Node, new: &Node, key: &str, rule: Rule, path: &str, report: &mut Report) {
    let flag = match key {
        "minimum" => "exclusiveMinimum",
        "maximum" => "exclusiveMaximum",
        _ => return,
    };
    if old.contains_key(key) && !is_true(old, flag) && is_true(new, flag) && old.get(key) == new.get(key) {
        report.add(rule, path, format!("{flag} turned on: {} itself is no longer allowed", new[key]), FIX_BOUND);
    }
}

fn compare_pattern_and_format(old: &Node, new: &Node, path: &str, report: &mut Report) {
    for (key, rule) in [("pattern", Rule::CompatPattern), ("format", Rule::CompatFormat)] {
        let (before, after) = (old.get(key).and_then(Value::as_str), new.get(key).and_then(Value::as_str));
        let message = match (before, after) {
            (None, Some(a)) => format!("{key} added where there was none: {a:?}"),
            (Some(b), Some(a)) if a != b => format!("{key} changed: {b:?} -> {a:?}"),
            _ => continue,
        };
        report.add(
            rule,
            path,
            format!("{message}: stored values that do not match fail validation on their next update"),
            "keep the old pattern or format, or validate the new one only in a new version",
        );
    }
}

fn compare_nullable(old: &Node, new: &Node, path: &str, report: &mut Report) {
    match (is_true(old, "nullable"), is_true(new, "nullable")) {
        (true, false) => report.add(
            Rule::CompatNullable,
            path,
            "nullable removed: null is now dropped from requests, and clients that send null to clear the field no longer can",
            "keep nullable: true",
        ),
        (false, true) => report.add_with(
            Severity::Warning,
            Rule::CompatNullable,
            path,
            "nullable added: clients may now read null where they never did",
            "make sure clients treat null like an absent field",
        ),
        _ => {}
    }
}

fn compare_extensions(old: &Node, new: &Node, path: &str, report: &mut Report) {
    if is_true(old, "x-kubernetes-preserve-unknown-fields") && !is_true(new, "x-kubernetes-preserve-unknown-fields") {
        report.add(
            Rule::CompatPreserveUnknownFields,
            path,
            "x-kubernetes-preserve-unknown-fields removed: fields the schema does not declare are pruned from stored objects on their next write",
            "keep x-kubernetes-preserve-unknown-fields: true, or declare every field objects may hold",
        );
    }
    for key in ["x-kubernetes-list-type", "x-kubernetes-list-map-keys", "x-kubernetes-map-type"] {
        let (before, after) = (merge_setting(old, key), merge_setting(new, key));
        if before != after {
            let show = |v: Option<Value>| v.map_or_else(|| "unset".to_string(), |v| v.to_string());
            report.add(
                Rule::CompatListType,
                path,
                format!("{key} changed: {} -> {}: server-side apply merges the field differently, and stored lists may no longer be valid (duplicates in a set, missing keys in a map)", show(before), show(after)),
                "keep the list or map type; a different merge strategy needs a new field or version",
            );
        }
    }
}

/// A list or map merge setting with the API server's default filled in: a list without
/// `x-kubernetes-list-type` is atomic, an object without `x-kubernetes-map-type` granular
/// (R53), so spelling the default out changes nothing.
fn merge_setting(node: &Node, key: &str) -> Option<Value> {
    let implied = match (key, node.get("type").and_then(Value::as_str)) {
        ("x-kubernetes-list-type", Some("array")) => Some(Value::from("atomic")),
        ("x-kubernetes-map-type", Some("object")) => Some(Value::from("granular")),
        _ => None,
    };
    node.get(key).cloned().or(implied)
}

fn rules(node: &Node) -> Vec<&str> {
    node.get("x-kubernetes-validations")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|r| r.get("rule").and_then(Value::as_str).unwrap_or(""))
        .collect()
}

fn compare_rules(old: &Node, new: &Node, path: &str, report: &mut Report) {
    let before = rules(old);
    for (i, rule) in rules(new).into_iter().enumerate() {
        if !before.contains(&rule) {
            report.add(
                Rule::CompatCelRule,
                format!("{path}.x-kubernetes-validations[{i}].rule"),
                format!("rule added or changed: {rule:?}: stored objects may fail it; the API server ratchets fields an update leaves unchanged, so they stay writable until the update touches this field"),
                "make sure every value the old schema allowed passes the rule, or add the rule only in a new version",
            );
        }
    }
}
