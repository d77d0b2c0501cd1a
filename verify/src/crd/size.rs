//! Size limits (R101, R102).

use serde_json::Value;

use crate::report::Report;
use crate::rules::{Rule, Severity};

/// All annotations of an object together (R102): client-side `kubectl apply` copies the whole
/// object into `kubectl.kubernetes.io/last-applied-configuration`.
pub const ANNOTATIONS_LIMIT: usize = 262_144;
/// Above this, warn that the CRD approaches etcd's request limit (R101 guidance).
pub const ETCD_WARN: usize = 1_048_576;
/// etcd's default `--max-request-bytes` (R101).
pub const ETCD_LIMIT: usize = 1_572_864;

pub(crate) fn check(crd: &Value, report: &mut Report) {
    // kubectl encodes with Go's encoding/json, which escapes <, > and & as \u003c (6 bytes)
    // and U+2028/U+2029 as \u2028 (6 bytes instead of 3).
    let json = serde_json::to_string(crd).unwrap_or_default();
    let bytes = json.len()
        + json
            .chars()
            .map(|c| match c {
                '<' | '>' | '&' => 5,
                '\u{2028}' | '\u{2029}' => 3,
                _ => 0,
            })
            .sum::<usize>();
    const SHRINK: &str =
        "shrink descriptions (controller-gen crd:maxDescLen=0) or drop repeated embedded PodTemplate descriptions";
    if bytes > ETCD_LIMIT {
        report.add(
            Rule::SizeEtcd,
            "(document)",
            format!("the CRD is {bytes} bytes as JSON, over etcd's default request limit of {ETCD_LIMIT} bytes (etcdserver: request is too large)"),
            SHRINK,
        );
    } else if bytes > ETCD_WARN {
        report.add_with(
            Severity::Warning,
            Rule::SizeEtcd,
            "(document)",
            format!("the CRD is {bytes} bytes as JSON, close to etcd's default request limit of {ETCD_LIMIT} bytes (managedFields add more)"),
            SHRINK,
        );
    }
    let others: usize = crd
        .get("metadata")
        .and_then(|m| m.get("annotations"))
        .and_then(Value::as_object)
        .map(|a| a.iter().map(|(k, v)| k.len() + v.as_str().map_or(0, str::len)).sum())
        .unwrap_or(0);
    if bytes + others > ANNOTATIONS_LIMIT {
        report.add(
            Rule::SizeLastApplied,
            "metadata.annotations",
            format!(
                "the CRD is {bytes} bytes as JSON: client-side `kubectl apply` stores it in the kubectl.kubernetes.io/last-applied-configuration annotation and fails (metadata.annotations: Too long: must have at most {ANNOTATIONS_LIMIT} bytes)"
            ),
            "apply it with `kubectl apply --server-side` (or kubectl create/replace; a rop project's `make install` and `make deploy` apply server-side), or cap descriptions (controller-gen crd:maxDescLen)",
        );
    }
}
