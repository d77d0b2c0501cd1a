//! The RedisCluster controller against a real API server (rop-testenv): the cluster gets its
//! replicas as Pods it owns, a lost replica comes back, the surplus goes and the status counts
//! the ready ones. No kubelet runs there, so the test plays it: it reports a Pod ready. Skips
//! without the binaries unless ROP_TESTENV_REQUIRE=1.

use std::path::Path;
use std::time::{Duration, Instant};

use redis_operator::controller::redis_cluster::RedisClusterReconciler;
use redis_operator_api::v1alpha1::RedisCluster;
use rop::controller::metrics::ReconcileLabels;
use rop::k8s_openapi::api::core::v1::Pod;
use rop::kube::ResourceExt;
use rop::kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams, PostParams};
use rop::manager::{Manager, Options};
use rop_testenv::{TestEnv, WAIT, wait_for, wait_until};

#[test]
fn replicas_are_created_and_a_lost_one_comes_back() {
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
        manager.add_controller(RedisClusterReconciler);
        let metrics = manager.metrics().clone();
        let passes = move || {
            let labels = ReconcileLabels {
                controller: "rediscluster".into(),
                result: "success",
            };
            metrics.reconciles.get_or_create(&labels).get()
        };
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let running = tokio::spawn(manager.run_until(async {
            let _ = stopped.await;
        }));

        let sample: RedisCluster = rop_testenv::object_from_file(
            &root.join("config/samples/cache_v1alpha1_rediscluster.yaml"),
        )
        .expect("the sample decodes");
        let clusters: Api<RedisCluster> = Api::namespaced(client.clone(), "default");
        let created = clusters
            .create(&PostParams::default(), &sample)
            .await
            .expect("the sample is accepted");
        let pods: Api<Pod> = Api::namespaced(client.clone(), "default");

        let before = pods_when(&pods, |live| live.len() == 3).await;
        let names: Vec<&str> = before.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "rediscluster-sample-0",
                "rediscluster-sample-1",
                "rediscluster-sample-2"
            ]
        );
        let pod = pods.get("rediscluster-sample-1").await.unwrap();
        let owner = pod.owner_references().first().map(|o| o.uid.clone());
        assert_eq!(owner, created.uid(), "the cluster owns its replicas");

        // A replica is lost (no kubelet here: an unscheduled Pod goes at once); it comes back.
        pods.delete("rediscluster-sample-1", &DeleteParams::default())
            .await
            .unwrap();
        pods_when(&pods, |live| {
            live.len() == 3 && live[1].0 == "rediscluster-sample-1" && live[1].1 != before[1].1
        })
        .await;

        // Scaled down to one: the surplus goes, and the status waits for the replica left.
        let scale = serde_json::json!({ "spec": { "replicas": 1 } });
        clusters
            .patch(
                &sample.name_any(),
                &PatchParams::default(),
                &Patch::Merge(&scale),
            )
            .await
            .unwrap();
        let left = pods_when(&pods, |live| live.len() == 1).await;
        assert_eq!(left[0].0, "rediscluster-sample-0");
        let cluster = wait_for(&clusters, &sample.name_any(), |c| {
            c.status.as_ref().and_then(|s| s.observed_generation) == c.metadata.generation
        })
        .await;
        let status = cluster.status.unwrap();
        assert_eq!(status.ready_replicas, 0);
        assert!(!rop::conditions::is_true(&status.conditions, "Available"));

        // The kubelet's part: the replica runs and is ready; the cluster is Available.
        let ready = serde_json::json!({ "status": {
            "phase": "Running",
            "conditions": [{ "type": "Ready", "status": "True" }],
        }});
        pods.patch_status(
            "rediscluster-sample-0",
            &PatchParams::default(),
            &Patch::Merge(&ready),
        )
        .await
        .unwrap();
        let available = wait_for(&clusters, &sample.name_any(), |c| {
            c.status
                .as_ref()
                .is_some_and(|s| rop::conditions::is_true(&s.conditions, "Available"))
        })
        .await;
        assert_eq!(available.status.as_ref().unwrap().ready_replicas, 1);

        // Idempotent: a pass over a converged cluster writes neither it nor its Pod.
        let pod = pods.get("rediscluster-sample-0").await.unwrap();
        let patch =
            serde_json::json!({ "metadata": { "annotations": { "example.com/touched": "true" } } });
        let before = passes();
        let touched = clusters
            .patch(
                &sample.name_any(),
                &PatchParams::default(),
                &Patch::Merge(&patch),
            )
            .await
            .unwrap();
        wait_until("another pass", || passes() > before).await;
        let after = clusters.get(&sample.name_any()).await.unwrap();
        assert_eq!(after.resource_version(), touched.resource_version());
        let after = pods.get("rediscluster-sample-0").await.unwrap();
        assert_eq!(after.resource_version(), pod.resource_version());

        stop.send(()).unwrap();
        running.await.unwrap().expect("the manager stops cleanly");
    });
}

/// The names and uids of the cluster's Pods that are not going, sorted, once `done` holds for
/// them.
async fn pods_when(
    pods: &Api<Pod>,
    done: impl Fn(&[(String, String)]) -> bool,
) -> Vec<(String, String)> {
    let deadline = Instant::now() + WAIT;
    loop {
        let list = pods.list(&ListParams::default()).await.unwrap();
        let mut live: Vec<(String, String)> = list
            .items
            .iter()
            .filter(|p| p.metadata.deletion_timestamp.is_none())
            .map(|p| (p.name_any(), p.uid().unwrap_or_default()))
            .collect();
        live.sort();
        if done(&live) {
            return live;
        }
        assert!(
            Instant::now() < deadline,
            "the Pods did not get there within {WAIT:?}: {live:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
