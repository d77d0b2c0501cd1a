//! `metadata.name`, `spec.group`, `spec.scope` and `spec.names` (R3–R11, R112).

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use crate::dns::{DNS1035_MSG, DNS1123_SUBDOMAIN_MSG, is_dns1035_label, is_dns1123_subdomain};
use crate::report::{Report, unknown_keys};
use crate::rules::Rule;

/// Core kinds that `kubectl get <kind>` would resolve ambiguously when the CRD is in the `all`
/// category (R112).
const CORE_KINDS: &[&str] = &[
    "Pod",
    "Service",
    "Deployment",
    "ReplicaSet",
    "StatefulSet",
    "DaemonSet",
    "Job",
    "CronJob",
    "ConfigMap",
    "Secret",
    "Namespace",
    "Node",
    "Event",
    "Ingress",
    "Endpoints",
    "ServiceAccount",
    "PersistentVolume",
    "PersistentVolumeClaim",
];

pub(crate) fn check(obj: &Map<String, Value>, spec: Option<&Map<String, Value>>, report: &mut Report) {
    let empty = Map::new();
    let spec = spec.unwrap_or(&empty);
    let group = spec.get("group").and_then(Value::as_str);
    let names = spec.get("names").and_then(Value::as_object).unwrap_or(&empty);
    let plural = names.get("plural").and_then(Value::as_str);
    check_metadata_name(obj, group, plural, report);
    check_group(obj, group, report);
    check_scope(spec, report);
    if spec.get("names").is_none() {
        report.add(Rule::NamesKind, "spec.names", "Required value", "add spec.names with plural and kind");
        return;
    }
    unknown_keys(names, &["plural", "singular", "shortNames", "kind", "listKind", "categories"], "spec.names", report);
    match plural {
        None | Some("") => report.add(
            Rule::NamesPlural,
            "spec.names.plural",
            "Required value",
            "set spec.names.plural to the lower-case plural of the kind",
        ),
        Some(p) if !is_dns1035_label(p) => report.add(
            Rule::NamesPlural,
            "spec.names.plural",
            format!("Invalid value: {p:?}: {DNS1035_MSG}"),
            "use lower-case letters, digits and '-', starting with a letter (e.g. \"foos\")",
        ),
        _ => {}
    }
    if let Some(s) = names.get("singular").and_then(Value::as_str).filter(|s| !s.is_empty() && !is_dns1035_label(s)) {
        report.add(
            Rule::NamesSingular,
            "spec.names.singular",
            format!("Invalid value: {s:?}: {DNS1035_MSG}"),
            "use the lower-cased kind, or omit singular",
        );
    }
    let kind = names.get("kind").and_then(Value::as_str).unwrap_or("");
    if kind.is_empty() {
        report.add(Rule::NamesKind, "spec.names.kind", "Required value", "set spec.names.kind (UpperCamelCase)");
    } else if !is_dns1035_label(&kind.to_ascii_lowercase()) {
        report.add(
            Rule::NamesKind,
            "spec.names.kind",
            format!("Invalid value: {kind:?}: may have mixed case, but should otherwise match: {DNS1035_MSG}"),
            "start with a letter and use only letters, digits and '-' (e.g. \"FooBar\")",
        );
    }
    if let Some(list_kind) = names.get("listKind").and_then(Value::as_str).filter(|s| !s.is_empty()) {
        if !is_dns1035_label(&list_kind.to_ascii_lowercase()) {
            report.add(
                Rule::NamesListKind,
                "spec.names.listKind",
                format!("Invalid value: {list_kind:?}: may have mixed case, but should otherwise match: {DNS1035_MSG}"),
                "use the kind followed by \"List\", or omit listKind",
            );
        } else if list_kind == kind {
            report.add(
                Rule::NamesListKind,
                "spec.names.listKind",
                format!("Invalid value: {list_kind:?}: kind and listKind may not be the same"),
                "use the kind followed by \"List\", or omit listKind",
            );
        }
    }
    check_label_list(names, "shortNames", Rule::NamesShortName, report);
    check_label_list(names, "categories", Rule::NamesCategory, report);
    let in_all = names.get("categories").and_then(Value::as_array).is_some_and(|c| c.iter().any(|v| v == "all"));
    if in_all && CORE_KINDS.contains(&kind) {
        report.add(
            Rule::NamesCoreKind,
            "spec.names.kind",
            format!("kind {kind:?} is also a core kind and the CRD is in category \"all\": `kubectl get` output becomes ambiguous"),
            "choose a distinct kind, or drop the \"all\" category",
        );
    }
}

