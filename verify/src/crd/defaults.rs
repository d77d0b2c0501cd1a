//! `default` values (R57, R58), as apiextensions' `ValidateDefaults` checks them
//! (`pkg/apiserver/schema/defaulting/validation.go`): each default must already be pruned, and
//! must be a valid value where it stands: an embedded resource's metadata, the node's schema
//! with everything below it (formats included), then every CEL rule at and below the node,
//! transition rules with `oldSelf` bound to the default and `optionalOldSelf` rules as on
//! create, where a rule that fails at run time refuses the default too.

use serde_json::{Map, Value};

use crate::node::is_true;
use crate::report::{Report, quote};
use crate::rules::Rule;

/// R57 and R58 for the `default` of the node `obj` at `path`. `meta_chain` is not empty for a
/// node inside an embedded resource's `metadata`, `apiVersion` or `kind`: the properties from
/// the resource down to the node. `cel_spent` is what the rules run on the schema's defaults
/// so far may have cost; it grows by what this default's do.
pub(crate) fn check(
    report: &mut Report,
    obj: &Map<String, Value>,
    default: &Value,
    path: &str,
    meta_chain: &[String],
    cel_spent: &mut u64,
) {
    let default_path = format!("{path}.default");
    if !meta_chain.is_empty() {
        // The server puts the default into an otherwise empty resource of its own and checks
        // that resource's metadata; such a default is not checked for pruning.
        if let Some(why) = surrounding_metadata_error(default, meta_chain) {
            report.add(
                Rule::DefaultsInvalid,
                default_path,
                format!("Invalid value: {}: must result in valid metadata: {why}", quote(default)),
                "change the default so that the embedded resource's metadata stays valid",
            );
            return;
        }
    } else if let Some(field) = unknown_field(default, obj, "") {
        report.add(
            Rule::DefaultsNotPruned,
            default_path.clone(),
            format!("Invalid value: {default}: must not have unknown fields (.{field} is not in the schema)"),
            "remove fields the schema does not declare from the default, or declare them",
        );
    }
    for finding in crate::samples::default_errors(default, &Value::Object(obj.clone()), cel_spent) {
        // kube-openapi names what is below the default `default.[0].x`, the CEL validator
        // `default[0].x` (`fldPath.Index`).
        let at = match finding.path.as_str() {
            crate::samples::ROOT => default_path.clone(),
            below if below.starts_with('[') && finding.rule == Rule::SampleCel => format!("{default_path}{below}"),
            below => format!("{default_path}.{below}"),
        };
        let (rule, fix) = match finding.rule {
            Rule::SampleCel => (
                Rule::DefaultsCel,
                "change the default so that the rules at and below its node hold for it: the server runs them with \
                 oldSelf bound to the default itself, then as on create, without applying the defaults below it first",
            ),
            _ => (
                Rule::DefaultsInvalid,
                "change the default so that it is valid for its node's schema and the schemas below it",
            ),
        };
        report.add(rule, at, finding.message, fix);
    }
}

/// The metadata errors of a resource `{apiVersion: validation/v1, kind: Validation}` with
/// `default` at `chain`, as apimachinery aggregates them (`a`, or `[a, b]`).
fn surrounding_metadata_error(default: &Value, chain: &[String]) -> Option<String> {
    let mut object = serde_json::json!({"apiVersion": "validation/v1", "kind": "Validation"});
    let (last, parents) = chain.split_last()?;
    let mut at = &mut object;
    for key in parents {
        at = at.as_object_mut()?.entry(key.clone()).or_insert_with(|| Value::Object(Map::new()));
    }
    at.as_object_mut()?.insert(last.clone(), default.clone());
    let errors: Vec<String> = crate::samples::embedded_resource_errors(&object)
        .into_iter()
        .map(|f| format!("{}: {}", f.path, f.message))
        .collect();
    match errors.as_slice() {
        [] => None,
        [one] => Some(one.clone()),
        many => Some(format!("[{}]", many.join(", "))),
    }
}

