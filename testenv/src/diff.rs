//! Differences between two objects as a test reports them: the JSON pointer of each value that
//! differs, with both values, instead of two dumps of whole objects. The differences are
//! json-patch's (RFC 6902), read back against the first object.

use json_patch::PatchOperation;
use serde::Serialize;
use serde_json::Value;

/// Every difference between `expected` and `actual` (compared as JSON): `/spec/tags/1: absent,
/// now "a"`. Empty when they are equal.
pub fn diff<T: Serialize, U: Serialize>(expected: &T, actual: &U) -> Vec<String> {
    changes(&json(expected), &json(actual), false)
}

/// What `sent` says that `back` lost or changed (compared as JSON): a value `back` lacks or has
/// otherwise, where `back` may add values of its own (the API server's defaults, a defaulting
/// webhook's). For an object sent and read back, through a conversion say. Empty when nothing
/// was lost.
pub fn lost<T: Serialize, U: Serialize>(sent: &T, back: &U) -> Vec<String> {
    changes(&json(sent), &json(back), true)
}

fn json<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or_else(|err| Value::String(format!("<not JSON: {err}>")))
}

/// The operations that turn `a` into `b`, each as `<pointer>: <value in a>, now <value in b>`;
/// with `additions_ok`, values only `b` has are left out.
fn changes(a: &Value, b: &Value, additions_ok: bool) -> Vec<String> {
    let show = |value: Option<&Value>| value.map_or_else(|| "absent".to_string(), Value::to_string);
    json_patch::diff(a, b)
        .0
        .into_iter()
        .filter_map(|operation| {
            let (path, now) = match operation {
                PatchOperation::Add(add) if !additions_ok => (add.path, Some(add.value)),
                PatchOperation::Replace(replace) => (replace.path, Some(replace.value)),
                PatchOperation::Remove(remove) => (remove.path, None),
                // Additions a caller allows; a diff makes no other operations.
                _ => return None,
            };
            let at = if path.as_str().is_empty() { "the object" } else { path.as_str() };
            Some(format!("{at}: {}, now {}", show(a.pointer(path.as_str())), show(now.as_ref())))
        })
        .collect()
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
        let expected = json!({ "spec": { "size": 1, "tags": ["a"], "gone": "x" } });
        let actual = json!({ "spec": { "size": 2, "tags": ["a", "a"], "new": true } });
        assert_eq!(
            sorted(diff(&expected, &actual)),
            [
                "/spec/gone: \"x\", now absent",
                "/spec/new: absent, now true",
                "/spec/size: 1, now 2",
                "/spec/tags/1: absent, now \"a\"",
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
        assert_eq!(sorted(lost(&sent, &converted)), ["/spec/size: 1, now absent", "/spec/tags/0: \"a\", now absent"]);
    }
}
