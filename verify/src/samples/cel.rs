//! `x-kubernetes-validations` on a custom object (`pkg/apiserver/schema/cel/validation.go`):
//! every rule is evaluated with `self` bound to the value at its node, as
//! [`super::cel_value`] exposes it, and `oldSelf` as [`OldSelf`] says. A rule that evaluates
//! to `false` is a `sample.cel` error with the rule's `messageExpression` result, `message`,
//! or `failed rule: <rule>`, at the node's path (plus `fieldPath`), with the `reason`'s error
//! type. A rule that fails at run time the way cel-go fails too (a missing key, division or
//! modulus by zero, an index out of range, an integer overflow) is a `sample.cel` error in the
//! server's words, `<error> evaluating rule: <message or rule>`, at the node. A rule the `cel`
//! crate cannot parse or evaluate (a Kubernetes CEL library it lacks, such as `quantity`,
//! `url`, `ip`, `format`, or durations and timestamps) is a `sample.cel-unevaluated` warning.
//!
//! The environment is CEL's standard library with the `strings`, `lists` and `math`
//! extensions, optional values, and `matches` (RE2-like, through the `regex` crate).

use std::sync::Arc;

use cel::objects::OptionalValue;
use cel::{Context, Env, ExecutionError, Program};
use serde_json::Value;

use super::cel_value::self_value;
use super::path::Path;
use super::prune::{additional, is_true};
use crate::cel::run_time;
use crate::report::{Finding, Report};
use crate::rules::Rule;

/// What `oldSelf` is bound to (the server's `validationActivationWithOldSelf`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OldSelf {
    /// No old object, as on create: rules that use `oldSelf` are skipped, except those with
    /// `optionalOldSelf: true`, which see `oldSelf` as `optional.none()`.
    Absent,
    /// An old object equal to the new one wherever the two correlate (object properties, map
    /// values, items of `x-kubernetes-list-type: map` lists; not other list items, which are
    /// [`OldSelf::Absent`]): how the server checks a `default` first, so transition rules run
    /// with `oldSelf == self`.
    Unchanged,
}

/// Evaluates every rule of `root` and its descendants on `object` (pruned and defaulted), as on
/// create. The rules are parsed on a deep stack, as the verifier's are.
pub(crate) fn validate(object: &Value, root: &Value, report: &mut Report) {
    crate::cel::with_deep_stack(|| {
        node(&mut Evaluator::new(), object, root, &Path::default(), true, OldSelf::Absent, report);
    });
}

/// The errors the rules of `schema` and of the schemas below it give for `value` as that
/// node's `default` (apiextensions' `ValidateDefaults`): the rules run with `oldSelf` equal to
/// the default, then, only if none failed, once more as on create. Paths are relative to the
/// default (`(root)` for the default itself); only errors are returned. The rules draw on
/// the run-time budget `spent` says how much of is used: the server gives all the defaults of
/// a schema one.
pub(crate) fn default_errors(value: &Value, schema: &Value, spent: &mut u64) -> Vec<Finding> {
    let mut evaluator = Evaluator::new();
    evaluator.spent = *spent;
    let resource = is_true(schema, "x-kubernetes-embedded-resource");
    let mut errors = |old| {
        let mut report = Report::default();
        node(&mut evaluator, value, schema, &Path::default(), resource, old, &mut report);
        report.into_findings().into_iter().filter(Finding::is_error).collect::<Vec<_>>()
    };
    let unchanged = errors(OldSelf::Unchanged);
    let found = if unchanged.is_empty() { errors(OldSelf::Absent) } else { unchanged };
    *spent = evaluator.spent;
    found
}

/// Whether `schema` or any schema below it has `x-kubernetes-validations`.
pub(crate) fn has_rules(schema: &Value) -> bool {
    match schema {
        Value::Object(map) => map.contains_key("x-kubernetes-validations") || map.values().any(has_rules),
        Value::Array(items) => items.iter().any(has_rules),
        _ => false,
    }
}

/// The environment rules run in, and what the rules run so far may have cost.
struct Evaluator {
    env: Arc<Env>,
    /// The sum of the estimated costs of the rules run so far (see [`crate::cel::run_time`]).
    spent: u64,
}

impl Evaluator {
    fn new() -> Evaluator {
        let mut env = Env::stdlib();
        for extension in [cel::extensions::strings, cel::extensions::lists, cel::extensions::math] {
            if env.add_extension(extension).is_err() {
                continue;
            }
        }
        Evaluator { env: Arc::new(env), spent: 0 }
    }
}

