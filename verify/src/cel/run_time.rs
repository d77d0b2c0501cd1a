//! An upper bound of what one rule costs on one value, so that a rule the API server would
//! cancel is never run to the end here.
//!
//! The server stops a rule whose actual cost passes the per-call limit (apiextensions
//! `celconfig.PerCallLimit`, 1,000,000) with `operation cancelled: actual cost limit exceeded`.
//! The `cel` crate counts no cost, so a rule over a large value (three nested `all()` over a
//! 100-item list) would run for as long as it takes. The static estimate (`super::cost`), made
//! with the value's own sizes as the bounds of its lists, maps and strings, is an upper bound of
//! the actual cost: when it passes the limit, the rule is left to the server. A value the rule
//! derives whose size the schema cannot give (`string(self.n)`), which the server's estimate
//! takes as unbounded, is taken here to be at most as long as the value and the rule's text
//! together: bound enough to keep string operations from hiding a real cost, and loose enough
//! to be a bound for every rule that does not build strings in a loop.

use std::collections::HashMap;

use cel::common::ast::{EntryExpr, Expr, IdedEntryExpr, IdedExpr};
use serde_json::{Map, Value};

use super::{check, cost, decl, parse, types};

/// cel-go's limit on the actual cost of one evaluation of one rule in kube-apiserver
/// (apiextensions `pkg/apiserver/schema/cel/celconfig`: `PerCallLimit`).
pub(crate) const PER_CALL_LIMIT: u64 = 1_000_000;

/// The most all the rules run for one object (or all the defaults of one CRD) may cost
/// together (`celconfig.RuntimeCELCostBudget`).
pub(crate) const BUDGET: u64 = 10_000_000;

/// The estimated cost of `rule` with `self` bound to `value` at a node of schema `schema`
/// (`resource_root` for the schema's root or an embedded resource), using the sizes `value`
/// has instead of the schema's `maxItems`, `maxProperties` and `maxLength` where those are
/// smaller. A rule that does not type-check against `schema` (the API server refuses it) gets
/// the bound [`untyped`] gives. `None` when the rule does not parse.
pub(crate) fn estimate(
    rule: &str,
    schema: &Value,
    value: &Value,
    resource_root: bool,
    optional_old_self: bool,
) -> Option<u64> {
    let (parsed, _) = parse(rule).ok()?;
    let typed = typed(&parsed, rule, schema, value, resource_root, optional_old_self);
    Some(typed.unwrap_or_else(|| untyped(&parsed, rule, value)))
}

fn typed(
    parsed: &IdedExpr,
    rule: &str,
    schema: &Value,
    value: &Value,
    resource_root: bool,
    optional_old_self: bool,
) -> Option<u64> {
    let mut sizes = HashMap::new();
    measure(value, schema, String::new(), &mut sizes);
    let mut bounded = schema.clone();
    bound(&mut bounded, String::new(), &sizes);
    let decl = decl::declare(bounded.as_object()?, resource_root, "selfType")?;
    let this = decl.cel_type();
    let old_self = if optional_old_self { types::Type::Optional(Box::new(this.clone())) } else { this.clone() };
    let checked = check::check(parsed, &check::Variables { this, old_self });
    if !checked.errors.is_empty() {
        return None;
    }
    let derived = serde_json::to_string(value).map_or(0, |json| json.len()) + rule.len();
    let unknown = cost::Range { min: 0, max: derived as u64 };
    Some(cost::estimate_with(parsed, &checked, &decl, unknown).0.max)
}

/// A bound that needs no types: each comprehension runs at most once per node of `value`, so
/// `d` nested comprehensions take `(nodes + 1)^(d + 1)` steps of at most the rule's length each.
fn untyped(parsed: &IdedExpr, rule: &str, value: &Value) -> u64 {
    let nodes = nodes(value).saturating_add(1);
    nodes.saturating_pow(nesting(parsed).saturating_add(1)).saturating_mul(rule.len() as u64)
}

