//! CRD-wide compatibility rules (scope, kind, which versions are stored, served and converted)
//! and the per-version rules outside the schema (printer columns, selectable fields).

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use crate::lookup::{Lookup, dot_fields, resolve};
use crate::node::is_true;
use crate::report::Report;
use crate::rules::Rule;

/// The version entries of `spec.versions` that are mappings.
pub(super) fn list(spec: &Map<String, Value>) -> Vec<&Map<String, Value>> {
    spec.get("versions").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_object).collect()
}

/// The entry of `new` (with its index) that stands for `old[at]`: the one of the same name, and
/// with a name listed more than once (the API server refuses that; `verify_crd` reports it)
/// the n-th of that name for the n-th, so that a revision compared with itself is unchanged.
pub(super) fn twin<'a>(
    old: &[&Map<String, Value>],
    at: usize,
    new: &[&'a Map<String, Value>],
) -> Option<(usize, &'a Map<String, Value>)> {
    let wanted = name(old[at]);
    let nth = old[..at].iter().filter(|v| name(v) == wanted).count();
    new.iter().copied().enumerate().filter(|(_, v)| name(v) == wanted).nth(nth)
}

/// A version entry's `name` (empty if missing).
pub(super) fn name(version: &Map<String, Value>) -> &str {
    version.get("name").and_then(Value::as_str).unwrap_or("")
}

fn text<'a>(obj: &'a Map<String, Value>, key: &str) -> &'a str {
    obj.get(key).and_then(Value::as_str).unwrap_or("")
}

/// Scope and kind (R97: immutable once established), removed stored and served versions, and
/// the storage version moved without a conversion.
pub(super) fn check_crd(
    old: &Value,
    old_spec: &Map<String, Value>,
    new_spec: &Map<String, Value>,
    options: &super::CompatOptions,
    report: &mut Report,
) {
    let (old_scope, new_scope) = (text(old_spec, "scope"), text(new_spec, "scope"));
    if old_scope != new_scope {
        report.add(
            Rule::CompatScope,
            "spec.scope",
            format!("scope changed: {old_scope:?} -> {new_scope:?}: the API server refuses the update (field is immutable), and every stored object's URL would change"),
            "keep the scope; a kind with the other scope needs a new CRD (another group or plural)",
        );
    }
    let kind = |spec: &Map<String, Value>| {
        spec.get("names").and_then(Value::as_object).map(|n| text(n, "kind").to_string()).unwrap_or_default()
    };
    let (old_kind, new_kind) = (kind(old_spec), kind(new_spec));
    if old_kind != new_kind {
        report.add(
            Rule::CompatKind,
            "spec.names.kind",
            format!("kind changed: {old_kind:?} -> {new_kind:?}: the API server refuses the update (field is immutable), and clients send the old kind"),
            "keep the kind; a renamed kind needs a new CRD",
        );
    }
    check_names(old_spec, new_spec, report);
    check_removed_versions(old, old_spec, new_spec, options, report);
    check_storage_move(old_spec, new_spec, report);
    check_conversion_removed(old_spec, new_spec, report);
}

/// Short names and categories are how people and scripts call the kind: `kubectl get wd`,
/// `kubectl get all`.
fn check_names(old_spec: &Map<String, Value>, new_spec: &Map<String, Value>, report: &mut Report) {
    let listed = |spec: &Map<String, Value>, key: &str| -> BTreeSet<String> {
        spec.get("names")
            .and_then(|n| n.get(key))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(String::from)
            .collect()
    };
    for (key, what, effect) in [
        ("shortNames", "short name", "`kubectl get {}` stops working"),
        ("categories", "category", "`kubectl get {}` no longer lists the kind"),
    ] {
        for name in listed(old_spec, key).difference(&listed(new_spec, key)) {
            report.add(
                Rule::CompatNames,
                format!("spec.names.{key}"),
                format!("{what} {name:?} removed: {}", effect.replace("{}", name)),
                "keep it",
            );
        }
    }
}

