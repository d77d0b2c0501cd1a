//! Rolling a StatefulSet's update out one ordinal at a time within its disruption budget.
//!
//! The StatefulSet is updated `OnDelete`: its controller replaces a Pod with the current
//! template only once the Pod is deleted. [`roll`] deletes them: highest ordinal first, one at
//! a time, waiting for each new Pod to be ready before the next, and never below the budget's
//! `minAvailable`. A Pod that runs an old template and is not ready anyway is replaced first
//! (it costs no availability), so a broken update can be fixed by the next one. Which template
//! a Pod runs is told by an annotation of the template holding a hash of it
//! ([`stamp_template`]).

use std::time::Duration;

use k8s_openapi::api::apps::v1::StatefulSet;
use k8s_openapi::api::core::v1::{Pod, PodTemplateSpec};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use kube::ResourceExt;
use kube::api::{Api, DeleteParams, ListParams};
use kube::runtime::controller::Action;
use serde::Serialize;

use super::Error;
use crate::ObjectOf;
use crate::conditions::{self, HasConditions};
use crate::controller::{Context, EventType, Kind, Terminal};

/// How long a rollout in progress waits for a Pod change at most before it is looked at again:
/// the controller watches the Pods, so a Pod that becomes ready or goes starts a pass at once.
const ROLLOUT_FALLBACK: Duration = Duration::from_secs(30);

/// What the rollout does next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Every replica runs the current template and is ready.
    Done,
    /// Waits for a replica (named in the message) to be created, replaced or ready.
    Wait(String),
    /// Deletes this Pod, the highest ordinal that runs an old template (or one that is not
    /// ready), so that the StatefulSet creates it anew.
    Delete(String),
    /// Deleting the next Pod would leave fewer ready replicas than the budget keeps (why).
    Blocked(String),
}

/// Where a StatefulSet's rollout stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rollout {
    /// The replicas the StatefulSet asks for.
    pub replicas: i32,
    /// Replicas whose Pod is ready (and not on its way out).
    pub ready: i32,
    /// Replicas whose Pod runs the current template.
    pub updated: i32,
    /// The next step.
    pub step: Step,
}

impl Rollout {
    /// When to look again: after `resync` once the rollout is done; while it goes on, at the
    /// next change of a Pod (the controller watches them, see [`super::instance_of`]), or
    /// after 30 s at most.
    pub fn next_look(&self, resync: Duration) -> Action {
        match self.step {
            Step::Done => Action::requeue(resync),
            _ => Action::requeue(ROLLOUT_FALLBACK.min(resync)),
        }
    }
}

/// `min_available` as a number of the `replicas`: a count as it is, a percentage (`"0%"` to
/// `"100%"`) of `replicas` rounded up, as the disruption controller counts it.
///
/// # Errors
/// A negative count, or a string that is no such percentage: [`Terminal`], since retrying
/// cannot fix the object (the scaffolded schema refuses such values in new objects).
pub fn min_available(replicas: i32, min_available: &IntOrString) -> Result<i32, Terminal> {
    let invalid = || {
        let value = match min_available {
            IntOrString::Int(count) => count.to_string(),
            IntOrString::String(text) => format!("{text:?}"),
        };
        Terminal::new(format!(
            "minAvailable {value} is neither a number of replicas (0 or more) nor a percentage from \"0%\" to \"100%\""
        ))
    };
    match min_available {
        IntOrString::Int(count) if *count >= 0 => Ok(*count),
        IntOrString::Int(_) => Err(invalid()),
        IntOrString::String(text) => {
            let percent: i32 = text.strip_suffix('%').and_then(|p| p.parse().ok()).ok_or_else(invalid)?;
            if !(0..=100).contains(&percent) {
                return Err(invalid());
            }
            Ok((replicas * percent + 99) / 100)
        }
    }
}

