// Copyright 2026 The Memcached Authors.
// SPDX-License-Identifier: Apache-2.0

//! The Redis controller on a real API server (rop-testenv), with the project's CRDs and
//! RBAC and the sample from `config/samples` (see `make testenv`). No kube-controller-manager
//! or kubelet runs here: `rop_testenv::Kubelet` plays both for the StatefulSet.

use rop::k8s_openapi::api::apps::v1::StatefulSet;
use rop::k8s_openapi::api::core::v1::Service;
use rop::k8s_openapi::api::policy::v1::PodDisruptionBudget;
use rop::kube::ResourceExt;
use rop::kube::api::{Api, Patch, PatchParams};
use rop_testenv::{Kubelet, TEST_NAMESPACE, TestEnv};
use serde_json::{Value, json};

use memcached_operator::controller::redis::RedisReconciler;
use memcached_operator_api::v1alpha1::Redis;

/// The sample `rop create api` wrote, which the test creates.
const SAMPLE: &str = "cache_v1alpha1_redis.yaml";

#[test]
fn redis_rolls_out_one_ordinal_at_a_time_within_its_budget() {
    let Some(env) = TestEnv::start_or_skip() else {
        return;
    };
    env.block_on(async {
        let project = env!("CARGO_MANIFEST_DIR");
        let reconciler = RedisReconciler;
        let controller = env.start_controller(project, reconciler).await;
        let object = controller.create_sample(SAMPLE).await;
        let (api, name, replicas) = (controller.api(), object.name_any(), object.spec.replicas);
        let kubelet = Kubelet::for_stateful_set(controller.client(), TEST_NAMESPACE, &name);

        // Every replica ready, the objects as the spec asks.
        controller.wait_for(&object, rolled_out).await;
        let sets = controller.api_of::<StatefulSet>();
        let set = sets.get(&name).await.unwrap().spec;
        assert_eq!(set.replicas, Some(replicas));
        let strategy = set.update_strategy.unwrap().type_;
        assert_eq!(strategy.as_deref(), Some("OnDelete"));
        let budgets = controller.api_of::<PodDisruptionBudget>();
        let budget = budgets.get(&name).await.unwrap().spec.unwrap();
        let min_available = Some(object.spec.min_available.clone());
        assert_eq!(budget.min_available, min_available);
        let services = controller.api_of::<Service>();
        let service = services.get(&name).await.unwrap().spec.unwrap();
        assert_eq!(service.cluster_ip.as_deref(), Some("None"));

        // A new configuration rolls the replicas, highest ordinal first; the rollout halts
        // while the new Pod is not ready, and goes on when it is.
        let last = format!("{name}-{}", replicas - 1);
        kubelet.take_created();
        kubelet.hold(&last);
        let config = json!({ "config": { "app.conf": "version 2" } });
        update(&api, &name, config).await.unwrap();
        let waiting = format!("waiting for Pod {last} to be ready");
        let halted = |o: &_| progressing(o).1.ends_with(&waiting);
        controller.wait_for(&object, halted).await;
        controller.settled().await;
        let created = kubelet.take_created();
        assert_eq!(created, [last.as_str()], "no other Pod went");
        kubelet.release();
        controller.wait_for(&object, rolled_out).await;
        let highest_first = (0..replicas - 1).rev();
        let order: Vec<_> = highest_first.map(|o| format!("{name}-{o}")).collect();
        assert_eq!(kubelet.take_created(), order, "highest first");

        // An update the budget cannot afford stops and says why, until the budget allows it.
        let strict = json!({ "minAvailable": "100%", "config": { "app.conf": "version 3" } });
        update(&api, &name, strict).await.unwrap();
        let stopped = |o: &_| progressing(o).0 == "RolloutBlocked";
        let blocked = controller.wait_for(&object, stopped).await;
        let left = format!("{} of {replicas} replicas ready", replicas - 1);
        let keeps = format!("and the disruption budget keeps {replicas}");
        let message = format!("updating Pod {last} would leave {left}, {keeps}");
        assert_eq!(progressing(&blocked).1, message);
        assert!(kubelet.take_created().is_empty(), "no Pod went");
        let relaxed = json!({ "minAvailable": object.spec.min_available });
        update(&api, &name, relaxed).await.unwrap();
        controller.wait_for(&object, rolled_out).await;
        assert_eq!(kubelet.take_created().len(), replicas as usize);

        // The API server refuses what cannot work: new volumes, a budget that is no number.
        let bigger = json!({ "storageSize": "5Gi" });
        let refused = update(&api, &name, bigger).await.unwrap_err().to_string();
        assert!(refused.contains("cannot change"), "{refused}");
        let half = json!({ "minAvailable": "half" });
        let refused = update(&api, &name, half).await.unwrap_err().to_string();
        assert!(refused.contains("or a percentage from"), "{refused}");

        // Deleting the object lets it go (the garbage collector deletes what it owns).
        controller.delete(&object).await;
        controller.stop().await;
    });
}

/// Whether every replica of `object` is ready and updated, for its current generation.
fn rolled_out(object: &Redis) -> bool {
    let replicas = object.spec.replicas;
    let status = object.status.clone().unwrap_or_default();
    status.observed_generation == object.metadata.generation
        && (status.ready_replicas, status.updated_replicas) == (replicas, replicas)
        && progressing(object).0 == "RolloutComplete"
}

/// `Progressing`'s reason and message (empty when the object has none).
fn progressing(object: &Redis) -> (String, String) {
    let status = object.status.clone().unwrap_or_default();
    match rop::conditions::find(&status.conditions, "Progressing") {
        Some(condition) => (condition.reason.clone(), condition.message.clone()),
        None => (String::new(), String::new()),
    }
}

/// Merges `spec` into the spec of the object `name`.
async fn update(api: &Api<Redis>, name: &str, spec: Value) -> Result<Redis, rop::kube::Error> {
    let patch = Patch::Merge(json!({ "spec": spec }));
    api.patch(name, &PatchParams::default(), &patch).await
}
