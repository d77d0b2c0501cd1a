//! One version's `openAPIV3Schema`: a recursive walk that hands every node to the rule
//! families (keywords R30–R37/R44, structural R38–R43, extensions R45–R52, metadata R54–R56,
//! defaults R57–R58, CEL R63–R72, lints).

mod extensions;
mod keywords;
mod lints;
mod meta;
mod structural;

use serde_json::{Map, Value};

use crate::cel::{self, RuleSite};
pub(crate) use crate::node::{is_true, type_of};
use crate::report::{Report, Unbounded};
use crate::rules::Rule;

/// Where a node sits relative to its parent; decides R38's message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Level {
    Root,
    Property,
    Items,
    AdditionalProperties,
}

/// What the walk knows about a node's position.
#[derive(Debug, Clone)]
pub(crate) struct NodeCx {
    pub(crate) level: Level,
    /// Inside `allOf`/`anyOf`/`oneOf`/`not`; `Some(true)` when the junctor hangs off the root.
    pub(crate) junctor: Option<bool>,
    /// Inside the root's `metadata`, `apiVersion` or `kind` subtree.
    pub(crate) root_meta: bool,
    /// Inside the `metadata`, `apiVersion` or `kind` subtree of the root or of an embedded resource.
    pub(crate) resource_meta: bool,
    /// Inside an `additionalProperties` below resource metadata (labels, annotations).
    pub(crate) meta_additional: bool,
    /// Inside the `metadata`, `apiVersion` or `kind` subtree of an embedded resource: the
    /// properties from the resource down to the node (`["metadata", "name"]`); empty elsewhere.
    pub(crate) meta_chain: Vec<String>,
    /// Path of the list whose items make `oldSelf` unusable below it (R71).
    pub(crate) uncorrelatable: Option<String>,
    /// Below an `additionalProperties`: the API server does not validate defaults there (R57).
    pub(crate) under_additional: bool,
    /// Below `items` or `additionalProperties`, which the API server decodes without strict
    /// field validation: unknown keys there are dropped, not refused.
    pub(crate) lenient: bool,
    /// How many times the node's rules can run for one object: the product of the `maxItems`
    /// and `maxProperties` above it; `None` when one of them is missing (R73).
    pub(crate) cardinality: Option<u64>,
    /// The lists and maps above the node without `maxItems` / `maxProperties`.
    pub(crate) unbounded_above: Vec<Unbounded>,
}

/// Facts about the whole CRD a schema check needs.
pub(crate) struct SchemaCx<'r> {
    pub(crate) report: &'r mut Report,
    /// The estimated costs of the schema's CEL rules (R75).
    pub(crate) cel_cost: cel::CostTotal,
    /// The version has the status subresource (R79).
    pub(crate) status_subresource: bool,
    /// What the CEL rules run on the schema's defaults so far may have cost: all of them share
    /// one run-time budget on the server.
    pub(crate) default_cel_spent: u64,
}

/// Walks the schema rooted at `root` (found at `path`).
pub(crate) fn check(root: &Value, path: &str, status_subresource: bool, _preserve_unknown: bool, report: &mut Report) {
    let mut cx = SchemaCx { report, cel_cost: Default::default(), status_subresource, default_cel_spent: 0 };
    let n = NodeCx {
        level: Level::Root,
        junctor: None,
        root_meta: false,
        resource_meta: false,
        meta_additional: false,
        meta_chain: Vec::new(),
        uncorrelatable: None,
        under_additional: false,
        lenient: false,
        cardinality: Some(1),
        unbounded_above: Vec::new(),
    };
    crate::cel::with_deep_stack(|| {
        let mark = cx.report.len();
        walk(&mut cx, root, path, &n);
        let total = std::mem::take(&mut cx.cel_cost);
        total.finish(cx.report, path);
        cx.report.order_default_checks(mark);
    });
}

const META_FIELDS: [&str; 3] = ["metadata", "apiVersion", "kind"];

fn walk(cx: &mut SchemaCx, node: &Value, path: &str, n: &NodeCx) {
    let Some(obj) = node.as_object() else {
        cx.report.add(
            Rule::SchemaNotObject,
            path,
            format!("Invalid value: {node}: must be a schema object"),
            "write the schema as a mapping such as {type: string}",
        );
        return;
    };
    keywords::check(cx, obj, path, n);
    if n.junctor.is_some() {
        structural::check_in_junctor(cx, obj, path, n);
    } else {
        structural::check(cx, obj, path, n);
        extensions::check(cx, obj, path, n);
        meta::check(cx, obj, path, n);
        if defaults_checked(obj, n) {
            let default = obj.get("default").unwrap_or(&Value::Null);
            super::defaults::check(cx.report, obj, default, path, &n.meta_chain, &mut cx.default_cel_spent);
        }
        if !n.resource_meta {
            lints::check(cx, obj, path);
        }
    }
    recurse(cx, obj, path, n);
    // A node's rules after its children, as the server checks them: a schema error anywhere
    // below keeps them from being compiled.
    if n.junctor.is_none()
        && let Some(rules) = obj.get("x-kubernetes-validations")
    {
        let is_root_metadata = n.root_meta && n.level == Level::Property && path.ends_with(".properties[metadata]");
        if !is_root_metadata {
            let site = RuleSite {
                root: n.level == Level::Root,
                cardinality: n.cardinality,
                unbounded_above: &n.unbounded_above,
                uncorrelatable: n.uncorrelatable.as_deref(),
            };
            let mark = cx.report.len();
            cel::check(cx.report, &mut cx.cel_cost, obj, rules, path, &site);
            if defaults_checked(obj, n) {
                super::defaults::compile_errors(cx.report, mark, obj, path);
            }
        }
    }
    // The API server checks completeness only for the junctors of the schema root (and what
    // they contain): validateStructuralCompleteness never descends into properties.
    if n.junctor.is_none() && n.level == Level::Root {
        structural::check_completeness(cx, obj, path);
    }
}

