//! The Tenant controller: puts a ResourceQuota and a RoleBinding for the tenant's admins into
//! each of the tenant's namespaces, and takes them out of namespaces it no longer has.
//!
//! The Tenant is cluster-scoped and owns those namespaced objects (a namespaced object may have
//! a cluster-scoped owner), so the garbage collector would delete them with it. The cleanup
//! deletes them itself first, and keeps the Tenant until none is left: the quota and the
//! admins' access end when the Tenant is deleted, not whenever the garbage collector gets to
//! them.

// ANCHOR: preamble
use std::collections::BTreeMap;
use std::fmt::Debug;
use std::sync::Arc;
use std::time::Duration;

use rop::conditions::{self, HasConditions};
use rop::controller::{Action, ApplyError, Cleanup, Context, Reconciler};
use rop::k8s_openapi::NamespaceResourceScope;
use rop::k8s_openapi::api::core::v1::{ResourceQuota, ResourceQuotaSpec};
use rop::k8s_openapi::api::rbac::v1::{RoleBinding, RoleRef, Subject};
use rop::k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use rop::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rop::kube::api::{Api, DeleteParams, ListParams};
use rop::kube::{Client, Resource, ResourceExt};
use serde::de::DeserializeOwned;
use tenant_operator_api::v1::{Tenant, TenantStatus};
use tracing::info;

/// Name of the quota in each of a tenant's namespaces.
const QUOTA: &str = "tenant-quota";
/// Name of the admins' binding in each of a tenant's namespaces.
const ADMINS: &str = "tenant-admins";
/// Label naming the tenant on every object it owns, to find them in all namespaces.
const TENANT_LABEL: &str = "tenancy.example.com/tenant";
/// How long a reconciled Tenant waits before it is looked at again, to repair drift no watch
/// reported.
const RESYNC_AFTER: Duration = Duration::from_secs(5 * 60);
/// How long a deleted Tenant waits for the objects its cleanup deleted to be gone.
const GONE_AFTER: Duration = Duration::from_secs(1);

