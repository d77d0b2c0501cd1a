//! The RedisCluster controller against a real API server (rop-testenv): the cluster gets its
//! replicas as Pods it owns, a lost replica comes back, the surplus goes and the status counts
//! the ready ones. No kubelet runs there, so the test plays it: it reports a Pod ready. Skips
//! without the binaries unless ROP_TESTENV_REQUIRE=1.

use std::time::{Duration, Instant};

use redis_operator::controller::redis_cluster::RedisClusterReconciler;
use redis_operator_api::v1alpha1::RedisCluster;
use rop::conditions::HasConditions;
use rop::k8s_openapi::api::core::v1::Pod;
use rop::kube::ResourceExt;
use rop::kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams};
use rop_testenv::{TestEnv, WAIT};
use serde_json::json;

/// The sample `rop create api` wrote, which the test creates.
const SAMPLE: &str = "cache_v1alpha1_rediscluster.yaml";

#[test]
fn replicas_are_created_and_a_lost_one_comes_back() {
    let Some(env) = TestEnv::start_or_skip() else {
        return;
    };
    env.block_on(async {
        let project = env!("CARGO_MANIFEST_DIR");
        let controller = env.start_controller(project, RedisClusterReconciler).await;
        let cluster = controller.create_sample(SAMPLE).await;
        let (api, name) = (controller.api(), cluster.name_any());
        let pods = controller.api_of::<Pod>();

        let before = pods_when(&pods, |live| live.len() == 3).await;
        let names: Vec<&str> = before.iter().map(|(n, _)| n.as_str()).collect();
        let sample = [
            "rediscluster-sample-0",
            "rediscluster-sample-1",
            "rediscluster-sample-2",
        ];
        assert_eq!(names, sample);
        let pod = pods.get("rediscluster-sample-1").await.unwrap();
        let owner = pod.owner_references().first().map(|o| o.uid.clone());
        assert_eq!(owner, cluster.uid(), "the cluster owns its replicas");

        // A replica is lost (no kubelet here: an unscheduled Pod goes at once); it comes back.
        let lost = "rediscluster-sample-1";
        pods.delete(lost, &DeleteParams::default()).await.unwrap();
        pods_when(&pods, |live| {
            live.len() == 3 && live[1].0 == lost && live[1].1 != before[1].1
        })
        .await;

        // Scaled down to one: the surplus goes, and the status waits for the replica left.
        let scale = Patch::Merge(json!({ "spec": { "replicas": 1 } }));
        let params = PatchParams::default();
        api.patch(&name, &params, &scale).await.unwrap();
        let left = pods_when(&pods, |live| live.len() == 1).await;
        assert_eq!(left[0].0, "rediscluster-sample-0");
        let observed = |c: &RedisCluster| {
            c.status.as_ref().and_then(|s| s.observed_generation) == c.metadata.generation
        };
        let status = controller.wait_for(&cluster, observed).await.status;
        let status = status.unwrap();
        assert_eq!(status.ready_replicas, 0);
        assert!(!status.is_condition_true("Available"));

        // The kubelet's part: the replica runs and is ready; the cluster is Available.
        let ready = Patch::Merge(json!({ "status": {
            "phase": "Running",
            "conditions": [{ "type": "Ready", "status": "True" }],
        }}));
        let replica = &left[0].0;
        pods.patch_status(replica, &params, &ready).await.unwrap();
        let available = controller.wait_for(&cluster, is_available).await;
        assert_eq!(available.status.as_ref().unwrap().ready_replicas, 1);

        // Idempotent: a pass over a converged cluster writes neither it nor its Pod.
        controller.settled().await;
        let pod = pods.get(replica).await.unwrap();
        let touched = controller.touch(&available).await;
        let after = api.get(&name).await.unwrap();
        assert_eq!(after.resource_version(), touched.resource_version());
        let after = pods.get(replica).await.unwrap();
        assert_eq!(after.resource_version(), pod.resource_version());

        controller.stop().await;
    });
}

/// Whether `cluster` reports the condition `Available` as true.
fn is_available(cluster: &RedisCluster) -> bool {
    let status = cluster.status.as_ref();
    status.is_some_and(|s| s.is_condition_true("Available"))
}

/// The names and uids of the Pods that are not going, sorted, once `done` holds for them.
async fn pods_when(
    pods: &Api<Pod>,
    done: impl Fn(&[(String, String)]) -> bool,
) -> Vec<(String, String)> {
    let deadline = Instant::now() + WAIT;
    loop {
        let list = pods.list(&ListParams::default()).await.unwrap().items;
        let mut live: Vec<_> = list
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
