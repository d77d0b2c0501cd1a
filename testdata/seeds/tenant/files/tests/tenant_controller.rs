//! The Tenant controller against a real API server (rop-testenv), which the fake API cannot
//! stand in for here: a cluster-scoped Tenant gets its quota and admin binding in each of its
//! namespaces, reports Ready, and on deletion its finalizer removes them all. Skips without the
//! binaries unless ROP_TESTENV_REQUIRE=1.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::{Namespace, ResourceQuota};
use k8s_openapi::api::rbac::v1::RoleBinding;
use kube::api::{Api, DeleteParams, ListParams, PostParams};
use kube::{Resource, ResourceExt};
use rop_testenv::TestEnv;
use tenant_operator::controller::{self, Context};
use tenant_operator::metrics::Metrics;
use tenant_operator_api::v1::Tenant;
use tokio_util::sync::CancellationToken;

const WAIT: Duration = Duration::from_secs(30);

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
async fn owned<K>(client: &kube::Client, namespace: &str, uid: &str) -> usize
where
    K: Resource<DynamicType = (), Scope = k8s_openapi::NamespaceResourceScope>
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
            .expect("the CRDs install");
        let sample: Tenant =
            rop_testenv::object_from_file(&root.join("config/samples/tenancy_v1_tenant.yaml"))
                .unwrap();
        let namespaces: Api<Namespace> = Api::all(client.clone());
        for name in &sample.spec.namespaces {
            let namespace = Namespace {
                metadata: kube::api::ObjectMeta {
                    name: Some(name.clone()),
                    ..Default::default()
                },
                ..Default::default()
            };
            namespaces
                .create(&PostParams::default(), &namespace)
                .await
                .unwrap();
        }
        let ctx = Arc::new(Context {
            client: client.clone(),
            metrics: Metrics::default(),
        });
        let shutdown = CancellationToken::new();
        let running = tokio::spawn(controller::tenant::run(
            client.clone(),
            ctx,
            shutdown.clone(),
        ));

        let tenants: Api<Tenant> = Api::all(client.clone());
        let created = tenants
            .create(&PostParams::default(), &sample)
            .await
            .expect("the sample is accepted");
        let uid = created.uid().unwrap();
        eventually("the Tenant is Ready", || async {
            let tenant = tenants.get("acme").await.unwrap();
            tenant.status.is_some_and(|s| {
                s.conditions
                    .iter()
                    .any(|c| c.type_ == "Ready" && c.status == "True")
            })
        })
        .await;
        for namespace in &sample.spec.namespaces {
            assert_eq!(
                owned::<ResourceQuota>(&client, namespace, &uid).await,
                1,
                "quota in {namespace}"
            );
            assert!(
                owned::<RoleBinding>(&client, namespace, &uid).await >= 1,
                "admin binding in {namespace}"
            );
        }

        // No garbage collector runs here: what goes, the finalizer removed.
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
        shutdown.cancel();
        running.await.unwrap();
    });
}
