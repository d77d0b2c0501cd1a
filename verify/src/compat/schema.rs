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
    compare_multiple_of(old, new, path, report);
    compare_pattern_and_format(old, new, path, report);
    compare_nullable(old, new, path, report);
    compare_extensions(old, new, path, report);
    compare_rules(old, new, path, report);
    super::junctors::compare(old, new, path, report);
    let new_children: std::collections::HashMap<String, &Node> = children(new).into_iter().collect();
    for (child, old_child) in children(old) {
        let child_path = format!("{path}{child}");
        match new_children.get(&child) {
            Some(new_child) => compare(old_child, new_child, &child_path, report),
            // `additionalProperties: true` keeps every value: nothing is pruned.
            None if child == ".additionalProperties" && new.get("additionalProperties") == Some(&Value::Bool(true)) => {}
            // Unknown fields are kept there: the values stay, only the schema forgets them.
            None if child.starts_with(".properties[") && is_true(new, "x-kubernetes-preserve-unknown-fields") => {
                report.add_with(
                    Severity::Warning,
                    Rule::CompatFieldRemoved,
                    &child_path,
                    format!("{} removed from the schema: its parent keeps unknown fields, so stored values stay, but nothing validates, defaults or documents it any more", describe(&child)),
                    "keep the field in the schema (say it is deprecated in its description)",
                )
            }
            None => report.add(
                Rule::CompatFieldRemoved,
                &child_path,
                format!("{} removed: the API server prunes it from stored objects when it reads them (and for good on their next write), so clients that set or read it lose it", describe(&child)),
                "keep the field (say it is deprecated in its description), or add a new version without it and convert between the two",
            ),
        }
    }
}

/// The child schemas of a node that hold fields, each with the path step that leads to it
/// (`.properties[name]`, `.items`, `.additionalProperties`); `allOf`, `anyOf`, `oneOf` and
/// `not` are compared by [`super::junctors`].
fn children(node: &Node) -> Vec<(String, &Node)> {
    let mut out = Vec::new();
    if let Some(properties) = node.get("properties").and_then(Value::as_object) {
        for (name, schema) in properties {
            if let Some(schema) = schema.as_object() {
                out.push((format!(".properties[{name}]"), schema));
            }
        }
    }
    for key in ["items", "additionalProperties"] {
        if let Some(schema) = node.get(key).and_then(Value::as_object) {
            out.push((format!(".{key}"), schema));
        }
    }
    out
}

/// `field "size"` for `.properties[size]`, else the step itself.
fn describe(step: &str) -> String {
    match step.strip_prefix(".properties[").and_then(|s| s.strip_suffix(']')) {
        Some(name) => format!("field {name:?}"),
        None => format!("{:?}", step.trim_start_matches('.')),
    }
}

/// The field a node path is about (`spec.size`), or `the object` at the root.
fn describe_node(path: &str) -> String {
    super::field_of(path).unwrap_or_else(|| "the object".to_string())
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

/// A newly required field with a default breaks nobody: the API server defaults it on read
/// and on requests before it validates (R60), so it is never missing.
fn compare_required(old: &Node, new: &Node, path: &str, report: &mut Report) {
    let defaulted = |name: &String| {
        new.get("properties").and_then(|p| p.get(name)).is_some_and(|field| field.get("default").is_some())
    };
    let added: Vec<String> =
        names(new, "required").difference(&names(old, "required")).filter(|n| !defaulted(n)).cloned().collect();
    if !added.is_empty() {
        report.add(
            Rule::CompatRequired,
            path,
            format!("new required fields: {}: stored objects without them are refused on their next update (required is not ratcheted), and so are clients that omit them", quoted(&added)),
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
            format!(
                "default added: {after}: stored objects without the field read as if it were set, and new objects get it"
            )
        }
        (Some(before), None) => format!("default removed: {before}: new objects that omit the field no longer get it"),
        (Some(before), Some(after)) if !same_value(before, after) => format!(
            "default changed: {before} -> {after}: new objects that omit the field get {after}, while stored ones keep the value they were created with"
        ),
        _ => return,
    };
    let fix = if old.contains_key("default") {
        "keep the default: clients that omit the field rely on it"
    } else {
        "add the default only in a new version, or make sure clients that omit the field expect it"
    };
    report.add(Rule::CompatDefault, path, message, fix);
}

/// JSON equality, with numbers equal by value (`4` and `4.0`).
fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_value(x, y)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same_value(v, w)))
        }
        _ => a == b,
    }
}

