//! `x-kubernetes-validations` (R64–R75): the fields of each rule, CEL syntax, type checking
//! against the schema, transition rules, and the static cost budget.
//!
//! Expressions are parsed with the `cel` crate (the cel-rust parser, CEL's ANTLR grammar with
//! optional syntax). Checking and cost estimation are rop's own port of what kube-apiserver
//! runs when a CRD is written (apiextensions `schema/cel/compilation.go` and
//! `validation.go`, k8s.io/apiserver `pkg/cel`, cel-go's `checker`): [`decl`] builds the CEL
//! types from the schema, [`check`] type-checks, [`cost`] estimates, and [`budget`] holds the
//! limits and the server's messages. The target is Kubernetes 1.37 with its default
//! compatibility version 1.36.

mod budget;
mod check;
mod cost;
mod decl;
mod escape;
pub(crate) mod go_regex;
mod library;
pub(crate) mod run_time;
mod types;
mod validate;

use std::sync::Arc;

use cel::common::ast::{IdedExpr, SourceInfo};
use serde_json::{Map, Value};

pub(crate) use budget::CostTotal;
pub(crate) use escape::escape;

use crate::node::is_true;
use crate::report::{Report, Unbounded, unknown_keys};
use crate::rules::Rule;

const REASONS: &[&str] = &["FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"];

/// What the schema walk knows about the node whose rules [`check`] compiles.
pub(crate) struct RuleSite<'a> {
    /// The schema's root: `self` has `apiVersion`, `kind` and `metadata` (as it does at an
    /// `x-kubernetes-embedded-resource` node).
    pub(crate) root: bool,
    /// How many times the node's rules can run for one object: the product of the `maxItems`
    /// and `maxProperties` above it; `None` when one of them is missing (R73).
    pub(crate) cardinality: Option<u64>,
    /// The lists and maps above the node without `maxItems` / `maxProperties`.
    pub(crate) unbounded_above: &'a [Unbounded],
    /// Path of the list whose items make `oldSelf` unusable below it (R71).
    pub(crate) uncorrelatable: Option<&'a str>,
}

