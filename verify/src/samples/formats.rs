//! The `format`s the API server checks on custom objects and defaults (kube-openapi's integer
//! and float ranges: `int32`, `int64`, `float`, `double`; and its `strfmt` registry's string
//! formats, [`super::strfmt`]). Any other format is accepted as the server would accept an
//! unknown one.

use serde_json::Value;

use super::messages::{go_quote, quote};
use super::path::Path;
use super::prune::additional;
use crate::report::Report;
use crate::rules::Rule;

/// Checks the formats of every value in `object` whose schema node (under `root`) has one;
/// `root_name` names `object` itself in messages.
pub(crate) fn check(object: &Value, root: &Value, root_name: &str, report: &mut Report) {
    node(object, root, &Path::default(), root_name, report);
}

fn node(value: &Value, schema: &Value, path: &Path, root_name: &str, report: &mut Report) {
    // An integer without a format has kube-openapi's default one, which a fraction breaks too.
    if schema.get("type").and_then(Value::as_str) == Some("integer")
        && schema.get("format").is_none()
        && value.as_f64().is_some_and(|f| f.fract() != 0.0 || f.abs() >= 9_223_372_036_854_775_808.0)
        && !value.is_i64()
        && !value.is_u64()
    {
        let name = if path.is_root() { root_name.to_string() } else { path.to_string() };
        report.add(
            Rule::SampleSchema,
            "(root)",
            format!("Invalid value: \"\": Checked value must be of type integer (default format) in {name}"),
            "write the value as an integer",
        );
    }
    if let Some(format) = schema.get("format").and_then(Value::as_str)
        && !valid(format, value)
    {
        let shown = match value {
            Value::String(s) => go_quote(s),
            other => go_quote(&other.to_string()),
        };
        let name = if path.is_root() { root_name.to_string() } else { path.to_string() };
        // The API server reports an integer out of its format's range at the root, in
        // kube-openapi's words; other formats at the field.
        if matches!(format, "int32" | "int64") && value.is_number() {
            report.add(
                Rule::SampleSchema,
                "(root)",
                format!("Invalid value: \"\": Checked value must be of type integer with format {format} in {name}"),
                "keep the value within the format's range",
            );
        } else {
            report.add(
                Rule::SampleSchema,
                path.to_string(),
                format!("Invalid value: {}: {name} in body must be of type {format}: {shown}", quote(value)),
                "write the value in the field's format",
            );
        }
    }
    match value {
        Value::Object(map) => {
            let props = schema.get("properties").and_then(Value::as_object);
            for (key, child) in map {
                if let Some(prop) = props.and_then(|p| p.get(key)) {
                    node(child, prop, &path.field(key), root_name, report);
                } else if let Some(values) = additional(schema) {
                    node(child, values, &path.field(key), root_name, report);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for (i, item) in items.iter().enumerate() {
                    node(item, item_schema, &path.index(i), root_name, report);
                }
            }
        }
        _ => {}
    }
}

/// Whether `value` is valid for `format`; values of another JSON type are left to the type
/// check.
fn valid(format: &str, value: &Value) -> bool {
    if let Value::Number(n) = value {
        return match format {
            "int32" => match (n.as_i64(), n.as_u64()) {
                (Some(i), _) => i32::try_from(i).is_ok(),
                (None, Some(_)) => false,
                _ => true,
            },
            "int64" => n.is_i64() || n.is_f64(),
            "float" => n.as_f64().is_none_or(|f| f.abs() <= f64::from(f32::MAX)),
            _ => true,
        };
    }
    let Value::String(s) = value else { return true };
    super::strfmt::valid(format, s).unwrap_or(true)
}
