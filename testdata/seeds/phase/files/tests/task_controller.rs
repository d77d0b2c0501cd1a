//! The Task controller against a real API server (rop-testenv). No kubelet runs there, so the
//! test plays the kubelet: it writes the Pods' status, and the Tasks follow Pending → Running →
//! Succeeded or Failed, with their conditions, and never go back. Skips without the binaries
//! unless ROP_TESTENV_REQUIRE=1.

use rop::conditions::HasConditions;
use rop::k8s_openapi::api::core::v1::Pod;
use rop::kube::ResourceExt;
use rop::kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use rop_testenv::{ControllerTest, TestEnv, wait_for, wait_until};
use serde_json::{Value, json};
use task_operator::controller::task::TaskReconciler;
use task_operator_api::v1::{Phase, Task};

#[test]
fn a_task_follows_its_pod_from_pending_to_succeeded() {
    let Some(env) = TestEnv::start_or_skip() else {
        return;
    };
    env.block_on(async {
        let project = env!("CARGO_MANIFEST_DIR");
        let controller = env.start_controller(project, TaskReconciler).await;
        let (api, pods) = (controller.api(), controller.api_of::<Pod>());
        // The sample succeeds; a copy fails, another loses its Pod while running.
        let sample = controller.create_sample("ops_v1_task.yaml").await;
        let copy = async |name: &str| {
            let copy = Task::new(name, sample.spec.clone());
            api.create(&PostParams::default(), &copy).await.unwrap()
        };
        let (fails, lost) = (copy("task-fails").await, copy("task-lost").await);

        // Each Task runs its command in a Pod it owns, and waits in Pending.
        let task = reaches(&controller, &sample, Phase::Pending).await;
        let pod = wait_for(&pods, "task-sample", |_| true).await;
        assert_eq!(pod.owner_references()[0].uid, task.uid().unwrap());
        let spec = pod.spec.unwrap();
        assert_eq!(spec.containers[0].image.as_deref(), Some("busybox:1.36"));
        assert_eq!(spec.restart_policy.as_deref(), Some("Never"));

        // The kubelet's part: each Pod runs.
        for task in [&sample, &fails, &lost] {
            wait_for(&pods, &task.name_any(), |_| true).await;
            pod_reports(&pods, task, json!({ "phase": "Running" })).await;
            reaches(&controller, task, Phase::Running).await;
        }

        // The sample's command exits with 0: it succeeded.
        pod_reports(&pods, &sample, json!({ "phase": "Succeeded" })).await;
        reaches(&controller, &sample, Phase::Succeeded).await;

        // The copy's command exits with 1: it failed, and says how.
        let failed = json!({
            "phase": "Failed",
            "containerStatuses": [{
                "name": "task", "image": "busybox:1.36", "imageID": "", "ready": false,
                "restartCount": 0, "state": { "terminated": { "exitCode": 1, "reason": "Error" } },
            }],
        });
        pod_reports(&pods, &fails, failed).await;
        let task = reaches(&controller, &fails, Phase::Failed).await;
        assert_eq!(why_failed(&task), "Container task exited with 1 (Error)");

        // A Pod lost while running fails its Task, which gets no other Pod.
        let delete = DeleteParams::default();
        pods.delete("task-lost", &delete).await.unwrap();
        let task = reaches(&controller, &lost, Phase::Failed).await;
        assert_eq!(why_failed(&task), "The Pod was lost while running");
        assert!(pods.get_opt("task-lost").await.unwrap().is_none());

        // Final: a finished Task's Pod going away writes nothing, and no new Pod is made.
        controller.settled().await;
        let finished = api.get("task-fails").await.unwrap();
        let before = controller.passes(&finished);
        pods.delete("task-fails", &delete).await.unwrap();
        wait_until("another pass", || controller.passes(&finished) > before).await;
        controller.settled().await;
        let after = api.get("task-fails").await.unwrap();
        assert_eq!(after.resource_version(), finished.resource_version());
        assert!(pods.get_opt("task-fails").await.unwrap().is_none());

        controller.stop().await;
    });
}

/// Waits until `task` is in `phase`; checks that it reports the phase as the conditions
/// `Started`, `Complete` and `Failed`, in that order; returns it.
async fn reaches(controller: &ControllerTest<Task>, task: &Task, phase: Phase) -> Task {
    let in_phase = |t: &Task| t.status.as_ref().is_some_and(|s| s.phase == phase);
    let task = controller.wait_for(task, in_phase).await;
    let [started, complete, failed] = match phase {
        Phase::Pending => ["False", "False", "False"],
        Phase::Running => ["True", "False", "False"],
        Phase::Succeeded => ["True", "True", "False"],
        Phase::Failed => ["True", "False", "True"],
    };
    let expected = [
        ("Started", started),
        ("Complete", complete),
        ("Failed", failed),
    ];
    let conditions = task.status.iter().flat_map(|s| &s.conditions);
    let found: Vec<_> = conditions
        .map(|c| (c.type_.as_str(), c.status.as_str()))
        .collect();
    assert_eq!(found, expected, "{} in {phase:?}", task.name_any());
    task
}

/// The message of `task`'s `Failed` condition.
fn why_failed(task: &Task) -> &str {
    let status = task.status.as_ref().unwrap();
    &status.condition("Failed").unwrap().message
}

/// Writes what the kubelet would report for `task`'s Pod.
async fn pod_reports(pods: &Api<Pod>, task: &Task, status: Value) {
    let patch = Patch::Merge(json!({ "status": status }));
    pods.patch_status(&task.name_any(), &PatchParams::default(), &patch)
        .await
        .unwrap();
}
