//! Differences between two objects as a test reports them: the JSON path of each value that
//! differs, with both values, instead of two dumps of whole objects.

use serde::Serialize;
use serde_json::Value;

/// Every difference between `expected` and `actual` (compared as JSON): `spec.tags[1]: absent,
/// now "a"`. Empty when they are equal.
pub fn diff<T: Serialize, U: Serialize>(expected: &T, actual: &U) -> Vec<String> {
    let mut found = Vec::new();
    walk("", &json(expected), &json(actual), false, &mut found);
    found
}

/// What `sent` says that `back` lost or changed (compared as JSON): a value `back` lacks or has
/// otherwise, where `back` may add values of its own (the API server's defaults, a defaulting
/// webhook's). For an object sent and read back, through a conversion say. Empty when nothing
/// was lost.
pub fn lost<T: Serialize, U: Serialize>(sent: &T, back: &U) -> Vec<String> {
    let mut found = Vec::new();
    walk("", &json(sent), &json(back), true, &mut found);
    found
}

fn json<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or_else(|err| Value::String(format!("<not JSON: {err}>")))
}

/// Adds the differences below `path` to `found`; with `additions_ok`, values only `b` has are
/// none.
fn walk(path: &str, a: &Value, b: &Value, additions_ok: bool, found: &mut Vec<String>) {
    let at = |key: &str| if path.is_empty() { key.to_string() } else { format!("{path}.{key}") };
    match (a, b) {
        (Value::Object(a), Value::Object(b)) => {
            for (key, value) in a {
                match b.get(key) {
                    Some(other) => walk(&at(key), value, other, additions_ok, found),
                    None if value.is_null() => {}
                    None => found.push(format!("{}: {value}, now absent", at(key))),
                }
            }
            if !additions_ok {
                for (key, value) in b.iter().filter(|(key, value)| !a.contains_key(*key) && !value.is_null()) {
                    found.push(format!("{}: absent, now {value}", at(key)));
                }
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            for (i, value) in a.iter().enumerate() {
                match b.get(i) {
                    Some(other) => walk(&format!("{path}[{i}]"), value, other, additions_ok, found),
                    None => found.push(format!("{path}[{i}]: {value}, now absent")),
                }
            }
            if !additions_ok {
                for (i, value) in b.iter().enumerate().skip(a.len()) {
                    found.push(format!("{path}[{i}]: absent, now {value}"));
                }
            }
        }
        (a, b) if a != b => {
            let path = if path.is_empty() { "the object" } else { path };
            found.push(format!("{path}: {a}, now {b}"));
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn sorted(mut found: Vec<String>) -> Vec<String> {
        found.sort();
        found
    }

    #[test]
    fn diff_names_each_changed_missing_and_added_value() {
        let expected = json!({ "spec": { "size": 1, "tags": ["a"], "gone": "x", "none": null } });
        let actual = json!({ "spec": { "size": 2, "tags": ["a", "a"], "new": true } });
        assert_eq!(
            sorted(diff(&expected, &actual)),
            [
                "spec.gone: \"x\", now absent",
                "spec.new: absent, now true",
                "spec.size: 1, now 2",
                "spec.tags[1]: absent, now \"a\"",
            ]
        );
        assert!(diff(&expected, &expected).is_empty());
        assert_eq!(diff(&json!(1), &json!("1")), ["the object: 1, now \"1\""]);
    }

    #[test]
    fn lost_lets_additions_through() {
        let sent = json!({ "spec": { "size": 1, "tags": ["a"] } });
        let defaulted = json!({ "spec": { "size": 1, "tags": ["a", "b"], "replicas": 3 } });
        assert!(lost(&sent, &defaulted).is_empty());
        let converted = json!({ "spec": { "replicas": 1, "tags": [] } });
        assert_eq!(sorted(lost(&sent, &converted)), ["spec.size: 1, now absent", "spec.tags[0]: \"a\", now absent"]);
    }
}