fn node(
    ev: &mut Evaluator,
    value: &Value,
    schema: &Value,
    path: &Path,
    resource: bool,
    old: OldSelf,
    report: &mut Report,
) {
    if value.is_null() {
        return;
    }
    let this = || self_value(value, schema, resource);
    let branches = schema.get("allOf").and_then(Value::as_array).into_iter().flatten();
    // Rules inside `allOf` branches run too, on the value as the node's own schema shows it.
    let rule_lists = std::iter::once(schema).chain(branches).filter_map(|s| s.get("x-kubernetes-validations"));
    let mut bound = None;
    for rules in rule_lists.filter_map(Value::as_array) {
        let this = bound.get_or_insert_with(this);
        let site = Site { value, this, schema, path, resource };
        for rule in rules {
            evaluate(ev, rule, &site, old, report);
        }
    }
    match value {
        Value::Object(map) => {
            let props = schema.get("properties").and_then(Value::as_object);
            for (key, child) in map {
                if resource && key == "metadata" {
                    continue;
                }
                // A map value's path names its key as `[key]` (`fldPath.Key`).
                let child_at = match props.and_then(|p| p.get(key)) {
                    Some(prop) => Some((prop, path.field(key))),
                    None => additional(schema).map(|values| (values, path.key(key))),
                };
                if let Some((child_schema, child_path)) = child_at {
                    let embedded = is_true(child_schema, "x-kubernetes-embedded-resource");
                    node(ev, child, child_schema, &child_path, embedded, old, report);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                let map_list = schema.get("x-kubernetes-list-type").and_then(Value::as_str) == Some("map");
                let old = if map_list { old } else { OldSelf::Absent };
                let embedded = is_true(item_schema, "x-kubernetes-embedded-resource");
                for (i, item) in items.iter().enumerate() {
                    node(ev, item, item_schema, &path.index(i), embedded, old, report);
                }
            }
        }
        _ => {}
    }
}

/// Why a rule gave no verdict.
enum Failure {
    /// cel-go fails the same way at run time; the server's words for it (`no such key: x`).
    AsServer(String),
    /// No overload for the values' run-time types: cel-go meets this only where the types were
    /// not known when the rule was compiled (an int-or-string value).
    NoOverload,
    /// The `cel` crate cannot parse or evaluate it here; what it said.
    Unsupported(String),
}

/// cel-go's words for a run-time error the `cel` crate raises in the same situation; `None`
/// for errors that mean the crate lacks something cel-go has.
fn server_words(error: &ExecutionError) -> Option<String> {
    match error {
        ExecutionError::NoSuchKey(key) => Some(format!("no such key: {key}")),
        ExecutionError::DivisionByZero(_) => Some("division by zero".into()),
        ExecutionError::RemainderByZero(_) => Some("modulus by zero".into()),
        ExecutionError::IndexOutOfBounds(cel::Value::Int(i)) => Some(format!("index out of bounds: {i}")),
        ExecutionError::IndexOutOfBounds(cel::Value::UInt(i)) => Some(format!("index out of bounds: {i}")),
        ExecutionError::Overflow(_, cel::Value::Int(_), cel::Value::Int(_)) => Some("integer overflow".into()),
        ExecutionError::Overflow(_, cel::Value::UInt(_), cel::Value::UInt(_)) => {
            Some("unsigned integer overflow".into())
        }
        ExecutionError::FunctionError { function, message } => {
            let conversion = |to: &str| Some(format!("type conversion error from 'string' to '{to}'"));
            match (function.as_str(), message.as_str()) {
                ("int", m) if m.contains("parse error") => conversion("int"),
                ("double", m) if m.contains("parse error") => conversion("double"),
                ("duration", m) if m.starts_with("Parsing Error") => conversion("google.protobuf.Duration"),
                ("timestamp", _) => conversion("google.protobuf.Timestamp"),
                ("int" | "uint", m @ ("integer overflow" | "unsigned integer overflow")) => Some(m.to_string()),
                ("value", m @ "optional.none() dereference") => Some(m.to_string()),
                ("charAt" | "format" | "substring", m) if m.starts_with("index ") => Some(m.to_string()),
                _ => None,
            }
        }
        _ => None,
    }
}

fn run(env: &Arc<Env>, source: &str, this: &cel::Value, old: Option<&cel::Value>) -> Result<cel::Value, Failure> {
    // The verifier's parser first: it refuses what cel-go refuses (nesting past 250) and turns
    // the `cel` crate's parser panics into errors.
    crate::cel::check_syntax(source).map_err(|e| Failure::Unsupported(format!("cannot be parsed: {e}")))?;
    let program = env.compile(source).map_err(|e| Failure::Unsupported(format!("cannot be parsed: {e}")))?;
    let mut context = Context::with_env(Arc::clone(env));
    context.add_variable_from_value("self", this.clone());
    if let Some(old) = old {
        context.add_variable_from_value("oldSelf", old.clone());
    }
    program.execute(&context).map_err(|e| match server_words(&e) {
        Some(words) => Failure::AsServer(words),
        None if matches!(e, ExecutionError::NoSuchOverload(_) | ExecutionError::ValuesNotComparable(..)) => {
            Failure::NoOverload
        }
        None => Failure::Unsupported(format!("cannot be evaluated: {e}")),
    })
}

/// The node a rule runs at: its value as JSON and as CEL's `self`, its schema and its path.
struct Site<'a> {
    value: &'a Value,
    this: &'a cel::Value,
    schema: &'a Value,
    path: &'a Path,
    /// The node is the root of a resource (`apiVersion`, `kind`, `metadata`).
    resource: bool,
}

