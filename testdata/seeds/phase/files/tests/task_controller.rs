//! The Task controller against a real API server (rop-testenv). No kubelet runs there, so the
//! test plays the kubelet: it writes the Pods' status, and the Tasks follow Pending → Running →
//! Succeeded or Failed, with their conditions, and never go back. Skips without the binaries
//! unless ROP_TESTENV_REQUIRE=1.

use std::path::Path;

use rop::controller::metrics::ReconcileLabels;
use rop::k8s_openapi::api::core::v1::Pod;
use rop::kube::ResourceExt;
use rop::kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use rop::manager::{Manager, Options};
use rop_testenv::{TestEnv, wait_for, wait_until};
use serde_json::json;
use task_operator::controller::task::TaskReconciler;
use task_operator_api::v1::{Phase, Task};

#[test]
fn a_task_follows_its_pod_from_pending_to_succeeded() {
    let Some(env) = TestEnv::start_or_skip() else {
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    env.block_on(async {
        let client = env.client();
        rop_testenv::install_crds(&client, &root.join("config/crd/bases"))
            .await
            .expect("the CRDs install (run `make manifests` first)");
        let mut manager = Manager::with_client("test", Options::for_tests(), client.clone());
        manager.add_controller(TaskReconciler);
        let metrics = manager.metrics().clone();
        let passes = move || {
            let labels = ReconcileLabels {
                controller: "task".into(),
                result: "success",
            };
            metrics.reconciles.get_or_create(&labels).get()
        };
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let running = tokio::spawn(manager.run_until(async {
            let _ = stopped.await;
        }));

        let sample: Task =
            rop_testenv::object_from_file(&root.join("config/samples/ops_v1_task.yaml"))
                .expect("the sample decodes");
        let tasks: Api<Task> = Api::namespaced(client.clone(), "default");
        let pods: Api<Pod> = Api::namespaced(client.clone(), "default");
        // The sample succeeds; a copy fails, another loses its Pod while running.
        for name in ["task-sample", "task-fails", "task-lost"] {
            let mut task = sample.clone();
            task.metadata.name = Some(name.into());
            tasks
                .create(&PostParams::default(), &task)
                .await
                .expect("the sample is accepted");
        }

        // Each Task runs its command in a Pod it owns, and waits in Pending.
        let task = wait_for(&tasks, "task-sample", |t| phase(t) == Some(Phase::Pending)).await;
        assert_eq!(
            conditions(&task),
            [
                ("Started", "False"),
                ("Complete", "False"),
                ("Failed", "False")
            ]
        );
        let pod = wait_for(&pods, "task-sample", |_| true).await;
        assert_eq!(pod.owner_references()[0].uid, task.uid().unwrap());
        let spec = pod.spec.unwrap();
        assert_eq!(spec.containers[0].image.as_deref(), Some("busybox:1.36"));
        assert_eq!(spec.restart_policy.as_deref(), Some("Never"));

        // The kubelet's part: each Pod runs.
        for name in ["task-sample", "task-fails", "task-lost"] {
            wait_for(&pods, name, |_| true).await;
            pod_reports(&pods, name, json!({ "phase": "Running" })).await;
            let task = wait_for(&tasks, name, |t| phase(t) == Some(Phase::Running)).await;
            assert_eq!(
                conditions(&task),
                [
                    ("Started", "True"),
                    ("Complete", "False"),
                    ("Failed", "False")
                ]
            );
        }

        // The sample's command exits with 0: it succeeded.
        pod_reports(&pods, "task-sample", json!({ "phase": "Succeeded" })).await;
        let task = wait_for(&tasks, "task-sample", |t| {
            phase(t) == Some(Phase::Succeeded)
        })
        .await;
        assert_eq!(
            conditions(&task),
            [
                ("Started", "True"),
                ("Complete", "True"),
                ("Failed", "False")
            ]
        );

        // The copy's command exits with 1: it failed, and says how.
        let failed = json!({
            "phase": "Failed",
            "containerStatuses": [{
                "name": "task", "image": "busybox:1.36", "imageID": "", "ready": false,
                "restartCount": 0, "state": { "terminated": { "exitCode": 1, "reason": "Error" } },
            }],
        });
        pod_reports(&pods, "task-fails", failed).await;
        let task = wait_for(&tasks, "task-fails", |t| phase(t) == Some(Phase::Failed)).await;
        assert_eq!(
            conditions(&task),
            [
                ("Started", "True"),
                ("Complete", "False"),
                ("Failed", "True")
            ]
        );
        let status = task.status.as_ref().unwrap();
        let why = rop::conditions::find(&status.conditions, "Failed").unwrap();
        assert_eq!(why.message, "Container task exited with 1 (Error)");

        // A Pod lost while running fails its Task, which gets no other Pod.
        pods.delete("task-lost", &DeleteParams::default())
            .await
            .unwrap();
        let task = wait_for(&tasks, "task-lost", |t| phase(t) == Some(Phase::Failed)).await;
        let status = task.status.as_ref().unwrap();
        let why = rop::conditions::find(&status.conditions, "Failed").unwrap();
        assert_eq!(why.message, "The Pod was lost while running");
        assert!(pods.get_opt("task-lost").await.unwrap().is_none());

        // Final: a finished Task's Pod going away writes nothing, and no new Pod is made. The
        // other Tasks are finished too: the next pass is this one's.
        let finished = tasks.get("task-fails").await.unwrap();
        let before = passes();
        pods.delete("task-fails", &DeleteParams::default())
            .await
            .unwrap();
        wait_until("another pass", || passes() > before).await;
        let after = tasks.get("task-fails").await.unwrap();
        assert_eq!(after.resource_version(), finished.resource_version());
        assert!(pods.get_opt("task-fails").await.unwrap().is_none());

        stop.send(()).unwrap();
        running.await.unwrap().expect("the manager stops cleanly");
    });
}

/// The phase `task` reports, if it reports one.
fn phase(task: &Task) -> Option<Phase> {
    task.status.as_ref().map(|s| s.phase)
}

/// The `(type, status)` of each condition of `task`.
fn conditions(task: &Task) -> Vec<(&str, &str)> {
    let conditions = task.status.iter().flat_map(|s| &s.conditions);
    conditions
        .map(|c| (c.type_.as_str(), c.status.as_str()))
        .collect()
}

/// Writes what the kubelet would report for the Pod `name`.
async fn pod_reports(pods: &Api<Pod>, name: &str, status: serde_json::Value) {
    let patch = json!({ "status": status });
    pods.patch_status(name, &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .unwrap();
}