/// Puts a hash of `template` and `extra` (what else a replica runs, such as its configuration
/// files) into the template's `annotation`, and returns it: 16 hex digits of FNV-1a over their
/// JSON, the same on every build. A Pod whose annotation differs runs an old version.
pub fn stamp_template(template: &mut PodTemplateSpec, annotation: &str, extra: &impl Serialize) -> String {
    let text = serde_json::to_string(&(&*template, extra)).unwrap_or_default();
    let hash = text
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3));
    let hash = format!("{hash:016x}");
    let metadata = template.metadata.get_or_insert_with(Default::default);
    metadata.annotations.get_or_insert_with(Default::default).insert(annotation.into(), hash.clone());
    hash
}

/// The rollout of `set` (as [`stamp_template`] stamped it with `annotation`) over its `pods`,
/// keeping `min_available` of them ready.
pub(crate) fn plan(set: &StatefulSet, annotation: &str, min_available: i32, pods: &[Pod]) -> Rollout {
    let name = set.name_any();
    let replicas = set.spec.replicas.unwrap_or(1);
    let hash = set.spec.template.metadata.as_ref().and_then(|m| m.annotations.as_ref()?.get(annotation).cloned());
    let hash = hash.unwrap_or_default();
    let current = |pod: &Pod| pod.annotations().get(annotation) == Some(&hash);
    let going = |pod: &Pod| pod.metadata.deletion_timestamp.is_some();
    let mut ours: Vec<(i32, &Pod)> = pods
        .iter()
        .filter_map(|pod| Some((pod.name_any().strip_prefix(&format!("{name}-"))?.parse().ok()?, pod)))
        .filter(|(ordinal, _)| (0..replicas).contains(ordinal))
        .collect();
    ours.sort_by_key(|(ordinal, _)| -ordinal);
    let ready = ours.iter().filter(|(_, pod)| is_ready(pod)).count() as i32;
    let updated = ours.iter().filter(|(_, pod)| current(pod)).count() as i32;
    let rollout = |step| Rollout { replicas, ready, updated, step };

    if let Some((_, pod)) = ours.iter().find(|(_, pod)| !current(pod) && !is_ready(pod) && !going(pod)) {
        return rollout(Step::Delete(pod.name_any()));
    }
    for ordinal in 0..replicas {
        let wait = match ours.iter().find(|(o, _)| *o == ordinal) {
            None => "created",
            Some((_, pod)) if going(pod) => "replaced",
            Some((_, pod)) if !is_ready(pod) => "ready",
            Some(_) => continue,
        };
        return rollout(Step::Wait(format!("waiting for Pod {name}-{ordinal} to be {wait}")));
    }
    let Some((_, outdated)) = ours.iter().find(|(_, pod)| !current(pod)) else {
        return rollout(Step::Done);
    };
    let left = ours.len() as i32 - 1;
    if left < min_available {
        let pod = outdated.name_any();
        return rollout(Step::Blocked(format!(
            "updating Pod {pod} would leave {left} of {replicas} replicas ready, and the disruption budget keeps {min_available}"
        )));
    }
    rollout(Step::Delete(outdated.name_any()))
}

/// Whether `pod` is ready and not on its way out.
fn is_ready(pod: &Pod) -> bool {
    let conditions = pod.status.as_ref().and_then(|status| status.conditions.as_ref());
    let ready = conditions.is_some_and(|c| c.iter().any(|c| c.type_ == "Ready" && c.status == "True"));
    ready && pod.metadata.deletion_timestamp.is_none()
}

/// Takes the next step of `set`'s rollout for `object`, keeping `min_available` replicas ready
/// (the count [`min_available`] gives, checked before anything is applied): lists the
/// StatefulSet's Pods (by its selector, in `object`'s namespace), and when the step is
/// [`Step::Delete`], deletes that Pod and records a Normal Event `RollingUpdate`. Apply `set`
/// first.
///
/// # Errors
/// [`Error::ListPods`] or [`Error::DeletePod`] with the API server's answer.
pub async fn roll<K: Kind>(
    ctx: &Context<K>,
    object: &ObjectOf<K>,
    set: &StatefulSet,
    annotation: &str,
    min_available: i32,
) -> Result<Rollout, Error> {
    let pods: Api<Pod> = Api::namespaced(ctx.client().clone(), &object.namespace().unwrap_or_default());
    let labels = set.spec.selector.match_labels.clone().unwrap_or_default();
    let selector: Vec<String> = labels.iter().map(|(key, value)| format!("{key}={value}")).collect();
    let listed = pods.list(&ListParams::default().labels(&selector.join(","))).await;
    let listed = listed.map_err(|source| Error::ListPods(format!("StatefulSet {}", set.name_any()), source))?;
    let rollout = plan(set, annotation, min_available, &listed.items);
    if let Step::Delete(pod) = &rollout.step {
        match pods.delete(pod, &DeleteParams::default()).await {
            Ok(_) => {}
            Err(kube::Error::Api(status)) if status.code == 404 => {}
            Err(source) => return Err(Error::DeletePod(pod.clone(), source)),
        }
        ctx.event(object, EventType::Normal, "RollingUpdate", format!("Deleted Pod {pod} to update it")).await;
    }
    Ok(rollout)
}

