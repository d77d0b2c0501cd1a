//! The collector every check writes its findings into.

use super::{Finding, Severity, Unbounded};

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
        // `sample.*` rules belong to `rop::samples`, which reports through this type too.
        debug_assert!(
            rule.starts_with("sample.") || super::RULES.iter().any(|r| r.id == rule),
            "rule {rule} missing from RULES"
        );
        self.findings.push(Finding { severity, rule, path, message, fix: fix.to_string(), unbounded: Vec::new() });
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
