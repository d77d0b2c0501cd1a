//! The API server's audit log: which requests a user made.

use std::collections::{BTreeMap, BTreeSet};

/// The audit log's file name in the environment's folder.
pub(crate) const AUDIT_LOG: &str = "audit.log";

/// Metadata of every request, from the response on (kube-apiserver's audit policy format).
pub(crate) const AUDIT_POLICY: &str = "apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Metadata
";

/// The requests of the audit log `text` (one JSON event a line) that `user` made as
/// impersonated user, each once: `(verb, resource)` with the subresource after a `/`
/// (`patch`, `memcacheds/status`), and how many.
pub(crate) fn requests(text: &str, user: &str) -> BTreeMap<(String, String), usize> {
    let mut seen = BTreeSet::new();
    let mut requests = BTreeMap::new();
    for event in text.lines().filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok()) {
        if event["impersonatedUser"]["username"] != user || !seen.insert(event["auditID"].to_string()) {
            continue;
        }
        let reference = &event["objectRef"];
        let mut resource = reference["resource"].as_str().unwrap_or_default().to_string();
        if let Some(sub) = reference["subresource"].as_str() {
            resource = format!("{resource}/{sub}");
        }
        let verb = event["verb"].as_str().unwrap_or_default().to_string();
        *requests.entry((verb, resource)).or_insert(0) += 1;
    }
    requests
}

#[cfg(test)]
mod tests {
    #[test]
    fn each_request_of_the_user_counts_once_by_verb_and_resource() {
        let line = |id: &str, user: &str, verb: &str, sub: Option<&str>| {
            let reference = serde_json::json!({ "resource": "memcacheds", "subresource": sub });
            serde_json::json!({ "auditID": id, "impersonatedUser": { "username": user }, "verb": verb, "objectRef": reference })
                .to_string()
        };
        let log = [
            line("1", "manager", "patch", Some("status")),
            line("1", "manager", "patch", Some("status")),
            line("2", "manager", "patch", None),
            line("3", "admin", "patch", None),
        ]
        .join("\n");
        let requests = super::requests(&log, "manager");
        let expected = [
            (("patch".to_string(), "memcacheds".to_string()), 1),
            (("patch".to_string(), "memcacheds/status".to_string()), 1),
        ];
        assert_eq!(requests, expected.into_iter().collect());
    }
}
