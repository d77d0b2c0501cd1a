//! `spec.versions` (R13–R16, R18, R19, R110, R113).

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use crate::dns::{DNS1035_MSG, is_dns1035_label};
use crate::report::{Report, unknown_keys};
use crate::rules::Rule;

const VERSION_KEYS: &[&str] = &[
    "name",
    "served",
    "storage",
    "deprecated",
    "deprecationWarning",
    "schema",
    "subresources",
    "additionalPrinterColumns",
    "selectableFields",
];

pub(crate) fn check(obj: &Map<String, Value>, spec: &Map<String, Value>, report: &mut Report) {
    let list = spec.get("versions").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
    if list.is_empty() {
        report.add(
            Rule::VersionsRequired,
            "spec.versions",
            "Required value: must have exactly one version marked as storage version",
            "add a version: {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}",
        );
        return;
    }
    let mut names = BTreeSet::new();
    let mut storage = Vec::new();
    let mut any_served = false;
    for (i, v) in list.iter().enumerate() {
        let path = format!("spec.versions[{i}]");
        let Some(v) = v.as_object() else { continue };
        unknown_keys(v, VERSION_KEYS, &path, report);
        let name = v.get("name").and_then(Value::as_str).unwrap_or("");
        if name.is_empty() {
            report.add(Rule::VersionsName, format!("{path}.name"), "Required value", "name the version, e.g. v1alpha1");
        } else if !is_dns1035_label(name) {
            report.add(
                Rule::VersionsName,
                format!("{path}.name"),
                format!("Invalid value: {name:?}: {DNS1035_MSG}"),
                "use a Kube-like version name such as v1, v1beta1 or v2alpha1",
            );
        } else if !names.insert(name) {
            report.add(
                Rule::VersionsDuplicateName,
                format!("{path}.name"),
                format!("Invalid value: {name:?}: spec.versions must contain unique version names"),
                "remove or rename the repeated version",
            );
        } else if !is_kube_like(name) {
            report.add(
                Rule::VersionsNonKubeLike,
                format!("{path}.name"),
                format!("{name:?} is not a Kube-like version name, so it sorts after every v<N>[alpha|beta<M>] version in discovery"),
                "use a name such as v1, v1beta1 or v2alpha1",
            );
        }
        let served = v.get("served").and_then(Value::as_bool) == Some(true);
        any_served |= served;
        if v.get("storage").and_then(Value::as_bool) == Some(true) {
            storage.push((i, served));
        }
        if v.get("schema").and_then(|s| s.get("openAPIV3Schema")).is_none() {
            report.add(
                Rule::VersionsSchemaRequired,
                format!("{path}.schema.openAPIV3Schema"),
                "Required value",
                "add schema.openAPIV3Schema (at least {type: object})",
            );
        }
        check_deprecation_warning(v, &path, report);
    }
    if storage.len() != 1 {
        report.add(
            Rule::VersionsStorage,
            "spec.versions",
            format!("Invalid value: must have exactly one version marked as storage version (found {})", storage.len()),
            "set storage: true on exactly one version",
        );
    }
    if !any_served {
        report.add(
            Rule::VersionsNotServed,
            "spec.versions",
            "no version is served, so the API server offers no endpoint for this kind",
            "set served: true on at least one version",
        );
    } else if let [(i, false)] = storage.as_slice() {
        report.add(
            Rule::VersionsNotServed,
            format!("spec.versions[{i}].served"),
            "the storage version is not served",
            "serve the storage version, or move storage to a served version",
        );
    }
    check_stored_versions(obj, &names, report);
}

/// `v<N>`, `v<N>alpha<M>` or `v<N>beta<M>` with N, M > 0 (R14, R113).
fn is_kube_like(name: &str) -> bool {
    fn number(s: &str) -> Option<&str> {
        let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
        (end > 0 && !s.starts_with('0')).then(|| &s[end..])
    }
    let Some(rest) = name.strip_prefix('v').and_then(number) else { return false };
    if rest.is_empty() {
        return true;
    }
    let rest = rest.strip_prefix("alpha").or_else(|| rest.strip_prefix("beta"));
    rest.and_then(number).is_some_and(str::is_empty)
}

/// R18: `deprecationWarning` only with `deprecated: true`, 1–256 printable characters.
fn check_deprecation_warning(v: &Map<String, Value>, path: &str, report: &mut Report) {
    let Some(warning) = v.get("deprecationWarning").and_then(Value::as_str) else { return };
    let path = format!("{path}.deprecationWarning");
    let detail = if v.get("deprecated").and_then(Value::as_bool) != Some(true) {
        Some("can only be set for deprecated versions".to_string())
    } else if warning.is_empty() {
        Some("must not be an empty string".to_string())
    } else if warning.chars().count() > 256 {
        Some("must be <= 256 characters long".to_string())
    } else {
        warning
            .chars()
            .position(char::is_control)
            .map(|i| format!("must only contain printable UTF-8 characters; control character found at index {i}"))
    };
    if let Some(detail) = detail {
        report.add(
            Rule::VersionsDeprecationWarning,
            path,
            format!("Invalid value: {warning:?}: {detail}"),
            "set deprecated: true and a short one-line warning, or remove deprecationWarning",
        );
    }
}

/// R19/R108: a `status.storedVersions` in the manifest is ignored on create, but on update
/// every listed version must still be in `spec.versions`.
fn check_stored_versions(obj: &Map<String, Value>, names: &BTreeSet<&str>, report: &mut Report) {
    let Some(stored) = obj.get("status").and_then(|s| s.get("storedVersions")).and_then(Value::as_array) else {
        return;
    };
    for (i, v) in stored.iter().enumerate() {
        let Some(v) = v.as_str() else { continue };
        if !names.contains(v) {
            report.add(
                Rule::VersionsStoredVersions,
                format!("status.storedVersions[{i}]"),
                format!("Invalid value: {v:?}: missing from spec.versions; an update of an existing CRD is rejected until a storage migration removes {v} from status.storedVersions"),
                "keep the version in spec.versions (served: false) until the storage migration is done, or drop the status block",
            );
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn kube_like() {
        for ok in ["v1", "v10", "v1beta1", "v2alpha3"] {
            assert!(super::is_kube_like(ok), "{ok}");
        }
        for bad in ["v0", "v1beta", "foo", "v1gamma1", "v01", "v1alpha0"] {
            assert!(!super::is_kube_like(bad), "{bad}");
        }
    }
}
