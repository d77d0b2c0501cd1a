//! The collector every check writes its findings into.

use std::fmt;

use serde_json::{Map, Value};

use crate::rules::{RULES, Severity};

/// One problem found in a CRD.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Finding {
    /// Error (the server rejects it) or warning (accepted, but probably wrong).
    pub severity: Severity,
    /// A short stable rule id such as `structural.missing-type`; see [`RULES`].
    pub rule: &'static str,
    /// Where, in the API server's path notation, e.g.
    /// `spec.versions[0].schema.openAPIV3Schema.properties[spec].type`.
    pub path: String,
    /// What is wrong, close to the API server's own message.
    pub message: String,
    /// How to fix it.
    pub fix: String,
    /// For a CEL cost finding (`cel.cost`, `cel.cost-total`, `lint.cel-cost`): the schema nodes
    /// the estimate had to assume as large as a 3 MiB request allows, each with the keyword that
    /// would bound it. Empty for other findings.
    pub unbounded: Vec<Unbounded>,
}

/// A schema node with no size bound that a CEL rule's cost estimate depends on.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Unbounded {
    /// The node, in the API server's path notation
    /// (`spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[targets]`).
    pub path: String,
    /// `maxItems`, `maxProperties` or `maxLength`.
    pub keyword: &'static str,
}

impl fmt::Display for Finding {
    /// `error[rule-id] <path>: <message> (fix: <hint>)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}[{}] {}: {} (fix: {})", self.severity, self.rule, self.path, self.message, self.fix)
    }
}

impl Finding {
    /// Whether this finding is an [`Severity::Error`].
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Findings in the order the checks emitted them.
#[derive(Debug, Default)]
pub(crate) struct Report {
    findings: Vec<Finding>,
}

impl Report {
    /// Records an error: the API server rejects the CRD.
    pub(crate) fn error(&mut self, rule: &'static str, path: impl Into<String>, message: impl Into<String>, fix: &str) {
        self.push(Severity::Error, rule, path.into(), message.into(), fix);
    }

    /// Records a warning: accepted by the API server, but probably not what was meant.
    pub(crate) fn warning(
        &mut self,
        rule: &'static str,
        path: impl Into<String>,
        message: impl Into<String>,
        fix: &str,
    ) {
        self.push(Severity::Warning, rule, path.into(), message.into(), fix);
    }

    /// Records a CEL cost finding with the unbounded nodes its estimate depends on.
    pub(crate) fn cost(
        &mut self,
        severity: Severity,
        rule: &'static str,
        path: impl Into<String>,
        message: impl Into<String>,
        fix: &str,
        unbounded: Vec<Unbounded>,
    ) {
        self.push(severity, rule, path.into(), message.into(), fix);
        if let Some(last) = self.findings.last_mut() {
            last.unbounded = unbounded;
        }
    }

    fn push(&mut self, severity: Severity, rule: &'static str, path: String, message: String, fix: &str) {
        // `sample.*` rules belong to `samples`, which reports through this type too.
        debug_assert!(
            rule.starts_with("sample.") || RULES.iter().any(|r| r.id == rule),
            "rule {rule} missing from RULES"
        );
        self.findings.push(Finding { severity, rule, path, message, fix: fix.to_string(), unbounded: Vec::new() });
    }

    /// Whether an error other than a CEL compile or cost error was reported at `path` or below:
    /// the API server then does not compile the rules at `path`.
    pub(crate) fn has_schema_error_under(&self, path: &str) -> bool {
        const CEL: &[&str] = &[
            "cel.syntax",
            "cel.type",
            "cel.undefined-field",
            "cel.return-type",
            "cel.transition-rule",
            "cel.optional-old-self",
            "cel.cost",
            "cel.cost-total",
        ];
        // A blank messageExpression is a schema error; its compile errors are not.
        let compile_error = |f: &Finding| {
            CEL.contains(&f.rule) || (f.rule == "cel.message-expression" && !f.message.starts_with("Required value"))
        };
        self.findings.iter().any(|f| {
            f.is_error()
                && f.path.strip_prefix(path).is_some_and(|rest| rest.starts_with(['.', '[']))
                && !compile_error(f)
        })
    }

    pub(crate) fn into_findings(self) -> Vec<Finding> {
        self.findings
    }
}

/// A JSON value quoted the way the API server prints a bad value: strings in double quotes,
/// numbers and booleans bare, anything else as compact JSON.
pub(crate) fn quote(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(s) => format!("{s:?}"),
        other => other.to_string(),
    }
}

/// R2: reports every key of `obj` that is not in `known` (strict field validation, kubectl's
/// default, rejects the request).
pub(crate) fn unknown_keys(obj: &Map<String, Value>, known: &[&str], path: &str, report: &mut Report) {
    for key in obj.keys() {
        if !known.contains(&key.as_str()) {
            let full = if path.is_empty() { key.clone() } else { format!("{path}.{key}") };
            report.error(
                "document.unknown-field",
                full.clone(),
                format!("strict decoding error: unknown field {full:?}"),
                "remove the field or fix its spelling",
            );
        }
    }
}
