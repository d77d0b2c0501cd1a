//! Structural-schema core (R38–R43) and the root restrictions of the status subresource (R79).

use serde_json::{Map, Value};

use super::{Level, NodeCx, SchemaCx, is_true, type_of};
use crate::rules::Rule;

/// Keywords allowed at the root when the status subresource is enabled (R79).
const STATUS_ROOT_KEYS: &[&str] = &[
    "description",
    "type",
    "format",
    "title",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "multipleOf",
    "required",
    "items",
    "properties",
    "externalDocs",
    "example",
    "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-validations",
];

/// Keywords R79 forbids at the root that no other rule reports there.
const STATUS_ROOT_FORBIDDEN: &[&str] = &[
    "enum",
    "default",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "minProperties",
    "maxProperties",
    "x-kubernetes-embedded-resource",
    "x-kubernetes-int-or-string",
    "x-kubernetes-list-type",
    "x-kubernetes-list-map-keys",
    "x-kubernetes-map-type",
];

/// R38–R41 and R79 on a node outside junctors.
pub(super) fn check(cx: &mut SchemaCx, obj: &Map<String, Value>, path: &str, n: &NodeCx) {
    let t = type_of(obj);
    let exempt = is_true(obj, "x-kubernetes-int-or-string") || is_true(obj, "x-kubernetes-preserve-unknown-fields");
    if t.is_empty() && !exempt {
        let detail = match n.level {
            Level::Root => "must not be empty at the root",
            Level::Items => "must not be empty for specified array items",
            Level::Property | Level::AdditionalProperties => "must not be empty for specified object fields",
        };
        cx.report.add(
            Rule::StructuralMissingType,
            format!("{path}.type"),
            format!("Required value: {detail}"),
            "set type (object, array, string, integer, number or boolean), or x-kubernetes-preserve-unknown-fields: true for free-form data",
        );
    }
    if n.level == Level::Root {
        if !t.is_empty() && t != "object" {
            cx.report.add(
                Rule::StructuralRootType,
                format!("{path}.type"),
                format!("Invalid value: {t:?}: must be object at the root"),
                "make the root schema type: object with spec and status properties",
            );
        }
        if obj.contains_key("additionalProperties") {
            cx.report.add(
                Rule::StructuralRootAdditionalProperties,
                format!("{path}.additionalProperties"),
                "Forbidden: must not be used at the root",
                "remove additionalProperties from the root; put maps under spec",
            );
        }
        if cx.status_subresource {
            // Keys with their own error (R30, R35, R41) or unknown ones (R2) are not repeated here.
            let extra: Vec<&str> = obj
                .keys()
                .map(String::as_str)
                .filter(|k| STATUS_ROOT_FORBIDDEN.contains(k) && !STATUS_ROOT_KEYS.contains(k))
                .collect();
            if !extra.is_empty() {
                cx.report.add(
                    Rule::SubresourcesStatusRoot,
                    path,
                    format!(
                        "Invalid value: {}: only [Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource is enabled",
                        extra.join(", ")
                    ),
                    "move the check into properties.spec or properties.status, or express it as an x-kubernetes-validations rule on the root",
                );
            }
        }
    }
    if t == "array" && !obj.contains_key("items") {
        cx.report.add(
            Rule::StructuralMissingItems,
            format!("{path}.items"),
            "Required value: must be specified",
            "add items: {type: ...} describing the elements",
        );
    }
}

