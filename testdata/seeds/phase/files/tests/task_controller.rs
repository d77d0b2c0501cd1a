//! The Task controller against a real API server (rop-testenv). No kubelet runs there, so the
//! test plays the kubelet: it writes the Pod's status, and the Task follows Pending → Running →
//! Succeeded, with its conditions. Skips without the binaries unless ROP_TESTENV_REQUIRE=1.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, Patch, PatchParams, PostParams};
use rop_testenv::TestEnv;
use task_operator::controller::{self, Context};
use task_operator::metrics::Metrics;
use task_operator_api::v1::{Phase, Task};
use tokio_util::sync::CancellationToken;

const WAIT: Duration = Duration::from_secs(30);

async fn wait_for<K>(api: &Api<K>, name: &str, done: impl Fn(&K) -> bool) -> K
where
    K: kube::Resource + Clone + serde::de::DeserializeOwned + std::fmt::Debug,
{
    let deadline = Instant::now() + WAIT;
    loop {
        if let Some(object) = api.get_opt(name).await.unwrap()
            && done(&object)
        {
            return object;
        }
        assert!(
            Instant::now() < deadline,
            "{name} did not get there within {WAIT:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn condition(task: &Task, type_: &str) -> Option<String> {
    let status = task.status.as_ref()?;
    status
        .conditions
        .iter()
        .find(|c| c.type_ == type_)
        .map(|c| c.status.clone())
}

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
            .expect("the CRDs install");
        let ctx = Arc::new(Context {
            client: client.clone(),
            metrics: Metrics::default(),
        });
        let shutdown = CancellationToken::new();
        let running = tokio::spawn(controller::task::run(client.clone(), ctx, shutdown.clone()));

        let sample: Task =
            rop_testenv::object_from_file(&root.join("config/samples/ops_v1_task.yaml")).unwrap();
        let tasks: Api<Task> = Api::namespaced(client.clone(), "default");
        let pods: Api<Pod> = Api::namespaced(client.clone(), "default");
        tasks
            .create(&PostParams::default(), &sample)
            .await
            .expect("the sample is accepted");

        // The Task runs its command in a Pod it owns, and waits in Pending.
        let pod = wait_for(&pods, "task-sample", |_| true).await;
        assert_eq!(
            pod.spec.unwrap().containers[0].image.as_deref(),
            Some("busybox:1.36")
        );
        let task = wait_for(&tasks, "task-sample", |t| {
            t.status.as_ref().is_some_and(|s| s.phase == Phase::Pending)
        })
        .await;
        assert_eq!(condition(&task, "Started").as_deref(), Some("False"));

        // The kubelet's part: the Pod runs, then exits with 0.
        for phase in ["Running", "Succeeded"] {
            let patch = serde_json::json!({"status": {"phase": phase}});
            pods.patch_status(
                "task-sample",
                &PatchParams::default(),
                &Patch::Merge(&patch),
            )
            .await
            .unwrap();
            let want = if phase == "Running" {
                Phase::Running
            } else {
                Phase::Succeeded
            };
            wait_for(&tasks, "task-sample", |t| {
                t.status.as_ref().is_some_and(|s| s.phase == want)
            })
            .await;
        }
        let task = tasks.get("task-sample").await.unwrap();
        assert_eq!(condition(&task, "Started").as_deref(), Some("True"));
        assert_eq!(condition(&task, "Complete").as_deref(), Some("True"));
        assert_eq!(condition(&task, "Failed").as_deref(), Some("False"));
        shutdown.cancel();
        running.await.unwrap();
    });
}