/// A version objects may be stored at must stay; a served version goes only after it was
/// deprecated.
fn check_removed_versions(
    old: &Value,
    old_spec: &Map<String, Value>,
    new_spec: &Map<String, Value>,
    options: &super::CompatOptions,
    report: &mut Report,
) {
    let new_versions = list(new_spec);
    let mut stored: BTreeSet<&str> = old
        .get("status")
        .and_then(|s| s.get("storedVersions"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    for version in list(old_spec) {
        if is_true(version, "storage") {
            stored.insert(name(version));
        }
    }
    let old_versions = list(old_spec);
    for (at, version) in old_versions.iter().copied().enumerate() {
        let old_name = name(version);
        let found = twin(&old_versions, at, &new_versions);
        if found.is_none() && stored.contains(old_name) {
            report.add(
                Rule::CompatStoredVersionRemoved,
                "spec.versions",
                format!("version {old_name:?} removed, but objects may be stored at it: the API server refuses to remove a version still in status.storedVersions, and objects stored at it could no longer be read"),
                "keep the version (served: false is fine) until every object was rewritten at the new storage version (a storage version migration) and status.storedVersions no longer lists it",
            );
            continue;
        }
        let was_served = is_true(version, "served");
        let now_served = found.is_some_and(|(_, v)| is_true(v, "served"));
        if was_served && !now_served && !is_true(version, "deprecated") {
            let (path, what) = match found {
                Some((i, _)) => (format!("spec.versions[{i}].served"), "is no longer served"),
                None => ("spec.versions".to_string(), "removed"),
            };
            // The deprecation policy lets alpha versions go without notice.
            let severity = if options.alpha_may_break && super::is_alpha(old_name) {
                crate::rules::Severity::Warning
            } else {
                crate::rules::Severity::Error
            };
            report.add_with(
                severity,
                Rule::CompatServedVersionRemoved,
                path,
                format!("version {old_name:?} {what}, and the old revision had not marked it deprecated: clients using it fail with 404 Not Found"),
                "mark the version deprecated: true (with a deprecationWarning) in one release, and stop serving it in a later one",
            );
        }
    }
}

/// R29/R109: under `conversion: None` the API server only rewrites `apiVersion`, so moving
/// storage between versions whose schemas differ prunes what the new storage version lacks.
fn check_storage_move(old_spec: &Map<String, Value>, new_spec: &Map<String, Value>, report: &mut Report) {
    let (Some(old_storage), Some(new_storage)) = (storage_version(old_spec), storage_version(new_spec)) else {
        return;
    };
    if old_storage == new_storage {
        return;
    }
    let strategy = new_spec.get("conversion").and_then(|c| c.get("strategy")).and_then(Value::as_str);
    if strategy.is_some_and(|s| s != "None") {
        return;
    }
    let new_versions = list(new_spec);
    // Descriptions change no data: only the rest of the schemas must agree.
    let schema_of = |n: &str| {
        new_versions
            .iter()
            .find(|v| name(v) == n)
            .and_then(|v| v.get("schema"))
            .and_then(|s| s.get("openAPIV3Schema"))
            .map(without_descriptions)
    };
    let Some(index) = new_versions.iter().position(|v| name(v) == new_storage) else { return };
    if schema_of(old_storage).is_some() && schema_of(old_storage) != schema_of(new_storage) {
        report.add(
            Rule::CompatStorageConversion,
            format!("spec.versions[{index}].storage"),
            format!("storage moved from {old_storage:?} to {new_storage:?} under conversion strategy None, and their schemas differ: the API server only rewrites apiVersion, so objects stored at {old_storage:?} are read as {new_storage:?} unchanged and lose the fields it does not declare"),
            "add a conversion webhook (strategy: Webhook) before moving storage, or keep the two versions' schemas identical",
        );
    }
}

/// A schema without its `description`s (a property named `description` stays).
fn without_descriptions(schema: &Value) -> Value {
    match schema {
        Value::Object(node) => Value::Object(
            node.iter()
                .filter(|(key, _)| key.as_str() != "description")
                .map(|(key, value)| {
                    let value = match (key.as_str(), value) {
                        // The keys of `properties` are field names, not keywords.
                        ("properties", Value::Object(fields)) => Value::Object(
                            fields.iter().map(|(name, field)| (name.clone(), without_descriptions(field))).collect(),
                        ),
                        _ => without_descriptions(value),
                    };
                    (key.clone(), value)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_descriptions).collect()),
        other => other.clone(),
    }
}

/// Removing the conversion webhook while versions differ: the API server then only rewrites
/// `apiVersion`, so an object read at another version than the one it is stored at loses what
/// that version does not declare (R29, R109).
fn check_conversion_removed(old_spec: &Map<String, Value>, new_spec: &Map<String, Value>, report: &mut Report) {
    let strategy = |spec: &Map<String, Value>| {
        spec.get("conversion").and_then(|c| c.get("strategy")).and_then(Value::as_str).unwrap_or("None").to_string()
    };
    if strategy(old_spec) != "Webhook" || strategy(new_spec) != "None" {
        return;
    }
    let schemas: Vec<Option<Value>> = list(new_spec)
        .into_iter()
        .map(|v| v.get("schema").and_then(|s| s.get("openAPIV3Schema")).map(without_descriptions))
        .collect();
    if schemas.iter().any(|s| s != &schemas[0]) {
        report.add(
            Rule::CompatStorageConversion,
            "spec.conversion",
            "conversion webhook removed while the versions' schemas differ: the API server now only rewrites apiVersion, so objects read at another version than their stored one lose what it does not declare",
            "keep the conversion webhook while versions differ",
        );
    }
}

/// The status and scale subresources: without status, `/status` answers 404 and writes to the
/// object change `status` again; without scale, `kubectl scale` and autoscalers fail.
fn check_subresources(old: &Map<String, Value>, new: &Map<String, Value>, base: &str, report: &mut Report) {
    let sub = |v: &Map<String, Value>, key: &str| v.get("subresources").and_then(|s| s.get(key)).cloned();
    if sub(old, "status").is_some() && sub(new, "status").is_none() {
        report.add(
            Rule::CompatSubresource,
            format!("{base}.subresources"),
            "status subresource removed: /status answers 404 Not Found, and updates of the object change status again",
            "keep subresources.status",
        );
    }
    match (sub(old, "scale"), sub(new, "scale")) {
        (Some(_), None) => report.add(
            Rule::CompatSubresource,
            format!("{base}.subresources"),
            "scale subresource removed: /scale answers 404 Not Found, so kubectl scale and autoscalers fail",
            "keep subresources.scale",
        ),
        (Some(before), Some(after)) => {
            // Adding labelSelectorPath only adds to what /scale reports.
            for key in ["specReplicasPath", "statusReplicasPath", "labelSelectorPath"] {
                let (was, is) = (before.get(key), after.get(key));
                if was.is_some() && was != is {
                    let show = |v: Option<&Value>| v.map_or_else(|| "unset".to_string(), Value::to_string);
                    report.add(
                        Rule::CompatSubresource,
                        format!("{base}.subresources.scale.{key}"),
                        format!(
                            "{key} changed: {} -> {}: kubectl scale and autoscalers read and write another field",
                            show(was),
                            show(is)
                        ),
                        "keep the scale paths",
                    );
                }
            }
        }
        _ => {}
    }
}

fn storage_version(spec: &Map<String, Value>) -> Option<&str> {
    list(spec).into_iter().find(|v| is_true(v, "storage")).map(name)
}

/// Printer columns and selectable fields of one version present in both revisions.
pub(super) fn check_version(old: &Map<String, Value>, new: &Map<String, Value>, base: &str, report: &mut Report) {
    check_subresources(old, new, base, report);
    check_printer_columns(old, new, base, report);
    check_selectable_fields(old, new, base, report);
}

fn entries<'a>(version: &'a Map<String, Value>, key: &str) -> Vec<&'a Map<String, Value>> {
    version.get(key).and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_object).collect()
}

