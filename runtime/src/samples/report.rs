//! The collector the checks write their findings into.

use crate::verify::{Finding, Severity};

/// Findings in the order the checks emitted them.
#[derive(Debug, Default)]
pub(crate) struct Report {
    findings: Vec<Finding>,
}

impl Report {
    /// Records an error: the API server refuses the object.
    pub(crate) fn error(&mut self, rule: &'static str, path: impl Into<String>, message: impl Into<String>, fix: &str) {
        self.push(Severity::Error, rule, path.into(), message.into(), fix);
    }

    /// Records a warning: the API server accepts the object, perhaps not as written.
    pub(crate) fn warning(
        &mut self,
        rule: &'static str,
        path: impl Into<String>,
        message: impl Into<String>,
        fix: &str,
    ) {
        self.push(Severity::Warning, rule, path.into(), message.into(), fix);
    }

    fn push(&mut self, severity: Severity, rule: &'static str, path: String, message: String, fix: &str) {
        self.findings.push(Finding { severity, rule, path, message, fix: fix.to_string() });
    }

    pub(crate) fn into_findings(self) -> Vec<Finding> {
        self.findings
    }
}
