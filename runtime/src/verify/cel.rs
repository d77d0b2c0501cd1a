//! `x-kubernetes-validations` (R64–R72): the fields of each rule, CEL syntax, field references
//! against the schema, transition rules, and the unbounded-size lint that feeds the cost
//! estimate (R73).
//!
//! Expressions are parsed with the `cel` crate (the cel-rust parser, CEL's ANTLR grammar with
//! optional syntax). There is no type checker for the Kubernetes CEL environment in Rust, so
//! beyond syntax the verifier resolves only `self.a.b` chains against the schema: an undeclared
//! field, or a whole rule that is a non-boolean field, is reported; anything it cannot follow
//! (maps, lists, preserve-unknown-fields, int-or-string) is left alone.

use std::collections::BTreeSet;

use cel::common::ast::{Expr, IdedExpr, LiteralValue};
use serde_json::{Map, Value};

use super::document::unknown_keys;
use super::report::Report;
use super::schema::{Level, NodeCx, is_true, type_of};

const REASONS: &[&str] = &["FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"];
/// CEL reserved words: a property with one of these names is seen as `__name__` (the API
/// server's escaping, R70).
pub(crate) const RESERVED: &[&str] = &[
    "true",
    "false",
    "null",
    "in",
    "as",
    "break",
    "const",
    "continue",
    "else",
    "for",
    "function",
    "if",
    "import",
    "let",
    "loop",
    "package",
    "namespace",
    "return",
    "var",
    "void",
    "while",
];

/// Checks the rules `rules` of the node `node` at `path`.
pub(crate) fn check(report: &mut Report, node: &Map<String, Value>, rules: &Value, path: &str, n: &NodeCx) {
    let Some(rules) = rules.as_array() else { return };
    let at_root = n.level == Level::Root;
    let mut referenced = BTreeSet::new();
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
        if let Some(expr) = rule.get("messageExpression").and_then(Value::as_str) {
            check_message_expression(report, node, expr, at_root, &base);
        }
        if text.trim().is_empty() {
            report.error(
                "cel.rule-required",
                format!("{base}.rule"),
                "Required value: rule is not specified",
                "write a CEL expression that evaluates to a bool, e.g. self.minReplicas <= self.maxReplicas",
            );
            continue;
        }
        let parsed = match parse(text) {
            Ok(parsed) => parsed,
            Err(err) => {
                report.error(
                    "cel.syntax",
                    format!("{base}.rule"),
                    format!("Invalid value: {text:?}: compilation failed: {err}"),
                    "fix the CEL syntax (https://kubernetes.io/docs/reference/using-api/cel/)",
                );
                continue;
            }
        };
        let uses_old_self = parsed.references().has_variable("oldSelf");
        if let (true, Some(list)) = (uses_old_self, &n.uncorrelatable) {
            report.error(
                "cel.transition-rule",
                format!("{base}.rule"),
                format!("Invalid value: {text:?}: oldSelf cannot be used on the uncorrelatable portion of the schema within {list}"),
                "put the rule on the list itself, or make the list x-kubernetes-list-type: map so items can be paired",
            );
        }
        if is_true(rule, "optionalOldSelf") && !uses_old_self {
            report.error(
                "cel.optional-old-self",
                format!("{base}.optionalOldSelf"),
                "Invalid value: true: may not be set if oldSelf is not used in rule",
                "remove optionalOldSelf, or use oldSelf in the rule",
            );
        }
        let mut chains = Vec::new();
        collect_chains(&parsed, &mut chains);
        let mut undefined = BTreeSet::new();
        for chain in &chains {
            match resolve(node, chain, at_root) {
                Resolved::Undefined(field) => {
                    undefined.insert(field);
                }
                _ => {
                    if let Some(first) = chain.first() {
                        referenced.insert(first.clone());
                    } else {
                        referenced.insert(String::new());
                    }
                }
            }
        }
        for field in undefined {
            report.error(
                "cel.undefined-field",
                format!("{base}.rule"),
                format!("Invalid value: {text:?}: compilation failed: undefined field '{field}'"),
                "refer only to declared properties (CEL escapes reserved words and '-', '.', '/': self.__namespace__, self.foo__dash__bar)",
            );
        }
        if let Some(t) = result_type(&parsed, node, at_root).filter(|t| *t != "boolean") {
            report.error(
                "cel.return-type",
                format!("{base}.rule"),
                format!("Invalid value: {text:?}: cel expression must evaluate to a bool (it is {t})"),
                "compare the value, e.g. self.replicas <= 10",
            );
        }
    }
    unbounded_lint(report, node, path, &referenced);
}

