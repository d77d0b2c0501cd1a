// Copyright 2026 The Memcached Authors.
// SPDX-License-Identifier: Apache-2.0

//! The RedisCluster controller against a real API server: etcd and kube-apiserver started by
//! rop-testenv (envtest for Rust), with the CRDs from `config/crd/bases` and the sample from
//! `config/samples`. Run `make manifests` first.
//!
//! It needs the two binaries: `make testenv` (`rop testenv install`) installs them, or point
//! `ROP_TESTENV_DIR` or `KUBEBUILDER_ASSETS` (setup-envtest's) at a folder holding `etcd` and
//! `kube-apiserver`. Without them the test prints `skipped: ...` and passes; set
//! `ROP_TESTENV_REQUIRE=1` to make that a failure. Logs of the controller (`RUST_LOG`) show
//! with `cargo test -- --nocapture` or when the test fails.

use std::path::Path;

use rop::controller::metrics::ReconcileLabels;
use rop::kube::ResourceExt;
use rop::kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use rop::manager::{Manager, Options};
use rop_testenv::{TestEnv, wait_for, wait_until, wait_until_gone};

use memcached_operator::controller::redis_cluster::RedisClusterReconciler;
use memcached_operator_api::v1alpha1::RedisCluster;

/// The sample `rop create api` wrote, which the test creates.
const SAMPLE: &str = "config/samples/cache_v1alpha1_rediscluster.yaml";

#[test]
fn redis_cluster_is_reconciled_and_goes() {
    let Some(env) = TestEnv::start_or_skip() else {
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    env.block_on(async {
        let client = env.client();
        rop_testenv::install_crds(&client, &root.join("config/crd/bases"))
            .await
            .expect("the CRDs install (run `make manifests` first)");
        // The controller acts as the manager's ServiceAccount with the rules `make manifests`
        // wrote: a permission missing from config/rbac/role.yaml fails here as in a cluster.
        let role = root.join("config/rbac/role.yaml");
        rop_testenv::install_manager_rbac(&client, &role)
            .await
            .expect("the manager's RBAC installs");
        let account = rop_testenv::MANAGER_SERVICE_ACCOUNT;
        let as_manager = env
            .client_as_service_account(rop_testenv::MANAGER_NAMESPACE, account)
            .expect("a client as the manager");
        // Watching one namespace works with a namespace-scoped manager's Role too.
        let options = Options {
            watch_namespace: Some("default".into()),
            ..Options::for_tests()
        };
        let mut manager = Manager::with_client("test", options, as_manager);
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

        let sample = rop_testenv::object_from_file(&root.join(SAMPLE));
        let sample: RedisCluster = sample.expect("the sample");
        let api = Api::namespaced(client.clone(), "default");
        let name = sample.name_any();
        api.create(&PostParams::default(), &sample)
            .await
            .expect("the API server accepts the sample");

        // TODO(user): check what your reconciler does for the sample (the objects it applies,
        // the status it reports).
        let reconciled = wait_for(&api, &name, |object| {
            object
                .status
                .as_ref()
                .is_some_and(|status| rop::conditions::is_true(&status.conditions, "Available"))
        })
        .await;
        let status = reconciled.status.as_ref().expect("the status is set");
        assert_eq!(status.observed_generation, reconciled.metadata.generation);

        // Idempotent: a pass over a converged object does not write it.
        let before = passes();
        let touched = annotate(&api, &name).await;
        wait_until("another pass", || passes() > before).await;
        assert_eq!(
            api.get(&name).await.unwrap().resource_version(),
            touched.resource_version()
        );

        // Deleting the object lets it go: no finalizer holds it.
        api.delete(&name, &DeleteParams::default()).await.unwrap();
        wait_until_gone(&api, &name).await;
        stop.send(()).unwrap();
        running.await.unwrap().expect("the manager stops cleanly");
    });
}

/// Sets an annotation on `name`, which makes the controller look at it again; returns the
/// object as written.
async fn annotate(api: &Api<RedisCluster>, name: &str) -> RedisCluster {
    let patch =
        serde_json::json!({ "metadata": { "annotations": { "example.com/touched": "true" } } });
    api.patch(name, &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .unwrap()
}