fn root(version: &Map<String, Value>) -> Option<&Map<String, Value>> {
    super::openapi_schema(version)
}

/// Whether the plain dot prefix of a JSONPath (`.status.conditions` of
/// `.status.conditions[?(@.type=="Ready")].status`) leads somewhere in `schema`; `None` when
/// there is no such prefix to follow.
fn resolves(schema: Option<&Map<String, Value>>, json_path: &str) -> Option<bool> {
    let prefix = json_path.split(['[', '{', ' ']).next().unwrap_or("").trim_end_matches('.');
    let fields = dot_fields(prefix)?;
    if fields.first() == Some(&"metadata") {
        return None;
    }
    Some(!matches!(resolve(schema?, &fields), Lookup::Missing { .. }))
}

/// kubectl shows a version's printer columns; scripts read them with `-o custom-columns` or
/// by position.
fn check_printer_columns(old: &Map<String, Value>, new: &Map<String, Value>, base: &str, report: &mut Report) {
    let new_columns = entries(new, "additionalPrinterColumns");
    for column in entries(old, "additionalPrinterColumns") {
        let column_name = text(column, "name");
        let Some((i, now)) = new_columns.iter().enumerate().find(|(_, c)| text(c, "name") == column_name) else {
            report.add(
                Rule::CompatPrinterColumn,
                format!("{base}.additionalPrinterColumns"),
                format!("printer column {column_name:?} removed: `kubectl get` no longer shows it"),
                "keep the column, or give it priority: 1 to show it only with -o wide",
            );
            continue;
        };
        let json_path = text(now, "jsonPath");
        if resolves(root(old), text(column, "jsonPath")) == Some(true) && resolves(root(new), json_path) == Some(false)
        {
            report.add(
                Rule::CompatPrinterColumn,
                format!("{base}.additionalPrinterColumns[{i}].jsonPath"),
                format!("printer column {column_name:?} reads {json_path:?}, which the schema no longer declares: the column is always empty"),
                "point jsonPath at the field's new place",
            );
        }
    }
}

/// A selectable field removed breaks every field selector (`--field-selector spec.color=red`)
/// that names it: the API server refuses the list request.
fn check_selectable_fields(old: &Map<String, Value>, new: &Map<String, Value>, base: &str, report: &mut Report) {
    let new_paths: BTreeSet<&str> = entries(new, "selectableFields").into_iter().map(|f| text(f, "jsonPath")).collect();
    for field in entries(old, "selectableFields") {
        let json_path = text(field, "jsonPath");
        if !new_paths.contains(json_path) {
            report.add(
                Rule::CompatSelectableField,
                format!("{base}.selectableFields"),
                format!(
                    "selectable field {json_path:?} removed: list and watch requests that select on it are refused"
                ),
                "keep the selectable field while the version is served",
            );
        }
    }
}