/// Parses a CEL expression; parser panics (the cel-rust macro expanders assert on arity)
/// become errors too.
fn parse(text: &str) -> Result<IdedExpr, String> {
    let text = text.to_string();
    let result = std::panic::catch_unwind(move || {
        cel::parser::Parser::new().enable_optional_syntax(true).enable_ident_escape_syntax(true).parse(&text)
    });
    match result {
        Ok(Ok(expr)) => Ok(expr),
        Ok(Err(errs)) => Err(errs
            .errors
            .iter()
            .map(|e| format!("ERROR: <input>:{}:{}: {}", e.pos.0, e.pos.1, e.msg))
            .collect::<Vec<_>>()
            .join("; ")),
        Err(_) => Err("ERROR: <input>: invalid macro call".to_string()),
    }
}

/// R65: `message`.
fn check_message(report: &mut Report, rule: &Map<String, Value>, text: &str, base: &str) {
    let message = rule.get("message").and_then(Value::as_str);
    let path = format!("{base}.message");
    const FIX: &str = "write a one-line message";
    match message {
        Some(m) if m.trim().is_empty() => {
            report.error("cel.message", path, format!("Invalid value: {m:?}: must be non-empty if specified"), FIX)
        }
        Some(m) if m.contains(['\n', '\r']) => {
            report.error("cel.message", path, format!("Invalid value: {m:?}: must not contain line breaks"), FIX)
        }
        None if text.contains('\n') && !rule.contains_key("messageExpression") => report.error(
            "cel.message",
            path,
            "Required value: message must be specified if rule contains line breaks",
            "add a message, or write the rule on one line",
        ),
        _ => {}
    }
}