/// Whether the `default` of the node `obj` is validated: it has one, and it is not where
/// defaults are refused anyway (the root's meta fields, below `additionalProperties`).
fn defaults_checked(obj: &Map<String, Value>, n: &NodeCx) -> bool {
    !n.root_meta && !n.meta_additional && !n.under_additional && obj.get("default").is_some_and(|d| !d.is_null())
}

fn recurse(cx: &mut SchemaCx, obj: &Map<String, Value>, path: &str, n: &NodeCx) {
    let is_resource_root =
        n.junctor.is_none() && (n.level == Level::Root || is_true(obj, "x-kubernetes-embedded-resource"));
    if let Some(props) = obj.get("properties").and_then(Value::as_object) {
        for (key, child) in props {
            let meta_field = META_FIELDS.contains(&key.as_str());
            let c = NodeCx {
                level: Level::Property,
                junctor: n.junctor,
                root_meta: n.root_meta || (meta_field && n.level == Level::Root && n.junctor.is_none()),
                resource_meta: n.resource_meta || (meta_field && is_resource_root),
                meta_chain: if !n.meta_chain.is_empty() {
                    [n.meta_chain.as_slice(), std::slice::from_ref(key)].concat()
                } else if meta_field && is_resource_root && n.level != Level::Root && n.junctor.is_none() {
                    vec![key.clone()]
                } else {
                    Vec::new()
                },
                meta_additional: n.meta_additional,
                uncorrelatable: n.uncorrelatable.clone(),
                under_additional: n.under_additional,
                lenient: n.lenient,
                cardinality: n.cardinality,
                unbounded_above: n.unbounded_above.clone(),
            };
            walk(cx, child, &format!("{path}.properties[{key}]"), &c);
        }
    }
    if let Some(items) = obj.get("items").filter(|i| i.is_object()) {
        let map_list = obj.get("x-kubernetes-list-type").and_then(Value::as_str) == Some("map");
        let c = NodeCx {
            level: Level::Items,
            uncorrelatable: n.uncorrelatable.clone().or_else(|| (!map_list).then(|| path.to_string())),
            cardinality: times_bound(n.cardinality, obj, "maxItems"),
            lenient: true,
            unbounded_above: with_unbounded(&n.unbounded_above, obj, path, "maxItems"),
            meta_chain: Vec::new(),
            ..n.clone()
        };
        walk(cx, items, &format!("{path}.items"), &c);
    }
    if let Some(additional) = obj.get("additionalProperties").filter(|a| a.is_object()) {
        let c = NodeCx {
            level: Level::AdditionalProperties,
            meta_additional: n.meta_additional || n.resource_meta,
            under_additional: true,
            cardinality: times_bound(n.cardinality, obj, "maxProperties"),
            lenient: true,
            unbounded_above: with_unbounded(&n.unbounded_above, obj, path, "maxProperties"),
            ..n.clone()
        };
        walk(cx, additional, &format!("{path}.additionalProperties"), &c);
    }
    let junctor = Some(n.junctor.unwrap_or(n.level == Level::Root));
    let (skip_any_of, skip_all_of_first) = if n.junctor.is_none() && is_true(obj, "x-kubernetes-int-or-string") {
        int_or_string_junctors(obj)
    } else {
        (false, false)
    };
    for key in ["allOf", "anyOf", "oneOf"] {
        let Some(branches) = obj.get(key).and_then(Value::as_array) else { continue };
        if key == "anyOf" && skip_any_of {
            continue;
        }
        for (i, branch) in branches.iter().enumerate() {
            if key == "allOf" && i == 0 && skip_all_of_first {
                continue;
            }
            let c = NodeCx { junctor, ..n.clone() };
            walk(cx, branch, &format!("{path}.{key}[{i}]"), &c);
        }
    }
    if let Some(not) = obj.get("not") {
        let c = NodeCx { junctor, ..n.clone() };
        walk(cx, not, &format!("{path}.not"), &c);
    }
}

/// R45: the two junctor shapes that may name types next to `x-kubernetes-int-or-string`:
/// `anyOf: [{type: integer}, {type: string}]`, or that `anyOf` as the first `allOf` entry.
fn int_or_string_junctors(obj: &Map<String, Value>) -> (bool, bool) {
    let pair = |v: Option<&Value>| {
        v.and_then(Value::as_array).is_some_and(|a| {
            a.len() == 2
                && a[0] == serde_json::json!({"type": "integer"})
                && a[1] == serde_json::json!({"type": "string"})
        })
    };
    let any_of = pair(obj.get("anyOf"));
    let all_of_first = obj
        .get("allOf")
        .and_then(Value::as_array)
        .and_then(|a| a.first())
        .and_then(Value::as_object)
        .is_some_and(|first| first.len() == 1 && pair(first.get("anyOf")));
    (any_of, all_of_first)
}

/// A child's cardinality: the parent's times its `bound` (negative counts as 0), or `None`.
fn times_bound(cardinality: Option<u64>, obj: &Map<String, Value>, bound: &str) -> Option<u64> {
    let bound = obj.get(bound).and_then(Value::as_i64)?.max(0) as u64;
    Some(cardinality?.saturating_mul(bound))
}

/// `above`, plus the node at `path` when it lacks `bound`.
fn with_unbounded(above: &[Unbounded], obj: &Map<String, Value>, path: &str, bound: &'static str) -> Vec<Unbounded> {
    let mut out = above.to_vec();
    if !obj.contains_key(bound) {
        out.push(Unbounded { path: path.to_string(), keyword: bound });
    }
    out
}
