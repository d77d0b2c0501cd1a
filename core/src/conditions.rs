//! Status conditions (`status.conditions`, a list of `meta/v1 Condition` keyed by `type`), with
//! the semantics of apimachinery's `meta.SetStatusCondition` and `meta.IsStatusConditionTrue`.
//!
//! A condition's `lastTransitionTime` says when its `status` last changed, not when it was last
//! written: [`set`] keeps the old time while the status holds, so a reconciler that reports the
//! same thing on every pass writes the same status, and `rop::controller::Context::update_status`
//! then skips the write.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use k8s_openapi::jiff::Timestamp;

/// A condition of `type_` with `status` `"True"` or `"False"`, `reason` (UpperCamelCase, per the
/// API conventions) and a human-readable `message`, for `observed_generation` (the
/// `metadata.generation` of the object it was computed from), stamped with the current time.
///
/// The time only lands in the object when the status changes (see [`set`]).
pub fn new(
    type_: &str,
    status: bool,
    reason: &str,
    message: impl Into<String>,
    observed_generation: Option<i64>,
) -> Condition {
    Condition {
        type_: type_.into(),
        status: if status { "True" } else { "False" }.into(),
        reason: reason.into(),
        message: message.into(),
        observed_generation,
        last_transition_time: Time(Timestamp::now()),
    }
}

/// Adds `condition` to `conditions`, or updates the one of the same `type`: its `status`,
/// `reason`, `message` and `observedGeneration` are replaced, and its `lastTransitionTime` moves
/// to `condition`'s only when the status changes. Returns whether anything changed.
///
/// This is apimachinery's `meta.SetStatusCondition`
/// (k8s.io/apimachinery/pkg/api/meta/conditions.go).
pub fn set(conditions: &mut Vec<Condition>, condition: Condition) -> bool {
    let Some(existing) = conditions.iter_mut().find(|c| c.type_ == condition.type_) else {
        conditions.push(condition);
        return true;
    };
    let mut changed = false;
    if existing.status != condition.status {
        existing.status = condition.status;
        existing.last_transition_time = condition.last_transition_time;
        changed = true;
    }
    for (old, new) in [(&mut existing.reason, condition.reason), (&mut existing.message, condition.message)] {
        if *old != new {
            *old = new;
            changed = true;
        }
    }
    if existing.observed_generation != condition.observed_generation {
        existing.observed_generation = condition.observed_generation;
        changed = true;
    }
    changed
}

/// Sets the conditions one pass computed from one object: every condition it sets carries that
/// object's `metadata.generation` as its `observedGeneration`.
///
/// ```
/// use rop_core::conditions;
///
/// let mut list = Vec::new();
/// let mut set = conditions::setter(&mut list, Some(4));
/// set.set("Available", true, "MinimumReplicasAvailable", "3 of 3 replicas are available");
/// set.set("Degraded", false, "Reconciled", "");
/// assert!(conditions::is_true(&list, "Available"));
/// assert_eq!(list[1].observed_generation, Some(4));
/// ```
pub fn setter(conditions: &mut Vec<Condition>, observed_generation: Option<i64>) -> Setter<'_> {
    Setter { conditions, observed_generation }
}

/// See [`setter`].
pub struct Setter<'a> {
    conditions: &'a mut Vec<Condition>,
    observed_generation: Option<i64>,
}

impl Setter<'_> {
    /// [`set`]s the condition [`new`] makes of these values; returns whether anything changed.
    pub fn set(&mut self, type_: &str, status: bool, reason: &str, message: impl Into<String>) -> bool {
        set(self.conditions, new(type_, status, reason, message, self.observed_generation))
    }
}

/// Removes the condition of `type_`; returns whether there was one (`meta.RemoveStatusCondition`).
pub fn remove(conditions: &mut Vec<Condition>, type_: &str) -> bool {
    let before = conditions.len();
    conditions.retain(|c| c.type_ != type_);
    conditions.len() != before
}

/// The condition of `type_`, if there is one (`meta.FindStatusCondition`).
pub fn find<'a>(conditions: &'a [Condition], type_: &str) -> Option<&'a Condition> {
    conditions.iter().find(|c| c.type_ == type_)
}

/// Whether the condition of `type_` is there with status `"True"` (`meta.IsStatusConditionTrue`).
pub fn is_true(conditions: &[Condition], type_: &str) -> bool {
    find(conditions, type_).is_some_and(|c| c.status == "True")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(status: bool, reason: &str, second: i64) -> Condition {
        Condition {
            last_transition_time: Time(Timestamp::from_second(second).unwrap()),
            ..new("Available", status, reason, "", Some(1))
        }
    }

    #[test]
    fn the_transition_time_moves_only_with_the_status() {
        let mut conditions = Vec::new();
        assert!(set(&mut conditions, at(true, "Old", 1)));
        assert_eq!(conditions, [at(true, "Old", 1)]);

        assert!(set(&mut conditions, at(true, "New", 2)));
        assert_eq!(conditions, [at(true, "New", 1)]);

        assert!(!set(&mut conditions, at(true, "New", 3)), "nothing changed");
        assert_eq!(conditions, [at(true, "New", 1)]);

        assert!(set(&mut conditions, at(false, "Down", 4)));
        assert_eq!(conditions, [at(false, "Down", 4)]);
    }

    #[test]
    fn a_new_generation_is_a_change() {
        let mut conditions = vec![at(true, "Ok", 1)];
        let newer = Condition { observed_generation: Some(2), ..at(true, "Ok", 5) };

        assert!(set(&mut conditions, newer));

        assert_eq!(conditions[0].observed_generation, Some(2));
        assert_eq!(conditions[0].last_transition_time, Time(Timestamp::from_second(1).unwrap()));
    }

    #[test]
    fn find_is_true_and_remove_go_by_type() {
        let mut conditions = vec![at(true, "Ok", 1), Condition { type_: "Degraded".into(), ..at(false, "Fine", 1) }];

        assert!(is_true(&conditions, "Available"));
        assert!(!is_true(&conditions, "Degraded"));
        assert!(!is_true(&conditions, "Progressing"));
        assert_eq!(find(&conditions, "Degraded").map(|c| c.reason.as_str()), Some("Fine"));

        assert!(remove(&mut conditions, "Available"));
        assert!(!remove(&mut conditions, "Available"));
        assert_eq!(conditions.len(), 1);
    }
}