fn enum_values(node: &Node) -> Option<BTreeSet<String>> {
    node.get("enum").and_then(Value::as_array).map(|values| values.iter().map(super::canonical).collect())
}

fn compare_enum(old: &Node, new: &Node, path: &str, report: &mut Report) {
    let Some(after) = enum_values(new) else { return };
    let Some(before) = enum_values(old) else {
        report.add(
            Rule::CompatEnum,
            path,
            format!("enum added where there was none: {}: other values {REFUSED}", list(&after)),
            "list every value clients may already use, or validate new values only in a new version",
        );
        return;
    };
    let removed: BTreeSet<String> = before.difference(&after).cloned().collect();
    if !removed.is_empty() {
        report.add(
            Rule::CompatEnum,
            path,
            format!("allowed enum values removed: {}: they {REFUSED}", list(&removed)),
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
            (None, Some(_), _) => {
                format!("{key} added where there was none: {}: values outside it {REFUSED}", shown(new))
            }
            (Some(b), Some(a), Bound::Lower) if a > b => {
                format!("{key} raised: {} -> {}: values below it {REFUSED}", shown(old), shown(new))
            }
            (Some(b), Some(a), Bound::Upper) if a < b => {
                format!("{key} lowered: {} -> {}: values above it {REFUSED}", shown(old), shown(new))
            }
            _ => {
                compare_exclusive(old, new, key, rule, path, report);
                continue;
            }
        };
        report.add(rule, path, message, FIX_BOUND);
    }
}

const FIX_BOUND: &str = "keep the old bound, or tighten it only in a new version";

/// What the API server does with values a tightened schema no longer allows (CRD validation
/// ratcheting, on by default since Kubernetes 1.30; shown in verify/tests/compat_differential.rs).
const REFUSED: &str =
    "are refused in new objects and in updates that change the field (stored ones are ratcheted while unchanged)";

/// A value is a multiple of the new `multipleOf` whenever it was one of the old exactly when
/// the old is a multiple of the new.
fn compare_multiple_of(old: &Node, new: &Node, path: &str, report: &mut Report) {
    let (before, after) =
        (old.get("multipleOf").and_then(Value::as_f64), new.get("multipleOf").and_then(Value::as_f64));
    let message = match (before, after) {
        (None, Some(_)) => format!("multipleOf added where there was none: {}", new["multipleOf"]),
        (Some(b), Some(a)) if a != b && (b / a).fract() != 0.0 => {
            format!("multipleOf changed: {} -> {}", old["multipleOf"], new["multipleOf"])
        }
        _ => return,
    };
    report.add(
        Rule::CompatMultipleOf,
        path,
        format!("{message}: values that are not multiples of it {REFUSED}"),
        FIX_BOUND,
    );
}

/// `exclusiveMinimum`/`exclusiveMaximum` turned on with the bound unchanged excludes the
/// bound itself.
fn compare_exclusive(old: &Node, new: &Node, key: &str, rule: Rule, path: &str, report: &mut Report) {
    let flag = match key {
        "minimum" => "exclusiveMinimum",
        "maximum" => "exclusiveMaximum",
        _ => return,
    };
    if old.contains_key(key) && !is_true(old, flag) && is_true(new, flag) && old.get(key) == new.get(key) {
        report.add(
            rule,
            path,
            format!("{flag} turned on: {} itself is now outside the bound, and values outside it {REFUSED}", new[key]),
            FIX_BOUND,
        );
    }
}

fn compare_pattern_and_format(old: &Node, new: &Node, path: &str, report: &mut Report) {
    for (key, rule) in [("pattern", Rule::CompatPattern), ("format", Rule::CompatFormat)] {
        let (before, after) = (old.get(key).and_then(Value::as_str), new.get(key).and_then(Value::as_str));
        let (message, fix) = match (before, after) {
            (None, Some(a)) => (
                format!("{key} added where there was none: {a:?}"),
                format!("make sure every stored value matches before adding a {key}, or add it only in a new version"),
            ),
            (Some(b), Some(a)) if a != b && !(key == "format" && widens(b, a)) => (
                format!("{key} changed: {b:?} -> {a:?}"),
                format!("keep the old {key}, or change it only in a new version"),
            ),
            _ => continue,
        };
        report.add(rule, path, format!("{message}: values that do not match {REFUSED}"), &fix);
    }
}

/// Whether every value of numeric format `before` also has format `after` (int32 to int64,
/// float to double).
fn widens(before: &str, after: &str) -> bool {
    matches!((before, after), ("int32", "int64") | ("float", "double"))
}