/// Checks the rules `rules` of the node `node` at `path`, adding their costs to `total`. Call it
/// on a deep stack: the schema walk runs on one (`schema::check`).
pub(crate) fn check(
    report: &mut Report,
    total: &mut CostTotal,
    node: &Map<String, Value>,
    rules: &Value,
    path: &str,
    n: &RuleSite,
) {
    let Some(rules) = rules.as_array() else { return };
    let resource_root = n.root || is_true(node, "x-kubernetes-embedded-resource");
    let decl = decl::declare(node, resource_root, "selfType");
    // The rules' own fields first: the server compiles a node's rules only when the node and
    // everything below it have no schema error.
    for (i, rule) in rules.iter().enumerate() {
        let base = format!("{path}.x-kubernetes-validations[{i}]");
        let Some(rule) = rule.as_object() else { continue };
        unknown_keys(
            rule,
            &["rule", "message", "messageExpression", "reason", "fieldPath", "optionalOldSelf"],
            &base,
            report,
        );
        let text = rule.get("rule").and_then(Value::as_str).unwrap_or("");
        check_message(report, rule, text, &base);
        check_reason_and_field_path(report, node, rule, &base);
        // An empty string is the same as no messageExpression; only blanks are refused.
        if rule.get("messageExpression").and_then(Value::as_str).is_some_and(|m| !m.is_empty() && m.trim().is_empty()) {
            report.add(
                Rule::CelMessageExpression,
                format!("{base}.messageExpression"),
                "Required value: messageExpression must be non-empty if specified",
                MESSAGE_EXPRESSION_FIX,
            );
        }
        if text.trim().is_empty() {
            report.add(
                Rule::CelRuleRequired,
                format!("{base}.rule"),
                "Required value: rule is not specified",
                "write a CEL expression that evaluates to a bool, e.g. self.minReplicas <= self.maxReplicas",
            );
        }
    }
    if report.has_schema_error_under(path) {
        return;
    }
    for (i, rule) in rules.iter().enumerate() {
        let base = format!("{path}.x-kubernetes-validations[{i}]");
        let Some(rule) = rule.as_object() else { continue };
        let text = rule.get("rule").and_then(Value::as_str).unwrap_or("");
        let message_expression = rule.get("messageExpression").and_then(Value::as_str);
        if text.trim().is_empty() {
            continue;
        }
        let optional_old_self = rule.get("optionalOldSelf").filter(|v| !v.is_null());
        // A rule that does not compile uses no `oldSelf` as far as the server is concerned.
        let report_optional_old_self = |report: &mut Report| {
            if let Some(value) = optional_old_self {
                report.add(
                    Rule::CelOptionalOldSelf,
                    format!("{base}.optionalOldSelf"),
                    format!("Invalid value: {value}: may not be set if oldSelf is not used in rule"),
                    "remove optionalOldSelf, or use oldSelf in the rule",
                );
            }
        };
        let (parsed, source) = match parse(text) {
            Ok(parsed) => parsed,
            Err(err) => {
                report.add(
                    Rule::CelSyntax,
                    format!("{base}.rule"),
                    format!("Invalid value: {text:?}: compilation failed: {err}"),
                    "fix the CEL syntax (https://kubernetes.io/docs/reference/using-api/cel/)",
                );
                report_optional_old_self(report);
                continue;
            }
        };
        let Some(decl) = &decl else {
            report.add(
                Rule::CelType,
                format!("{path}.x-kubernetes-validations"),
                "Internal error: internal error: failed to construct type information for x-kubernetes-validations rules: unable to convert structural schema to CEL declarations",
                "give the node a type (a rule cannot see a node that only has x-kubernetes-preserve-unknown-fields), or move the rule to its parent",
            );
            break;
        };
        let this = decl.cel_type();
        let old_self = if is_true(rule, "optionalOldSelf") {
            check::Variables { this: this.clone(), old_self: types::Type::Optional(Box::new(this.clone())) }
        } else {
            check::Variables { this: this.clone(), old_self: this.clone() }
        };
        let compiled = compile(report, &parsed, &source, &old_self, decl, Expected::Rule, text, &base);
        match compiled {
            Compiled::Failed => {
                report_optional_old_self(report);
                continue;
            }
            Compiled::NotBuilt => {}
            Compiled::Ok { cost: rule_cost, mut unbounded } => {
                let cardinality = match n.cardinality {
                    Some(c) => c,
                    None => {
                        unbounded.extend(n.unbounded_above.iter().cloned());
                        decl::MAX_REQUEST_SIZE / (decl.min_size + 1)
                    }
                };
                let cost = rule_cost.saturating_mul(cardinality);
                budget::check_rule(report, &format!("{base}.rule"), cost, "rule", &unbounded);
                total.observe(format!("{base}.rule"), cost, unbounded);
            }
        }

        let uses_old_self = parsed.references().has_variable("oldSelf");
        if let (true, Some(list)) = (uses_old_self, n.uncorrelatable) {
            report.add(
                Rule::CelTransitionRule,
                format!("{base}.rule"),
                format!("Invalid value: {text:?}: oldSelf cannot be used on the uncorrelatable portion of the schema within {list}"),
                "put the rule on the list itself, or make the list x-kubernetes-list-type: map so items can be paired",
            );
        }
        if !uses_old_self {
            report_optional_old_self(report);
        }
        if let Some(expr) = message_expression.filter(|m| !m.trim().is_empty()) {
            let at = format!("{base}.messageExpression");
            match parse(expr) {
                Err(err) => report.add(
                    Rule::CelMessageExpression,
                    &at,
                    format!("Invalid value: {expr:?}: messageExpression compilation failed: {err}"),
                    MESSAGE_EXPRESSION_FIX,
                ),
                Ok((parsed, source)) => {
                    let expected = Expected::MessageExpression;
                    if let Compiled::Ok { cost, unbounded } =
                        compile(report, &parsed, &source, &old_self, decl, expected, expr, &base)
                    {
                        // Never multiplied by cardinality: the server does not.
                        budget::check_rule(report, &at, cost, "messageExpression", &unbounded);
                        total.observe(at, cost, unbounded);
                    }
                }
            }
        }
    }
}

const MESSAGE_EXPRESSION_FIX: &str =
    "write a CEL expression that evaluates to a string, e.g. 'got %d replicas'.format([self.replicas])";

