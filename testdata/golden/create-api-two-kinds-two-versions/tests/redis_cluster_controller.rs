// Copyright 2026 The Memcached Authors.
// SPDX-License-Identifier: Apache-2.0

//! The RedisCluster controller on a real API server (rop-testenv): the project's CRDs and RBAC as
//! `make manifests` wrote them, and the sample from `config/samples`. `make testenv` installs
//! etcd and kube-apiserver; without them the test says `skipped` and passes (it fails with
//! `ROP_TESTENV_REQUIRE=1`). `cargo test -- --nocapture` shows the controller's logs.

use rop::kube::ResourceExt;
use rop_testenv::TestEnv;

use memcached_operator::controller::redis_cluster::RedisClusterReconciler;
use memcached_operator_api::v1alpha1::RedisCluster;

/// The sample `rop create api` wrote, which the test creates.
const SAMPLE: &str = "cache_v1alpha1_rediscluster.yaml";

#[test]
fn redis_cluster_is_reconciled_and_goes() {
    let Some(env) = TestEnv::start_or_skip() else {
        return;
    };
    env.block_on(async {
        let project = env!("CARGO_MANIFEST_DIR");
        let reconciler = RedisClusterReconciler;
        let controller = env.start_controller(project, reconciler).await;
        let object = controller.create_sample(SAMPLE).await;

        // TODO(user): check what your reconciler does for the sample (the objects it applies,
        // the status it reports).
        let reconciled = controller.wait_for(&object, |o| is(o, "Available")).await;
        assert_eq!(observed(&reconciled), reconciled.metadata.generation);

        // Idempotent: a pass over a converged object does not write it.
        let touched = controller.touch(&reconciled).await;
        let again = controller.api().get(&touched.name_any()).await.unwrap();
        assert_eq!(again.resource_version(), touched.resource_version());

        // Deleting the object lets it go: no finalizer holds it.
        controller.delete(&object).await;
        controller.stop().await;
    });
}

/// Whether `object` reports the condition `type_` as true.
fn is(object: &RedisCluster, type_: &str) -> bool {
    let Some(status) = &object.status else {
        return false;
    };
    rop::conditions::is_true(&status.conditions, type_)
}

/// The generation `object`'s status was computed from.
fn observed(object: &RedisCluster) -> Option<i64> {
    object.status.as_ref()?.observed_generation
}
