//! The `Stalled` condition a [`super::Terminal`] error leaves on an object, and its removal by
//! the next pass that succeeds.
//!
//! kstatus (sigs.k8s.io/cli-utils) reads `Stalled=True` as "the controller cannot make progress
//! without a change", which is what a terminal error means; `kubectl wait` and Flux's health
//! checks understand it. The condition is written with a JSON patch that tests the list it read,
//! so a status the pass wrote itself is never clobbered.

use json_patch::{AddOperation, Patch as JsonPatch, PatchOperation, RemoveOperation, ReplaceOperation, TestOperation};
use kube::api::{Patch, PatchParams};
use kube::{Api, ResourceExt};
use serde_json::{Value, json};

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;

use super::scope::KindObject;

/// The condition's type.
pub(crate) const CONDITION: &str = "Stalled";
/// Its reason, which marks it as the runtime's.
pub(crate) const REASON: &str = "TerminalError";

/// Whether `conditions` (an object's, `ControllerTarget::status_conditions`) hold the
/// runtime's `Stalled` condition.
pub(crate) fn is_stalled(conditions: &[Condition]) -> bool {
    conditions.iter().any(|c| c.type_ == CONDITION && c.reason == REASON)
}

/// Sets `Stalled=True` with `message` on the object `name` names, as the API server has it now.
pub(crate) async fn set<K: KindObject>(api: &Api<K>, name: &str, message: &str) -> Result<(), kube::Error> {
    let object = serde_json::to_value(api.get_status(name).await?).unwrap_or_default();
    let generation = object["metadata"]["generation"].as_i64();
    let condition = crate::conditions::new(CONDITION, true, REASON, message, generation);
    let condition = serde_json::to_value(condition).unwrap_or_default();
    let operations = match (&object["status"], &object["status"]["conditions"]) {
        (Value::Null, _) => vec![
            test(&["status"], Value::Null),
            PatchOperation::Add(AddOperation {
                path: pointer(&["status"]),
                value: json!({ "conditions": [condition] }),
            }),
        ],
        (_, Value::Array(conditions)) => {
            let listed = test(&["status", "conditions"], Value::Array(conditions.clone()));
            match conditions.iter().position(|c| c["type"] == CONDITION) {
                Some(i) if conditions[i]["status"] == "True" && conditions[i]["message"] == message => return Ok(()),
                Some(i) => vec![
                    listed,
                    PatchOperation::Replace(ReplaceOperation {
                        path: pointer(&["status", "conditions", &i.to_string()]),
                        value: condition,
                    }),
                ],
                None => vec![
                    listed,
                    PatchOperation::Add(AddOperation {
                        path: pointer(&["status", "conditions", "-"]),
                        value: condition,
                    }),
                ],
            }
        }
        (_, Value::Null) => vec![
            test(&["status", "conditions"], Value::Null),
            PatchOperation::Add(AddOperation { path: pointer(&["status", "conditions"]), value: json!([condition]) }),
        ],
        // A status whose conditions are no list is not ours to change.
        _ => return Ok(()),
    };
    patch(api, name, operations).await
}

/// Removes the runtime's `Stalled` condition from `object`, if the API server still has it.
pub(crate) async fn clear<K: KindObject>(api: &Api<K>, object: &K) -> Result<(), kube::Error> {
    let name = object.name_any();
    let current = serde_json::to_value(api.get_status(&name).await?).unwrap_or_default();
    let Some(i) = index(&current) else { return Ok(()) };
    let path = pointer(&["status", "conditions", &i.to_string()]);
    let operations = vec![
        test(&["status", "conditions"], current["status"]["conditions"].clone()),
        PatchOperation::Remove(RemoveOperation { path }),
    ];
    patch(api, &name, operations).await
}

/// The index of the runtime's `Stalled` condition in `object`'s status.
fn index(object: &Value) -> Option<usize> {
    let conditions = object.pointer("/status/conditions")?.as_array()?;
    conditions.iter().position(|c| c["type"] == CONDITION && c["reason"] == REASON)
}

async fn patch<K: KindObject>(api: &Api<K>, name: &str, operations: Vec<PatchOperation>) -> Result<(), kube::Error> {
    let patch = Patch::Json::<()>(JsonPatch(operations));
    api.patch_status(name, &PatchParams::default(), &patch).await.map(|_| ())
}

fn test(tokens: &[&str], value: Value) -> PatchOperation {
    PatchOperation::Test(TestOperation { path: pointer(tokens), value })
}

fn pointer(tokens: &[&str]) -> json_patch::jsonptr::PointerBuf {
    json_patch::jsonptr::PointerBuf::from_tokens(tokens.iter().copied())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_runtime_s_own_stalled_condition_is_found() {
        let object = |reason: &str| {
            json!({"status": {"conditions": [
                {"type": "Available", "status": "False", "reason": "Failed"},
                {"type": "Stalled", "status": "True", "reason": reason},
            ]}})
        };
        assert_eq!(index(&object(REASON)), Some(1));
        assert_eq!(index(&object("SomethingElse")), None, "a Stalled condition the reconciler set is its own");
        assert_eq!(index(&json!({"status": {}})), None);
        assert_eq!(index(&json!({})), None);
    }
}
