// Copyright 2026 The Memcached Authors.
// SPDX-License-Identifier: Apache-2.0

//! The Memcached controller against a real API server: etcd and kube-apiserver started by
//! rop-testenv (envtest for Rust), with the CRDs from `config/crd/bases` and the sample from
//! `config/samples`. Run `make manifests` first.
//!
//! It needs the two binaries: `scripts/install-testenv.sh` in rop's repository installs them,
//! or point `ROP_TESTENV_DIR` or `KUBEBUILDER_ASSETS` (setup-envtest's) at a folder holding
//! `etcd` and `kube-apiserver`. Without them the test prints `skipped: ...` and passes; set
//! `ROP_TESTENV_REQUIRE=1` to make that a failure. The fake-API unit tests in
//! `src/controller/memcached.rs` need nothing.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use kube::ResourceExt;
use kube::api::{Api, DeleteParams, PostParams};
use memcached_operator::controller::{self, Context};
use memcached_operator::metrics::Metrics;
use memcached_operator_api::v1alpha1::Memcached;
use rop_testenv::TestEnv;
use tokio_util::sync::CancellationToken;

/// How long the controller gets for each step.
const WAIT: Duration = Duration::from_secs(30);

#[test]
fn memcached_is_reconciled_and_cleaned_up() {
    let Some(env) = TestEnv::start_or_skip() else {
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    env.block_on(async {
        let client = env.client();
        rop_testenv::install_crds(&client, &root.join("config/crd/bases"))
            .await
            .expect("the CRDs install (run `make manifests` first)");
        let ctx = Arc::new(Context {
            client: client.clone(),
            metrics: Metrics::default(),
        });
        let shutdown = CancellationToken::new();
        let running = tokio::spawn(controller::memcached::run(
            client.clone(),
            ctx,
            shutdown.clone(),
        ));

        let sample: Memcached = rop_testenv::object_from_file(
            &root.join("config/samples/cache_v1alpha1_memcached.yaml"),
        )
        .expect("the sample decodes");
        let api: Api<Memcached> = Api::namespaced(client.clone(), "default");
        let name = sample.name_any();
        api.create(&PostParams::default(), &sample)
            .await
            .expect("the API server accepts the sample");

        // The controller adds its finalizer and creates the Deployment the object owns. No
        // kube-controller-manager runs here, so its Pods never start: the object reports
        // Progressing, not Available.
        let reconciled = wait_for(&api, &name, |object| {
            let finalized = object
                .finalizers()
                .iter()
                .any(|f| f == controller::memcached::FINALIZER);
            let progressing = object.status.as_ref().is_some_and(|status| {
                status
                    .conditions
                    .iter()
                    .any(|c| c.type_ == "Progressing" && c.status == "True")
            });
            finalized && progressing
        })
        .await;
        let deployments: Api<k8s_openapi::api::apps::v1::Deployment> =
            Api::namespaced(client.clone(), "default");
        let deployment = deployments.get(&name).await.expect("the Deployment exists");
        let owners = deployment.metadata.owner_references.unwrap_or_default();
        assert!(
            owners
                .iter()
                .any(|o| Some(&o.uid) == reconciled.metadata.uid.as_ref()),
            "the Deployment is owned by {name}: {owners:?}"
        );
        let status = reconciled.status.expect("the status is set");
        assert_eq!(status.observed_generation, reconciled.metadata.generation);

        // Deleting the object runs the cleanup, which lets the finalizer go.
        api.delete(&name, &DeleteParams::default()).await.unwrap();
        let deadline = Instant::now() + WAIT;
        while api.get_opt(&name).await.unwrap().is_some() {
            assert!(
                Instant::now() < deadline,
                "{name} is still there: its finalizer stayed"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        // The cleanup deleted the Deployment (no garbage collector runs here).
        assert!(
            deployments.get_opt(&name).await.unwrap().is_none(),
            "the Deployment is gone"
        );
        shutdown.cancel();
        running.await.expect("the controller stops");
    });
}

/// Polls `name` until `done` holds for it.
async fn wait_for(
    api: &Api<Memcached>,
    name: &str,
    done: impl Fn(&Memcached) -> bool,
) -> Memcached {
    let deadline = Instant::now() + WAIT;
    loop {
        if let Some(object) = api.get_opt(name).await.unwrap()
            && done(&object)
        {
            return object;
        }
        assert!(
            Instant::now() < deadline,
            "{name} did not get there within {WAIT:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