fn compare_nullable(old: &Node, new: &Node, path: &str, report: &mut Report) {
    match (is_true(old, "nullable"), is_true(new, "nullable")) {
        (true, false) => report.add(
            Rule::CompatNullable,
            path,
            "nullable removed: the API server drops null values, also from stored objects when it reads them, so clients that clear the field with null no longer can",
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
    if is_true(old, "x-kubernetes-embedded-resource") && !is_true(new, "x-kubernetes-embedded-resource") {
        report.add(
            Rule::CompatType,
            path,
            "x-kubernetes-embedded-resource removed: apiVersion, kind and metadata are no longer implied, so stored values lose them when read unless the schema declares them",
            "keep x-kubernetes-embedded-resource: true",
        );
    }
    if !is_true(old, "x-kubernetes-embedded-resource") && is_true(new, "x-kubernetes-embedded-resource") {
        report.add(
            Rule::CompatType,
            path,
            "x-kubernetes-embedded-resource added: the value must now be a whole object with apiVersion, kind and metadata, so stored values without them are refused on every update",
            "keep the field as it was; an embedded object belongs in a new field",
        );
    }
    if is_true(old, "x-kubernetes-preserve-unknown-fields") && !is_true(new, "x-kubernetes-preserve-unknown-fields") {
        report.add(
            Rule::CompatPreserveUnknownFields,
            path,
            "x-kubernetes-preserve-unknown-fields removed: fields the schema does not declare are pruned from stored objects when they are read, and for good on their next write",
            "keep x-kubernetes-preserve-unknown-fields: true, or declare every field objects may hold",
        );
    }
    const MERGE: &[(&str, &str)] = &[
        (
            "x-kubernetes-list-type",
            "server-side apply merges the list differently, and stored lists may no longer be valid (duplicate items in a set, items without their keys in a map)",
        ),
        (
            "x-kubernetes-list-map-keys",
            "server-side apply merges the list by other keys, and stored items may repeat them",
        ),
        ("x-kubernetes-map-type", "server-side apply merges the object differently (whole, or field by field)"),
    ];
    for &(key, effect) in MERGE {
        let (before, after) = (merge_setting(old, key), merge_setting(new, key));
        if before != after {
            let show = |node: &Node, v: Option<Value>| match (node.get(key), v) {
                (None, Some(implied)) => format!("unset ({})", implied.as_str().unwrap_or_default()),
                (_, Some(v)) => v.to_string(),
                (_, None) => "unset".to_string(),
            };
            report.add(
                Rule::CompatListType,
                path,
                format!("{key} changed: {} -> {}: {effect}", show(old, before), show(new, after)),
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

/// A rule's text without the whitespace outside string literals, so reformatting a rule is no
/// change.
fn normalized(rule: &str) -> String {
    let mut out = String::new();
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for c in rule.chars() {
        match quote {
            Some(q) => {
                out.push(c);
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == q {
                    quote = None;
                }
            }
            None if c.is_whitespace() => {}
            None => {
                if c == '"' || c == '\'' {
                    quote = Some(c);
                }
                out.push(c);
            }
        }
    }
    out
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
    let before: Vec<String> = rules(old).into_iter().map(normalized).collect();
    for (i, rule) in rules(new).into_iter().enumerate() {
        if !before.contains(&normalized(rule)) {
            report.add(
                Rule::CompatCelRule,
                format!("{path}.x-kubernetes-validations[{i}].rule"),
                format!("rule added or changed: {rule:?}: stored objects may fail it; the API server skips a rule only while the value it sits on is unchanged, so any update that changes something in {} must pass it", describe_node(path)),
                "make sure every value the old schema allowed passes the rule, or add the rule only in a new version",
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{normalized, same_value};

    #[test]
    fn numbers_compare_by_value() {
        assert!(same_value(&json!(4), &json!(4.0)));
        assert!(same_value(&json!({"a": [1, 2.0]}), &json!({"a": [1.0, 2]})));
        assert!(!same_value(&json!({"a": 1}), &json!({"a": 1, "b": 2})));
        assert!(!same_value(&json!("4"), &json!(4)));
    }

    #[test]
    fn rules_compare_without_whitespace_outside_strings() {
        assert_eq!(normalized("self.size  <=\n 10"), normalized("self.size<=10"));
        assert_ne!(normalized("self.name == 'a b'"), normalized("self.name == 'ab'"));
        assert_eq!(normalized(r#"self.s == "x\" y" && true"#), r#"self.s=="x\" y"&&true"#);
    }
}
