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
    let mut requests = BTreeMap::new();
    for event in events(text, user) {
        let verb = event["verb"].as_str().unwrap_or_default().to_string();
        *requests.entry((verb, resource(&event))).or_insert(0) += 1;
    }
    requests
}

/// The events of the audit log `text` for requests `user` made as impersonated user, each
/// request once (a watch has an event at `ResponseStarted` and one at `ResponseComplete`).
fn events(text: &str, user: &str) -> impl Iterator<Item = serde_json::Value> {
    let mut seen = BTreeSet::new();
    text.lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(move |event| event["impersonatedUser"]["username"] == user && seen.insert(event["auditID"].to_string()))
}

/// The event's resource, with the subresource after a `/`.
fn resource(event: &serde_json::Value) -> String {
    let reference = &event["objectRef"];
    let resource = reference["resource"].as_str().unwrap_or_default();
    match reference["subresource"].as_str() {
        Some(sub) => format!("{resource}/{sub}"),
        None => resource.to_string(),
    }
}

/// One request that changed something, as the audit log records it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Write {
    /// When the API server received it (the event's `requestReceivedTimestamp`).
    pub received: k8s_openapi::jiff::Timestamp,
    /// `create`, `update`, `patch`, `delete` or `deletecollection`.
    pub verb: String,
    /// The resource, with the subresource after a `/` (`memcacheds/status`).
    pub resource: String,
    /// The object's name (empty for a `create` the server named).
    pub name: String,
    /// The path and query the request was sent to (the event's `requestURI`):
    /// `/api/v1/namespaces/default/configmaps/sample?fieldManager=...`.
    pub request_uri: String,
}

/// The writes of the audit log `text` that `user` made as impersonated user, each once, in
/// the order the server received them.
pub(crate) fn writes(text: &str, user: &str) -> Vec<Write> {
    let mut writes: Vec<Write> = events(text, user)
        .filter_map(|event| {
            let verb = event["verb"].as_str().unwrap_or_default();
            if !matches!(verb, "create" | "update" | "patch" | "delete" | "deletecollection") {
                return None;
            }
            let received = event["requestReceivedTimestamp"].as_str()?.parse().ok()?;
            let name = event["objectRef"]["name"].as_str().unwrap_or_default().to_string();
            let request_uri = event["requestURI"].as_str().unwrap_or_default().to_string();
            Some(Write { received, verb: verb.into(), resource: resource(&event), name, request_uri })
        })
        .collect();
    writes.sort_by_key(|write| write.received);
    writes
}

#[cfg(test)]
mod tests {
    #[test]
    fn writes_are_the_changing_requests_in_the_order_received() {
        let line = |id: &str, at: &str, verb: &str| {
            let reference = serde_json::json!({ "resource": "configmaps", "name": "sample" });
            let user = serde_json::json!({ "username": "replica" });
            let uri = format!("/api/v1/namespaces/default/configmaps/sample?request={id}");
            serde_json::json!({ "auditID": id, "requestReceivedTimestamp": at, "impersonatedUser": user, "verb": verb, "objectRef": reference, "requestURI": uri })
                .to_string()
        };
        let log = [
            line("1", "2026-12-03T17:00:02.000001Z", "patch"),
            line("2", "2026-12-03T17:00:01.500000Z", "create"),
            line("2", "2026-12-03T17:00:01.500000Z", "create"),
            line("3", "2026-12-03T17:00:03.000000Z", "get"),
        ]
        .join("\n");
        let writes = super::writes(&log, "replica");
        let verbs: Vec<_> = writes.iter().map(|w| (w.verb.as_str(), w.received.to_string())).collect();
        assert_eq!(
            verbs,
            [("create", "2026-12-03T17:00:01.5Z".to_string()), ("patch", "2026-12-03T17:00:02.000001Z".to_string())]
        );
        assert_eq!(writes[0].name, "sample");
        assert_eq!(writes[0].resource, "configmaps");
        assert_eq!(writes[0].request_uri, "/api/v1/namespaces/default/configmaps/sample?request=2");
    }

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