/// A rule of the node `obj` (at `path`, which has a default) that does not compile: the API
/// server finds it when it evaluates the rules on the default, before it compiles the schema's
/// rules on their own, and reports it at the default, `Invalid value: "<type>": rule compile
/// error: <error>`. Adds that finding for each CEL compile error recorded since `mark` at the
/// node's own rules; [`Report::order_default_checks`] then drops the compile errors themselves.
pub(crate) fn compile_errors(report: &mut Report, mark: usize, obj: &Map<String, Value>, path: &str) {
    let rules = format!("{path}.x-kubernetes-validations[");
    let node_type = obj.get("type").and_then(Value::as_str).unwrap_or("");
    let failed: Vec<(usize, String)> = report
        .since(mark)
        .iter()
        .filter(|f| {
            f.is_error()
                && matches!(f.rule, Rule::CelSyntax | Rule::CelType | Rule::CelUndefinedField | Rule::CelReturnType)
        })
        .filter_map(|f| {
            let index = f.path.strip_prefix(&rules)?.strip_suffix("].rule")?.parse().ok()?;
            Some((index, after_value(&f.message).to_string()))
        })
        .collect();
    let default_path = format!("{path}.default");
    // A default that fails its schema or metadata never reaches its rules on the server.
    if report.since(0).iter().any(|f| f.rule == Rule::DefaultsInvalid && f.path.starts_with(&default_path)) {
        return;
    }
    for (index, error) in failed {
        // What evaluating the rule on the default said means nothing: the server never runs a
        // rule that does not compile.
        let rule = &obj["x-kubernetes-validations"][index];
        if let Some(source) = rule["rule"].as_str() {
            let source = source.trim();
            let message = rule["message"].as_str().map(str::trim).filter(|m| !m.is_empty());
            report.remove(|f| {
                let names = |said: &str| {
                    f.message.ends_with(&format!("rule: {said}")) || f.message.ends_with(&format!(": {said}"))
                };
                f.rule == Rule::DefaultsCel
                    && f.path.starts_with(&default_path)
                    && (names(source) || message.is_some_and(names))
            });
        }
        report.add(
            Rule::DefaultsCel,
            default_path.clone(),
            format!("Invalid value: {node_type:?}: rule compile error: {error}"),
            "fix the rule's compile error (reported for the rule itself once the default is valid)",
        );
    }
}

/// A message without its leading `Invalid value: "<rule>": `.
fn after_value(message: &str) -> &str {
    let Some(rest) = message.strip_prefix("Invalid value: \"") else { return message };
    let mut escaped = false;
    for (i, c) in rest.char_indices() {
        match (escaped, c) {
            (true, _) => escaped = false,
            (false, '\\') => escaped = true,
            (false, '"') => return rest[i + 1..].strip_prefix(": ").unwrap_or(message),
            _ => {}
        }
    }
    message
}

/// R58: the first field of `value` that pruning by `schema` would drop, as a dot path.
fn unknown_field(value: &Value, schema: &Map<String, Value>, at: &str) -> Option<String> {
    match value {
        Value::Object(map) => {
            let preserve = is_true(schema, "x-kubernetes-preserve-unknown-fields");
            let embedded = is_true(schema, "x-kubernetes-embedded-resource");
            let props = schema.get("properties").and_then(Value::as_object);
            for (k, v) in map {
                let here = if at.is_empty() { k.clone() } else { format!("{at}.{k}") };
                // An embedded resource's metadata is pruned as an ObjectMeta, whatever its
                // schema declares.
                if embedded && k == "metadata" {
                    continue;
                }
                if let Some(child) = props.and_then(|p| p.get(k)).and_then(Value::as_object) {
                    if let Some(f) = unknown_field(v, child, &here) {
                        return Some(f);
                    }
                    continue;
                }
                match schema.get("additionalProperties") {
                    Some(Value::Object(child)) => {
                        if let Some(f) = unknown_field(v, child, &here) {
                            return Some(f);
                        }
                    }
                    Some(Value::Bool(true)) => {}
                    _ if preserve || (embedded && ["apiVersion", "kind", "metadata"].contains(&k.as_str())) => {}
                    _ => return Some(here),
                }
            }
            None
        }
        Value::Array(items) => {
            let item_schema = schema.get("items").and_then(Value::as_object)?;
            items.iter().enumerate().find_map(|(i, v)| unknown_field(v, item_schema, &format!("{at}[{i}]")))
        }
        _ => None,
    }
}