/// Sets the conditions an object reports for its StatefulSet's `rollout`, at the object's
/// `generation`:
///
/// - `Available`: `True` (`AllReplicasReady`) once every replica is ready, else `False`
///   (`ReplicasNotReady`), with `<ready> of <replicas> replicas are ready`;
/// - `Progressing`: `False` (`RolloutComplete`) when done, `True` (`RollingUpdate`) while
///   waiting or deleting, `False` (`RolloutBlocked`) when the budget stops the next step;
/// - `Degraded`: `False` (`Reconciled`).
pub fn report_rollout(status: &mut impl HasConditions, generation: Option<i64>, rollout: &Rollout) {
    let Rollout { replicas, ready, updated, step } = rollout;
    let mut report = |type_: &str, value: bool, reason: &str, message: String| {
        status.set_condition(conditions::new(type_, value, reason, message, generation))
    };
    let message = format!("{ready} of {replicas} replicas are ready");
    if ready >= replicas {
        report("Available", true, "AllReplicasReady", message);
    } else {
        report("Available", false, "ReplicasNotReady", message);
    }
    let updated = format!("{updated} of {replicas} replicas are updated");
    match step {
        Step::Done => report("Progressing", false, super::ROLLOUT_COMPLETE, updated),
        Step::Wait(why) => report("Progressing", true, "RollingUpdate", format!("{updated}; {why}")),
        Step::Delete(pod) => report("Progressing", true, "RollingUpdate", format!("{updated}; updating Pod {pod}")),
        Step::Blocked(why) => report("Progressing", false, "RolloutBlocked", why.clone()),
    };
    report("Degraded", false, "Reconciled", "The last reconciliation succeeded".into());
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use k8s_openapi::api::apps::v1::StatefulSetSpec;
    use k8s_openapi::api::core::v1::{PodCondition, PodStatus};
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

    use super::*;

    const HASH: &str = "example.com/template-hash";

    fn set(replicas: i32, hash: &str) -> StatefulSet {
        let annotations = BTreeMap::from([(HASH.to_string(), hash.to_string())]);
        let template = PodTemplateSpec {
            metadata: Some(ObjectMeta { annotations: Some(annotations), ..ObjectMeta::default() }),
            spec: None,
        };
        StatefulSet {
            metadata: ObjectMeta { name: Some("test".into()), ..ObjectMeta::default() },
            spec: StatefulSetSpec { replicas: Some(replicas), template, ..StatefulSetSpec::default() },
            ..StatefulSet::default()
        }
    }

    /// Pod `test-<ordinal>` running the template `hash`, ready or not.
    fn pod(ordinal: i32, hash: &str, ready: bool) -> Pod {
        let annotations = BTreeMap::from([(HASH.to_string(), hash.to_string())]);
        Pod {
            metadata: ObjectMeta {
                name: Some(format!("test-{ordinal}")),
                annotations: Some(annotations),
                ..ObjectMeta::default()
            },
            status: Some(PodStatus {
                conditions: Some(vec![PodCondition {
                    type_: "Ready".into(),
                    status: if ready { "True" } else { "False" }.into(),
                    ..PodCondition::default()
                }]),
                ..PodStatus::default()
            }),
            ..Pod::default()
        }
    }

    fn step(pods: &[Pod]) -> Step {
        plan(&set(3, "new"), HASH, 2, pods).step
    }

    #[test]
    fn the_budget_counts_percentages_rounded_up_and_refuses_anything_else() {
        let count = |min: IntOrString| min_available(3, &min).map_err(|e| e.to_string());
        assert_eq!(count(IntOrString::Int(2)), Ok(2));
        assert_eq!(count(IntOrString::String("50%".into())), Ok(2));
        assert_eq!(count(IntOrString::String("100%".into())), Ok(3));
        assert_eq!(count(IntOrString::String("0%".into())), Ok(0));
        let refused = "is neither a number of replicas (0 or more) nor a percentage from \"0%\" to \"100%\"";
        assert_eq!(count(IntOrString::String("half".into())), Err(format!("minAvailable \"half\" {refused}")));
        assert_eq!(count(IntOrString::String("150%".into())), Err(format!("minAvailable \"150%\" {refused}")));
        assert_eq!(count(IntOrString::Int(-1)), Err(format!("minAvailable -1 {refused}")));
    }

    #[test]
    fn the_hash_covers_the_template_and_what_else_the_replica_runs() {
        let mut template = PodTemplateSpec::default();
        let before = stamp_template(&mut template.clone(), HASH, &BTreeMap::<String, String>::new());
        let config = BTreeMap::from([("app.conf".to_string(), "debug yes".to_string())]);
        let after = stamp_template(&mut template, HASH, &config);
        assert_eq!(before.len(), 16);
        assert_ne!(before, after);
        assert_eq!(template.metadata.unwrap().annotations.unwrap()[HASH], after);
    }

    #[test]
    fn the_rollout_goes_highest_ordinal_first_one_ready_pod_at_a_time() {
        let old = [pod(0, "old", true), pod(1, "old", true), pod(2, "old", true)];
        assert_eq!(step(&old), Step::Delete("test-2".into()));
        let waiting = [pod(0, "old", true), pod(1, "old", true), pod(2, "new", false)];
        assert_eq!(step(&waiting), Step::Wait("waiting for Pod test-2 to be ready".into()));
        // A Pod of an old template that is not ready is replaced before anything waits on it.
        let broken = [pod(0, "old", true), pod(1, "old", true), pod(2, "older", false)];
        assert_eq!(step(&broken), Step::Delete("test-2".into()));
        // A Pod on its way out is waited for, not deleted again.
        let mut going = pod(2, "older", false);
        going.metadata.deletion_timestamp = serde_json::from_value(serde_json::json!("2026-01-01T00:00:00Z")).ok();
        assert_eq!(
            step(&[pod(0, "old", true), pod(1, "old", true), going]),
            Step::Wait("waiting for Pod test-2 to be replaced".into())
        );
        assert_eq!(
            step(&[pod(0, "old", true), pod(1, "old", true)]),
            Step::Wait("waiting for Pod test-2 to be created".into())
        );
        let next = [pod(0, "old", true), pod(1, "old", true), pod(2, "new", true)];
        assert_eq!(step(&next), Step::Delete("test-1".into()));
        let done = [pod(0, "new", true), pod(1, "new", true), pod(2, "new", true), pod(3, "old", true)];
        assert_eq!(
            plan(&set(3, "new"), HASH, 2, &done),
            Rollout { replicas: 3, ready: 3, updated: 3, step: Step::Done }
        );
    }

    #[test]
    fn an_update_that_would_break_the_budget_is_blocked_and_reported() {
        let old = [pod(0, "old", true), pod(1, "old", true), pod(2, "old", true)];
        let rollout = plan(&set(3, "new"), HASH, 3, &old);
        let mut list = Vec::new();
        report_rollout(&mut list, Some(1), &rollout);

        let progressing = list.condition("Progressing").unwrap();
        assert_eq!((progressing.status.as_str(), progressing.reason.as_str()), ("False", "RolloutBlocked"));
        assert_eq!(
            progressing.message,
            "updating Pod test-2 would leave 2 of 3 replicas ready, and the disruption budget keeps 3"
        );
        assert_eq!((rollout.ready, rollout.updated), (3, 0));
        assert!(list.is_condition_true("Available"));
    }
}
