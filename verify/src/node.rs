//! Reading the keywords of one OpenAPI schema node, as the checks of CRDs and of samples do.

use serde_json::{Map, Value};

/// `obj[key] == true`.
pub(crate) fn is_true(obj: &Map<String, Value>, key: &str) -> bool {
    obj.get(key).and_then(Value::as_bool) == Some(true)
}

/// The node's `type`, or `""`.
pub(crate) fn type_of(obj: &Map<String, Value>) -> &str {
    obj.get("type").and_then(Value::as_str).unwrap_or("")
}