/// How far an expression got on its way to a program.
enum Compiled {
    /// Type-checked and built: its estimated cost and the unbounded nodes the estimate assumed.
    Ok { cost: u64, unbounded: Vec<Unbounded> },
    /// Type-checked, but the program cannot be built (an invalid literal regex for `find`).
    NotBuilt,
    /// Did not type-check.
    Failed,
}

/// What an expression must evaluate to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Expected {
    Rule,
    MessageExpression,
}

/// Type-checks a parsed rule or messageExpression, reporting what the server would; the
/// estimated cost when it compiles.
#[allow(clippy::too_many_arguments)]
fn compile(
    report: &mut Report,
    parsed: &IdedExpr,
    source: &SourceInfo,
    vars: &check::Variables,
    decl: &Arc<types::Decl>,
    expected: Expected,
    text: &str,
    base: &str,
) -> Compiled {
    let mut checked = check::check(parsed, vars);
    let mut instantiation = Vec::new();
    if checked.errors.is_empty() {
        let mut problems = Vec::new();
        validate::validate(parsed, &checked, &mut problems);
        for problem in problems {
            match problem {
                validate::Problem::Issue(id, message) => checked.errors.push((id, message)),
                validate::Problem::Instantiation(message) => instantiation.push(message),
            }
        }
    }
    let (at, prefix, rule_id) = match expected {
        Expected::Rule => (format!("{base}.rule"), "compilation failed", None),
        Expected::MessageExpression => (
            format!("{base}.messageExpression"),
            "messageExpression compilation failed",
            Some(Rule::CelMessageExpression),
        ),
    };
    if !checked.errors.is_empty() {
        let undefined_only = checked.errors.iter().all(|(_, m)| m.starts_with("undefined field"));
        let rule = rule_id.unwrap_or(if undefined_only { Rule::CelUndefinedField } else { Rule::CelType });
        let fix = if undefined_only {
            "refer only to declared properties; CEL escapes '-', '.', '/' and '__' in names (self.foo__dash__bar)"
        } else {
            "fix the expression's types (https://kubernetes.io/docs/reference/using-api/cel/)"
        };
        let issues = budget::format_issues(&checked.errors, source, text);
        report.add(rule, at, format!("Invalid value: {text:?}: {prefix}: {issues}"), fix);
        return Compiled::Failed;
    }
    let result = checked.types.get(&parsed.id).cloned().unwrap_or(types::Type::Dyn);
    match expected {
        Expected::Rule if result != types::Type::Bool => {
            report.add(
                Rule::CelReturnType,
                at,
                format!("Invalid value: {text:?}: cel expression must evaluate to a bool (it is {result})"),
                "compare the value, e.g. self.replicas <= 10",
            );
            return Compiled::Failed;
        }
        Expected::MessageExpression if result != types::Type::String => {
            report.add(
                Rule::CelMessageExpression,
                at,
                format!("Invalid value: {text:?}: messageExpression must evaluate to a string"),
                MESSAGE_EXPRESSION_FIX,
            );
            return Compiled::Failed;
        }
        _ => {}
    }
    if let Some(message) = instantiation.first() {
        let what = if expected == Expected::Rule { "program" } else { "messageExpression" };
        report.add(
            rule_id.unwrap_or(Rule::CelType),
            at,
            format!("Invalid value: {text:?}: {what} instantiation failed: {message}"),
            "fix the regular expression (Go's RE2 syntax), or use a type the CRD environment has",
        );
        return Compiled::NotBuilt;
    }
    let (cost, unbounded) = cost::estimate(parsed, &checked, decl);
    let path = base.split(".x-kubernetes-validations[").next().unwrap_or(base);
    let unbounded =
        unbounded.into_iter().map(|(at, keyword)| Unbounded { path: format!("{path}{at}"), keyword }).collect();
    Compiled::Ok { cost: cost.max, unbounded }
}

/// Runs `f` on a thread with a stack deep enough for the CEL parser, checker and
/// estimator at cel-go's recursion limit (each nesting level of the ANTLR parser takes many frames).
pub(crate) fn with_deep_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn_scoped(scope, f)
            .expect("a thread for checking CEL rules")
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

/// Whether `text` parses as the API server's CEL parser would, and if not, its error (the
/// same as for a rule in a CRD).
pub(crate) fn check_syntax(text: &str) -> Result<(), String> {
    parse(text).map(drop)
}

