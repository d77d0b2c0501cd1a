// Copyright 2026 The Memcached Authors.
// SPDX-License-Identifier: Apache-2.0

//! The Memcached controller on a real API server (rop-testenv): the project's CRDs and RBAC as
//! `make manifests` wrote them, and the sample from `config/samples`. `make testenv` installs
//! etcd and kube-apiserver; without them the test says `skipped` and passes (it fails with
//! `ROP_TESTENV_REQUIRE=1`). `cargo test -- --nocapture` shows the controller's logs.

use rop::k8s_openapi::api::apps::v1::Deployment;
use rop::kube::ResourceExt;
use rop_testenv::{caught_up, check_controller, condition};
use serde_json::json;

use memcached_operator::controller::memcached::MemcachedReconciler;

/// The sample `rop create api` wrote, which the test creates.
const SAMPLE: &str = "cache_v1alpha1_memcached.yaml";

/// The sample is reconciled and its Deployment healed; then `check_controller` checks what
/// every controller owes: a pass over it writes nothing, and deleting it lets it go.
#[test]
fn memcached_is_reconciled_heals_and_goes() {
    let project = env!("CARGO_MANIFEST_DIR");
    let reconciler = MemcachedReconciler;
    check_controller(project, reconciler, SAMPLE, async |controller, object| {
        // The controller applies the Deployment the object owns. No kube-controller-manager
        // runs here, so its Pods never start: the object reports Progressing, not Available.
        let reconciled = controller.wait_for(object, condition("Progressing")).await;
        assert!(reconciled.finalizers().is_empty(), "no finalizer");
        let deployment: Deployment = controller.owned(&reconciled).await;
        assert_eq!(deployment.spec.replicas, Some(reconciled.spec.size));

        // Heals: a deleted Deployment comes back, a scaled one is scaled back.
        let scale = json!({ "spec": { "replicas": 7 } });
        controller.heals(&deployment, scale).await;

        // Follows the spec.
        let resize = controller.patch_spec(object, json!({ "size": 3 })).await;
        let resized = controller.wait_for(&resize.unwrap(), caught_up).await;
        let deployment: Deployment = controller.owned(&resized).await;
        assert_eq!(deployment.spec.replicas, Some(3));
    });
}
