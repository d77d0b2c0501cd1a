//! Status conditions (`status.conditions`, a list of `meta/v1 Condition` keyed by `type`), with
//! the semantics of apimachinery's `meta.SetStatusCondition` and `meta.IsStatusConditionTrue`:
//! [`new`] makes a condition, [`HasConditions`] reads and sets those of a status.
//!
//! A condition's `lastTransitionTime` says when its `status` last changed, not when it was last
//! written: [`HasConditions::set_condition`] keeps the old time while the status holds, so a
//! reconciler that reports the same thing on every pass writes the same status, and
//! `rop::controller::Context::update_status` then skips the write.
//!
//! ```
//! # extern crate rop_core as rop;
//! # use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
//! use rop::conditions::{self, HasConditions};
//!
//! // A status type with `conditions: Option<Vec<Condition>>` that derives `rop::JsonSchema`
//! // implements HasConditions too.
//! let mut status: Option<Vec<Condition>> = None;
//! status.set_condition(conditions::new("Available", false, "Starting", "0 of 3 replicas", Some(1)));
//! let since = status.condition("Available").unwrap().last_transition_time.clone();
//!
//! // The same status again: the time stays, so the status is the same and not written again.
//! status.set_condition(conditions::new("Available", false, "Starting", "0 of 3 replicas", Some(1)));
//! assert_eq!(status.condition("Available").unwrap().last_transition_time, since);
//!
//! status.set_condition(conditions::new("Available", true, "Ready", "3 of 3 replicas", Some(1)));
//! assert!(status.is_condition_true("Available"));
//! ```

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use k8s_openapi::jiff::Timestamp;

/// A condition of `type_` with `status` `"True"` or `"False"`, `reason` (UpperCamelCase, per the
/// API conventions) and a human-readable `message`, for `observed_generation` (the
/// `metadata.generation` of the object it was computed from), stamped with the current time.
///
/// The time only lands in the object when the status changes (see
/// [`HasConditions::set_condition`]).
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

/// A status with conditions: its `conditions` list, and apimachinery's `meta` condition helpers
/// over it (k8s.io/apimachinery/pkg/api/meta/conditions.go).
///
/// `#[derive(rop::JsonSchema)]` implements it for a struct with a field `conditions` of type
/// `Vec<Condition>` or `Option<Vec<Condition>>` (the API conventions' name), which is what the
/// scaffolded status types have; a `Vec<Condition>` is one too.
///
/// ```
/// use rop_core::conditions::{self, HasConditions};
///
/// let mut list = Vec::new();
/// list.set_condition(conditions::new("Available", true, "MinimumReplicasAvailable", "3 of 3 are available", Some(4)));
/// list.set_condition(conditions::new("Degraded", false, "Reconciled", "", Some(4)));
/// assert!(list.is_condition_true("Available"));
/// assert_eq!(list.condition("Degraded").map(|c| c.status.as_str()), Some("False"));
/// assert!(list.remove_condition("Degraded"));
/// assert_eq!(list.conditions().len(), 1);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no conditions rop can read",
    label = "needs `rop::conditions::HasConditions`",
    note = "give the status a field `conditions: Vec<Condition>` and derive `rop::JsonSchema` on it (schemars' own derive does not implement it), or implement `HasConditions` by hand"
)]
pub trait HasConditions {
    /// The conditions, in the order they were first set.
    fn conditions(&self) -> &[Condition];

    /// The conditions, to change.
    fn conditions_mut(&mut self) -> &mut Vec<Condition>;

    /// Adds `condition`, or updates the one of the same `type`: its `status`, `reason`, `message`
    /// and `observedGeneration` are replaced, and its `lastTransitionTime` moves to
    /// `condition`'s only when the status changes. Returns whether anything changed
    /// (`meta.SetStatusCondition`).
    fn set_condition(&mut self, condition: Condition) -> bool {
        set(self.conditions_mut(), condition)
    }

    /// The condition of `type_`, if there is one (`meta.FindStatusCondition`).
    fn condition(&self, type_: &str) -> Option<&Condition> {
        self.conditions().iter().find(|c| c.type_ == type_)
    }

    /// Whether the condition of `type_` is there with status `"True"`
    /// (`meta.IsStatusConditionTrue`).
    fn is_condition_true(&self, type_: &str) -> bool {
        self.condition(type_).is_some_and(|c| c.status == "True")
    }

    /// Removes the condition of `type_`; returns whether there was one
    /// (`meta.RemoveStatusCondition`).
    fn remove_condition(&mut self, type_: &str) -> bool {
        let conditions = self.conditions_mut();
        let before = conditions.len();
        conditions.retain(|c| c.type_ != type_);
        conditions.len() != before
    }
}

