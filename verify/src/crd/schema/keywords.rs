//! Which keywords a schema node may use and what values they take (R2, R30–R37, R44).

use serde_json::{Map, Value};

use super::{Level, NodeCx, SchemaCx, is_true, type_of};
use crate::report::quote;
use crate::rules::Rule;

/// Every key `JSONSchemaProps` knows (R2): anything else is an unknown field.
const KNOWN: &[&str] = &[
    "id",
    "$schema",
    "$ref",
    "description",
    "type",
    "format",
    "title",
    "default",
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
    "enum",
    "maxProperties",
    "minProperties",
    "required",
    "items",
    "allOf",
    "oneOf",
    "anyOf",
    "not",
    "properties",
    "additionalProperties",
    "patternProperties",
    "dependencies",
    "additionalItems",
    "definitions",
    "externalDocs",
    "example",
    "nullable",
    "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-embedded-resource",
    "x-kubernetes-int-or-string",
    "x-kubernetes-list-map-keys",
    "x-kubernetes-list-type",
    "x-kubernetes-map-type",
    "x-kubernetes-validations",
];

const UNSUPPORTED: &[&str] = &["$ref", "id", "definitions", "dependencies", "patternProperties", "additionalItems"];

const TYPES: &[&str] = &["array", "boolean", "integer", "number", "object", "string"];

/// Formats the API server recognizes on strings and untyped nodes (dashes ignored), R36.
const STRING_FORMATS: &[&str] = &[
    "bsonobjectid",
    "uri",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "cidr",
    "mac",
    "uuid",
    "uuid3",
    "uuid4",
    "uuid5",
    "isbn",
    "isbn10",
    "isbn13",
    "creditcard",
    "ssn",
    "hexcolor",
    "rgbcolor",
    "byte",
    "password",
    "date",
    "duration",
    "datetime",
    "k8sshortname",
    "k8slongname",
];