/// Why a pass failed; the variants name the step and the object, and `rop::kube::Error` says why.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Apply(#[from] ApplyError),
    #[error("failed to list the tenant's {0}s")]
    List(String, #[source] rop::kube::Error),
    #[error("failed to delete {0}")]
    Delete(String, #[source] rop::kube::Error),
    #[error("failed to update the status")]
    Status(#[source] rop::kube::Error),
}
// ANCHOR_END: preamble

/// Reconciles `Tenant` objects.
pub struct TenantReconciler;

impl Reconciler for TenantReconciler {
    type Kind = Tenant;
    type Error = Error;

    // ANCHOR: reconcile
    async fn reconcile(&self, tenant: Arc<Tenant>, ctx: &Context<Tenant>) -> Result<Action, Error> {
        for namespace in &tenant.spec.namespaces {
            let quota = desired_quota(&tenant, namespace);
            ctx.apply(&tenant, quota).await?;
            let binding = desired_binding(&tenant, namespace);
            ctx.apply(&tenant, binding).await?;
        }
        let keep = &tenant.spec.namespaces;
        delete_owned::<ResourceQuota>(ctx.client(), &tenant, keep).await?;
        delete_owned::<RoleBinding>(ctx.client(), &tenant, keep).await?;
        ctx.update_status(&tenant, desired_status(&tenant))
            .await
            .map_err(Error::Status)?;
        Ok(Action::requeue(RESYNC_AFTER))
    }
    // ANCHOR_END: reconcile

    // ANCHOR: cleanup
    /// The quotas and bindings go before the Tenant does (see the module docs): done once a
    /// look finds nothing left to delete.
    async fn cleanup(&self, tenant: Arc<Tenant>, ctx: &Context<Tenant>) -> Result<Cleanup, Error> {
        let quotas = delete_owned::<ResourceQuota>(ctx.client(), &tenant, &[]).await?;
        let bindings = delete_owned::<RoleBinding>(ctx.client(), &tenant, &[]).await?;
        if quotas + bindings > 0 {
            return Ok(Cleanup::RequeueAfter(GONE_AFTER));
        }
        Ok(Cleanup::Done)
    }
    // ANCHOR_END: cleanup
}

// ANCHOR: desired
/// The quota of `tenant` in `namespace`: only the fields this controller manages (the apply
/// adds the owner reference).
fn desired_quota(tenant: &Tenant, namespace: &str) -> ResourceQuota {
    let quota = &tenant.spec.quota;
    ResourceQuota {
        metadata: metadata(tenant, QUOTA, namespace),
        spec: Some(ResourceQuotaSpec {
            hard: Some(BTreeMap::from([
                ("requests.cpu".to_string(), Quantity(quota.cpu.clone())),
                (
                    "requests.memory".to_string(),
                    Quantity(quota.memory.clone()),
                ),
                ("pods".to_string(), Quantity(quota.pods.to_string())),
            ])),
            ..ResourceQuotaSpec::default()
        }),
        ..ResourceQuota::default()
    }
}

/// The binding that makes the admins of `tenant` admins of `namespace`.
fn desired_binding(tenant: &Tenant, namespace: &str) -> RoleBinding {
    let admins = tenant.spec.admins.iter().map(|user| Subject {
        api_group: Some("rbac.authorization.k8s.io".into()),
        kind: "User".into(),
        name: user.clone(),
        ..Subject::default()
    });
    RoleBinding {
        metadata: metadata(tenant, ADMINS, namespace),
        role_ref: RoleRef {
            api_group: Some("rbac.authorization.k8s.io".into()),
            kind: "ClusterRole".into(),
            name: "admin".into(),
        },
        subjects: Some(admins.collect()),
    }
}

/// The name, namespace and label of an object `tenant` owns.
fn metadata(tenant: &Tenant, name: &str, namespace: &str) -> ObjectMeta {
    ObjectMeta {
        name: Some(name.into()),
        namespace: Some(namespace.into()),
        labels: Some(BTreeMap::from([(
            TENANT_LABEL.to_string(),
            tenant.name_any(),
        )])),
        ..ObjectMeta::default()
    }
}
// ANCHOR_END: desired

// ANCHOR: delete_owned
/// The `namespace/name` of each of the `owned` objects that is not in one of the namespaces
/// to `keep`: the objects to delete.
fn stale(owned: &[ObjectMeta], keep: &[String]) -> Vec<(String, String)> {
    owned
        .iter()
        .filter_map(|meta| Some((meta.namespace.clone()?, meta.name.clone()?)))
        .filter(|(namespace, _)| !keep.contains(namespace))
        .collect()
}

/// Deletes the objects of kind `K` that carry the tenant's label, in every namespace but those
/// to `keep`; returns how many there were. Idempotent: an object already gone is fine, and the
/// label finds those left by an earlier pass.
async fn delete_owned<K>(client: &Client, tenant: &Tenant, keep: &[String]) -> Result<usize, Error>
where
    K: Resource<DynamicType = (), Scope = NamespaceResourceScope>
        + Clone
        + Debug
        + DeserializeOwned,
{
    let kind = K::kind(&()).to_string();
    let selector = format!("{TENANT_LABEL}={}", tenant.name_any());
    let owned = Api::<K>::all(client.clone())
        .list_metadata(&ListParams::default().labels(&selector))
        .await
        .map_err(|e| Error::List(kind.clone(), e))?;
    let metas: Vec<ObjectMeta> = owned.items.into_iter().map(|o| o.metadata).collect();
    let stale = stale(&metas, keep);
    for (namespace, name) in &stale {
        let api = Api::<K>::namespaced(client.clone(), namespace);
        match api.delete(name, &DeleteParams::default()).await {
            Ok(_) => info!(tenant = %tenant.name_any(), "deleted {kind} {namespace}/{name}"),
            Err(rop::kube::Error::Api(status)) if status.is_not_found() => {}
            Err(e) => return Err(Error::Delete(format!("{kind} {namespace}/{name}"), e)),
        }
    }
    Ok(stale.len())
}
// ANCHOR_END: delete_owned

// ANCHOR: desired_status
/// The status `tenant` reports once its namespaces have their quota and admins.
fn desired_status(tenant: &Tenant) -> TenantStatus {
    let generation = tenant.metadata.generation;
    let mut status = TenantStatus {
        observed_generation: generation,
        ..tenant.status.clone().unwrap_or_default()
    };
    let message = format!(
        "{} namespaces have the quota and the admins",
        tenant.spec.namespaces.len()
    );
    let ready = conditions::new("Ready", true, "Provisioned", message, generation);
    status.set_condition(ready);
    status
}
// ANCHOR_END: desired_status

#[cfg(test)]
mod tests {
    // ANCHOR: test_tenant
    use tenant_operator_api::v1::TenantSpec;

    use super::*;

    fn tenant(namespaces: &[&str]) -> Tenant {
        let mut tenant = Tenant::new(
            "acme",
            TenantSpec {
                namespaces: namespaces.iter().map(|n| n.to_string()).collect(),
                admins: vec!["alice@example.com".into()],
                quota: Default::default(),
            },
        );
        tenant.metadata.generation = Some(2);
        tenant
    }
    // ANCHOR_END: test_tenant

    // ANCHOR: owned_tests
    fn meta(namespace: &str, name: &str) -> ObjectMeta {
        ObjectMeta {
            namespace: Some(namespace.into()),
            name: Some(name.into()),
            ..ObjectMeta::default()
        }
    }

    #[test]
    fn every_namespace_gets_a_labelled_quota_from_the_spec() {
        let quota = desired_quota(&tenant(&["acme-dev"]), "acme-dev");

        assert_eq!(quota.metadata.namespace.as_deref(), Some("acme-dev"));
        assert_eq!(quota.metadata.name.as_deref(), Some(QUOTA));
        assert_eq!(quota.labels()[TENANT_LABEL], "acme");
        let hard = quota.spec.unwrap().hard.unwrap();
        assert_eq!(hard["requests.cpu"], Quantity("4".into()));
        assert_eq!(hard["requests.memory"], Quantity("8Gi".into()));
        assert_eq!(hard["pods"], Quantity("20".into()));
    }

    #[test]
    fn the_admins_are_bound_to_the_admin_cluster_role() {
        let binding = desired_binding(&tenant(&["acme-dev"]), "acme-dev");

        assert_eq!(binding.metadata.name.as_deref(), Some(ADMINS));
        assert_eq!(
            (
                binding.role_ref.kind.as_str(),
                binding.role_ref.name.as_str()
            ),
            ("ClusterRole", "admin")
        );
        let subjects = binding.subjects.unwrap();
        assert_eq!(
            (subjects[0].kind.as_str(), subjects[0].name.as_str()),
            ("User", "alice@example.com")
        );
    }

    #[test]
    fn a_namespace_the_tenant_gives_up_is_cleared() {
        let owned = [
            meta("acme-dev", QUOTA),
            meta("acme-dev", ADMINS),
            meta("acme-prod", QUOTA),
        ];

        assert_eq!(
            stale(&owned, &["acme-prod".to_string()]),
            [
                ("acme-dev".to_string(), QUOTA.to_string()),
                ("acme-dev".to_string(), ADMINS.to_string())
            ]
        );
        assert_eq!(stale(&owned, &[]).len(), 3, "the cleanup deletes them all");
    }
    // ANCHOR_END: owned_tests

    // ANCHOR: status_tests
    #[test]
    fn a_provisioned_tenant_is_ready_at_its_generation() {
        let status = desired_status(&tenant(&["acme-dev", "acme-prod"]));

        assert_eq!(status.observed_generation, Some(2));
        let ready = status.condition("Ready").unwrap();
        assert_eq!(
            (ready.status.as_str(), ready.message.as_str()),
            ("True", "2 namespaces have the quota and the admins")
        );
    }

    #[test]
    fn a_converged_status_is_computed_again_unchanged() {
        let mut provisioned = tenant(&["acme-dev"]);
        provisioned.status = Some(desired_status(&provisioned));

        assert_eq!(
            Some(desired_status(&provisioned)),
            provisioned.status,
            "no status write on the next pass"
        );
    }
    // ANCHOR_END: status_tests
}