/// R67 and R68.
fn check_reason_and_field_path(report: &mut Report, node: &Map<String, Value>, rule: &Map<String, Value>, base: &str) {
    if let Some(reason) = rule.get("reason").and_then(Value::as_str)
        && !REASONS.contains(&reason)
    {
        report.error(
                "cel.reason",
                format!("{base}.reason"),
                format!(
                    "Unsupported value: {reason:?}: supported values: \"FieldValueDuplicate\", \"FieldValueForbidden\", \"FieldValueInvalid\", \"FieldValueRequired\""
                ),
                "use one of FieldValueInvalid, FieldValueForbidden, FieldValueRequired, FieldValueDuplicate",
            );
    }
    let Some(field_path) = rule.get("fieldPath").and_then(Value::as_str) else { return };
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
        report.error(
            "cel.field-path",
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
    use super::schema::lookup::{Lookup, resolve};
    matches!(resolve(node, &fields), Lookup::Found(_) | Lookup::Dynamic)
}

/// R66.
fn check_message_expression(report: &mut Report, node: &Map<String, Value>, expr: &str, at_root: bool, base: &str) {
    let path = format!("{base}.messageExpression");
    const FIX: &str = "write a CEL expression that evaluates to a string, e.g. 'got ' + string(self.replicas)";
    if expr.trim().is_empty() {
        report.error(
            "cel.message-expression",
            path,
            "Required value: messageExpression must be non-empty if specified",
            FIX,
        );
        return;
    }
    match parse(expr) {
        Err(err) => report.error(
            "cel.message-expression",
            path,
            format!("Invalid value: {expr:?}: messageExpression compilation failed: {err}"),
            FIX,
        ),
        Ok(parsed) => {
            if result_type(&parsed, node, at_root).is_some_and(|t| t != "string") {
                report.error(
                    "cel.message-expression",
                    path,
                    format!("Invalid value: {expr:?}: messageExpression must evaluate to a string"),
                    FIX,
                );
            }
        }
    }
}

/// Every `self.a.b…` / `oldSelf.a.b…` select chain (fields after the root variable).
fn collect_chains(e: &IdedExpr, out: &mut Vec<Vec<String>>) {
    if let Some(chain) = self_chain(e) {
        out.push(chain);
        return;
    }
    match &e.expr {
        Expr::Select(s) => collect_chains(&s.operand, out),
        Expr::Call(c) => {
            if let Some(t) = &c.target {
                collect_chains(t, out);
            }
            for a in &c.args {
                collect_chains(a, out);
            }
        }
        Expr::Comprehension(c) => {
            for sub in [&c.iter_range, &c.accu_init, &c.loop_cond, &c.loop_step, &c.result] {
                collect_chains(sub, out);
            }
        }
        Expr::List(l) => l.elements.iter().for_each(|x| collect_chains(x, out)),
        Expr::Map(m) => {
            for entry in &m.entries {
                if let cel::common::ast::EntryExpr::MapEntry(me) = &entry.expr {
                    collect_chains(&me.key, out);
                    collect_chains(&me.value, out);
                }
            }
        }
        _ => {}
    }
}

/// `self.a.b` → `["a", "b"]`; `self` → `[]`; anything else → `None`.
fn self_chain(e: &IdedExpr) -> Option<Vec<String>> {
    match &e.expr {
        Expr::Ident(name) if name == "self" || name == "oldSelf" => Some(Vec::new()),
        Expr::Select(s) => {
            let mut chain = self_chain(&s.operand)?;
            chain.push(s.field.clone());
            Some(chain)
        }
        _ => None,
    }
}

enum Resolved<'a> {
    Node(&'a Map<String, Value>),
    /// A declared meta string (`self.kind`, `self.metadata.name`).
    String,
    Dynamic,
    Undefined(String),
}

/// Follows a chain of CEL field names from `node`.
fn resolve<'a>(node: &'a Map<String, Value>, chain: &[String], at_root: bool) -> Resolved<'a> {
    let mut cur = node;
    let mut is_root = at_root;
    let mut fields = chain.iter();
    while let Some(field) = fields.next() {
        let resource = is_root || is_true(cur, "x-kubernetes-embedded-resource");
        let props = cur.get("properties").and_then(Value::as_object);
        let dynamic = is_true(cur, "x-kubernetes-preserve-unknown-fields")
            || is_true(cur, "x-kubernetes-int-or-string")
            || type_of(cur) != "object"
            || cur.contains_key("additionalProperties")
            || props.is_none_or(Map::is_empty);
        if resource && (field == "apiVersion" || field == "kind") {
            return if fields.next().is_none() { Resolved::String } else { Resolved::Dynamic };
        }
        if resource && field == "metadata" {
            if !is_root {
                return Resolved::Dynamic;
            }
            return match fields.next().map(String::as_str) {
                None => Resolved::Dynamic,
                Some("name" | "generateName") => Resolved::String,
                Some(other) => Resolved::Undefined(other.to_string()),
            };
        }
        if dynamic {
            return Resolved::Dynamic;
        }
        let found = props.into_iter().flatten().find(|(name, _)| escape(name).as_deref() == Some(field.as_str()));
        match found.and_then(|(_, v)| v.as_object()) {
            Some(next) => cur = next,
            None => return Resolved::Undefined(field.clone()),
        }
        is_root = false;
    }
    Resolved::Node(cur)
}

