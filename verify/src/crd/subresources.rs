//! The status and scale subresources (R78, R81–R84) and the status-without-subresource lint.

use serde_json::{Map, Value};

use super::schema::type_of;
use crate::lookup::{Lookup, dot_fields, resolve};
use crate::report::{Report, unknown_keys};
use crate::rules::Rule;

pub(crate) fn check(version: &Map<String, Value>, schema: Option<&Value>, path: &str, report: &mut Report) {
    let root = schema.and_then(Value::as_object);
    let sub_path = format!("{path}.subresources");
    let subresources = version.get("subresources").and_then(Value::as_object);
    if let Some(sub) = subresources {
        unknown_keys(sub, &["status", "scale"], &sub_path, report);
        if let Some(status) = sub.get("status")
            && status.as_object().is_none_or(|s| !s.is_empty())
        {
            report.add(
                Rule::SubresourcesStatus,
                format!("{sub_path}.status"),
                format!("Invalid value: {status}: the status subresource takes no settings"),
                "write subresources: {status: {}}",
            );
        }
        if let Some(scale) = sub.get("scale").and_then(Value::as_object) {
            check_scale(scale, root, &format!("{sub_path}.scale"), report);
        }
    }
    let has_status_prop = root.and_then(|r| r.get("properties")).and_then(|p| p.get("status")).is_some();
    if has_status_prop && subresources.and_then(|s| s.get("status")).is_none() {
        report.add(
            Rule::LintStatusWithoutSubresource,
            format!("{path}.schema.openAPIV3Schema.properties[status]"),
            "the schema has a status but the status subresource is off: any write to the object can change status, and status writes bump metadata.generation",
            "add subresources: {status: {}}",
        );
    }
}

fn check_scale(scale: &Map<String, Value>, root: Option<&Map<String, Value>>, path: &str, report: &mut Report) {
    unknown_keys(scale, &["specReplicasPath", "statusReplicasPath", "labelSelectorPath"], path, report);
    let paths = [
        (
            "specReplicasPath",
            Rule::SubresourcesScaleSpecPath,
            Some(".spec."),
            "should be a json path under .spec",
            "integer",
        ),
        (
            "statusReplicasPath",
            Rule::SubresourcesScaleStatusPath,
            Some(".status."),
            "should be a json path under .status",
            "integer",
        ),
        (
            "labelSelectorPath",
            Rule::SubresourcesScaleSelectorPath,
            None,
            "should be a json path under either .spec or .status",
            "string",
        ),
    ];
    for (key, rule, prefix, under_msg, want) in paths {
        let field_path = format!("{path}.{key}");
        let value = scale.get(key).and_then(Value::as_str).unwrap_or("");
        if value.is_empty() {
            if prefix.is_some() {
                report.add(rule, field_path, "Required value", "set it to a .spec.replicas-style path");
            }
            continue;
        }
        let fields = dot_fields(value);
        let under = match prefix {
            Some(p) => value.starts_with(p),
            None => value.starts_with(".spec.") || value.starts_with(".status."),
        };
        if fields.is_none() {
            report.add(
                rule,
                field_path,
                format!("Invalid value: {value:?}: must be a simple json path starting with ."),
                "use a dot path such as .spec.replicas",
            );
        } else if !under {
            report.add(
                rule,
                field_path,
                format!("Invalid value: {value:?}: {under_msg}"),
                "point the path into .spec or .status as required",
            );
        } else if let (Some(root), Some(fields)) = (root, fields) {
            let bad = match resolve(root, &fields) {
                Lookup::Found(node) if type_of(node) == want => None,
                Lookup::Found(node) => {
                    Some(format!("{value} has type {:?}, but the scale subresource needs {want}", type_of(node)))
                }
                Lookup::Dynamic => None,
                Lookup::Missing { .. } | Lookup::ThroughArray => Some(format!("{value} is not declared in the schema")),
            };
            if let Some(bad) = bad {
                report.add(
                    Rule::SubresourcesScalePathType,
                    field_path,
                    format!("{bad}; reads of /scale fail at runtime"),
                    if want == "integer" {
                        "declare the field as {type: integer, format: int32, minimum: 0}"
                    } else {
                        "declare the selector as {type: string} (label-selector syntax)"
                    },
                );
            }
        }
    }
}
