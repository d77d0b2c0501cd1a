//! Compatibility between two revisions of a CRD: what breaks objects already stored, or clients
//! written against the old revision, when the new one replaces it.
//!
//! [`compare_crds`] compares the CRD of one name as it was (OLD) and as it will be (NEW),
//! version by version, and reports each incompatible change as a [`Finding`] whose rule is one
//! of [`crate::COMPAT_RULES`] (`compat.field-removed`, `compat.type`, …). Schemas are compared
//! node by node: a node of OLD is paired with the node at the same place in NEW (the same
//! property, `items`, `additionalProperties`, `allOf[i]`…), and only the node's own keywords
//! are compared there; its children are compared at their own place. A removed subtree is
//! reported once, at its top.
//!
//! The rules follow crdify (`sigs.k8s.io/crdify`, the check OLM v1 runs before an upgrade),
//! with these differences, each because of what the API server does:
//! - a changed description is not reported (it changes no object or request);
//! - an enum value added and `nullable` added warn instead of failing: stored objects stay
//!   valid, only clients that switch over every value may be surprised;
//! - a pattern or format removed is not reported (it only loosens validation);
//! - a removed served version is an error only when OLD had not deprecated it, and a removed
//!   storage version (or one of OLD's `status.storedVersions`) always is;
//! - in addition: formats, CEL rules (a warning, since the server ratchets fields an update
//!   leaves unchanged), `x-kubernetes-preserve-unknown-fields`, list and map types, the storage
//!   version moved under `conversion: None`, printer columns, selectable fields and the kind.
//!
//! Paths name the place in NEW's document (`spec.versions[1].schema.openAPIV3Schema
//! .properties[spec].properties[size]`); for something removed, the place it had, under the
//! index of its version in NEW.
//!
//! ```
//! let crd = |max: u32| -> serde_json::Value { serde_json::json!({
//!     "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
//!     "metadata": {"name": "widgets.example.com"},
//!     "spec": {"group": "example.com", "scope": "Namespaced",
//!         "names": {"kind": "Widget", "plural": "widgets"},
//!         "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
//!             "type": "object",
//!             "properties": {"spec": {"type": "object", "properties": {
//!                 "size": {"type": "integer", "maximum": max}}}}}}}]}})
//! };
//! let findings = rop_verify::compat::compare_crds(&crd(10), &crd(5), &Default::default());
//! assert_eq!(findings[0].rule.id(), "compat.maximum");
//! assert_eq!(findings[0].path, "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[size]");
//! assert!(findings[0].message.starts_with("maximum lowered: 10 -> 5: "));
//! ```

mod junctors;
mod schema;
mod versions;

use serde_json::{Map, Value};

use crate::report::{Finding, Report};
use crate::rules::Severity;

/// How [`compare_crds`] judges.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CompatOptions {
    /// Report breaking changes inside alpha versions (`v1alpha1`, `v2alpha3`) as warnings, not
    /// errors: alpha APIs may break between releases (Kubernetes API deprecation policy).
    pub alpha_may_break: bool,
}

/// Compares two revisions of one CRD (`old` and `new`, whole `CustomResourceDefinition`
/// documents with the same `metadata.name`) and returns the incompatible changes, CRD-wide
/// findings first, then version by version in NEW's order.
///
/// Neither document is checked for validity here (that is [`crate::verify_crd`]'s job); parts
/// that are missing or of the wrong shape are treated as absent.
pub fn compare_crds(old: &Value, new: &Value, options: &CompatOptions) -> Vec<Finding> {
    let empty = Map::new();
    let old_spec = old.get("spec").and_then(Value::as_object).unwrap_or(&empty);
    let new_spec = new.get("spec").and_then(Value::as_object).unwrap_or(&empty);
    let mut report = Report::default();
    versions::check_crd(old, old_spec, new_spec, options, &mut report);
    let new_versions = versions::list(new_spec);
    let old_versions = versions::list(old_spec);
    for (at, (old_version, old_name)) in old_versions.iter().map(|v| (*v, versions::name(v))).enumerate() {
        let Some((index, new_version)) = versions::twin(&old_versions, at, &new_versions) else {
            continue;
        };
        let base = format!("spec.versions[{index}]");
        let mark = report.len();
        versions::check_version(old_version, new_version, &base, &mut report);
        if let (Some(a), Some(b)) = (openapi_schema(old_version), openapi_schema(new_version)) {
            schema::compare(a, b, &format!("{base}.schema.openAPIV3Schema"), &mut report);
        }
        report.set_version_from(mark, index);
        if options.alpha_may_break && is_alpha(old_name) {
            report.downgrade_from(mark, Severity::Warning);
        }
    }
    report.into_findings()
}

/// The finding for a CRD that an older revision held and a newer one does not: deleting a CRD
/// from a cluster deletes every object of it (apiextensions-apiserver's CRD finalizer), and its
/// clients get 404 Not Found. `rop verify --against` and `rop generate` report it.
pub fn crd_removed(name: &str) -> Finding {
    Finding {
        severity: Severity::Error,
        rule: crate::Rule::CompatCrdRemoved,
        path: "metadata.name".to_string(),
        version: None,
        message: format!(
            "CRD {name} removed: deleting it from a cluster deletes every object of it, and its clients fail with 404 Not Found"
        ),
        fix: "keep the CRD (stop serving its versions first, if it is to go), or acknowledge the removal".to_string(),
        unbounded: Vec::new(),
    }
}

