//! The Tenant controller against a real API server (rop-testenv), run as the project deploys
//! it (`env.start_controller`: the CRDs, the manager's RBAC, the manager's ServiceAccount): a
//! cluster-scoped Tenant gets its quota and admin binding in each of its namespaces and
//! reports Ready, a converged pass writes nothing, drift is repaired, a namespace it gives up
//! is cleared, and on deletion its cleanup removes them all and keeps the Tenant until they are
//! gone. Skips without the binaries unless ROP_TESTENV_REQUIRE=1.

use std::path::Path;
use std::time::{Duration, Instant};

use rop::conditions::HasConditions;
use rop::k8s_openapi::api::core::v1::{Namespace, ResourceQuota};
use rop::k8s_openapi::api::rbac::v1::RoleBinding;
use rop::k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use rop::kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams, PostParams};
use rop::kube::{Resource, ResourceExt};
use rop_testenv::{TestEnv, wait_until_gone};
use tenant_operator::controller::tenant::TenantReconciler;
use tenant_operator_api::v1::Tenant;

/// How long the controller gets for each step.
const WAIT: Duration = Duration::from_secs(30);

/// A finalizer the test puts on a quota: someone else still needs it, so it stays a while
/// after the cleanup deleted it.
const HOLD: &str = "example.com/hold";

#[test]
fn a_tenant_provisions_its_namespaces_and_cleans_up() {
    let Some(env) = TestEnv::start_or_skip() else {
        return;
    };
    env.block_on(async {
        let project = env!("CARGO_MANIFEST_DIR");
        let controller = env.start_controller(project, TenantReconciler).await;
        let client = controller.client();
        // The platform team creates the namespaces; the Tenant gets them.
        let file = Path::new(project).join("config/samples/tenancy_v1_tenant.yaml");
        let sample: Tenant = rop_testenv::object_from_file(&file).expect("the sample decodes");
        let namespaces: Api<Namespace> = Api::all(client.clone());
        for name in &sample.spec.namespaces {
            let mut namespace = Namespace::default();
            namespace.metadata.name = Some(name.clone());
            namespaces
                .create(&PostParams::default(), &namespace)
                .await
                .unwrap();
        }

        let created = controller.create_sample("tenancy_v1_tenant.yaml").await;
        let uid = created.uid().unwrap();
        let tenant = controller
            .wait_for(&created, |t| {
                t.status
                    .as_ref()
                    .is_some_and(|s| s.is_condition_true("Ready"))
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

        // Converged: another pass leaves the Tenant (and its status) as it is.
        let touched = controller.touch(&tenant).await;
        let after = controller.api().get("acme").await.unwrap();
        assert_eq!(
            after.resource_version(),
            touched.resource_version(),
            "a pass over the converged Tenant wrote it"
        );

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
        let tenants = controller.api();
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

        // The cleanup waits: the quota in acme-prod is held by someone else's finalizer, so it
        // stays after the cleanup deleted it, and the Tenant stays with it.
        let quotas: Api<ResourceQuota> = Api::namespaced(client.clone(), "acme-prod");
        let hold = serde_json::json!({ "metadata": { "finalizers": [HOLD] } });
        quotas
            .patch(
                "tenant-quota",
                &PatchParams::default(),
                &Patch::Merge(&hold),
            )
            .await
            .unwrap();
        tenants
            .delete("acme", &DeleteParams::default())
            .await
            .unwrap();
        eventually("the cleanup deletes the quota", || async {
            let quota = quotas.get("tenant-quota").await.unwrap();
            quota.meta().deletion_timestamp.is_some()
        })
        .await;
        eventually("the cleanup deletes the binding", || async {
            owned::<RoleBinding>(&client, "acme-prod", &uid).await == 0
        })
        .await;
        // The cleanup looks again every second; the Tenant is still there three looks later.
        tokio::time::sleep(Duration::from_secs(3)).await;
        let leaving = tenants.get("acme").await.expect("the Tenant stays");
        assert!(leaving.meta().deletion_timestamp.is_some());
        assert!(
            !leaving.finalizers().is_empty(),
            "the cleanup's finalizer holds it"
        );

        // Once the quota is gone, so is the Tenant.
        let release = serde_json::json!({ "metadata": { "finalizers": null } });
        quotas
            .patch(
                "tenant-quota",
                &PatchParams::default(),
                &Patch::Merge(&release),
            )
            .await
            .unwrap();
        wait_until_gone(&tenants, "acme").await;
        // No garbage collector runs here: what went, the cleanup removed.
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
        controller.stop().await;
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