/// R42: inside junctors only value checks are allowed.
pub(super) fn check_in_junctor(cx: &mut SchemaCx, obj: &Map<String, Value>, path: &str, n: &NodeCx) {
    let non_empty = |key: &str| match obj.get(key) {
        None | Some(Value::Null) => false,
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(a)) => !a.is_empty(),
        Some(Value::Bool(b)) => *b,
        Some(_) => true,
    };
    let rules: [(&str, bool, &str); 13] = [
        ("type", non_empty("type"), "must be empty to be structural"),
        ("additionalProperties", obj.contains_key("additionalProperties"), "must be undefined to be structural"),
        ("default", obj.get("default").is_some_and(|d| !d.is_null()), "must be undefined to be structural"),
        ("title", non_empty("title"), "must be empty to be structural"),
        ("description", non_empty("description"), "must be empty to be structural"),
        ("nullable", is_true(obj, "nullable"), "must be false to be structural"),
        (
            "x-kubernetes-preserve-unknown-fields",
            is_true(obj, "x-kubernetes-preserve-unknown-fields"),
            "must be false to be structural",
        ),
        (
            "x-kubernetes-embedded-resource",
            is_true(obj, "x-kubernetes-embedded-resource"),
            "must be false to be structural",
        ),
        ("x-kubernetes-int-or-string", is_true(obj, "x-kubernetes-int-or-string"), "must be false to be structural"),
        ("x-kubernetes-list-type", non_empty("x-kubernetes-list-type"), "must be undefined to be structural"),
        ("x-kubernetes-list-map-keys", non_empty("x-kubernetes-list-map-keys"), "must be empty to be structural"),
        ("x-kubernetes-map-type", non_empty("x-kubernetes-map-type"), "must be undefined to be structural"),
        ("x-kubernetes-validations", non_empty("x-kubernetes-validations"), "must be empty to be structural"),
    ];
    for (key, bad, detail) in rules {
        if bad {
            cx.report.add(
                Rule::StructuralJunctor,
                format!("{path}.{key}"),
                format!("Forbidden: {detail}"),
                "keep allOf/anyOf/oneOf/not to value checks (enum, pattern, format, bounds, required); declare types and extensions in the structural part of the schema",
            );
        }
    }
    if n.junctor == Some(true) && obj.get("properties").and_then(|p| p.get("metadata")).is_some() {
        cx.report.add(
            Rule::StructuralJunctor,
            format!("{path}.properties[metadata]"),
            "Forbidden: must not be specified in a nested context",
            "remove metadata from the junctor; restrict metadata.name in the root properties instead",
        );
    }
}

/// R43: every `properties[x]`, `items` and `additionalProperties` a junctor of `obj` mentions
/// must be declared at the same place in the structural part.
pub(super) fn check_completeness(cx: &mut SchemaCx, obj: &Map<String, Value>, path: &str) {
    junctors_complete(cx, obj, obj, path, path);
}

fn junctors_complete(cx: &mut SchemaCx, v: &Map<String, Value>, s: &Map<String, Value>, s_path: &str, v_path: &str) {
    for key in ["allOf", "anyOf", "oneOf"] {
        for (i, branch) in v.get(key).and_then(Value::as_array).into_iter().flatten().enumerate() {
            if let Some(branch) = branch.as_object() {
                nested_complete(cx, branch, Some(s), s_path, &format!("{v_path}.{key}[{i}]"));
            }
        }
    }
    if let Some(not) = v.get("not").and_then(Value::as_object) {
        nested_complete(cx, not, Some(s), s_path, &format!("{v_path}.not"));
    }
}

fn nested_complete(
    cx: &mut SchemaCx,
    v: &Map<String, Value>,
    s: Option<&Map<String, Value>>,
    s_path: &str,
    v_path: &str,
) {
    let Some(s) = s else {
        cx.report.add(
            Rule::StructuralIncomplete,
            s_path,
            format!("Required value: because it is defined in {v_path}"),
            "declare the field (with its type) in the structural part of the schema next to the junctor",
        );
        return;
    };
    junctors_complete(cx, v, s, s_path, v_path);
    if let Some(items) = v.get("items").and_then(Value::as_object) {
        let s_items = s.get("items").and_then(Value::as_object);
        nested_complete(cx, items, s_items, &format!("{s_path}.items"), &format!("{v_path}.items"));
    }
    let s_additional = s.get("additionalProperties").and_then(Value::as_object);
    for (key, field) in v.get("properties").and_then(Value::as_object).into_iter().flatten() {
        let Some(field) = field.as_object() else { continue };
        let vp = format!("{v_path}.properties[{key}]");
        if let Some(sf) = s.get("properties").and_then(|p| p.get(key)).and_then(Value::as_object) {
            nested_complete(cx, field, Some(sf), &format!("{s_path}.properties[{key}]"), &vp);
        } else if let Some(sa) = s_additional {
            nested_complete(cx, field, Some(sa), &format!("{s_path}.additionalProperties"), &vp);
        } else {
            nested_complete(cx, field, None, &format!("{s_path}.properties[{key}]"), &vp);
        }
    }
    if let Some(additional) = v.get("additionalProperties").and_then(Value::as_object) {
        nested_complete(
            cx,
            additional,
            s_additional,
            &format!("{s_path}.additionalProperties"),
            &format!("{v_path}.additionalProperties"),
        );
    }
}