/// The field a finding's schema path is about, as a path into the object: `spec.tags[*].name`
/// for `spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[tags].items
/// .properties[name]` (`[*]` for list items and map values); `None` outside a schema and at its
/// root. A CEL rule's path names the node that carries the rule.
pub fn field_of(path: &str) -> Option<String> {
    let (_, rest) = path.split_once(".schema.openAPIV3Schema")?;
    let rest = rest.split(".x-kubernetes-validations[").next().unwrap_or(rest);
    let mut field = String::new();
    for step in rest.split('.').filter(|s| !s.is_empty()) {
        match step.strip_prefix("properties[").and_then(|s| s.strip_suffix(']')) {
            Some(name) => {
                if !field.is_empty() {
                    field.push('.');
                }
                field.push_str(name);
            }
            None if step == "items" || step == "additionalProperties" => field.push_str("[*]"),
            None => {}
        }
    }
    (!field.is_empty()).then_some(field)
}

/// A JSON value as a string that is equal for values the API server treats alike: numbers by
/// value (`4`, `4.0`), object keys sorted, and the lists whose order means nothing (`enum`,
/// `required`) sorted. Used to match enum values and junctor entries.
pub(crate) fn canonical(value: &Value) -> String {
    fn walk(value: &Value, unordered: bool) -> Value {
        match value {
            Value::Number(n) => match n.as_f64() {
                Some(f) if f.fract() == 0.0 && f.abs() < 1e15 => Value::from(f as i64),
                _ => value.clone(),
            },
            Value::Array(items) => {
                let mut items: Vec<Value> = items.iter().map(|v| walk(v, false)).collect();
                if unordered {
                    items.sort_by_key(|v| v.to_string());
                }
                Value::Array(items)
            }
            Value::Object(fields) => {
                let sorted: std::collections::BTreeMap<&String, Value> =
                    fields.iter().map(|(k, v)| (k, walk(v, k == "enum" || k == "required"))).collect();
                Value::Object(sorted.into_iter().map(|(k, v)| (k.clone(), v)).collect())
            }
            other => other.clone(),
        }
    }
    walk(value, false).to_string()
}

/// `schema.openAPIV3Schema` of a version entry.
fn openapi_schema(version: &Map<String, Value>) -> Option<&Map<String, Value>> {
    version.get("schema")?.get("openAPIV3Schema")?.as_object()
}

/// `v<N>alpha<M>`.
fn is_alpha(name: &str) -> bool {
    name.strip_prefix('v').and_then(|rest| rest.split_once("alpha")).is_some_and(|(major, minor)| {
        !major.is_empty()
            && !minor.is_empty()
            && major.bytes().all(|b| b.is_ascii_digit())
            && minor.bytes().all(|b| b.is_ascii_digit())
    })
}

#[cfg(test)]
mod tests {
    use super::{field_of, is_alpha};

    #[test]
    fn schema_paths_become_field_paths() {
        let at = |rest: &str| field_of(&format!("spec.versions[1].schema.openAPIV3Schema{rest}"));
        assert_eq!(at(".properties[spec].properties[size]").as_deref(), Some("spec.size"));
        assert_eq!(
            at(".properties[spec].properties[tags].items.properties[name]").as_deref(),
            Some("spec.tags[*].name")
        );
        assert_eq!(at(".properties[spec].properties[env].additionalProperties").as_deref(), Some("spec.env[*]"));
        assert_eq!(at(".properties[spec].x-kubernetes-validations[0].rule").as_deref(), Some("spec"));
        assert_eq!(at(""), None);
        assert_eq!(field_of("spec.scope"), None);
    }

    #[test]
    fn canonical_values_ignore_number_spelling_and_enum_order() {
        use super::canonical;
        use serde_json::json;
        assert_eq!(canonical(&json!({"maximum": 10.0})), canonical(&json!({"maximum": 10})));
        assert_eq!(canonical(&json!({"enum": ["q", "p"], "b": 1})), canonical(&json!({"b": 1.0, "enum": ["p", "q"]})));
        assert_ne!(canonical(&json!({"items": ["q", "p"]})), canonical(&json!({"items": ["p", "q"]})));
        assert_ne!(canonical(&json!(1.5)), canonical(&json!(1)));
    }

    /// Found by fuzzing (`fuzz/`, target `verify_against`): with a version name listed twice,
    /// the second was compared with the first (its schema, whether it is served), so a CRD
    /// compared with itself broke.
    #[test]
    fn a_version_listed_twice_is_compared_with_its_own_twin() {
        use serde_json::json;
        let version = |name: &str, served: bool, storage: bool, fields: &[&str]| {
            let properties: serde_json::Map<String, serde_json::Value> =
                fields.iter().map(|f| (f.to_string(), json!({"type": "string"}))).collect();
            json!({"name": name, "served": served, "storage": storage, "schema": {"openAPIV3Schema":
                {"type": "object", "properties": {"spec": {"type": "object", "properties": properties}}}}})
        };
        let versions = [
            version("v1beta1", true, false, &["a"]),
            version("v1", false, false, &["a"]),
            version("v1", true, true, &["a", "b"]),
        ];
        let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {"group": "example.com", "scope": "Namespaced", "names": {"kind": "Widget", "plural": "widgets"},
                "versions": versions}});
        assert_eq!(super::compare_crds(&crd, &crd, &super::CompatOptions::default()), vec![]);
    }

    #[test]
    fn alpha_versions() {
        assert!(is_alpha("v1alpha1"));
        assert!(is_alpha("v2alpha13"));
        assert!(!is_alpha("v1beta1"));
        assert!(!is_alpha("v1"));
        assert!(!is_alpha("valpha1"));
        assert!(!is_alpha("v1alpha"));
    }
}