/// How many JSON values `value` holds, itself included.
fn nodes(value: &Value) -> u64 {
    match value {
        Value::Array(items) => items.iter().map(nodes).fold(1, u64::saturating_add),
        Value::Object(map) => map.values().map(nodes).fold(1, u64::saturating_add),
        _ => 1,
    }
}

/// How deep comprehensions (`all`, `exists`, `map`, `filter`, ...) nest in `e`.
fn nesting(e: &IdedExpr) -> u32 {
    let deepest = |exprs: Vec<&IdedExpr>| exprs.into_iter().map(nesting).max().unwrap_or(0);
    fn entries(entries: &[IdedEntryExpr]) -> Vec<&IdedExpr> {
        entries
            .iter()
            .flat_map(|entry| match &entry.expr {
                EntryExpr::MapEntry(me) => vec![&me.key, &me.value],
                EntryExpr::StructField(f) => vec![&f.value],
            })
            .collect()
    }
    match &e.expr {
        Expr::Comprehension(c) => {
            let body = deepest(vec![&c.loop_cond, &c.loop_step, &c.result]);
            deepest(vec![&c.iter_range, &c.accu_init]).max(body.saturating_add(1))
        }
        Expr::Call(call) => deepest(call.target.iter().map(|t| &**t).chain(call.args.iter()).collect()),
        Expr::Select(s) => nesting(&s.operand),
        Expr::List(l) => deepest(l.elements.iter().collect()),
        Expr::Map(m) => deepest(entries(&m.entries)),
        Expr::Struct(s) => deepest(entries(&s.entries)),
        _ => 0,
    }
}

/// Records, for each schema node under `at` (a path of `properties/<name>`, `items` and
/// `additionalProperties` steps), the largest size of a value found there: items of a list,
/// entries of a map, characters of a string.
fn measure(value: &Value, schema: &Value, at: String, sizes: &mut HashMap<String, u64>) {
    let size = match value {
        Value::Array(items) => items.len(),
        Value::Object(map) => map.len(),
        Value::String(s) => s.chars().count(),
        _ => return,
    };
    let seen = sizes.entry(at.clone()).or_default();
    *seen = (*seen).max(size as u64);
    match value {
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for item in items {
                    measure(item, item_schema, format!("{at}/items"), sizes);
                }
            }
        }
        Value::Object(map) => {
            let properties = schema.get("properties").and_then(Value::as_object);
            let values = schema.get("additionalProperties").filter(|v| v.is_object());
            for (key, child) in map {
                if let Some(child_schema) = properties.and_then(|p| p.get(key)) {
                    measure(child, child_schema, format!("{at}/properties/{key}"), sizes);
                } else if let Some(values) = values {
                    measure(child, values, format!("{at}/additionalProperties"), sizes);
                }
            }
        }
        _ => {}
    }
}

/// Lowers the size bounds of `schema` and the schemas below it to the sizes [`measure`] saw
/// (0 where it saw no value).
fn bound(schema: &mut Value, at: String, sizes: &HashMap<String, u64>) {
    let Some(node) = schema.as_object_mut() else { return };
    let seen = sizes.get(&at).copied().unwrap_or(0);
    let keyword = match node.get("type").and_then(Value::as_str) {
        Some("array") => Some("maxItems"),
        Some("object") => Some("maxProperties"),
        Some("string") => Some("maxLength"),
        _ => None,
    };
    if let Some(keyword) = keyword {
        let limit = node.get(keyword).and_then(Value::as_u64).map_or(seen, |given| given.min(seen));
        node.insert(keyword.to_string(), Value::from(limit));
    }
    if let Some(items) = node.get_mut("items") {
        bound(items, format!("{at}/items"), sizes);
    }
    if let Some(values) = node.get_mut("additionalProperties") {
        bound(values, format!("{at}/additionalProperties"), sizes);
    }
    if let Some(Value::Object(properties)) = node.get_mut("properties") {
        let properties: &mut Map<String, Value> = properties;
        for (key, child) in properties.iter_mut() {
            bound(child, format!("{at}/properties/{key}"), sizes);
        }
    }
}
