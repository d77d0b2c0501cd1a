//! The Tenant controller against a real API server (rop-testenv): a cluster-scoped Tenant gets
//! its quota and admin binding in each of its namespaces and reports Ready, drift is repaired,
//! a namespace it gives up is cleared, and on deletion its cleanup removes them all. Skips
//! without the binaries unless ROP_TESTENV_REQUIRE=1.

use std::path::Path;
use std::time::{Duration, Instant};

use rop::k8s_openapi::api::core::v1::{Namespace, ResourceQuota};
use rop::k8s_openapi::api::rbac::v1::RoleBinding;
use rop::k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use rop::kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams, PostParams};
use rop::kube::{Resource, ResourceExt};
use rop::manager::{Manager, Options};
use rop_testenv::TestEnv;
use tenant_operator::controller::tenant::TenantReconciler;
use tenant_operator_api::v1::Tenant;

/// How long the controller gets for each step.
const WAIT: Duration = Duration::from_secs(30);

#[test]
fn a_tenant_provisions_its_namespaces_and_cleans_up() {
    let Some(env) = TestEnv::start_or_skip() else {
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    env.block_on(async {
        let client = env.client();
        rop_testenv::install_crds(&client, &root.join("config/crd/bases"))
            .await
            .expect("the CRDs install (run `make manifests` first)");
        let sample: Tenant =
            rop_testenv::object_from_file(&root.join("config/samples/tenancy_v1_tenant.yaml"))
                .expect("the sample decodes");
        let namespaces: Api<Namespace> = Api::all(client.clone());
        for name in &sample.spec.namespaces {
            let mut namespace = Namespace::default();
            namespace.metadata.name = Some(name.clone());
            namespaces
                .create(&PostParams::default(), &namespace)
                .await
                .unwrap();
        }
        let mut manager = Manager::with_client("test", Options::for_tests(), client.clone());
        manager.add_controller(TenantReconciler);
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let running = tokio::spawn(manager.run_until(async {
            let _ = stopped.await;
        }));

        let tenants: Api<Tenant> = Api::all(client.clone());
        let created = tenants
            .create(&PostParams::default(), &sample)
            .await
            .expect("the sample is accepted");
        let uid = created.uid().unwrap();
        eventually("the Tenant is Ready", || async {
            let tenant = tenants.get("acme").await.unwrap();
            tenant
                .status
                .is_some_and(|s| rop::conditions::is_true(&s.conditions, "Ready"))
        })
        .await;
        for namespace in &sample.spec.namespaces {
            assert_eq!(
                owned::<ResourceQuota>(&client, namespace, &uid).await,
                1,
                "quota in {namespace}"
            );
            assert_eq!(
                owned::<RoleBinding>(&client, namespace, &uid).await,
                1,
                "admin binding in {namespace}"
            );
        }

        // Drift is repaired: a deleted binding comes back, a raised quota is lowered again.
        let bindings: Api<RoleBinding> = Api::namespaced(client.clone(), "acme-dev");
        bindings
            .delete("tenant-admins", &DeleteParams::default())
            .await
            .unwrap();
        let quotas: Api<ResourceQuota> = Api::namespaced(client.clone(), "acme-dev");
        let raise = serde_json::json!({ "spec": { "hard": { "pods": "1000" } } });
        quotas
            .patch(
                "tenant-quota",
                &PatchParams::default(),
                &Patch::Merge(&raise),
            )
            .await
            .unwrap();
        eventually("the binding comes back", || async {
            owned::<RoleBinding>(&client, "acme-dev", &uid).await == 1
        })
        .await;
        eventually("the quota is restored", || async {
            let quota = quotas.get("tenant-quota").await.unwrap();
            let hard = quota.spec.and_then(|s| s.hard).unwrap_or_default();
            hard.get("pods") == Some(&Quantity("50".into()))
        })
        .await;

        // A namespace the tenant gives up is cleared.
        let give_up = serde_json::json!({ "spec": { "namespaces": ["acme-prod"] } });
        tenants
            .patch("acme", &PatchParams::default(), &Patch::Merge(&give_up))
            .await
            .unwrap();
        eventually("acme-dev is cleared", || async {
            owned::<ResourceQuota>(&client, "acme-dev", &uid).await == 0
                && owned::<RoleBinding>(&client, "acme-dev", &uid).await == 0
        })
        .await;
        assert_eq!(owned::<ResourceQuota>(&client, "acme-prod", &uid).await, 1);

        // No garbage collector runs here: what goes, the cleanup removed.
        tenants
            .delete("acme", &DeleteParams::default())
            .await
            .unwrap();
        eventually("the Tenant is gone", || async {
            tenants.get_opt("acme").await.unwrap().is_none()
        })
        .await;
        for namespace in &sample.spec.namespaces {
            assert_eq!(
                owned::<ResourceQuota>(&client, namespace, &uid).await,
                0,
                "quota left in {namespace}"
            );
            assert_eq!(
                owned::<RoleBinding>(&client, namespace, &uid).await,
                0,
                "binding left in {namespace}"
            );
        }
        stop.send(()).unwrap();
        running.await.unwrap().expect("the manager stops cleanly");
    });
}

/// Polls `check` until it holds.
async fn eventually<F, Fut>(what: &str, check: F)
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = Instant::now() + WAIT;
    while !check().await {
        assert!(Instant::now() < deadline, "{what} within {WAIT:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// How many objects of `K` in `namespace` the tenant `uid` owns.
async fn owned<K>(client: &rop::kube::Client, namespace: &str, uid: &str) -> usize
where
    K: Resource<DynamicType = (), Scope = rop::k8s_openapi::NamespaceResourceScope>
        + Clone
        + serde::de::DeserializeOwned
        + std::fmt::Debug,
{
    let api: Api<K> = Api::namespaced(client.clone(), namespace);
    let list = api.list(&ListParams::default()).await.unwrap();
    list.items
        .iter()
        .filter(|o| o.owner_references().iter().any(|r| r.uid == uid))
        .count()
}
