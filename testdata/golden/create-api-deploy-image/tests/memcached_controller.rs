// Copyright 2026 The Memcached Authors.
// SPDX-License-Identifier: Apache-2.0

//! The Memcached controller against a real API server: etcd and kube-apiserver started by
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
use rop::k8s_openapi::api::apps::v1::Deployment;
use rop::kube::ResourceExt;
use rop::kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use rop::manager::{Manager, Options};
use rop_testenv::{TestEnv, wait_for, wait_until, wait_until_gone};

use memcached_operator::controller::memcached::MemcachedReconciler;
use memcached_operator_api::v1alpha1::Memcached;

/// The sample `rop create api` wrote, which the test creates.
const SAMPLE: &str = "config/samples/cache_v1alpha1_memcached.yaml";

#[test]
fn memcached_is_reconciled_heals_and_goes() {
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
        manager.add_controller(MemcachedReconciler);
        let metrics = manager.metrics().clone();
        let passes = move || {
            let labels = ReconcileLabels {
                controller: "memcached".into(),
                result: "success",
            };
            metrics.reconciles.get_or_create(&labels).get()
        };
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let running = tokio::spawn(manager.run_until(async {
            let _ = stopped.await;
        }));

        let sample = rop_testenv::object_from_file(&root.join(SAMPLE));
        let sample: Memcached = sample.expect("the sample");
        let api = Api::namespaced(client.clone(), "default");
        let name = sample.name_any();
        api.create(&PostParams::default(), &sample)
            .await
            .expect("the API server accepts the sample");

        // The controller applies the Deployment the object owns. No kube-controller-manager
        // runs here, so its Pods never start: the object reports Progressing, not Available.
        let reconciled = wait_for(&api, &name, |object| {
            object
                .status
                .as_ref()
                .is_some_and(|status| rop::conditions::is_true(&status.conditions, "Progressing"))
        })
        .await;
        assert!(reconciled.finalizers().is_empty(), "no finalizer");
        let status = reconciled.status.as_ref().expect("the status is set");
        assert_eq!(status.observed_generation, reconciled.metadata.generation);
        let deployments: Api<Deployment> = Api::namespaced(client.clone(), "default");
        let replicas = |d: &Deployment| d.spec.replicas;
        let deployment = wait_for(&deployments, &name, |_| true).await;
        let owner = &deployment.owner_references()[0];
        assert_eq!(
            Some(&owner.uid),
            reconciled.metadata.uid.as_ref(),
            "the object owns its Deployment"
        );
        assert_eq!(replicas(&deployment), Some(reconciled.spec.size));

        // Heals: a deleted Deployment comes back, a scaled one is scaled back.
        deployments
            .delete(&name, &DeleteParams::default())
            .await
            .unwrap();
        wait_for(&deployments, &name, |d| {
            d.metadata.uid != deployment.metadata.uid
        })
        .await;
        let scale = serde_json::json!({ "spec": { "replicas": 7 } });
        deployments
            .patch(&name, &PatchParams::default(), &Patch::Merge(&scale))
            .await
            .unwrap();
        wait_for(&deployments, &name, |d| {
            replicas(d) == Some(reconciled.spec.size)
        })
        .await;

        // Follows the spec.
        let resize = serde_json::json!({ "spec": { "size": 3 } });
        api.patch(&name, &PatchParams::default(), &Patch::Merge(&resize))
            .await
            .unwrap();
        wait_for(&deployments, &name, |d| replicas(d) == Some(3)).await;
        let converged = wait_for(&api, &name, |object| {
            object.status.as_ref().and_then(|s| s.observed_generation) == object.metadata.generation
        })
        .await;

        // Idempotent: a pass over a converged object writes neither it nor its Deployment.
        let deployment = deployments.get(&name).await.unwrap();
        let before = passes();
        let touched = annotate(&api, &name).await;
        wait_until("another pass", || passes() > before).await;
        assert_eq!(
            api.get(&name).await.unwrap().resource_version(),
            touched.resource_version()
        );
        assert_eq!(
            deployments.get(&name).await.unwrap().resource_version(),
            deployment.resource_version()
        );
        assert_eq!(touched.status, converged.status);

        // Deleting the object lets it go: no finalizer holds it (in a cluster the
        // garbage collector then deletes the Deployment it owns).
        api.delete(&name, &DeleteParams::default()).await.unwrap();
        wait_until_gone(&api, &name).await;
        stop.send(()).unwrap();
        running.await.unwrap().expect("the manager stops cleanly");
    });
}

/// Sets an annotation on `name`, which makes the controller look at it again; returns the
/// object as written.
async fn annotate(api: &Api<Memcached>, name: &str) -> Memcached {
    let patch =
        serde_json::json!({ "metadata": { "annotations": { "example.com/touched": "true" } } });
    api.patch(name, &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .unwrap()
}
