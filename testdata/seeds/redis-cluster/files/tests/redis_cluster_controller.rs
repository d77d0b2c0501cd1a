//! The RedisCluster controller against a real API server (rop-testenv): the cluster gets its
//! replicas as Pods it owns, and a lost replica comes back. Skips without the binaries unless
//! ROP_TESTENV_REQUIRE=1.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::Pod;
use kube::ResourceExt;
use kube::api::{Api, DeleteParams, ListParams, PostParams};
use redis_operator::controller::{self, Context};
use redis_operator::metrics::Metrics;
use redis_operator_api::v1alpha1::RedisCluster;
use rop_testenv::TestEnv;
use tokio_util::sync::CancellationToken;

const WAIT: Duration = Duration::from_secs(30);

/// The names and uids of the Pods, sorted, once there are `count` of them and none is going.
async fn pods_when(pods: &Api<Pod>, count: usize) -> Vec<(String, String)> {
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
        if live.len() == count {
            return live;
        }
        assert!(
            Instant::now() < deadline,
            "{count} Pods did not appear within {WAIT:?}: {live:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

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
            .expect("the CRDs install");
        let ctx = Arc::new(Context {
            client: client.clone(),
            metrics: Metrics::default(),
        });
        let shutdown = CancellationToken::new();
        let running = tokio::spawn(controller::redis_cluster::run(
            client.clone(),
            ctx,
            shutdown.clone(),
        ));

        let sample: RedisCluster = rop_testenv::object_from_file(
            &root.join("config/samples/cache_v1alpha1_rediscluster.yaml"),
        )
        .unwrap();
        let clusters: Api<RedisCluster> = Api::namespaced(client.clone(), "default");
        let created = clusters
            .create(&PostParams::default(), &sample)
            .await
            .expect("the sample is accepted");
        let pods: Api<Pod> = Api::namespaced(client.clone(), "default");

        let before = pods_when(&pods, 3).await;
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
        let deadline = Instant::now() + WAIT;
        loop {
            let after = pods_when(&pods, 3).await;
            if after[1].0 == "rediscluster-sample-1" && after[1].1 != before[1].1 {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "rediscluster-sample-1 was not created again: {after:?}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        shutdown.cancel();
        running.await.unwrap();
    });
}
