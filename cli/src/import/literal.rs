//! Rust literals for the values a schema holds: strings (raw where that reads better),
//! numbers, and JSON values in the `json!`-like syntax of schemars' `extend(...)`.

use serde_json::Value;

/// A Rust string literal with the value `s`: a raw string `r"..."` when `s` has backslashes or
/// quotes (patterns, CEL rules) and no line break, a plain escaped one otherwise.
pub fn string(s: &str) -> String {
    if (s.contains('\\') || s.contains('"')) && !s.contains(['\n', '\r']) && s.chars().all(|c| !c.is_control()) {
        let mut hashes = String::new();
        while s.contains(&format!("\"{hashes}")) {
            hashes.push('#');
        }
        format!("r{hashes}\"{s}\"{hashes}")
    } else {
        format!("{s:?}")
    }
}

/// A JSON number as a Rust literal (`3`, `-1`, `0.5`).
pub fn number(n: &Value) -> String {
    match n {
        Value::Number(n) => n.to_string(),
        other => other.to_string(),
    }
}

/// A bound of `#[schemars(range(...))]`, which the derive casts to `f64` as written: an
/// integer outside `i32` carries an `_i64` suffix (an unsuffixed literal is an `i32`).
pub fn bound(n: &Value) -> String {
    match n.as_i64() {
        Some(i) if i32::try_from(i).is_err() => format!("{i}_i64"),
        _ => number(n),
    }
}

/// A JSON value in the syntax of `serde_json::json!` (and schemars' `extend`): JSON, with
/// strings as Rust string literals.
pub fn json_literal(v: &Value) -> String {
    match v {
        Value::String(s) => format!("{s:?}"),
        Value::Array(items) => format!("[{}]", items.iter().map(json_literal).collect::<Vec<_>>().join(", ")),
        Value::Object(map) => {
            let entries: Vec<String> = map.iter().map(|(k, v)| format!("{k:?}: {}", json_literal(v))).collect();
            format!("{{{}}}", entries.join(", "))
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strings() {
        assert_eq!(string("plain"), r#""plain""#);
        assert_eq!(string(r"^\d+$"), r#"r"^\d+$""#);
        assert_eq!(string(r#"self == "a""#), r##"r#"self == "a""#"##);
        assert_eq!(string("two\nlines \"q\""), r#""two\nlines \"q\"""#);
    }

    #[test]
    fn json_values() {
        assert_eq!(json_literal(&json!({"a": [1, "b\"", null, 1.5]})), r#"{"a": [1, "b\"", null, 1.5]}"#);
    }
}
