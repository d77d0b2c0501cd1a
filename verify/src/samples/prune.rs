//! Pruning (R61, `pkg/apiserver/schema/pruning`): fields the schema does not declare are
//! dropped from the object, unless `x-kubernetes-preserve-unknown-fields` keeps them. Each
//! dropped field is a `sample.pruned` warning, like the API server's `unknown field` warning
//! under `fieldValidation=Warn`.

use serde_json::Value;

use super::path::Path;
use crate::report::Report;
use crate::rules::Rule;

/// The fields of `ObjectMeta`: anything else under a resource's `metadata` is dropped.
const OBJECT_META: &[&str] = &[
    "name",
    "generateName",
    "namespace",
    "selfLink",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "labels",
    "annotations",
    "ownerReferences",
    "finalizers",
    "managedFields",
];

pub(crate) fn is_true(schema: &Value, key: &str) -> bool {
    schema.get(key).and_then(Value::as_bool) == Some(true)
}

/// The schema of map values under `schema`: `additionalProperties` given as a schema, or an
/// empty schema for `additionalProperties: true` (which declares nothing below it).
pub(crate) fn additional(schema: &Value) -> Option<&Value> {
    const EMPTY: &Value = &Value::Null;
    match schema.get("additionalProperties") {
        Some(Value::Bool(true)) => Some(EMPTY),
        Some(s @ Value::Object(_)) => Some(s),
        _ => None,
    }
}

/// Drops from `object` every field `root` (the version's `openAPIV3Schema`) does not declare.
pub(crate) fn prune(object: &mut Value, root: &Value, report: &mut Report) {
    node(object, root, &Path::default(), true, report);
}

fn node(value: &mut Value, schema: &Value, path: &Path, resource: bool, report: &mut Report) {
    match value {
        Value::Object(map) => {
            let props = schema.get("properties").and_then(Value::as_object);
            let preserve = is_true(schema, "x-kubernetes-preserve-unknown-fields");
            let resource = resource || is_true(schema, "x-kubernetes-embedded-resource");
            let keys: Vec<String> = map.keys().cloned().collect();
            for key in keys {
                let here = path.field(&key);
                let child = map.get_mut(&key).expect("key listed above");
                if resource && key == "metadata" {
                    metadata(child, &here, report);
                } else if resource && (key == "apiVersion" || key == "kind") {
                } else if let Some(prop) = props.and_then(|p| p.get(&key)) {
                    node(child, prop, &here, false, report);
                } else if let Some(values) = additional(schema) {
                    node(child, values, &here, false, report);
                } else if !preserve {
                    map.remove(&key);
                    report.add(
                        Rule::SamplePruned,
                        here.to_string(),
                        format!("pruned: unknown field \"{here}\""),
                        "declare the field in the CRD's schema, or remove it from the object",
                    );
                }
            }
        }
        Value::Array(items) => {
            let item_schema = schema.get("items").unwrap_or(&Value::Null);
            if item_schema.is_null() && is_true(schema, "x-kubernetes-preserve-unknown-fields") {
                return;
            }
            for (i, item) in items.iter_mut().enumerate() {
                node(item, item_schema, &path.index(i), false, report);
            }
        }
        _ => {}
    }
}

fn metadata(value: &mut Value, path: &Path, report: &mut Report) {
    let Some(map) = value.as_object_mut() else { return };
    let unknown: Vec<String> = map.keys().filter(|k| !OBJECT_META.contains(&k.as_str())).cloned().collect();
    for key in unknown {
        map.remove(&key);
        let here = path.field(&key);
        report.add(
            Rule::SamplePruned,
            here.to_string(),
            format!("pruned: unknown field \"{here}\""),
            "metadata holds only ObjectMeta fields (name, namespace, labels, annotations, ...)",
        );
    }
}