/// R70: a property name as CEL sees it, or `None` if CEL cannot see it.
fn escape(name: &str) -> Option<String> {
    if RESERVED.contains(&name) {
        return Some(format!("__{name}__"));
    }
    let mut chars = name.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic() || "_.-/".contains(c));
    if !first_ok || !chars.all(|c| c.is_ascii_alphanumeric() || "_.-/".contains(c)) {
        return None;
    }
    Some(
        name.replace("__", "__underscores__")
            .replace('.', "__dot__")
            .replace('-', "__dash__")
            .replace('/', "__slash__"),
    )
}

/// The schema type of the whole expression when it is a literal or a plain `self…` chain.
fn result_type(e: &IdedExpr, node: &Map<String, Value>, at_root: bool) -> Option<&'static str> {
    if let Expr::Literal(lit) = &e.expr {
        return Some(match lit {
            LiteralValue::Boolean(_) => "boolean",
            LiteralValue::String(_) => "string",
            LiteralValue::Int(_) | LiteralValue::UInt(_) => "integer",
            LiteralValue::Double(_) => "number",
            _ => return None,
        });
    }
    if matches!(&e.expr, Expr::Select(s) if s.test) {
        return Some("boolean");
    }
    let chain = self_chain(e)?;
    match resolve(node, &chain, at_root) {
        Resolved::String => Some("string"),
        Resolved::Node(n) if !is_true(n, "x-kubernetes-int-or-string") && !is_true(n, "nullable") => match type_of(n) {
            "boolean" => Some("boolean"),
            "string" => Some("string"),
            "integer" => Some("integer"),
            "number" => Some("number"),
            "array" => Some("array"),
            "object" => Some("object"),
            _ => None,
        },
        _ => None,
    }
}

/// R73 lint: a string, list or map the rules read with no size bound makes the cost estimate
/// assume 3 MiB and can push the rule over the budget (R74).
fn unbounded_lint(report: &mut Report, node: &Map<String, Value>, path: &str, referenced: &BTreeSet<String>) {
    let props = node.get("properties").and_then(Value::as_object);
    for name in referenced {
        let (target, target_path) = if name.is_empty() {
            (Some(node), path.to_string())
        } else {
            let found = props.into_iter().flatten().find(|(k, _)| escape(k).as_deref() == Some(name.as_str()));
            match found {
                Some((k, v)) => (v.as_object(), format!("{path}.properties[{k}]")),
                None => (None, String::new()),
            }
        };
        let Some(target) = target else { continue };
        let (what, bound) = match type_of(target) {
            "string" if !target.contains_key("enum") => ("string", "maxLength"),
            "array" => ("list", "maxItems"),
            "object" if target.get("additionalProperties").is_some_and(Value::is_object) => ("map", "maxProperties"),
            _ => continue,
        };
        if !target.contains_key(bound) {
            report.warning(
                "lint.unbounded-cel",
                target_path,
                format!("this {what} is read by a CEL rule at {path} but has no {bound}: the cost estimate assumes it can fill the 3 MiB request"),
                &format!("add {bound} (the API server rejects rules whose estimated cost exceeds its budget)"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn escaping() {
        assert_eq!(super::escape("namespace").as_deref(), Some("__namespace__"));
        assert_eq!(super::escape("foo-bar").as_deref(), Some("foo__dash__bar"));
        assert_eq!(super::escape("a__b").as_deref(), Some("a__underscores__b"));
        assert_eq!(super::escape("1a"), None);
        assert_eq!(super::escape("a:b"), None);
    }

    #[test]
    fn parses() {
        assert!(super::parse("self.a <= self.b && has(self.c)").is_ok());
        assert!(super::parse("self.?a.orValue(1) > 0").is_ok());
        assert!(super::parse("self.x.all(i, i.y > 0)").is_ok());
        assert!(super::parse("self.a >").is_err());
        assert!(super::parse("has(self)").is_err());
    }
}