fn check_metadata_name(obj: &Map<String, Value>, group: Option<&str>, plural: Option<&str>, report: &mut Report) {
    let name = obj.get("metadata").and_then(|m| m.get("name")).and_then(Value::as_str).unwrap_or("");
    let expected = match (plural, group) {
        (Some(p), Some(g)) if !p.is_empty() && !g.is_empty() => Some(format!("{p}.{g}")),
        _ => None,
    };
    if name.is_empty() {
        report.add(
            Rule::NamesMetadataName,
            "metadata.name",
            "Required value: name or generateName is required",
            &format!("set metadata.name to {}", expected.as_deref().unwrap_or("<plural>.<group>")),
        );
    } else if let Some(expected) = expected.filter(|e| e != name) {
        report.add(
            Rule::NamesMetadataName,
            "metadata.name",
            format!("Invalid value: {name:?}: must be spec.names.plural+\".\"+spec.group"),
            &format!("rename the CRD to {expected:?}"),
        );
    }
}

fn check_group(obj: &Map<String, Value>, group: Option<&str>, report: &mut Report) {
    let Some(group) = group.filter(|g| !g.is_empty()) else {
        report.add(
            Rule::NamesGroup,
            "spec.group",
            "Required value",
            "set spec.group to a domain such as batch.example.com",
        );
        return;
    };
    if !is_dns1123_subdomain(group) {
        report.add(
            Rule::NamesGroup,
            "spec.group",
            format!("Invalid value: {group:?}: {DNS1123_SUBDOMAIN_MSG}"),
            "use a lower-case domain such as batch.example.com",
        );
    } else if !group.contains('.') {
        report.add(
            Rule::NamesGroup,
            "spec.group",
            format!("Invalid value: {group:?}: should be a domain with at least one dot"),
            "use a domain you own, such as batch.example.com",
        );
    }
    let protected = group == "k8s.io"
        || group == "kubernetes.io"
        || group.ends_with(".k8s.io")
        || group.ends_with(".kubernetes.io");
    if protected {
        let annotation = obj
            .get("metadata")
            .and_then(|m| m.get("annotations"))
            .and_then(|a| a.get("api-approved.kubernetes.io"))
            .and_then(Value::as_str);
        let path = "metadata.annotations[api-approved.kubernetes.io]";
        const FIX: &str = "set the annotation api-approved.kubernetes.io to the URL of the approving pull request, or to \"unapproved, <reason>\"";
        match annotation {
            None => report.add(
                Rule::NamesApiApproval,
                path,
                "Required value: protected groups must have approval annotation \"api-approved.kubernetes.io\", see https://github.com/kubernetes/enhancements/pull/1111",
                FIX,
            ),
            Some(v) if !approved(v) => report.add(
                Rule::NamesApiApproval,
                path,
                format!(
                    "Invalid value: {v:?}: protected groups must have approval annotation \"api-approved.kubernetes.io\" with either a URL or a reason starting with \"unapproved\""
                ),
                FIX,
            ),
            Some(_) => {}
        }
    }
}

/// A URL with scheme and host, or a reason starting with `unapproved`.
fn approved(v: &str) -> bool {
    v.starts_with("unapproved") || url::Url::parse(v).is_ok_and(|u| u.host_str().is_some_and(|h| !h.is_empty()))
}

fn check_scope(spec: &Map<String, Value>, report: &mut Report) {
    match spec.get("scope").and_then(Value::as_str) {
        None | Some("") => {
            report.add(Rule::NamesScope, "spec.scope", "Required value", "set spec.scope: Namespaced or Cluster")
        }
        Some("Namespaced" | "Cluster") => {}
        Some(other) => report.add(
            Rule::NamesScope,
            "spec.scope",
            format!("Unsupported value: {other:?}: supported values: \"Cluster\", \"Namespaced\""),
            "use exactly Namespaced or Cluster (case-sensitive)",
        ),
    }
}

/// R11: shortNames and categories are DNS-1035 labels; repeated entries are lint warnings.
fn check_label_list(names: &Map<String, Value>, key: &str, rule: Rule, report: &mut Report) {
    let Some(list) = names.get(key).and_then(Value::as_array) else { return };
    let mut seen = BTreeSet::new();
    for (i, v) in list.iter().enumerate() {
        let s = v.as_str().unwrap_or("");
        let path = format!("spec.names.{key}[{i}]");
        if !is_dns1035_label(s) {
            report.add(
                rule,
                path,
                format!("Invalid value: {s:?}: {DNS1035_MSG}"),
                "use lower-case letters, digits and '-', starting with a letter",
            );
        } else if !seen.insert(s) {
            report.add(Rule::NamesDuplicate, path, format!("Duplicate value: {s:?}"), "remove the repeated entry");
        }
    }
}