pub(super) fn check(cx: &mut SchemaCx, obj: &Map<String, Value>, path: &str, n: &NodeCx) {
    let report = &mut *cx.report;
    for key in obj.keys() {
        if !KNOWN.contains(&key.as_str()) && n.lenient {
            report.add(
                Rule::LintDroppedField,
                format!("{path}.{key}"),
                format!("unknown field {key:?}: the API server drops it without an error here (below items or additionalProperties it decodes schemas leniently)"),
                "remove the key, or move it where it belongs",
            );
        } else if !KNOWN.contains(&key.as_str()) {
            let full = format!("{path}.{key}");
            report.add(
                Rule::DocumentUnknownField,
                full.clone(),
                format!("strict decoding error: unknown field {full:?}"),
                "remove the key: the only x-kubernetes-* extensions are preserve-unknown-fields, embedded-resource, int-or-string, list-type, list-map-keys, map-type and validations",
            );
        }
    }
    for key in UNSUPPORTED {
        if obj.contains_key(*key) {
            report.add(
                Rule::SchemaUnsupportedKeyword,
                format!("{path}.{key}"),
                format!("Forbidden: {key} is not supported"),
                "inline the schema: CRD schemas cannot use $ref, definitions, dependencies, patternProperties or additionalItems",
            );
        }
    }
    if obj.contains_key("$schema") {
        report.add(
            Rule::SchemaUnsupportedKeyword,
            path,
            "Invalid value: \"\": OpenAPIV3Schema 'schema' is not supported",
            "remove $schema",
        );
    }
    if obj.get("items").is_some_and(Value::is_array) {
        report.add(
            Rule::SchemaItemsTuple,
            format!("{path}.items"),
            "Forbidden: items must be a schema object and not an array",
            "give items a single schema that every element satisfies",
        );
    }
    if let Some(t) = obj.get("type") {
        match t.as_str() {
            Some("null") => report.add(
                Rule::SchemaType,
                format!("{path}.type"),
                "Forbidden: type cannot be set to null, use nullable as an alternative",
                "use the value's real type with nullable: true",
            ),
            Some(s) if s.is_empty() || TYPES.contains(&s) => {}
            _ => report.add(
                Rule::SchemaType,
                format!("{path}.type"),
                format!(
                    "Unsupported value: {}: supported values: \"array\", \"boolean\", \"integer\", \"number\", \"object\", \"string\"",
                    quote(t)
                ),
                "use one of array, boolean, integer, number, object, string",
            ),
        }
    }
    if is_true(obj, "uniqueItems") {
        report.add(
            Rule::SchemaUniqueItems,
            format!("{path}.uniqueItems"),
            "Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
            "remove uniqueItems and set x-kubernetes-list-type: set",
        );
    }
    if let Some(pattern) = obj.get("pattern").and_then(Value::as_str)
        && let Err(e) = regex_syntax::Parser::new().parse(pattern)
    {
        let detail = e.to_string().lines().last().unwrap_or_default().trim().to_string();
        report.add(
            Rule::SchemaPattern,
            format!("{path}.pattern"),
            format!("Invalid value: {pattern:?}: must be a valid regular expression, but isn't: {detail}"),
            "use RE2 syntax (no look-around, no back-references) and escape special characters",
        );
    }
    let has_properties = obj.get("properties").and_then(Value::as_object).is_some_and(|p| !p.is_empty());
    let additional = obj.get("additionalProperties");
    if n.junctor.is_none() && has_properties && additional.is_some_and(|a| a.as_bool() != Some(true)) {
        report.add(
            Rule::SchemaAdditionalPropertiesWithProperties,
            format!("{path}.additionalProperties"),
            "Forbidden: additionalProperties and properties are mutual exclusive",
            "use properties for a struct or additionalProperties for a map, not both",
        );
    }
    if n.level == Level::Root && n.junctor.is_none() && is_true(obj, "nullable") {
        report.add(
            Rule::SchemaNullableRoot,
            format!("{path}.nullable"),
            "Forbidden: nullable cannot be true at the root",
            "remove nullable from the root schema",
        );
    }
    if obj.get("x-kubernetes-preserve-unknown-fields").and_then(Value::as_bool) == Some(false) {
        report.add(
            Rule::StructuralPreserveUnknownFieldsFalse,
            format!("{path}.x-kubernetes-preserve-unknown-fields"),
            "Invalid value: false: must be true or undefined",
            "remove x-kubernetes-preserve-unknown-fields: false (it is the default)",
        );
    }
    if let Some(format) = obj.get("format").and_then(Value::as_str) {
        let t = type_of(obj);
        if format.starts_with("uint") {
            report.add(
                Rule::LintUnsigned,
                format!("{path}.format"),
                format!("format {format:?} is unsigned: Kubernetes API conventions use signed int32/int64, and the API server does not recognize it"),
                "use format: int32 or int64 with minimum: 0",
            );
        } else if !format_recognized(t, format) {
            report.add(
                Rule::SchemaFormat,
                format!("{path}.format"),
                format!("unrecognized format {format:?} on type {t:?}: the API server ignores it when validating"),
                "use a format the API server knows (int32/int64 on integers, float/double on numbers, date-time, uri, uuid, ... on strings), or drop it",
            );
        }
    }
    if n.junctor.is_none() {
        check_enum(cx, obj, path);
    }
}

fn format_recognized(t: &str, format: &str) -> bool {
    let f: String = format.chars().filter(|c| *c != '-' && *c != '_').collect::<String>().to_ascii_lowercase();
    match t {
        "integer" => f == "int32" || f == "int64",
        "number" => f == "float" || f == "double",
        "string" | "" => STRING_FORMATS.contains(&f.as_str()),
        _ => false,
    }
}

/// R37: enum values are not type-checked by the API server, but a value of the wrong type can
/// never be matched.
fn check_enum(cx: &mut SchemaCx, obj: &Map<String, Value>, path: &str) {
    let Some(values) = obj.get("enum").and_then(Value::as_array) else { return };
    let t = type_of(obj);
    let nullable = is_true(obj, "nullable");
    let int_or_string = is_true(obj, "x-kubernetes-int-or-string");
    for (i, v) in values.iter().enumerate() {
        let ok = match v {
            Value::Null => nullable,
            _ if t.is_empty() || int_or_string => true,
            Value::String(_) => t == "string",
            Value::Bool(_) => t == "boolean",
            Value::Number(num) => t == "number" || (t == "integer" && (num.is_i64() || num.is_u64())),
            Value::Array(_) => t == "array",
            Value::Object(_) => t == "object",
        };
        if !ok {
            cx.report.add(
                Rule::SchemaEnumType,
                format!("{path}.enum[{i}]"),
                format!("enum value {} does not match type {t:?}, so no object can ever use it", quote(v)),
                "write enum values of the node's type (quote numbers for a string enum)",
            );
        }
    }
}
