//! Controller for `Task`: runs the Task's command once in a Pod and walks its status through
//! the state machine Pending → Running → Succeeded | Failed.
//!
//! The next phase is a pure function of the current phase and what the Pod reports
//! ([`next_phase`]), so the machine is tested without a cluster; the reconciler only observes
//! the Pod, creates it while the Task is pending, and writes the status when it changed. The
//! Pod is owned by the Task, so no finalizer is needed: it goes with the Task.

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use futures::future::BoxFuture;
use k8s_openapi::api::core::v1::{Container, Pod, PodSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, ObjectMeta, Time};
use k8s_openapi::jiff::Timestamp;
use kube::api::{Api, Patch, PatchParams, PostParams};
use kube::runtime::controller::{Action, Controller};
use kube::runtime::watcher;
use kube::{Client, Resource, ResourceExt};
use task_operator_api::v1::{Phase, Task, TaskStatus};
use tokio_util::sync::CancellationToken;
use tracing::{debug, info, warn};

use super::{Context, error_chain, set_condition};

/// Name of this controller in logs and metrics.
pub const CONTROLLER_NAME: &str = "task";
/// Periodic re-check of a Task that is not finished.
const REQUEUE_AFTER: Duration = Duration::from_secs(60);
/// Retry delay after a failed reconciliation.
const ERROR_REQUEUE_AFTER: Duration = Duration::from_secs(15);

/// Why a reconciliation failed. `key` is the Task's `namespace/name`.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{key}: object has no namespace")]
    MissingNamespace { key: String },

    #[error("{key}: failed to {action}")]
    Api {
        key: String,
        /// What was attempted, e.g. `create the Pod`.
        action: &'static str,
        #[source]
        source: Box<kube::Error>,
    },
}

impl Error {
    /// Short label for the `reason` of `controller_runtime_reconcile_errors_total`.
    pub fn metric_label(&self) -> &'static str {
        match self {
            Self::MissingNamespace { .. } => "missing_namespace",
            Self::Api { .. } => "api",
        }
    }
}

/// Runs the controller until `shutdown` is cancelled.
pub fn run(
    client: Client,
    ctx: Arc<Context>,
    shutdown: CancellationToken,
) -> BoxFuture<'static, ()> {
    Box::pin(async move {
        info!(controller = CONTROLLER_NAME, "starting controller");
        ctx.metrics.init_controller(CONTROLLER_NAME);
        // `owns(Pod)` on the types: every change of the Pod's phase reconciles its Task.
        let controller =
            Controller::new(Api::<Task>::all(client.clone()), watcher::Config::default());
        super::watch_related(controller, &client)
            .graceful_shutdown_on(shutdown.cancelled_owned())
            .run(reconcile, error_policy, ctx)
            .for_each(|result| async move {
                match result {
                    Ok((object, action)) => debug!(%object, ?action, "reconciled"),
                    Err(err) => warn!(error = error_chain(&err), "reconcile failed"),
                }
            })
            .await;
        info!(controller = CONTROLLER_NAME, "controller stopped");
    })
}

/// Brings the cluster in line with one `Task`, in a span naming it.
pub async fn reconcile(obj: Arc<Task>, ctx: Arc<Context>) -> Result<Action, Error> {
    super::instrumented(
        &ctx,
        CONTROLLER_NAME,
        obj.as_ref(),
        reconcile_task(&obj, &ctx),
    )
    .await
}