fn evaluate(ev: &mut Evaluator, rule: &Value, site: &Site<'_>, old: OldSelf, report: &mut Report) {
    let Site { value, this, schema, path, resource } = *site;
    let Some(source) = rule.get("rule").and_then(Value::as_str) else { return };
    // Parsed once for the variables the rule reads; `run` compiles it in the environment.
    let parsed = crate::cel::check_syntax(source).ok().and_then(|()| Program::compile(source).ok());
    let reads = |variable: &str| parsed.as_ref().is_some_and(|p| p.references().has_variable(variable));
    let uses_old_self = reads("oldSelf");
    let optional = rule.get("optionalOldSelf").and_then(Value::as_bool) == Some(true);
    let old_self = match (uses_old_self, optional, old) {
        (false, ..) => None,
        (true, false, OldSelf::Absent) => return,
        (true, false, OldSelf::Unchanged) => Some(this.clone()),
        (true, true, OldSelf::Absent) => Some(cel::Value::Opaque(Arc::new(OptionalValue::none()))),
        (true, true, OldSelf::Unchanged) => Some(cel::Value::Opaque(Arc::new(OptionalValue::of(this.clone())))),
    };
    let at = match rule.get("fieldPath").and_then(Value::as_str) {
        Some(field_path) => field_path_of(path, field_path),
        None => path.to_string(),
    };
    let node_type = schema.get("type").and_then(Value::as_str).unwrap_or("");
    // An int-or-string value of another JSON type (a default may be one) fails as soon as a
    // rule reads it.
    let bad_int_or_string = is_true(schema, "x-kubernetes-int-or-string")
        && !(value.is_string() || value.is_i64() || value.is_u64())
        && reads("self");
    // Estimated on this value, the rule may cost more than the server lets one rule, or all the
    // rules of one object, run: the server would cancel it, and running it here could take
    // minutes.
    let estimate = |expr: &str| run_time::estimate(expr, schema, value, resource, optional).unwrap_or(0);
    let cost = estimate(source);
    if cost > run_time::PER_CALL_LIMIT {
        let why = format!(
            "may cost more on this value than the API server lets one rule run ({cost} estimated, the limit is {}), \
             so it was not run",
            run_time::PER_CALL_LIMIT
        );
        return unevaluated(report, &at, source, why);
    }
    if ev.spent.saturating_add(cost) > run_time::BUDGET {
        let why = format!(
            "was not run: with the rules run before it, the object may cost more than the API server's budget for \
             all its rules ({})",
            run_time::BUDGET
        );
        return unevaluated(report, &at, source, why);
    }
    ev.spent += cost;
    let outcome = if bad_int_or_string {
        Err(Failure::AsServer("invalid data, expected XIntOrString value to be either a string or integer".into()))
    } else {
        run(&ev.env, source, this, old_self.as_ref())
    };
    let passed = match outcome {
        Ok(cel::Value::Bool(b)) => b,
        Ok(other) => return unevaluated(report, &at, source, format!("evaluated to {other:?}, not a bool")),
        Err(Failure::Unsupported(why)) => return unevaluated(report, &at, source, why),
        Err(Failure::NoOverload) if is_true(schema, "x-kubernetes-int-or-string") => {
            let text = format!(
                "Invalid value: \"\": 'no such overload': call arguments did not match a supported operator, function or macro signature for rule: {}",
                rule_error_string(rule, source)
            );
            return report.add(
                Rule::SampleCel,
                path.to_string(),
                text,
                "change the value so that the rule can be evaluated",
            );
        }
        Err(Failure::NoOverload) => {
            return unevaluated(report, &at, source, "cannot be evaluated: no overload for these values".into());
        }
        Err(Failure::AsServer(words)) => {
            let text =
                format!("Invalid value: {node_type:?}: {words} evaluating rule: {}", rule_error_string(rule, source));
            return report.add(
                Rule::SampleCel,
                path.to_string(),
                text,
                "change the value so that the rule can be evaluated",
            );
        }
    };
    if passed {
        return;
    }
    let message_old = (uses_old_self && old == OldSelf::Unchanged).then(|| this.clone());
    let message = rule
        .get("messageExpression")
        .and_then(Value::as_str)
        // The message runs with the rule's plain activation: `oldSelf` is never optional there.
        .filter(|expr| estimate(expr) <= run_time::PER_CALL_LIMIT)
        .and_then(|expr| match run(&ev.env, expr, this, message_old.as_ref()) {
            Ok(cel::Value::String(s)) if !s.trim().is_empty() => Some(s.to_string()),
            _ => None,
        })
        .or_else(|| rule.get("message").and_then(Value::as_str).map(str::to_string))
        .unwrap_or_else(|| format!("failed rule: {}", source.trim()));
    let shown = if node_type.is_empty() { "object" } else { node_type };
    let text = match rule.get("reason").and_then(Value::as_str) {
        Some("FieldValueForbidden") => format!("Forbidden: {message}"),
        Some("FieldValueRequired") => format!("Required value: {message}"),
        Some("FieldValueDuplicate") => format!("Duplicate value: {shown:?}: {message}"),
        // The value is left out for objects and lists (`field.OmitValueType`).
        _ if matches!(node_type, "object" | "array") => format!("Invalid value: {message}"),
        _ => format!("Invalid value: {}: {message}", super::messages::quote(value)),
    };
    report.add(Rule::SampleCel, at, text, "change the object so that the rule holds");
}

