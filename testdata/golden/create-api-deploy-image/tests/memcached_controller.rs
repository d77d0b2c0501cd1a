// Copyright 2026 The Memcached Authors.
// SPDX-License-Identifier: Apache-2.0

//! The Memcached controller on a real API server (rop-testenv): the project's CRDs and RBAC as
//! `make manifests` wrote them, and the sample from `config/samples`. `make testenv` installs
//! etcd and kube-apiserver; without them the test says `skipped` and passes (it fails with
//! `ROP_TESTENV_REQUIRE=1`). `cargo test -- --nocapture` shows the controller's logs.

use rop::k8s_openapi::api::apps::v1::Deployment;
use rop::kube::ResourceExt;
use rop::kube::api::{DeleteParams, Patch, PatchParams};
use rop_testenv::TestEnv;

use memcached_operator::controller::memcached::MemcachedReconciler;
use memcached_operator_api::v1alpha1::Memcached;

/// The sample `rop create api` wrote, which the test creates.
const SAMPLE: &str = "cache_v1alpha1_memcached.yaml";

#[test]
fn memcached_is_reconciled_heals_and_goes() {
    let Some(env) = TestEnv::start_or_skip() else {
        return;
    };
    env.block_on(async {
        let project = env!("CARGO_MANIFEST_DIR");
        let reconciler = MemcachedReconciler;
        let controller = env.start_controller(project, reconciler).await;
        let object = controller.create_sample(SAMPLE).await;

        // The controller applies the Deployment the object owns. No kube-controller-manager
        // runs here, so its Pods never start: the object reports Progressing, not Available.
        let reconciled = controller.wait_for(&object, |o| is(o, "Progressing")).await;
        assert!(reconciled.finalizers().is_empty(), "no finalizer");
        let (name, size) = (reconciled.name_any(), reconciled.spec.size);
        let deployments = controller.api_of::<Deployment>();
        let deployment = rop_testenv::wait_for(&deployments, &name, |_| true).await;
        let owner = &deployment.owner_references()[0];
        assert_eq!(Some(owner.uid.clone()), reconciled.uid());
        assert_eq!(deployment.spec.replicas, Some(size));

        // Heals: a deleted Deployment comes back, a scaled one is scaled back.
        deployments
            .delete(&name, &DeleteParams::default())
            .await
            .unwrap();
        let deleted = deployment.uid();
        let recreated = |d: &Deployment| d.uid() != deleted;
        rop_testenv::wait_for(&deployments, &name, recreated).await;
        let scale = Patch::Merge(serde_json::json!({ "spec": { "replicas": 7 } }));
        deployments
            .patch(&name, &PatchParams::default(), &scale)
            .await
            .unwrap();
        let scaled_back = |d: &Deployment| d.spec.replicas == Some(size);
        rop_testenv::wait_for(&deployments, &name, scaled_back).await;

        // Follows the spec.
        let resize = Patch::Merge(serde_json::json!({ "spec": { "size": 3 } }));
        let params = PatchParams::default();
        let resized = controller.api().patch(&name, &params, &resize).await;
        let generation = resized.unwrap().metadata.generation;
        let followed = |d: &Deployment| d.spec.replicas == Some(3);
        rop_testenv::wait_for(&deployments, &name, followed).await;
        let caught_up = |o: &Memcached| observed(o) == generation;
        let converged = controller.wait_for(&object, caught_up).await;

        // Idempotent: a pass over a converged object writes neither it nor its Deployment.
        controller.settled().await;
        let deployment = deployments.get(&name).await.unwrap();
        let touched = controller.touch(&converged).await;
        let again = controller.api().get(&name).await.unwrap();
        assert_eq!(again.resource_version(), touched.resource_version());
        assert_eq!(again.status, converged.status);
        let deployment_again = deployments.get(&name).await.unwrap();
        let version = deployment_again.resource_version();
        assert_eq!(version, deployment.resource_version());

        // Deleting the object lets it go: no finalizer holds it (in a cluster the
        // garbage collector then deletes the Deployment it owns).
        controller.delete(&object).await;
        controller.stop().await;
    });
}

/// Whether `object` reports the condition `type_` as true.
fn is(object: &Memcached, type_: &str) -> bool {
    let Some(status) = &object.status else {
        return false;
    };
    rop::conditions::is_true(&status.conditions, type_)
}

/// The generation `object`'s status was computed from.
fn observed(object: &Memcached) -> Option<i64> {
    object.status.as_ref()?.observed_generation
}
