//! The API server's wording for custom-object validation errors (`field.Error` around
//! kube-openapi's `in body` messages).

use serde_json::Value;

/// A value as a field error prints it: strings quoted (Go `%q`), numbers, booleans and null
/// bare, lists and maps as compact JSON.
pub(crate) fn quote(value: &Value) -> String {
    match value {
        Value::String(s) => go_quote(s),
        other => other.to_string(),
    }
}

/// A string quoted like Go's `%q` (close enough: Rust's escapes for control characters).
pub(crate) fn go_quote(s: &str) -> String {
    format!("{s:?}")
}

/// The JSON type of `value` as kube-openapi names it: a number without a fraction is an
/// `integer`.
pub(crate) fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(n) if n.as_f64().is_some_and(|f| f.fract() == 0.0) => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// `Invalid value: <value>: <path> in body <detail>`.
pub(crate) fn in_body(path: &str, value: &Value, detail: &str) -> String {
    format!("Invalid value: {}: {path} in body {detail}", quote(value))
}

/// `Unsupported value: <value>: supported values: "a", "b"`.
pub(crate) fn unsupported(value: &Value, options: &[Value]) -> String {
    let list: Vec<String> = options.iter().map(quote).collect();
    format!("Unsupported value: {}: supported values: {}", quote(value), list.join(", "))
}

/// A JSON number as Go's `%v` prints it: integral values without a fraction.
pub(crate) fn number(limit: &Value) -> String {
    match limit.as_f64() {
        Some(f) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{}", f as i64),
        _ => limit.to_string(),
    }
}
