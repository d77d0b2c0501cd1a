//! The Task controller: runs the Task's command once in a Pod and walks its status through the
//! state machine Pending → Running → Succeeded | Failed.
//!
//! The next phase is a pure function of the current phase and what the Pod reports
//! ([`next_phase`]), so the machine is tested without a cluster; the reconciler only observes
//! the Pod, creates it while the Task is pending, and reports the phase. The Pod is owned by the
//! Task, so no cleanup is needed: it goes with the Task.

use std::sync::Arc;
use std::time::Duration;

use rop::conditions::{self, HasConditions};
use rop::controller::{Action, ApplyError, Context, Reconciler};
use rop::k8s_openapi::api::core::v1::{Container, Pod, PodSpec};
use rop::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rop::kube::ResourceExt;
use rop::kube::api::Api;
use task_operator_api::v1::{Phase, Task, TaskStatus};
use tracing::info;

/// How long a Task that is not finished waits before it is looked at again, in case a change
/// of its Pod went unseen.
const RESYNC_AFTER: Duration = Duration::from_secs(60);

/// Why a pass failed; the variants name the step, and `rop::kube::Error` says why.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("failed to read the Pod")]
    Get(#[source] rop::kube::Error),
    #[error("failed to create the Pod")]
    Create(#[source] ApplyError),
    #[error("failed to update the status")]
    Status(#[source] rop::kube::Error),
}

/// Reconciles `Task` objects.
pub struct TaskReconciler;

impl Reconciler for TaskReconciler {
    type Kind = Task;
    type Error = Error;

    async fn reconcile(&self, task: Arc<Task>, ctx: &Context<Task>) -> Result<Action, Error> {
        let current = task.status.as_ref().map(|s| s.phase).unwrap_or_default();
        if current.is_final() {
            // A finished Task is left as it is: its status says how it ended.
            return Ok(Action::await_change());
        }

        // A Task is namespaced: it always has one.
        let namespace = task.namespace().unwrap_or_default();
        let pods: Api<Pod> = Api::namespaced(ctx.client().clone(), &namespace);
        let pod = pods.get_opt(&task.name_any()).await.map_err(Error::Get)?;
        let mut state = pod.as_ref().map_or(PodState::Missing, pod_state);
        // Only a pending Task gets its Pod: a Task runs at most once.
        if current == Phase::Pending && state == PodState::Missing {
            ctx.apply(&task, desired_pod(&task))
                .await
                .map_err(Error::Create)?;
            info!("created the Pod");
            state = PodState::Waiting;
        }

        let (phase, message) = next_phase(current, &state);
        if phase != current {
            info!(from = ?current, to = ?phase, "{message}");
        }
        ctx.update_status(&task, desired_status(&task, phase, &message))
            .await
            .map_err(Error::Status)?;
        Ok(if phase.is_final() {
            Action::await_change()
        } else {
            Action::requeue(RESYNC_AFTER)
        })
    }
}

/// What the Task's Pod reports, reduced to what the state machine needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PodState {
    /// There is no Pod.
    Missing,
    /// The Pod exists but does not run yet (scheduling, pulling the image).
    Waiting,
    /// The Pod runs.
    Running,
    /// The command exited with 0.
    Succeeded,
    /// The command failed; the text says how.
    Failed(String),
}

/// The state machine: the phase after `current` given the Pod's state, and why. Final phases
/// never change; a Pod lost while running fails the Task (it runs at most once).
pub fn next_phase(current: Phase, pod: &PodState) -> (Phase, String) {
    match (current, pod) {
        (Phase::Succeeded, _) => (Phase::Succeeded, "The command exited with 0".into()),
        (Phase::Failed, PodState::Failed(why)) => (Phase::Failed, why.clone()),
        (Phase::Failed, _) => (Phase::Failed, "The Task failed".into()),
        (_, PodState::Succeeded) => (Phase::Succeeded, "The command exited with 0".into()),
        (_, PodState::Failed(why)) => (Phase::Failed, why.clone()),
        (Phase::Running, PodState::Missing) => {
            (Phase::Failed, "The Pod was lost while running".into())
        }
        (_, PodState::Running) => (Phase::Running, "The Pod runs the command".into()),
        (Phase::Pending | Phase::Running, PodState::Missing | PodState::Waiting) => {
            (current, "Waiting for the Pod to start".into())
        }
    }
}

/// Reduces what the kubelet reports of `pod` to a [`PodState`].
fn pod_state(pod: &Pod) -> PodState {
    let status = pod.status.clone().unwrap_or_default();
    match status.phase.as_deref() {
        Some("Running") => PodState::Running,
        Some("Succeeded") => PodState::Succeeded,
        Some("Failed") => {
            let terminated = status
                .container_statuses
                .unwrap_or_default()
                .into_iter()
                .find_map(|c| c.state.and_then(|s| s.terminated).map(|t| (c.name, t)));
            PodState::Failed(match terminated {
                Some((name, t)) => format!(
                    "Container {name} exited with {} ({})",
                    t.exit_code,
                    t.reason.unwrap_or_else(|| "no reason given".into())
                ),
                None => status.message.unwrap_or_else(|| "The Pod failed".into()),
            })
        }
        _ => PodState::Waiting,
    }
}

/// The Pod that runs the Task's command once: only the fields this controller manages (the
/// apply adds the owner reference and the namespace).
fn desired_pod(task: &Task) -> Pod {
    Pod {
        metadata: ObjectMeta {
            name: Some(task.name_any()),
            ..ObjectMeta::default()
        },
        spec: Some(PodSpec {
            // Once: a failed command fails the Task instead of restarting.
            restart_policy: Some("Never".into()),
            containers: vec![Container {
                name: "task".into(),
                image: Some(task.spec.image.clone()),
                command: Some(task.spec.command.clone()).filter(|c| !c.is_empty()),
                ..Container::default()
            }],
            ..PodSpec::default()
        }),
        ..Pod::default()
    }
}

/// The status for `phase`: the phase itself and one condition per milestone, so both
/// `kubectl get` (the phase column) and tools that read conditions see it.
fn desired_status(task: &Task, phase: Phase, message: &str) -> TaskStatus {
    let generation = task.metadata.generation;
    let mut status = TaskStatus {
        phase,
        observed_generation: generation,
        ..task.status.clone().unwrap_or_default()
    };
    let started = phase != Phase::Pending;
    let complete = phase == Phase::Succeeded;
    let failed = phase == Phase::Failed;
    let milestones = [
        (
            "Started",
            started,
            if started { "PodStarted" } else { "PodPending" },
        ),
        (
            "Complete",
            complete,
            if complete { "Succeeded" } else { "NotComplete" },
        ),
        (
            "Failed",
            failed,
            if failed { "Failed" } else { "NotFailed" },
        ),
    ];
    for (type_, on, reason) in milestones {
        status.set_condition(conditions::new(type_, on, reason, message, generation));
    }
    status
}

#[cfg(test)]
mod tests {
    use rop::k8s_openapi::api::core::v1::{
        ContainerState, ContainerStateTerminated, ContainerStatus, PodStatus,
    };
    use task_operator_api::v1::TaskSpec;

    use super::*;

    fn task() -> Task {
        let mut task = Task::new(
            "hello",
            TaskSpec {
                image: "busybox:1.36".into(),
                command: vec!["true".into()],
            },
        );
        task.metadata.generation = Some(1);
        task
    }

    /// The `(type, status)` of each condition of `status`.
    fn conditions_of(status: &TaskStatus) -> Vec<(&str, &str)> {
        let conditions = status.conditions.iter();
        conditions
            .map(|c| (c.type_.as_str(), c.status.as_str()))
            .collect()
    }

    #[test]
    fn the_state_machine_moves_forward_only() {
        let failed = PodState::Failed("Container task exited with 1 (Error)".into());
        let cases = [
            (Phase::Pending, PodState::Missing, Phase::Pending),
            (Phase::Pending, PodState::Waiting, Phase::Pending),
            (Phase::Pending, PodState::Running, Phase::Running),
            (Phase::Pending, failed.clone(), Phase::Failed),
            (Phase::Running, PodState::Running, Phase::Running),
            (Phase::Running, PodState::Succeeded, Phase::Succeeded),
            (Phase::Running, failed.clone(), Phase::Failed),
            (Phase::Running, PodState::Missing, Phase::Failed),
            (Phase::Succeeded, failed.clone(), Phase::Succeeded),
            (Phase::Succeeded, PodState::Missing, Phase::Succeeded),
            (Phase::Failed, PodState::Running, Phase::Failed),
            (Phase::Failed, PodState::Missing, Phase::Failed),
        ];
        for (current, pod, expected) in cases {
            assert_eq!(
                next_phase(current, &pod).0,
                expected,
                "{current:?} + {pod:?}"
            );
        }
        assert_eq!(
            next_phase(Phase::Running, &PodState::Missing).1,
            "The Pod was lost while running"
        );
    }

    #[test]
    fn a_failed_pod_says_how_its_container_exited() {
        let terminated = ContainerStateTerminated {
            exit_code: 1,
            reason: Some("Error".into()),
            ..ContainerStateTerminated::default()
        };
        let pod = Pod {
            status: Some(PodStatus {
                phase: Some("Failed".into()),
                container_statuses: Some(vec![ContainerStatus {
                    name: "task".into(),
                    state: Some(ContainerState {
                        terminated: Some(terminated),
                        ..ContainerState::default()
                    }),
                    ..ContainerStatus::default()
                }]),
                ..PodStatus::default()
            }),
            ..Pod::default()
        };

        assert_eq!(
            pod_state(&pod),
            PodState::Failed("Container task exited with 1 (Error)".into())
        );
        let phase = |phase: &str| Pod {
            status: Some(PodStatus {
                phase: Some(phase.into()),
                ..PodStatus::default()
            }),
            ..Pod::default()
        };
        assert_eq!(pod_state(&phase("Pending")), PodState::Waiting);
        assert_eq!(pod_state(&phase("Running")), PodState::Running);
        assert_eq!(pod_state(&phase("Succeeded")), PodState::Succeeded);
    }

    #[test]
    fn the_pod_runs_the_command_once() {
        let pod = desired_pod(&task());

        assert_eq!(pod.metadata.name.as_deref(), Some("hello"));
        let spec = pod.spec.unwrap();
        assert_eq!(spec.restart_policy.as_deref(), Some("Never"));
        assert_eq!(spec.containers[0].image.as_deref(), Some("busybox:1.36"));
        assert_eq!(spec.containers[0].command, Some(vec!["true".to_string()]));
    }

    #[test]
    fn each_phase_is_reported_as_conditions() {
        let cases = [
            (Phase::Pending, ["False", "False", "False"]),
            (Phase::Running, ["True", "False", "False"]),
            (Phase::Succeeded, ["True", "True", "False"]),
            (Phase::Failed, ["True", "False", "True"]),
        ];
        for (phase, [started, complete, failed]) in cases {
            let status = desired_status(&task(), phase, "why");
            assert_eq!(status.phase, phase);
            assert_eq!(
                conditions_of(&status),
                [
                    ("Started", started),
                    ("Complete", complete),
                    ("Failed", failed)
                ],
                "{phase:?}"
            );
        }
    }

    #[test]
    fn a_converged_status_is_computed_again_unchanged() {
        let mut running = task();
        running.status = Some(desired_status(&running, Phase::Running, "runs"));

        assert_eq!(
            Some(desired_status(&running, Phase::Running, "runs")),
            running.status,
            "no status write on the next pass"
        );
    }
}
