// Copyright 2026 The Memcached Authors.
// SPDX-License-Identifier: Apache-2.0

//! The Redis controller on a real API server (rop-testenv), with the project's CRDs and
//! RBAC and the sample from `config/samples` (see `make testenv`). No kube-controller-manager
//! or kubelet runs here: `rop_testenv::Kubelet` plays both for the StatefulSet.

use rop::k8s_openapi::api::apps::v1::StatefulSet;
use rop::k8s_openapi::api::core::v1::Service;
use rop::k8s_openapi::api::policy::v1::PodDisruptionBudget;
use rop::kube::ResourceExt;
use rop_testenv::{Kubelet, TEST_NAMESPACE, caught_up, check_controller, find_condition};
use serde_json::json;

use memcached_operator::controller::redis::RedisReconciler;
use memcached_operator_api::v1alpha1::Redis;

/// The sample `rop create api` wrote, which the test creates.
const SAMPLE: &str = "cache_v1alpha1_redis.yaml";

/// The sample rolls out, then rolls a new configuration one ordinal at a time within its
/// budget; then `check_controller` checks what every controller owes: a pass over it writes
/// nothing, and deleting it lets it go (the garbage collector deletes what it owns).
#[test]
fn redis_rolls_out_one_ordinal_at_a_time_within_its_budget() {
    let project = env!("CARGO_MANIFEST_DIR");
    let reconciler = RedisReconciler;
    check_controller(project, reconciler, SAMPLE, async |controller, object| {
        let (name, replicas) = (object.name_any(), object.spec.replicas);
        let kubelet = Kubelet::for_stateful_set(controller.client(), TEST_NAMESPACE, &name);

        // Every replica ready, the objects as the spec asks.
        let ready = controller.wait_for(object, rolled_out).await;
        let set: StatefulSet = controller.owned(&ready).await;
        assert_eq!(set.spec.replicas, Some(replicas));
        let strategy = set.spec.update_strategy.unwrap().type_;
        assert_eq!(strategy.as_deref(), Some("OnDelete"));
        let budget: PodDisruptionBudget = controller.owned(&ready).await;
        let min_available = Some(object.spec.min_available.clone());
        assert_eq!(budget.spec.unwrap().min_available, min_available);
        let service: Service = controller.owned(&ready).await;
        assert_eq!(service.spec.unwrap().cluster_ip.as_deref(), Some("None"));

        // A new configuration rolls the replicas, highest ordinal first; the rollout halts
        // while the new Pod is not ready, and goes on when it is.
        let last = format!("{name}-{}", replicas - 1);
        kubelet.take_created();
        kubelet.hold(&last);
        let config = json!({ "config": { "app.conf": "version 2" } });
        controller.patch_spec(object, config).await.unwrap();
        let waiting = format!("waiting for Pod {last} to be ready");
        let halted = |o: &_| progressing(o).1.ends_with(&waiting);
        controller.wait_for(object, halted).await;
        controller.settled().await;
        let created = kubelet.take_created();
        assert_eq!(created, [last.as_str()], "no other Pod went");
        kubelet.release();
        controller.wait_for(object, rolled_out).await;
        let highest_first = (0..replicas - 1).rev();
        let order: Vec<_> = highest_first.map(|o| format!("{name}-{o}")).collect();
        assert_eq!(kubelet.take_created(), order, "highest first");

        // An update the budget cannot afford stops and says why, until the budget allows it.
        let strict = json!({ "minAvailable": "100%", "config": { "app.conf": "version 3" } });
        controller.patch_spec(object, strict).await.unwrap();
        let stopped = |o: &_| progressing(o).0 == "RolloutBlocked";
        let blocked = controller.wait_for(object, stopped).await;
        let left = format!("{} of {replicas} replicas ready", replicas - 1);
        let keeps = format!("and the disruption budget keeps {replicas}");
        let message = format!("updating Pod {last} would leave {left}, {keeps}");
        assert_eq!(progressing(&blocked).1, message);
        assert!(kubelet.take_created().is_empty(), "no Pod went");
        let relaxed = json!({ "minAvailable": object.spec.min_available });
        controller.patch_spec(object, relaxed).await.unwrap();
        controller.wait_for(object, rolled_out).await;
        assert_eq!(kubelet.take_created().len(), replicas as usize);

        // The API server refuses what cannot work: new volumes, a budget that is no number.
        let bigger = controller.patch_spec(object, json!({ "storageSize": "5Gi" }));
        let refused = bigger.await.unwrap_err().to_string();
        assert!(refused.contains("cannot change"), "{refused}");
        let half = controller.patch_spec(object, json!({ "minAvailable": "half" }));
        let refused = half.await.unwrap_err().to_string();
        assert!(refused.contains("or a percentage from"), "{refused}");
    });
}

/// Whether every replica of `object` is ready and updated, for its current generation.
fn rolled_out(object: &Redis) -> bool {
    let replicas = object.spec.replicas;
    let status = object.status.clone().unwrap_or_default();
    let all = (status.ready_replicas, status.updated_replicas) == (replicas, replicas);
    caught_up(object) && all && progressing(object).0 == "RolloutComplete"
}

/// `Progressing`'s reason and message (empty when the object has none).
fn progressing(object: &Redis) -> (String, String) {
    let condition = find_condition(object, "Progressing");
    condition.map(|c| (c.reason, c.message)).unwrap_or_default()
}