/// Parses a CEL expression; parser panics (the cel-rust macro expanders assert on arity)
/// become errors too.
fn parse(text: &str) -> Result<(IdedExpr, SourceInfo), String> {
    if let Some(open) = one_variable_exists_one(text) {
        let line = text[..open].matches('\n').count() + 1;
        let column = text[..open].rsplit('\n').next().unwrap_or("").chars().count() + 1;
        let message = "undeclared reference to 'existsOne' (in container '')".to_string();
        return Err(budget::format_located(vec![(line, column, message)], text));
    }
    let owned = text.to_string();
    let result = std::panic::catch_unwind(move || {
        cel::parser::Parser::new()
            .enable_optional_syntax(true)
            .enable_ident_escape_syntax(true)
            // cel-go's parser limit (`maxRecursionDepth`), which kube-apiserver keeps.
            .max_recursion_depth(249)
            .parse_with_source_info(&owned)
    });
    match result {
        // cel-go refuses an expression nested deeper than its limit of 250 (counted on its
        // parse tree; the expression tree here is calibrated on a chain of `+`).
        Ok(Ok((expr, _))) if depth(&expr) > 251 => Err("ERROR: <input>:-1:0: max recursion depth exceeded".to_string()),
        Ok(Ok(expr)) => Ok(expr),
        Ok(Err(errs)) if errs.errors.iter().any(|e| e.msg.contains("Recursion limit of")) => {
            Err("ERROR: <input>:-1:0: expression recursion limit exceeded: 250".to_string())
        }
        Ok(Err(errs)) => {
            let located = errs
                .errors
                .iter()
                .map(|e| (e.pos.0.max(1) as usize, e.pos.1.max(0) as usize, server_syntax_error(&e.msg)))
                .collect();
            Err(budget::format_located(located, text))
        }
        Err(_) => Err("ERROR: <input>:1:1: invalid macro call".to_string()),
    }
}

/// The byte offset of the `(` of a one-variable `existsOne(x, p)`: cel-go has only the
/// two-variable `existsOne` (and `exists_one`), while the parser here expands both forms.
fn one_variable_exists_one(text: &str) -> Option<usize> {
    text.match_indices(".existsOne(").find_map(|(at, call)| {
        let open = at + call.len() - 1;
        let (mut depth, mut commas, mut quote) = (0usize, 0, None::<char>);
        for c in text[open..].chars() {
            match (quote, c) {
                (Some(q), c) if c == q => quote = None,
                (Some(_), _) => {}
                (None, '\'' | '"') => quote = Some(c),
                (None, '(' | '[' | '{') => depth += 1,
                (None, ')' | ']' | '}') => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                (None, ',') if depth == 1 => commas += 1,
                _ => {}
            }
        }
        (commas == 1).then_some(open)
    })
}

/// The depth of an expression tree.
fn depth(e: &IdedExpr) -> usize {
    use cel::common::ast::{EntryExpr, Expr};
    let children: Vec<&IdedExpr> = match &e.expr {
        Expr::Call(c) => c.target.iter().map(|t| t.as_ref()).chain(&c.args).collect(),
        Expr::Select(s) => vec![&s.operand],
        Expr::List(l) => l.elements.iter().collect(),
        Expr::Map(m) => m
            .entries
            .iter()
            .flat_map(|entry| match &entry.expr {
                EntryExpr::MapEntry(me) => vec![&me.key, &me.value],
                EntryExpr::StructField(f) => vec![&f.value],
            })
            .collect(),
        // A macro counts as one level, like the call it was written as.
        Expr::Comprehension(c) => return 1 + depth(&c.iter_range).max(body_depth(&c.loop_step, &c.accu_var)),
        _ => Vec::new(),
    };
    1 + children.into_iter().map(depth).max().unwrap_or(0)
}

/// The depth of what the user wrote inside a macro's step, without the accumulator wrapping
/// (`@result && p`, `@result + [f]`, `p ? @result + [x] : @result`).
fn body_depth(step: &IdedExpr, accu: &str) -> usize {
    use cel::common::ast::Expr;
    match &step.expr {
        Expr::Ident(name) if name == accu => 0,
        Expr::List(l) if l.elements.len() == 1 => depth(&l.elements[0]),
        Expr::Call(c)
            if c.args.iter().any(|a| matches!(&a.expr, Expr::Ident(n) if n == accu) || c.func_name == "_?_:_") =>
        {
            c.args.iter().map(|a| body_depth(a, accu)).max().unwrap_or(0)
        }
        _ => depth(step),
    }
}