impl HasConditions for Vec<Condition> {
    fn conditions(&self) -> &[Condition] {
        self
    }

    fn conditions_mut(&mut self) -> &mut Vec<Condition> {
        self
    }
}

impl HasConditions for Option<Vec<Condition>> {
    fn conditions(&self) -> &[Condition] {
        self.as_deref().unwrap_or_default()
    }

    fn conditions_mut(&mut self) -> &mut Vec<Condition> {
        self.get_or_insert_with(Vec::new)
    }

    /// Leaves `None` as it is: removing from no list makes none.
    fn remove_condition(&mut self, type_: &str) -> bool {
        self.as_mut().is_some_and(|list| list.remove_condition(type_))
    }
}

/// `meta.SetStatusCondition` on a list.
fn set(conditions: &mut Vec<Condition>, condition: Condition) -> bool {
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

/// The conditions of a status whose type may or may not implement [`HasConditions`], for the
/// derive's expansion, which knows the type but not its traits: `(&Probe(status)).conditions()`
/// with both traits below in scope is the status's conditions, or none.
#[doc(hidden)]
pub mod probe {
    use super::{Condition, HasConditions};

    /// A borrowed status.
    pub struct Probe<'a, T>(pub &'a T);

    /// Chosen first: the status has conditions.
    pub trait Conditions<'a> {
        /// The status's conditions.
        fn conditions(&self) -> &'a [Condition];
    }

    impl<'a, T: HasConditions> Conditions<'a> for Probe<'a, T> {
        fn conditions(&self) -> &'a [Condition] {
            self.0.conditions()
        }
    }

    /// Chosen otherwise, one reference further: no conditions.
    pub trait NoConditions<'a> {
        /// None.
        fn conditions(&self) -> &'a [Condition];
    }

    impl<'a, T> NoConditions<'a> for &Probe<'a, T> {
        fn conditions(&self) -> &'a [Condition] {
            &[]
        }
    }
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
        assert!(conditions.set_condition(at(true, "Old", 1)));
        assert_eq!(conditions, [at(true, "Old", 1)]);

        assert!(conditions.set_condition(at(true, "New", 2)));
        assert_eq!(conditions, [at(true, "New", 1)]);

        assert!(!conditions.set_condition(at(true, "New", 3)), "nothing changed");
        assert_eq!(conditions, [at(true, "New", 1)]);

        assert!(conditions.set_condition(at(false, "Down", 4)));
        assert_eq!(conditions, [at(false, "Down", 4)]);
    }

    #[test]
    fn a_new_generation_is_a_change() {
        let mut conditions = vec![at(true, "Ok", 1)];
        let newer = Condition { observed_generation: Some(2), ..at(true, "Ok", 5) };

        assert!(conditions.set_condition(newer));

        assert_eq!(conditions[0].observed_generation, Some(2));
        assert_eq!(conditions[0].last_transition_time, Time(Timestamp::from_second(1).unwrap()));
    }

    #[test]
    fn find_is_true_and_remove_go_by_type() {
        let mut conditions = vec![at(true, "Ok", 1), Condition { type_: "Degraded".into(), ..at(false, "Fine", 1) }];

        assert!(conditions.is_condition_true("Available"));
        assert!(!conditions.is_condition_true("Degraded"));
        assert!(!conditions.is_condition_true("Progressing"));
        assert_eq!(conditions.condition("Degraded").map(|c| c.reason.as_str()), Some("Fine"));

        assert!(conditions.remove_condition("Available"));
        assert!(!conditions.remove_condition("Available"));
        assert_eq!(conditions.len(), 1);
    }

    #[test]
    fn an_absent_list_is_empty_until_a_condition_is_set() {
        let mut conditions: Option<Vec<Condition>> = None;
        assert!(conditions.conditions().is_empty());
        assert!(!conditions.remove_condition("Available"));
        assert_eq!(conditions, None, "removing nothing leaves no list behind");

        assert!(conditions.set_condition(at(true, "Ok", 1)));
        assert_eq!(conditions, Some(vec![at(true, "Ok", 1)]));
    }

    struct Plain;
    struct Reporting(Vec<Condition>);

    impl HasConditions for Reporting {
        fn conditions(&self) -> &[Condition] {
            &self.0
        }
        fn conditions_mut(&mut self) -> &mut Vec<Condition> {
            &mut self.0
        }
    }

    // The borrow picks the method by autoref, which is what the probe tests.
    #[test]
    #[allow(clippy::needless_borrow)]
    fn the_probe_finds_conditions_only_where_the_type_has_them() {
        use probe::{Conditions as _, NoConditions as _, Probe};
        assert_eq!((&Probe(&Reporting(vec![at(true, "Ok", 1)]))).conditions().len(), 1);
        assert!((&Probe(&Plain)).conditions().is_empty());
    }
}
