//! `x-kubernetes-validations` on a custom object (`pkg/apiserver/schema/cel/validation.go`):
//! every rule that does not use `oldSelf` (transition rules run on update only) is evaluated
//! with `self` bound to the value at its node, as [`super::cel_value`] exposes it. A rule that
//! evaluates to `false` is a `sample.cel` error with the rule's `messageExpression` result,
//! `message`, or `failed rule: <rule>`, at the node's path (plus `fieldPath`), with the
//! `reason`'s error type. A rule the `cel` crate cannot parse or evaluate (a Kubernetes CEL
//! library it lacks, such as `quantity`, `url`, `ip` or `format`) is a
//! `sample.cel-unevaluated` warning.
//!
//! The environment is CEL's standard library with the `strings`, `lists` and `math`
//! extensions and `matches` (RE2-like, through the `regex` crate).

use std::sync::Arc;

use cel::{Context, Env, Program};
use serde_json::Value;

use super::cel_value::{to_cel, visible};
use super::path::Path;
use super::prune::additional;
use crate::report::Report;
use crate::rules::Rule;

/// Evaluates every rule of `root` and its descendants on `object` (pruned and defaulted).
pub(crate) fn validate(object: &Value, root: &Value, report: &mut Report) {
    let mut env = Env::stdlib();
    for extension in [cel::extensions::strings, cel::extensions::lists, cel::extensions::math] {
        if env.add_extension(extension).is_err() {
            continue;
        }
    }
    let env = Arc::new(env);
    node(&env, object, root, &Path::default(), true, report);
}

/// Why the rules of `schema` and the schemas below it refuse `value` as a `default` (the API
/// server evaluates them on every default, apiextensions' "defaults must validate"), in the
/// server's words; `None` when they pass or cannot be evaluated here.
pub(crate) fn refuse_default(value: &Value, schema: &Value) -> Option<String> {
    let mut report = Report::default();
    let mut env = Env::stdlib();
    for extension in [cel::extensions::strings, cel::extensions::lists, cel::extensions::math] {
        if env.add_extension(extension).is_err() {
            continue;
        }
    }
    node(&Arc::new(env), value, schema, &Path::default(), false, &mut report);
    report.into_findings().into_iter().find_map(|f| match f.rule {
        Rule::SampleCel => Some(f.message),
        // A field the rule reads and the default lacks: the server refuses it with an
        // evaluation error, `no such key: <field> evaluating rule: <rule>`.
        Rule::SampleCelUnevaluated => {
            let (_, key) = f.message.split_once("No such key: ")?;
            let key = key.split(';').next()?;
            let rule = f.message.strip_prefix("rule ")?.split(" cannot be evaluated").next()?;
            let rule: String = serde_json::from_str(rule).ok()?;
            let shown = schema.get("type").and_then(Value::as_str).unwrap_or("object");
            Some(format!("Invalid value: {shown:?}: no such key: {key} evaluating rule: {rule}"))
        }
        _ => None,
    })
}

/// Whether `schema` or any schema below it has `x-kubernetes-validations`.
pub(crate) fn has_rules(schema: &Value) -> bool {
    match schema {
        Value::Object(map) => map.contains_key("x-kubernetes-validations") || map.values().any(has_rules),
        Value::Array(items) => items.iter().any(has_rules),
        _ => false,
    }
}