/// The server's wording where the two ANTLR runtimes word a syntax error differently: a
/// keyword token after a `.` (`self.true`).
fn server_syntax_error(message: &str) -> String {
    if message.starts_with("invalid string literal: InvalidUnicode") {
        return "invalid unicode code point".to_string();
    }
    for keyword in ["true", "false", "null"] {
        if message == format!("Syntax error: no viable alternative at input '.{keyword}'") {
            return format!("Syntax error: mismatched input '{keyword}' expecting IDENTIFIER");
        }
    }
    message.to_string()
}

/// R65: `message`.
fn check_message(report: &mut Report, rule: &Map<String, Value>, text: &str, base: &str) {
    // The server's order: one message finding at most, and only for a rule that is set.
    let message = rule.get("message").and_then(Value::as_str).unwrap_or("");
    let path = format!("{base}.message");
    const FIX: &str = "write a one-line message";
    let line_break = |s: &str| s.contains(['\n', '\r']);
    if text.trim().is_empty() {
    } else if !message.is_empty() && message.trim().is_empty() {
        report.add(Rule::CelMessage, path, format!("Invalid value: {message:?}: must be non-empty if specified"), FIX);
    } else if line_break(message.trim()) {
        report.add(Rule::CelMessage, path, format!("Invalid value: {message:?}: must not contain line breaks"), FIX);
    } else if line_break(text.trim()) && message.trim().is_empty() {
        report.add(
            Rule::CelMessage,
            path,
            "Required value: message must be specified if rule contains line breaks",
            "add a message, or write the rule on one line",
        );
    }
}

/// R67 and R68.
fn check_reason_and_field_path(report: &mut Report, node: &Map<String, Value>, rule: &Map<String, Value>, base: &str) {
    if let Some(reason) = rule.get("reason").and_then(Value::as_str)
        && !REASONS.contains(&reason)
    {
        report.add(
                Rule::CelReason,
                format!("{base}.reason"),
                format!(
                    "Unsupported value: {reason:?}: supported values: \"FieldValueDuplicate\", \"FieldValueForbidden\", \"FieldValueInvalid\", \"FieldValueRequired\""
                ),
                "use one of FieldValueInvalid, FieldValueForbidden, FieldValueRequired, FieldValueDuplicate",
            );
    }
    // An empty string is the same as no fieldPath to the server.
    let Some(field_path) = rule.get("fieldPath").and_then(Value::as_str).filter(|f| !f.is_empty()) else { return };
    let detail = if field_path.trim().is_empty() {
        Some("must be non-empty if specified")
    } else if field_path.contains(['\n', '\r']) {
        Some("must not contain line breaks")
    } else if !field_path_valid(node, field_path) {
        Some("must be a valid path")
    } else {
        None
    };
    if let Some(detail) = detail {
        report.add(
            Rule::CelFieldPath,
            format!("{base}.fieldPath"),
            format!("Invalid value: {field_path:?}: {detail}"),
            "use a path to a declared field relative to the node carrying the rule, such as .spec.replicas or .labels['app']",
        );
    }
}

/// R68: `.name` and `['key']` steps through declared properties and map values.
fn field_path_valid(node: &Map<String, Value>, path: &str) -> bool {
    let mut rest = path;
    let mut fields = Vec::new();
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('.') {
            let end = r.find(['.', '[']).unwrap_or(r.len());
            if end == 0 {
                return false;
            }
            fields.push(&r[..end]);
            rest = &r[end..];
        } else if let Some(r) = rest.strip_prefix("['").or_else(|| rest.strip_prefix("[\"")) {
            let quote = if rest.starts_with("['") { "']" } else { "\"]" };
            let Some(end) = r.find(quote) else { return false };
            fields.push(&r[..end]);
            rest = &r[end + 2..];
        } else {
            return false;
        }
    }
    use crate::lookup::{Lookup, resolve};
    matches!(resolve(node, &fields), Lookup::Found(_) | Lookup::Dynamic)
}

#[cfg(test)]
mod tests;
