// Copyright 2026 The Memcached Authors.
// SPDX-License-Identifier: Apache-2.0

//! The Redis controller on a real API server (rop-testenv, see `make testenv`), where
//! `rop_testenv::Kubelet` plays the StatefulSet controller and the kubelet, which do not run.

use rop::k8s_openapi::api::apps::v1::StatefulSet;
use rop::k8s_openapi::api::core::v1::Service;
use rop::k8s_openapi::api::policy::v1::PodDisruptionBudget;
use rop::kube::ResourceExt;
use rop_testenv::{Kubelet, TEST_NAMESPACE, check_controller, rolled_out};
use serde_json::json;

use memcached_operator::controller::redis::RedisReconciler;

/// The sample `rop create api` wrote, which the test creates.
const SAMPLE: &str = "cache_v1alpha1_redis.yaml";

/// The sample rolls out, and so does a new configuration; then `check_controller` checks what
/// every controller owes: a pass over it writes nothing, and deleting it lets it go.
#[test]
fn redis_rolls_out_its_spec() {
    let project = env!("CARGO_MANIFEST_DIR");
    let reconciler = RedisReconciler;
    check_controller(project, reconciler, SAMPLE, async |controller, object| {
        let (name, replicas) = (object.name_any(), object.spec.replicas);
        let kubelet = Kubelet::for_stateful_set(controller.client(), TEST_NAMESPACE, &name);

        // Every replica ready, the objects as the spec asks.
        let ready = controller.wait_for(object, rolled_out).await;
        let status = ready.status.clone().unwrap_or_default();
        assert_eq!(status.ready_replicas, replicas);
        assert_eq!(status.updated_replicas, replicas);
        let set: StatefulSet = controller.owned(&ready).await;
        assert_eq!(set.spec.replicas, Some(replicas));
        let budget: PodDisruptionBudget = controller.owned(&ready).await;
        let min_available = Some(object.spec.min_available.clone());
        assert_eq!(budget.spec.unwrap().min_available, min_available);
        let service: Service = controller.owned(&ready).await;
        assert_eq!(service.spec.unwrap().cluster_ip.as_deref(), Some("None"));

        // A new configuration replaces every replica's Pod, highest ordinal first (how the
        // rollout waits for each and keeps the budget is `rop::workload::roll`'s, tested in rop).
        kubelet.take_created(); // forget the Pods of the first rollout
        let config = json!({ "config": { "app.conf": "version 2" } });
        controller.patch_spec(object, config).await.unwrap();
        controller.wait_for(object, rolled_out).await;
        let order: Vec<_> = (0..replicas).rev().map(|o| format!("{name}-{o}")).collect();
        assert_eq!(kubelet.take_created(), order);

        // The API server refuses what cannot work: new volumes, a budget that is no number.
        let bigger = controller.patch_spec(object, json!({ "storageSize": "5Gi" }));
        let refused = bigger.await.unwrap_err().to_string();
        assert!(refused.contains("cannot change"), "{refused}");
        let half = controller.patch_spec(object, json!({ "minAvailable": "half" }));
        let refused = half.await.unwrap_err().to_string();
        assert!(refused.contains("or a percentage from"), "{refused}");
    });
}
