//! Which CRD version an object is served by (the API server's REST mapping): its `apiVersion`
//! must name a served version of the CRD's group, and its `kind` the CRD's kind.

use serde_json::Value;

use crate::report::Report;
use crate::rules::Rule;

/// What the rest of the checks need from the CRD version that serves the object.
pub(crate) struct Target<'a> {
    /// The version's `schema.openAPIV3Schema`, if it has one.
    pub(crate) schema: Option<&'a Value>,
    /// `spec.scope` is `Namespaced`.
    pub(crate) namespaced: bool,
}

/// `group/version` split in two; a core-group `v1` has the empty group.
fn split_api_version(api_version: &str) -> (&str, &str) {
    api_version.rsplit_once('/').unwrap_or(("", api_version))
}

fn crd_spec(crd: &Value) -> Option<&Value> {
    crd.get("spec")
}

fn crd_kind(crd: &Value) -> &str {
    crd_spec(crd).and_then(|s| s.pointer("/names/kind")).and_then(Value::as_str).unwrap_or("")
}

fn crd_group(crd: &Value) -> &str {
    crd_spec(crd).and_then(|s| s.get("group")).and_then(Value::as_str).unwrap_or("")
}

/// Whether `doc` is a kustomize `Kustomization` (or `Component`), which is not an object
/// for the API server.
pub(crate) fn is_kustomization(doc: &Value) -> bool {
    let kind = doc.get("kind").and_then(Value::as_str);
    let api_version = doc.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    matches!(kind, Some("Kustomization" | "Component")) && api_version.starts_with("kustomize.config.k8s.io/")
        || kind.is_none() && (doc.get("resources").is_some() || doc.get("bases").is_some())
}

/// Whether `doc`'s `apiVersion` group and `kind` are those of `crd`.
pub(crate) fn matches(crd: &Value, doc: &Value) -> bool {
    let Some(api_version) = doc.get("apiVersion").and_then(Value::as_str) else { return false };
    let kind = doc.get("kind").and_then(Value::as_str).unwrap_or("");
    crate::documents::is_crd(crd) && split_api_version(api_version).0 == crd_group(crd) && kind == crd_kind(crd)
}

/// Checks `apiVersion` and `kind`, and returns the version serving the object, or `None`
/// (after reporting why) when no version does.
pub(crate) fn check<'a>(crd: &'a Value, object: &Value, report: &mut Report) -> Option<Target<'a>> {
    const FIX_VERSION: &str = "use one of the CRD's served versions in apiVersion";
    let kind = crd_kind(crd);
    let group = crd_group(crd);
    let Some(obj) = object.as_object() else {
        report.add(
            Rule::SampleKind,
            super::path::ROOT,
            "the object must be a mapping",
            "write the object as a YAML mapping",
        );
        return None;
    };
    let served: Vec<&str> = crd_spec(crd)
        .and_then(|s| s.get("versions"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|v| v.get("served").and_then(Value::as_bool) == Some(true))
        .filter_map(|v| v.get("name").and_then(Value::as_str))
        .collect();
    let expected = served.iter().map(|v| format!("\"{group}/{v}\"")).collect::<Vec<_>>().join(", ");
    let Some(api_version) = obj.get("apiVersion").and_then(Value::as_str).filter(|s| !s.is_empty()) else {
        report.add(Rule::SampleVersion, "apiVersion", "Required value", FIX_VERSION);
        return None;
    };
    let (object_group, version) = split_api_version(api_version);
    let object_kind = obj.get("kind").and_then(Value::as_str).unwrap_or("");
    if object_kind != kind {
        let message = if object_kind.is_empty() {
            "Required value".to_string()
        } else {
            format!("Invalid value: \"{object_kind}\": must be {kind}")
        };
        report.add(Rule::SampleKind, "kind", message, "set kind to the CRD's spec.names.kind");
        return None;
    }
    let no_match = format!("no matches for kind \"{kind}\" in version \"{api_version}\"");
    if object_group != group {
        report.add(
            Rule::SampleVersion,
            "apiVersion",
            format!("Invalid value: \"{api_version}\": {no_match}: the CRD's group is \"{group}\""),
            FIX_VERSION,
        );
        return None;
    }
    let versions = crd_spec(crd).and_then(|s| s.get("versions")).and_then(Value::as_array);
    let Some(entry) = versions.into_iter().flatten().find(|v| v.get("name").and_then(Value::as_str) == Some(version))
    else {
        report.add(
            Rule::SampleVersion,
            "apiVersion",
            format!(
                "Invalid value: \"{api_version}\": {no_match}: the CRD has no version \"{version}\" \
                 (served: {expected})"
            ),
            FIX_VERSION,
        );
        return None;
    };
    if entry.get("served").and_then(Value::as_bool) != Some(true) {
        report.add(
            Rule::SampleVersion,
            "apiVersion",
            format!(
                "Invalid value: \"{api_version}\": {no_match}: version \"{version}\" is not served \
                 (served: {expected})"
            ),
            FIX_VERSION,
        );
        return None;
    }
    let namespaced = crd_spec(crd).and_then(|s| s.get("scope")).and_then(Value::as_str) != Some("Cluster");
    Some(Target { schema: entry.pointer("/schema/openAPIV3Schema"), namespaced })
}
