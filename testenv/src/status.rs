//! Reading an object's status in a test without naming its kind: the conditions and
//! `observedGeneration` every kind that follows the API conventions reports, read from the
//! object's JSON. Use them as the `done` of a wait: `controller.wait_for(&object,
//! condition("Available"))`.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use rop::conditions::HasConditions;
use serde::Serialize;
use serde_json::Value;

/// The condition `type_` of `object` (`status.conditions[]` with that `type`), if it reports it.
pub fn find_condition<T: Serialize>(object: &T, type_: &str) -> Option<Condition> {
    conditions(object).condition(type_).cloned()
}

/// Whether an object reports the condition `type_` with status `"True"`: a `done` for waits.
pub fn condition<T: Serialize>(type_: &str) -> impl Fn(&T) -> bool + use<T> {
    let type_ = type_.to_string();
    move |object| conditions(object).is_condition_true(&type_)
}

/// Whether `object`'s status was computed from its current spec: `status.observedGeneration`
/// equals `metadata.generation`. A `done` for waits after a change of the spec.
pub fn caught_up<T: Serialize>(object: &T) -> bool {
    let Ok(json) = serde_json::to_value(object) else { return false };
    let generation = json.pointer("/metadata/generation");
    generation.is_some() && json.pointer("/status/observedGeneration") == generation
}

/// Whether `object`'s workload runs its current spec: [`caught_up`], and `Progressing` is
/// `False` with reason `RolloutComplete` ([`rop::workload::ROLLOUT_COMPLETE`]), as the reports
/// of `rop::workload` say once every replica runs the current template. A `done` for waits.
pub fn rolled_out<T: Serialize>(object: &T) -> bool {
    let progressing = find_condition(object, "Progressing");
    let complete = progressing.is_some_and(|c| c.status == "False" && c.reason == rop::workload::ROLLOUT_COMPLETE);
    complete && caught_up(object)
}

/// `status.conditions` of `object`; none when it has no status or no conditions.
fn conditions<T: Serialize>(object: &T) -> Vec<Condition> {
    let conditions =
        serde_json::to_value(object).ok().and_then(|mut json| json.pointer_mut("/status/conditions").map(Value::take));
    conditions.and_then(|c| serde_json::from_value(c).ok()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn object(generation: i64, observed: i64) -> Value {
        json!({
            "metadata": { "name": "a", "generation": generation },
            "status": {
                "observedGeneration": observed,
                "conditions": [
                    { "type": "Available", "status": "True", "reason": "Ready", "message": "up",
                      "lastTransitionTime": "2026-01-01T00:00:00Z" },
                    { "type": "Degraded", "status": "False", "reason": "Fine", "message": "",
                      "lastTransitionTime": "2026-01-01T00:00:00Z" },
                ],
            },
        })
    }

    #[test]
    fn conditions_are_found_by_type_and_true_only_when_true() {
        let object = object(2, 2);
        assert_eq!(find_condition(&object, "Available").map(|c| c.message), Some("up".to_string()));
        assert!(find_condition(&object, "Progressing").is_none());
        assert!(condition("Available")(&object));
        assert!(!condition("Degraded")(&object));
        assert!(!condition("Progressing")(&object));
        assert!(!condition("Available")(&json!({ "metadata": { "name": "a" } })));
    }

    #[test]
    fn rolled_out_is_a_complete_rollout_of_the_current_spec() {
        let progressing = |generation, observed, status, reason| {
            json!({
                "metadata": { "name": "a", "generation": generation },
                "status": { "observedGeneration": observed, "conditions": [
                    { "type": "Progressing", "status": status, "reason": reason, "message": "",
                      "lastTransitionTime": "2026-01-01T00:00:00Z" },
                ] },
            })
        };
        assert!(rolled_out(&progressing(2, 2, "False", "RolloutComplete")));
        assert!(!rolled_out(&progressing(3, 2, "False", "RolloutComplete")));
        assert!(!rolled_out(&progressing(2, 2, "True", "RollingUpdate")));
        assert!(!rolled_out(&progressing(2, 2, "False", "RolloutBlocked")));
        assert!(!rolled_out(&object(2, 2)));
    }

    #[test]
    fn caught_up_compares_the_generations() {
        assert!(caught_up(&object(2, 2)));
        assert!(!caught_up(&object(3, 2)));
        assert!(!caught_up(&json!({ "metadata": { "name": "a", "generation": 1 } })));
    }
}
