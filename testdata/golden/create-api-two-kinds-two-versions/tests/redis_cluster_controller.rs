// Copyright 2026 The Memcached Authors.
// SPDX-License-Identifier: Apache-2.0

//! The RedisCluster controller on a real API server (rop-testenv): the project's CRDs and RBAC as
//! `make manifests` wrote them, and the sample from `config/samples`. `make testenv` installs
//! etcd and kube-apiserver; without them the test says `skipped` and passes (it fails with
//! `ROP_TESTENV_REQUIRE=1`). `cargo test -- --nocapture` shows the controller's logs.

use rop_testenv::{caught_up, check_controller, condition};

use memcached_operator::controller::redis_cluster::RedisClusterReconciler;

/// The sample `rop create api` wrote, which the test creates.
const SAMPLE: &str = "cache_v1alpha1_rediscluster.yaml";

/// The sample is reconciled; then `check_controller` checks what every controller owes: a
/// pass over it writes nothing, and deleting it lets it go.
#[test]
fn redis_cluster_is_reconciled_and_goes() {
    let project = env!("CARGO_MANIFEST_DIR");
    let reconciler = RedisClusterReconciler;
    check_controller(project, reconciler, SAMPLE, async |controller, object| {
        // TODO(user): check what your reconciler does for the sample (the objects it applies,
        // the status it reports).
        let reconciled = controller.wait_for(object, condition("Available")).await;
        assert!(caught_up(&reconciled), "the status is of the current spec");
    });
}
