//! `default` values (R57, R58): each must validate against its own node, including its CEL
//! rules, and already be pruned.

use serde_json::{Map, Value};

use crate::node::{is_true, type_of};
use crate::report::{Report, quote};
use crate::rules::Rule;

/// R57 and R58 for the `default` of the node `obj` at `path`.
pub(crate) fn check(report: &mut Report, obj: &Map<String, Value>, default: &Value, path: &str) {
    let default_path = format!("{path}.default");
    if let Some(err) = validate(default, obj, "") {
        report.add(
            Rule::DefaultsInvalid,
            default_path.clone(),
            format!("Invalid value: {}: {err}", quote(default)),
            "change the default so it satisfies the node's own type, enum, pattern and bounds",
        );
    }
    if let Some(why) = crate::samples::refuse_default_by_rules(default, &Value::Object(obj.clone())) {
        report.add(
            Rule::DefaultsCel,
            default_path.clone(),
            why,
            "change the default so that the node's x-kubernetes-validations rules hold for it (nested defaults are not applied first)",
        );
    }
    if let Some(field) = unknown_field(default, obj, "") {
        report.add(
            Rule::DefaultsNotPruned,
            default_path,
            format!("Invalid value: {}: must not have unknown fields (.{field} is not in the schema)", default),
            "remove fields the schema does not declare from the default, or declare them",
        );
    }
}

/// The first reason `value` fails `schema`, with `at` the place inside the default.
fn validate(value: &Value, schema: &Map<String, Value>, at: &str) -> Option<String> {
    let here = if at.is_empty() { "default".to_string() } else { format!("default{at}") };
    if value.is_null() {
        return (!is_true(schema, "nullable")).then(|| format!("{here} in body must not be null"));
    }
    let int_or_string = is_true(schema, "x-kubernetes-int-or-string");
    let t = type_of(schema);
    let type_ok = match t {
        _ if int_or_string => value.is_string() || is_integer(value),
        "" => true,
        "string" => value.is_string(),
        "integer" => is_integer(value),
        "number" => value.is_number(),
        "boolean" => value.is_boolean(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        _ => true,
    };
    if !type_ok {
        let want = if int_or_string { "integer or string" } else { t };
        return Some(format!("{here} in body must be of type {want}: {:?}", json_type(value)));
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array)
        && !values.iter().any(|v| json_eq(v, value))
    {
        let supported: Vec<String> = values.iter().map(quote).collect();
        return Some(format!(
            "{here}: Unsupported value: {}: supported values: {}",
            quote(value),
            supported.join(", ")
        ));
    }
    if let Some(err) = bounds(value, schema, &here) {
        return Some(err);
    }
    match value {
        Value::Object(map) => {
            for req in schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str)
            {
                if !map.contains_key(req) {
                    return Some(format!("{here}.{req} in body is required"));
                }
            }
            let props = schema.get("properties").and_then(Value::as_object);
            for (k, v) in map {
                let child = props.and_then(|p| p.get(k)).or_else(|| schema.get("additionalProperties"));
                if let Some(Value::Object(child)) = child
                    && let Some(err) = validate(v, child, &format!("{at}.{k}"))
                {
                    return Some(err);
                }
            }
        }
        Value::Array(items) => {
            if let Some(Value::Object(item_schema)) = schema.get("items") {
                for (i, v) in items.iter().enumerate() {
                    if let Some(err) = validate(v, item_schema, &format!("{at}[{i}]")) {
                        return Some(err);
                    }
                }
            }
        }
        _ => {}
    }
    junctors(value, schema, at, &here)
}

fn junctors(value: &Value, schema: &Map<String, Value>, at: &str, here: &str) -> Option<String> {
    let branches = |key: &str| -> Vec<&Map<String, Value>> {
        schema
            .get(key)
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_object).collect())
            .unwrap_or_default()
    };
    for branch in branches("allOf") {
        if let Some(err) = validate(value, branch, at) {
            return Some(err);
        }
    }
    let any_of = branches("anyOf");
    if !any_of.is_empty() && any_of.iter().all(|b| validate(value, b, at).is_some()) {
        return Some(format!("{here} in body must validate at least one schema (anyOf)"));
    }
    let one_of = branches("oneOf");
    if !one_of.is_empty() && one_of.iter().filter(|b| validate(value, b, at).is_none()).count() != 1 {
        return Some(format!("{here} in body must validate one and only one schema (oneOf)"));
    }
    if let Some(not) = schema.get("not").and_then(Value::as_object)
        && validate(value, not, at).is_none()
    {
        return Some(format!("{here} in body must not validate the schema (not)"));
    }
    None
}

fn bounds(value: &Value, schema: &Map<String, Value>, here: &str) -> Option<String> {
    let num = |k: &str| schema.get(k).and_then(Value::as_f64);
    let flag = |k: &str| is_true(schema, k);
    let count = |k: &str| schema.get(k).and_then(Value::as_u64);
    match value {
        Value::Number(n) => {
            let x = n.as_f64()?;
            if let Some(max) = num("maximum")
                && (x > max || (flag("exclusiveMaximum") && x == max))
            {
                let op = if flag("exclusiveMaximum") { "less than" } else { "less than or equal to" };
                return Some(format!("{here} in body should be {op} {max}"));
            }
            if let Some(min) = num("minimum")
                && (x < min || (flag("exclusiveMinimum") && x == min))
            {
                let op = if flag("exclusiveMinimum") { "greater than" } else { "greater than or equal to" };
                return Some(format!("{here} in body should be {op} {min}"));
            }
            if let Some(m) = num("multipleOf").filter(|m| *m > 0.0)
                && (x / m).fract().abs() > 1e-9
            {
                return Some(format!("{here} in body should be a multiple of {m}"));
            }
        }
        Value::String(s) => {
            let len = s.chars().count() as u64;
            if let Some(max) = count("maxLength").filter(|m| len > *m) {
                return Some(format!("{here} in body should be at most {max} chars long"));
            }
            if let Some(min) = count("minLength").filter(|m| len < *m) {
                return Some(format!("{here} in body should be at least {min} chars long"));
            }
            if let Some(pattern) = schema.get("pattern").and_then(Value::as_str)
                && regex::Regex::new(pattern).is_ok_and(|re| !re.is_match(s))
            {
                return Some(format!("{here} in body should match '{pattern}'"));
            }
        }
        Value::Array(a) => {
            let len = a.len() as u64;
            if let Some(max) = count("maxItems").filter(|m| len > *m) {
                return Some(format!("{here} in body should have at most {max} items"));
            }
            if let Some(min) = count("minItems").filter(|m| len < *m) {
                return Some(format!("{here} in body should have at least {min} items"));
            }
        }
        Value::Object(o) => {
            let len = o.len() as u64;
            if let Some(max) = count("maxProperties").filter(|m| len > *m) {
                return Some(format!("{here} in body should have at most {max} properties"));
            }
            if let Some(min) = count("minProperties").filter(|m| len < *m) {
                return Some(format!("{here} in body should have at least {min} properties"));
            }
        }
        _ => {}
    }
    None
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

fn is_integer(v: &Value) -> bool {
    v.as_i64().is_some() || v.as_u64().is_some() || v.as_f64().is_some_and(|f| f.fract() == 0.0)
}

/// Numbers compare by value (`1` equals `1.0`), everything else structurally.
fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_f64() => "number",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}