/// Retries a failed reconciliation later.
pub fn error_policy(_obj: Arc<Task>, err: &Error, ctx: Arc<Context>) -> Action {
    ctx.metrics
        .reconcile_failed(CONTROLLER_NAME, err.metric_label());
    Action::requeue(ERROR_REQUEUE_AFTER)
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

async fn reconcile_task(obj: &Task, ctx: &Context) -> Result<Action, Error> {
    let namespace = obj
        .namespace()
        .ok_or_else(|| Error::MissingNamespace { key: key(obj) })?;
    let pods = Api::<Pod>::namespaced(ctx.client.clone(), &namespace);
    let current = obj.status.as_ref().map(|s| s.phase).unwrap_or_default();
    if current.is_final() {
        // A finished Task is left as it is: its status says how it ended.
        return Ok(Action::await_change());
    }

    // Observe.
    let pod = pods
        .get_opt(&obj.name_any())
        .await
        .map_err(|source| api_error(obj, "get the Pod", source))?;
    let mut state = pod.as_ref().map_or(PodState::Missing, pod_state);
    // Act: a pending Task gets its Pod; a finished one never gets another.
    if current == Phase::Pending && state == PodState::Missing {
        pods.create(&PostParams::default(), &desired_pod(obj))
            .await
            .map_err(|source| api_error(obj, "create the Pod", source))?;
        info!(key = %key(obj), "created the Pod");
        state = PodState::Waiting;
    }

    let (phase, message) = next_phase(current, &state);
    if phase != current {
        info!(key = %key(obj), from = ?current, to = ?phase, "{message}");
    }
    let status = desired_status(obj, phase, &message, Time(Timestamp::now()));
    if obj.status.as_ref() != Some(&status) {
        let patch = serde_json::json!({ "status": status });
        Api::<Task>::namespaced(ctx.client.clone(), &namespace)
            .patch_status(
                &obj.name_any(),
                &PatchParams::default(),
                &Patch::Merge(&patch),
            )
            .await
            .map_err(|source| api_error(obj, "update the status", source))?;
    }
    Ok(if phase.is_final() {
        Action::await_change()
    } else {
        Action::requeue(REQUEUE_AFTER)
    })
}

/// Reduces the Pod's status to a [`PodState`].
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

/// The Pod that runs the Task's command once.
fn desired_pod(obj: &Task) -> Pod {
    Pod {
        metadata: ObjectMeta {
            name: Some(obj.name_any()),
            namespace: obj.namespace(),
            owner_references: obj.controller_owner_ref(&()).map(|owner| vec![owner]),
            ..ObjectMeta::default()
        },
        spec: Some(PodSpec {
            // Once: a failed command fails the Task instead of restarting.
            restart_policy: Some("Never".into()),
            containers: vec![Container {
                name: "task".into(),
                image: Some(obj.spec.image.clone()),
                command: Some(obj.spec.command.clone()).filter(|c| !c.is_empty()),
                ..Container::default()
            }],
            ..PodSpec::default()
        }),
        ..Pod::default()
    }
}

/// The status for `phase`: the phase itself and one condition per milestone, so both
/// `kubectl get` (the phase column) and tools that read conditions see it.
fn desired_status(obj: &Task, phase: Phase, message: &str, now: Time) -> TaskStatus {
    let generation = obj.metadata.generation;
    let mut status = TaskStatus {
        phase,
        observed_generation: generation,
        ..obj.status.clone().unwrap_or_default()
    };
    let started = !matches!(phase, Phase::Pending);
    let conditions = [
        (
            "Started",
            started,
            if started { "PodStarted" } else { "PodPending" },
        ),
        (
            "Complete",
            phase == Phase::Succeeded,
            if phase == Phase::Succeeded {
                "Succeeded"
            } else {
                "NotComplete"
            },
        ),
        (
            "Failed",
            phase == Phase::Failed,
            if phase == Phase::Failed {
                "Failed"
            } else {
                "NotFailed"
            },
        ),
    ];
    for (type_, on, reason) in conditions {
        set_condition(
            &mut status.conditions,
            Condition {
                type_: type_.into(),
                status: if on { "True" } else { "False" }.into(),
                reason: reason.into(),
                message: message.into(),
                observed_generation: generation,
                last_transition_time: now.clone(),
            },
        );
    }
    status
}

fn api_error(obj: &Task, action: &'static str, source: kube::Error) -> Error {
    Error::Api {
        key: key(obj),
        action,
        source: Box::new(source),
    }
}

fn key(obj: &Task) -> String {
    format!("{}/{}", obj.namespace().unwrap_or_default(), obj.name_any())
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use task_operator_api::v1::TaskSpec;

    use super::*;
    use crate::controller::testing::FakeApi;
    use crate::metrics::Metrics;

    const NAMESPACE: &str = "default";

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

    struct Harness {
        fake: FakeApi,
        ctx: Arc<Context>,
        tasks: Api<Task>,
        pods: Api<Pod>,
    }

    impl Harness {
        async fn new() -> Self {
            let fake = FakeApi::start::<Task>(Vec::new(), None).await;
            let ctx = Arc::new(Context {
                client: fake.client.clone(),
                metrics: Metrics::default(),
            });
            let tasks = Api::namespaced(fake.client.clone(), NAMESPACE);
            let pods = Api::namespaced(fake.client.clone(), NAMESPACE);
            let mut task = Task::new(
                "hello",
                TaskSpec {
                    image: "busybox:1.36".into(),
                    command: vec!["true".into()],
                },
            );
            task.metadata.namespace = Some(NAMESPACE.into());
            tasks.create(&PostParams::default(), &task).await.unwrap();
            fake.take_writes();
            Self {
                fake,
                ctx,
                tasks,
                pods,
            }
        }

        /// One reconcile; returns the phase and the `(type, status)` of each condition.
        async fn reconcile(&self) -> (Phase, Vec<(String, String)>) {
            let task = self.tasks.get("hello").await.unwrap();
            reconcile(Arc::new(task), self.ctx.clone()).await.unwrap();
            let status = self.tasks.get("hello").await.unwrap().status.unwrap();
            let conditions = status
                .conditions
                .iter()
                .map(|c| (c.type_.clone(), c.status.clone()))
                .collect();
            (status.phase, conditions)
        }

        /// What the kubelet would report for the Pod.
        async fn pod_reports(&self, status: serde_json::Value) {
            let patch = json!({ "status": status });
            self.pods
                .patch_status("hello", &PatchParams::default(), &Patch::Merge(&patch))
                .await
                .unwrap();
            self.fake.take_writes();
        }
    }

    fn conditions(started: &str, complete: &str, failed: &str) -> Vec<(String, String)> {
        [
            ("Started", started),
            ("Complete", complete),
            ("Failed", failed),
        ]
        .map(|(t, s)| (t.to_string(), s.to_string()))
        .to_vec()
    }

    #[tokio::test]
    async fn pending_then_running_then_failed_and_it_stays_failed() {
        let h = Harness::new().await;

        assert_eq!(
            h.reconcile().await,
            (Phase::Pending, conditions("False", "False", "False"))
        );
        assert_eq!(
            h.fake.take_writes(),
            ["create Pod default/hello", "patch status default/hello"]
        );
        let pod = h.pods.get("hello").await.unwrap();
        assert_eq!(pod.owner_references()[0].name, "hello");
        assert_eq!(pod.spec.unwrap().restart_policy.as_deref(), Some("Never"));

        h.pod_reports(json!({ "phase": "Running" })).await;
        assert_eq!(
            h.reconcile().await,
            (Phase::Running, conditions("True", "False", "False"))
        );
        // Nothing changed: nothing is written.
        h.fake.take_writes();
        h.reconcile().await;
        assert_eq!(h.fake.take_writes(), Vec::<String>::new());

        h.pod_reports(json!({
            "phase": "Failed",
            "containerStatuses": [{
                "name": "task", "image": "busybox:1.36", "imageID": "", "ready": false, "restartCount": 0,
                "state": { "terminated": { "exitCode": 1, "reason": "Error" } },
            }],
        }))
        .await;
        assert_eq!(
            h.reconcile().await,
            (Phase::Failed, conditions("True", "False", "True"))
        );
        let status = h.tasks.get("hello").await.unwrap().status.unwrap();
        assert_eq!(
            status.conditions[2].message,
            "Container task exited with 1 (Error)"
        );

        // Final: the Pod going away changes nothing, and no new Pod is made.
        h.pods.delete("hello", &Default::default()).await.unwrap();
        h.fake.take_writes();
        assert_eq!(h.reconcile().await.0, Phase::Failed);
        assert_eq!(h.fake.take_writes(), Vec::<String>::new());
    }

    #[tokio::test]
    async fn a_pod_lost_while_running_fails_the_task() {
        let h = Harness::new().await;
        h.reconcile().await;
        h.pod_reports(json!({ "phase": "Running" })).await;
        h.reconcile().await;

        h.pods.delete("hello", &Default::default()).await.unwrap();

        assert_eq!(
            h.reconcile().await,
            (Phase::Failed, conditions("True", "False", "True"))
        );
        assert!(
            h.pods.get_opt("hello").await.unwrap().is_none(),
            "a Task runs at most once"
        );
    }

    #[tokio::test]
    async fn a_successful_command_completes_the_task() {
        let h = Harness::new().await;
        h.reconcile().await;
        h.pod_reports(json!({ "phase": "Succeeded" })).await;

        assert_eq!(
            h.reconcile().await,
            (Phase::Succeeded, conditions("True", "True", "False"))
        );
    }
}