/// How the server names a rule in a run-time error (`ruleErrorString`): its message if it has
/// one, else the rule.
fn rule_error_string<'a>(rule: &'a Value, source: &'a str) -> &'a str {
    rule.get("message").and_then(Value::as_str).filter(|m| !m.trim().is_empty()).unwrap_or(source).trim()
}

fn unevaluated(report: &mut Report, at: &str, source: &str, why: String) {
    report.add(
        Rule::SampleCelUnevaluated,
        at,
        format!("rule {source:?} {why}; the API server evaluates it on create"),
        "check this rule against a cluster (kubectl apply --dry-run=server)",
    );
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

    /// Found by fuzzing (`fuzz/`, target `crd_reader`): three nested `all()` over a long list
    /// ran for minutes, where the server cancels the rule at its per-call cost limit.
    #[test]
    fn a_rule_over_the_per_call_limit_on_this_value_is_not_run() {
        let schema = json!({"type": "object", "properties": {"l": {"type": "array", "items": {"type": "integer"}}},
            "x-kubernetes-validations": [{"rule": "self.l.all(x, self.l.all(y, self.l.all(z, x + y + z >= 0)))"}]});
        let small = json!({"l": (0..10).collect::<Vec<i32>>()});
        assert_eq!(run_rule(schema.clone(), small), vec![]);
        let large = json!({"l": (0..1000).collect::<Vec<i32>>()});
        let findings = run_rule(schema, large);
        assert_eq!(findings.len(), 1);
        assert_eq!(findings[0].0, Rule::SampleCelUnevaluated);
        let message = &findings[0].1;
        assert!(message.starts_with("rule \"self.l.all(x, self.l.all(y, self.l.all(z, x + y + z >= 0)))\" may cost more on this value than the API server lets one rule run ("), "{message}");
        assert!(
            message.ends_with(
                " estimated, the limit is 1000000), so it was not run; the API server evaluates it on create"
            ),
            "{message}"
        );
    }

    /// A rule nested deeper than cel-go's parser allows (250) does not compile on the server;
    /// here it is left unevaluated, and the `cel` crate's own parser, which has no such limit,
    /// never sees it.
    #[test]
    fn rules_nested_past_the_parsers_limit_are_not_run() {
        let source = format!("{}true{}", "(".repeat(5000), ")".repeat(5000));
        let findings = run_rule(rule(&source, json!({})), json!({}));
        assert_eq!(findings.len(), 1, "{findings:?}");
        assert_eq!(findings[0].0, Rule::SampleCelUnevaluated);
        assert!(findings[0].1.contains("cannot be parsed: ERROR: <input>:-1:0: "), "{}", findings[0].1);
    }

    /// Found by fuzzing (`fuzz/`, target `crd_reader`): a rule that cannot be typed against its
    /// schema (list items without a type) had no estimate and ran for minutes.
    #[test]
    fn a_rule_without_types_is_bounded_by_the_values_size() {
        let rule = "self.l.all(x, self.l.all(y, self.l.all(z, x == z)))";
        let schema = json!({"type": "object", "properties": {"l": {"type": "array", "items": {}}},
            "x-kubernetes-validations": [{"rule": rule}]});
        let findings = run_rule(schema, json!({"l": (0..100).collect::<Vec<i32>>()}));
        assert_eq!(findings.len(), 1, "{findings:?}");
        assert_eq!(findings[0].0, Rule::SampleCelUnevaluated);
        assert!(
            findings[0].1.contains("may cost more on this value than the API server lets one rule run"),
            "{}",
            findings[0].1
        );
    }

    /// The rules of one object share the server's run-time budget: once the estimates of the
    /// rules run pass it, the rest are left to the server.
    #[test]
    fn rules_past_the_objects_budget_are_not_run() {
        // One rule on each of 40 items, each about 630,000 by the estimate on a 300-item list
        // (`exists` stops at the first item: the estimate counts every one).
        let item = json!({"type": "object", "properties": {"l": {"type": "array", "items": {"type": "integer"}}},
            "x-kubernetes-validations": [{"rule": "self.l.exists(x, self.l.exists(y, x + y >= 0))"}]});
        let schema = json!({"type": "object", "properties": {"items": {"type": "array", "items": item}}});
        let list: Vec<i32> = (0..300).collect();
        let value = json!({"items": vec![json!({"l": list}); 40]});
        let findings = run_rule(schema, value);
        assert!(!findings.is_empty() && findings.len() < 40, "{findings:?}");
        assert!(findings.iter().all(|(rule, _)| *rule == Rule::SampleCelUnevaluated), "{findings:?}");
        assert!(findings[0].1.ends_with(
            "was not run: with the rules run before it, the object may cost more than the API server's budget for all its rules (10000000); the API server evaluates it on create"
        ), "{}", findings[0].1);
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

    #[test]
    fn defaults_run_transition_rules_then_as_on_create() {
        let on = |rule: Value| json!({"type": "integer", "x-kubernetes-validations": [rule]});
        let messages = |schema: Value| -> Vec<String> {
            default_errors(&json!(5), &schema, &mut 0).into_iter().map(|f| f.message).collect()
        };
        assert_eq!(messages(on(json!({"rule": "self == oldSelf"}))), Vec::<String>::new());
        assert_eq!(messages(on(json!({"rule": "self > oldSelf"}))), ["Invalid value: 5: failed rule: self > oldSelf"]);
        let optional = |rule: &str| on(json!({"rule": rule, "optionalOldSelf": true}));
        assert_eq!(
            messages(optional("!oldSelf.hasValue()")),
            ["Invalid value: 5: failed rule: !oldSelf.hasValue()"],
            "the first run binds oldSelf"
        );
        assert_eq!(
            messages(optional("oldSelf.hasValue()")),
            ["Invalid value: 5: failed rule: oldSelf.hasValue()"],
            "the second run has no old object"
        );
    }

    #[test]
    fn run_time_errors_are_the_servers() {
        let errors = |schema: Value, value: Value| -> Vec<String> {
            default_errors(&value, &schema, &mut 0).into_iter().map(|f| f.message).collect()
        };
        let object = json!({"type": "object", "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}},
            "x-kubernetes-validations": [{"rule": "self.x > 0"}, {"rule": "10 / self.y == 1", "message": "y divides"}]});
        assert_eq!(
            errors(object, json!({"y": 0})),
            [
                "Invalid value: \"object\": no such key: x evaluating rule: self.x > 0",
                "Invalid value: \"object\": division by zero evaluating rule: y divides",
            ]
        );
        let list = json!({"type": "array", "items": {"type": "integer"}, "x-kubernetes-validations": [{"rule": "self[2] == 1"}]});
        assert_eq!(
            errors(list, json!([1])),
            ["Invalid value: \"array\": index out of bounds: 2 evaluating rule: self[2] == 1"]
        );
        let duration = json!({"type": "string", "format": "duration",
            "x-kubernetes-validations": [{"rule": "self <= duration('1h')"}]});
        assert_eq!(errors(duration.clone(), json!("30m")), Vec::<String>::new());
        assert_eq!(errors(duration, json!("2h")), ["Invalid value: \"2h\": failed rule: self <= duration('1h')"]);
    }
}