fn node(env: &Arc<Env>, value: &Value, schema: &Value, path: &Path, resource: bool, report: &mut Report) {
    if value.is_null() {
        return;
    }
    if let Some(rules) = schema.get("x-kubernetes-validations").and_then(Value::as_array) {
        let this = to_cel(&visible(value, schema, resource));
        for rule in rules {
            evaluate(env, rule, &this, schema, path, report);
        }
    }
    match value {
        Value::Object(map) => {
            let props = schema.get("properties").and_then(Value::as_object);
            for (key, child) in map {
                if resource && key == "metadata" {
                    continue;
                }
                if let Some(prop) = props.and_then(|p| p.get(key)) {
                    node(env, child, prop, &path.field(key), false, report);
                } else if let Some(values) = additional(schema) {
                    node(env, child, values, &path.field(key), false, report);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for (i, item) in items.iter().enumerate() {
                    node(env, item, item_schema, &path.index(i), false, report);
                }
            }
        }
        _ => {}
    }
}

fn run(env: &Arc<Env>, source: &str, this: &cel::Value) -> Result<cel::Value, String> {
    let program = env.compile(source).map_err(|e| format!("cannot be parsed: {e}"))?;
    let mut context = Context::with_env(Arc::clone(env));
    context.add_variable_from_value("self", this.clone());
    program.execute(&context).map_err(|e| format!("cannot be evaluated: {e}"))
}

fn evaluate(env: &Arc<Env>, rule: &Value, this: &cel::Value, schema: &Value, path: &Path, report: &mut Report) {
    let Some(source) = rule.get("rule").and_then(Value::as_str) else { return };
    if Program::compile(source).is_ok_and(|p| p.references().has_variable("oldSelf")) {
        return;
    }
    let at = match rule.get("fieldPath").and_then(Value::as_str) {
        Some(field_path) => field_path_of(path, field_path),
        None => path.to_string(),
    };
    let unevaluated = |report: &mut Report, why: String| {
        report.add(
            Rule::SampleCelUnevaluated,
            at.clone(),
            format!("rule {source:?} {why}; the API server evaluates it on create"),
            "check this rule against a cluster (kubectl apply --dry-run=server)",
        );
    };
    let passed = match run(env, source, this) {
        Ok(cel::Value::Bool(b)) => b,
        Ok(other) => return unevaluated(report, format!("evaluated to {other:?}, not a bool")),
        Err(why) => return unevaluated(report, why),
    };
    if passed {
        return;
    }
    let message = rule
        .get("messageExpression")
        .and_then(Value::as_str)
        .and_then(|expr| match run(env, expr, this) {
            Ok(cel::Value::String(s)) if !s.trim().is_empty() => Some(s.to_string()),
            _ => None,
        })
        .or_else(|| rule.get("message").and_then(Value::as_str).map(str::to_string))
        .unwrap_or_else(|| format!("failed rule: {}", source.trim()));
    let shown = schema.get("type").and_then(Value::as_str).unwrap_or("object");
    let text = match rule.get("reason").and_then(Value::as_str) {
        Some("FieldValueForbidden") => format!("Forbidden: {message}"),
        Some("FieldValueRequired") => format!("Required value: {message}"),
        Some("FieldValueDuplicate") => format!("Duplicate value: {shown:?}: {message}"),
        // Kubernetes 1.37 leaves the value out of a failed rule's message.
        _ => format!("Invalid value: {message}"),
    };
    report.add(Rule::SampleCel, at, text, "change the object so that the rule holds");
}

/// The path of a rule's `fieldPath` (`.a.b`, `.m['k.1']`) below the node at `path`.
fn field_path_of(path: &Path, field_path: &str) -> String {
    let mut out = path.clone();
    let mut rest = field_path.trim();
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("['") {
            let end = r.find("']").unwrap_or(r.len());
            out = out.field(&r[..end]);
            rest = r.get(end + 2..).unwrap_or("");
        } else if let Some(r) = rest.strip_prefix('.') {
            let end = r.find(['.', '[']).unwrap_or(r.len());
            out = out.field(&r[..end]);
            rest = &r[end..];
        } else {
            break;
        }
    }
    out.to_string()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn run_rule(schema: Value, value: Value) -> Vec<(Rule, String)> {
        let mut report = Report::default();
        validate(&value, &schema, &mut report);
        report.into_findings().into_iter().map(|f| (f.rule, f.message)).collect()
    }

    fn rule(rule: &str, properties: Value) -> Value {
        json!({"type": "object", "properties": properties, "x-kubernetes-validations": [{"rule": rule}]})
    }

    #[test]
    fn coverage() {
        let props = json!({
            "name": {"type": "string"}, "namespace": {"type": "string"}, "a-b": {"type": "integer"},
            "ratio": {"type": "number"}, "list": {"type": "array", "items": {"type": "integer"}},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        });
        let value = json!({"name": "Abc", "namespace": "ns", "a-b": 2, "ratio": 1, "list": [1, 2],
            "labels": {"app.kubernetes.io/name": "x"}});
        for holds in [
            "self.name.matches('^[A-Z][a-z]+$')",
            "self.name.startsWith('A') && self.name.lowerAscii() == 'abc'",
            "self.__namespace__ == 'ns' && self.a__dash__b == 2",
            "self.ratio == 1.0 && self.ratio > 0.5",
            "self.list.all(x, x > 0) && self.list.exists(x, x == 2) && size(self.list) == 2",
            "has(self.name) && !has(self.missing)",
            "self.labels['app.kubernetes.io/name'] == 'x'",
            "self.name == oldSelf.name || false",
        ] {
            assert_eq!(run_rule(rule(holds, props.clone()), value.clone()), vec![], "{holds}");
        }
        let failed = run_rule(rule("self.a__dash__b > 2", props.clone()), value.clone());
        assert_eq!(failed, vec![(Rule::SampleCel, "Invalid value: failed rule: self.a__dash__b > 2".into())]);
        let unevaluated = run_rule(rule("quantity(self.name).isInteger()", props), value);
        assert_eq!(unevaluated[0].0, Rule::SampleCelUnevaluated);
    }

    #[test]
    fn message_expression_and_reason() {
        let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}}, "x-kubernetes-validations": [
            {"rule": "self.n < 3", "messageExpression": "'n is ' + string(self.n)", "reason": "FieldValueForbidden",
             "fieldPath": ".n"},
        ]});
        let mut report = Report::default();
        validate(&json!({"n": 5}), &schema, &mut report);
        let f = &report.into_findings()[0];
        assert_eq!((f.path.as_str(), f.message.as_str()), ("n", "Forbidden: n is 5"));
    }
}
