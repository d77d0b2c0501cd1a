//! The collector every check writes its findings into.

use std::fmt;

use serde_json::{Map, Value};

use crate::rules::{Rule, Severity};

/// One problem found in a CRD.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Finding {
    /// Error (the server rejects it) or warning (accepted, but probably wrong).
    pub severity: Severity,
    /// The rule; its id (`structural.missing-type`) is what findings print. See
    /// [`crate::RULES`].
    pub rule: Rule,
    /// Where, in the API server's path notation, e.g.
    /// `spec.versions[0].schema.openAPIV3Schema.properties[spec].type`.
    pub path: String,
    /// The index of the version in `spec.versions` the finding is about (its path starts with
    /// `spec.versions[i]`); `None` for the CRD as a whole and for custom objects.
    pub version: Option<usize>,
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
    /// Records a finding of `rule`, with the rule's severity.
    pub(crate) fn add(&mut self, rule: Rule, path: impl Into<String>, message: impl Into<String>, fix: &str) {
        self.push(rule.severity(), rule, path.into(), message.into(), fix);
    }

    /// Records a finding of `rule` with another severity than the rule's: `size.etcd` warns
    /// below etcd's limit.
    pub(crate) fn add_with(
        &mut self,
        severity: Severity,
        rule: Rule,
        path: impl Into<String>,
        message: impl Into<String>,
        fix: &str,
    ) {
        self.push(severity, rule, path.into(), message.into(), fix);
    }

    /// Records a CEL cost finding with the unbounded nodes its estimate depends on.
    pub(crate) fn cost(
        &mut self,
        rule: Rule,
        path: impl Into<String>,
        message: impl Into<String>,
        fix: &str,
        unbounded: Vec<Unbounded>,
    ) {
        self.push(rule.severity(), rule, path.into(), message.into(), fix);
        if let Some(last) = self.findings.last_mut() {
            last.unbounded = unbounded;
        }
    }

    fn push(&mut self, severity: Severity, rule: Rule, path: String, message: String, fix: &str) {
        let finding =
            Finding { severity, rule, path, version: None, message, fix: fix.to_string(), unbounded: Vec::new() };
        self.findings.push(finding);
    }

    /// Whether an error recorded so far is one of the kinds that keep the API server from
    /// evaluating CEL rules on an object (`hasBlockingErr` in apiextensions'
    /// `pkg/registry/customresource/strategy.go`): a required value, an unsupported (enum)
    /// value, a value too long or with too many items; type errors are told apart by their
    /// caller.
    pub(crate) fn has_blocking_error(&self) -> bool {
        self.findings.iter().filter(|f| f.is_error()).any(|f| {
            ["Required value", "Unsupported value:", "Too long:", "Too many:"].iter().any(|p| f.message.starts_with(p))
        })
    }

    /// Whether an error other than a CEL compile or cost error was reported at `path` or below:
    /// the API server then does not compile the rules at `path`.
    pub(crate) fn has_schema_error_under(&self, path: &str) -> bool {
        // Defaults are validated apart from the schema's own checks (and compile the rules
        // themselves), so their findings do not count.
        self.findings.iter().any(|f| {
            f.is_error()
                && f.path.strip_prefix(path).is_some_and(|rest| rest.starts_with(['.', '[']))
                && !is_cel_compile_or_cost(f)
                && !f.rule.id().starts_with("defaults.")
        })
    }

    /// Keeps the findings since `mark` (one schema's) in the order of the API server's checks
    /// (`validateCustomResourceDefinitionValidation`): defaults are validated only in a
    /// structural schema, and CEL rules are compiled and priced only when every default is
    /// valid. So `defaults.*` findings go when a `structural.*` error is there, and CEL compile
    /// and cost findings when a `defaults.*` error is.
    pub(crate) fn order_default_checks(&mut self, mark: usize) {
        let errors = |findings: &[Finding], prefix: &str| {
            findings.iter().any(|f| f.is_error() && f.rule.id().starts_with(prefix))
        };
        let mut tail = self.findings.split_off(mark);
        if errors(&tail, "structural.") {
            tail.retain(|f| !f.rule.id().starts_with("defaults."));
        } else if errors(&tail, "defaults.") {
            tail.retain(|f| !(is_cel_compile_or_cost(f) || f.rule == Rule::LintCelCost));
        }
        self.findings.append(&mut tail);
    }

    /// The findings recorded since `mark`.
    pub(crate) fn since(&self, mark: usize) -> &[Finding] {
        &self.findings[mark..]
    }

    /// Drops the findings that `drop` picks.
    pub(crate) fn remove(&mut self, drop: impl Fn(&Finding) -> bool) {
        self.findings.retain(|f| !drop(f));
    }

    /// How many findings were recorded so far: a mark for [`Report::set_version_from`].
    pub(crate) fn len(&self) -> usize {
        self.findings.len()
    }

    /// Sets [`Finding::version`] of the findings recorded since `mark`.
    pub(crate) fn set_version_from(&mut self, mark: usize, version: usize) {
        self.findings[mark..].iter_mut().for_each(|f| f.version = Some(version));
    }

    /// Lowers the findings recorded since `mark` to at most `severity`.
    pub(crate) fn downgrade_from(&mut self, mark: usize, severity: Severity) {
        self.findings[mark..].iter_mut().for_each(|f| f.severity = f.severity.max(severity));
    }

    pub(crate) fn into_findings(self) -> Vec<Finding> {
        self.findings
    }
}

/// Whether `f` is a CEL compile or cost finding (a blank `messageExpression` is a schema
/// error, its compile errors are not).
fn is_cel_compile_or_cost(f: &Finding) -> bool {
    const CEL: &[Rule] = &[
        Rule::CelSyntax,
        Rule::CelType,
        Rule::CelUndefinedField,
        Rule::CelReturnType,
        Rule::CelTransitionRule,
        Rule::CelOptionalOldSelf,
        Rule::CelCost,
        Rule::CelCostTotal,
    ];
    CEL.contains(&f.rule) || (f.rule == Rule::CelMessageExpression && !f.message.starts_with("Required value"))
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
            report.add(
                Rule::DocumentUnknownField,
                full.clone(),
                format!("strict decoding error: unknown field {full:?}"),
                "remove the field or fix its spelling",
            );
        }
    }
}
