//! Controller for `Tenant`: puts a ResourceQuota and a RoleBinding for the tenant's admins
//! into each of the tenant's namespaces, and takes them out of namespaces it no longer has.
//!
//! The Tenant is cluster-scoped and owns those namespaced objects (a namespaced object may
//! have a cluster-scoped owner), so the garbage collector would delete them with it. The
//! finalizer deletes them itself first: the quota and the admins' access end when the Tenant
//! is deleted, not whenever the garbage collector gets to them.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use futures::future::BoxFuture;
use k8s_openapi::api::core::v1::{ResourceQuota, ResourceQuotaSpec};
use k8s_openapi::api::rbac::v1::{RoleBinding, RoleRef, Subject};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, ObjectMeta, Time};
use k8s_openapi::jiff::Timestamp;
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams, PostParams};
use kube::runtime::controller::{Action, Controller};
use kube::runtime::finalizer::{self, Event, finalizer};
use kube::runtime::watcher;
use kube::{Client, Resource, ResourceExt};
use serde::Serialize;
use serde::de::DeserializeOwned;
use tenant_operator_api::v1::{Tenant, TenantStatus};
use tokio_util::sync::CancellationToken;
use tracing::{debug, info, warn};

use super::{Context, error_chain, set_condition};

/// Name of this controller in logs and metrics.
pub const CONTROLLER_NAME: &str = "tenant";
/// Finalizer that keeps a `Tenant` until its quotas and bindings are deleted.
pub const FINALIZER: &str = "tenancy.example.com/finalizer";
/// Name of the quota in each of a tenant's namespaces.
const QUOTA: &str = "tenant-quota";
/// Name of the admins' binding in each of a tenant's namespaces.
const ADMINS: &str = "tenant-admins";
/// Label naming the tenant on every object it owns.
const TENANT_LABEL: &str = "tenancy.example.com/tenant";
/// Periodic re-check, to repair drift nobody told us about.
const REQUEUE_AFTER: Duration = Duration::from_secs(5 * 60);
/// Retry delay after a failed reconciliation.
const ERROR_REQUEUE_AFTER: Duration = Duration::from_secs(15);

/// Why a reconciliation failed. `key` is the tenant's name (it is cluster-scoped).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{key}: failed to {action}")]
    Api {
        key: String,
        /// What was attempted, e.g. `create ResourceQuota acme-dev/tenant-quota`.
        action: String,
        #[source]
        source: Box<kube::Error>,
    },

    #[error("{key}: failed to update the finalizer")]
    Finalizer {
        key: String,
        #[source]
        source: Box<finalizer::Error<Error>>,
    },
}

impl Error {
    /// Short label for the `reason` of `controller_runtime_reconcile_errors_total`.
    pub fn metric_label(&self) -> &'static str {
        match self {
            Self::Api { .. } => "api",
            Self::Finalizer { .. } => "finalizer",
        }
    }
}

/// Runs the controller until `shutdown` is cancelled.
pub fn run(
    client: Client,
    ctx: Arc<Context>,
    shutdown: CancellationToken,
) -> BoxFuture<'static, ()> {
    Box::pin(async move {
        info!(controller = CONTROLLER_NAME, "starting controller");
        ctx.metrics.init_controller(CONTROLLER_NAME);
        let controller = Controller::new(
            Api::<Tenant>::all(client.clone()),
            watcher::Config::default(),
        );
        super::watch_related(controller, &client)
            .graceful_shutdown_on(shutdown.cancelled_owned())
            .run(reconcile, error_policy, ctx)
            .for_each(|result| async move {
                match result {
                    Ok((object, action)) => debug!(%object, ?action, "reconciled"),
                    Err(err) => warn!(error = error_chain(&err), "reconcile failed"),
                }
            })
            .await;
        info!(controller = CONTROLLER_NAME, "controller stopped");
    })
}

/// Brings the cluster in line with one `Tenant`, in a span naming it.
pub async fn reconcile(obj: Arc<Tenant>, ctx: Arc<Context>) -> Result<Action, Error> {
    super::instrumented(
        &ctx,
        CONTROLLER_NAME,
        obj.as_ref(),
        reconcile_object(&obj, &ctx),
    )
    .await
}

/// Retries a failed reconciliation later.
pub fn error_policy(_obj: Arc<Tenant>, err: &Error, ctx: Arc<Context>) -> Action {
    ctx.metrics
        .reconcile_failed(CONTROLLER_NAME, err.metric_label());
    Action::requeue(ERROR_REQUEUE_AFTER)
}

async fn reconcile_object(obj: &Tenant, ctx: &Context) -> Result<Action, Error> {
    let tenants = Api::<Tenant>::all(ctx.client.clone());
    let latest = tenants
        .get_opt(&obj.name_any())
        .await
        .map_err(|source| api_error(obj, "get the tenant", source))?;
    let Some(latest) = latest else {
        return Ok(Action::await_change());
    };
    finalizer(&tenants, FINALIZER, Arc::new(latest), |event| async move {
        match event {
            Event::Apply(obj) => apply(&obj, ctx).await,
            Event::Cleanup(obj) => cleanup(&obj, &ctx.client).await,
        }
    })
    .await
    .map_err(|err| match err {
        finalizer::Error::ApplyFailed(err) | finalizer::Error::CleanupFailed(err) => err,
        other => Error::Finalizer {
            key: obj.name_any(),
            source: Box::new(other),
        },
    })
}

/// Converges the tenant's objects, then reports them in the status.
async fn apply(obj: &Tenant, ctx: &Context) -> Result<Action, Error> {
    let changes = converge(obj, &ctx.client).await?;
    for change in &changes {
        info!(tenant = %obj.name_any(), "{change}");
    }
    let status = desired_status(obj, Time(Timestamp::now()));
    if obj.status.as_ref() != Some(&status) {
        let patch = serde_json::json!({ "status": status });
        Api::<Tenant>::all(ctx.client.clone())
            .patch_status(
                &obj.name_any(),
                &PatchParams::default(),
                &Patch::Merge(&patch),
            )
            .await
            .map_err(|source| api_error(obj, "update the status", source))?;
    }
    Ok(Action::requeue(REQUEUE_AFTER))
}

/// Creates the quota and binding in each of the tenant's namespaces, updates those that
/// drifted, and deletes those in namespaces the tenant no longer has; returns what it
/// changed (empty: converged, nothing was written).
pub async fn converge(obj: &Tenant, client: &Client) -> Result<Vec<String>, Error> {
    let mut changes = Vec::new();
    for namespace in &obj.spec.namespaces {
        let quotas = Api::<ResourceQuota>::namespaced(client.clone(), namespace);
        ensure(obj, &quotas, desired_quota(obj, namespace), &mut changes).await?;
        let bindings = Api::<RoleBinding>::namespaced(client.clone(), namespace);
        ensure(
            obj,
            &bindings,
            desired_binding(obj, namespace),
            &mut changes,
        )
        .await?;
    }
    let keep = |o: &ObjectMeta| {
        o.namespace
            .as_ref()
            .is_some_and(|ns| obj.spec.namespaces.contains(ns))
    };
    delete_owned::<ResourceQuota>(obj, client, keep, &mut changes).await?;
    delete_owned::<RoleBinding>(obj, client, keep, &mut changes).await?;
    Ok(changes)
}

/// The quota of `obj` in `namespace`.
fn desired_quota(obj: &Tenant, namespace: &str) -> ResourceQuota {
    let quota = &obj.spec.quota;
    ResourceQuota {
        metadata: metadata(obj, QUOTA, namespace),
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

/// The binding that makes the admins of `obj` admins of `namespace`.
fn desired_binding(obj: &Tenant, namespace: &str) -> RoleBinding {
    RoleBinding {
        metadata: metadata(obj, ADMINS, namespace),
        role_ref: RoleRef {
            api_group: Some("rbac.authorization.k8s.io".into()),
            kind: "ClusterRole".into(),
            name: "admin".into(),
        },
        subjects: Some(
            obj.spec
                .admins
                .iter()
                .map(|user| Subject {
                    api_group: Some("rbac.authorization.k8s.io".into()),
                    kind: "User".into(),
                    name: user.clone(),
                    ..Subject::default()
                })
                .collect(),
        ),
    }
}

/// Deletes the objects of kind `K` that carry the tenant's label, in any namespace, unless
/// `keep` says otherwise. Idempotent: an object already gone is fine.
async fn delete_owned<K>(
    obj: &Tenant,
    client: &Client,
    keep: impl Fn(&ObjectMeta) -> bool,
    changes: &mut Vec<String>,
) -> Result<(), Error>
where
    K: Resource<DynamicType = (), Scope = k8s_openapi::NamespaceResourceScope>
        + Clone
        + DeserializeOwned
        + std::fmt::Debug,
{
    let kind = K::kind(&());
    let selector = format!("{TENANT_LABEL}={}", obj.name_any());
    let owned = Api::<K>::all(client.clone())
        .list(&ListParams::default().labels(&selector))
        .await
        .map_err(|source| api_error(obj, &format!("list {kind}s"), source))?;
    for item in owned.items.iter().filter(|item| !keep(item.meta())) {
        let (name, namespace) = (item.name_any(), item.namespace().unwrap_or_default());
        match Api::<K>::namespaced(client.clone(), &namespace)
            .delete(&name, &DeleteParams::default())
            .await
        {
            Ok(_) => changes.push(format!("deleted {kind} {namespace}/{name}")),
            Err(kube::Error::Api(status)) if status.code == 404 => {}
            Err(source) => {
                return Err(api_error(
                    obj,
                    &format!("delete {kind} {namespace}/{name}"),
                    source,
                ));
            }
        }
    }
    Ok(())
}

/// Metadata of an object the tenant owns: its name, labels and owner reference.
fn metadata(obj: &Tenant, name: &str, namespace: &str) -> ObjectMeta {
    ObjectMeta {
        name: Some(name.into()),
        namespace: Some(namespace.into()),
        labels: Some(BTreeMap::from([(TENANT_LABEL.to_string(), obj.name_any())])),
        owner_references: obj.controller_owner_ref(&()).map(|owner| vec![owner]),
        ..ObjectMeta::default()
    }
}

/// Creates `desired`, or replaces the live object when what we set differs: its spec-like
/// content (everything but metadata, compared as JSON) or our labels and owner reference.
async fn ensure<K>(
    obj: &Tenant,
    api: &Api<K>,
    desired: K,
    changes: &mut Vec<String>,
) -> Result<(), Error>
where
    K: Resource<DynamicType = ()> + Clone + Serialize + DeserializeOwned + std::fmt::Debug,
{
    let kind = K::kind(&());
    let name = format!(
        "{}/{}",
        desired.namespace().unwrap_or_default(),
        desired.name_any()
    );
    let live = api
        .get_opt(&desired.name_any())
        .await
        .map_err(|source| api_error(obj, &format!("get {kind} {name}"), source))?;
    let Some(live) = live else {
        api.create(&PostParams::default(), &desired)
            .await
            .map_err(|source| api_error(obj, &format!("create {kind} {name}"), source))?;
        changes.push(format!("created {kind} {name}"));
        return Ok(());
    };
    let mut wanted = desired.clone();
    let (live_meta, wanted_meta) = (live.meta().clone(), wanted.meta_mut());
    // Keep what the API server and others set in metadata; ours are labels and owners.
    let labels = wanted_meta.labels.clone();
    let owners = wanted_meta.owner_references.clone();
    *wanted_meta = ObjectMeta {
        labels: merged(live_meta.labels.clone(), labels),
        owner_references: owners,
        ..live_meta
    };
    let as_json = |k: &K| serde_json::to_value(k).unwrap_or_default();
    let mut live_json = as_json(&live);
    let mut wanted_json = as_json(&wanted);
    // A status belongs to the object's own controller, not to us.
    for json in [&mut live_json, &mut wanted_json] {
        if let Some(map) = json.as_object_mut() {
            map.remove("status");
        }
    }
    if live_json == wanted_json {
        return Ok(());
    }
    api.replace(&desired.name_any(), &PostParams::default(), &wanted)
        .await
        .map_err(|source| api_error(obj, &format!("update {kind} {name}"), source))?;
    changes.push(format!("updated {kind} {name}"));
    Ok(())
}

/// `live` labels with `ours` set over them.
fn merged(
    live: Option<BTreeMap<String, String>>,
    ours: Option<BTreeMap<String, String>>,
) -> Option<BTreeMap<String, String>> {
    let mut labels = live.unwrap_or_default();
    labels.extend(ours.unwrap_or_default());
    Some(labels)
}

/// Deletes the tenant's quotas and bindings before the Tenant goes. Idempotent: running it
/// again deletes nothing more.
pub async fn cleanup(obj: &Tenant, client: &Client) -> Result<Action, Error> {
    let mut changes = Vec::new();
    delete_owned::<ResourceQuota>(obj, client, |_| false, &mut changes).await?;
    delete_owned::<RoleBinding>(obj, client, |_| false, &mut changes).await?;
    for change in &changes {
        info!(tenant = %obj.name_any(), "{change}");
    }
    Ok(Action::await_change())
}

fn desired_status(obj: &Tenant, now: Time) -> TenantStatus {
    let generation = obj.metadata.generation;
    let mut status = TenantStatus {
        observed_generation: generation,
        ..obj.status.clone().unwrap_or_default()
    };
    set_condition(
        &mut status.conditions,
        Condition {
            type_: "Ready".into(),
            status: "True".into(),
            reason: "Provisioned".into(),
            message: format!(
                "{} namespaces have the quota and the admins",
                obj.spec.namespaces.len()
            ),
            observed_generation: generation,
            last_transition_time: now,
        },
    );
    status
}

fn api_error(obj: &Tenant, action: &str, source: kube::Error) -> Error {
    Error::Api {
        key: obj.name_any(),
        action: action.into(),
        source: Box::new(source),
    }
}

#[cfg(test)]
mod tests {
    use tenant_operator_api::v1::TenantSpec;

    use super::*;
    use crate::controller::testing::FakeApi;

    const UID: &str = "0b6c7d8e-0000-4000-8000-000000000001";

    /// A Tenant as the API server returns it (with a uid, so it can own objects). The fake
    /// API refuses to store a cluster-scoped custom resource, so the tests drive `converge`
    /// and `cleanup` with it directly; the objects they write are stored as usual.
    fn tenant(namespaces: &[&str]) -> Tenant {
        let mut obj = Tenant::new(
            "acme",
            TenantSpec {
                namespaces: namespaces.iter().map(|n| n.to_string()).collect(),
                admins: vec!["alice@example.com".into()],
                quota: Default::default(),
            },
        );
        obj.metadata.uid = Some(UID.into());
        obj
    }

    #[tokio::test]
    async fn every_namespace_gets_an_owned_quota_and_admin_binding() {
        let fake = FakeApi::start::<Tenant>(Vec::new(), None).await;

        let changes = converge(&tenant(&["acme-dev", "acme-prod"]), &fake.client)
            .await
            .unwrap();

        assert_eq!(
            changes,
            [
                "created ResourceQuota acme-dev/tenant-quota",
                "created RoleBinding acme-dev/tenant-admins",
                "created ResourceQuota acme-prod/tenant-quota",
                "created RoleBinding acme-prod/tenant-admins",
            ]
        );
        let quota = Api::<ResourceQuota>::namespaced(fake.client.clone(), "acme-prod")
            .get(QUOTA)
            .await
            .unwrap();
        let owner = &quota.owner_references()[0];
        assert_eq!(
            (owner.kind.as_str(), owner.name.as_str(), owner.uid.as_str()),
            ("Tenant", "acme", UID)
        );
        assert_eq!(
            quota.spec.unwrap().hard.unwrap()["requests.memory"],
            Quantity("8Gi".into())
        );
        let binding = Api::<RoleBinding>::namespaced(fake.client.clone(), "acme-dev")
            .get(ADMINS)
            .await
            .unwrap();
        assert_eq!(binding.role_ref.name, "admin");
        assert_eq!(binding.subjects.unwrap()[0].name, "alice@example.com");
    }

    #[tokio::test]
    async fn a_provisioned_tenant_is_not_written_again_and_drift_is_repaired() {
        let fake = FakeApi::start::<Tenant>(Vec::new(), None).await;
        let obj = tenant(&["acme-dev"]);
        converge(&obj, &fake.client).await.unwrap();
        fake.take_writes();

        assert_eq!(
            converge(&obj, &fake.client).await.unwrap(),
            Vec::<String>::new()
        );
        assert_eq!(fake.take_writes(), Vec::<String>::new());

        // Someone deletes the binding and raises the quota.
        let bindings = Api::<RoleBinding>::namespaced(fake.client.clone(), "acme-dev");
        bindings
            .delete(ADMINS, &DeleteParams::default())
            .await
            .unwrap();
        let quotas = Api::<ResourceQuota>::namespaced(fake.client.clone(), "acme-dev");
        let mut quota = quotas.get(QUOTA).await.unwrap();
        quota
            .spec
            .as_mut()
            .unwrap()
            .hard
            .as_mut()
            .unwrap()
            .insert("pods".into(), Quantity("1000".into()));
        quotas
            .replace(QUOTA, &PostParams::default(), &quota)
            .await
            .unwrap();

        let changes = converge(&obj, &fake.client).await.unwrap();

        assert_eq!(
            changes,
            [
                "updated ResourceQuota acme-dev/tenant-quota",
                "created RoleBinding acme-dev/tenant-admins"
            ]
        );
        assert_eq!(
            quotas.get(QUOTA).await.unwrap().spec.unwrap().hard.unwrap()["pods"],
            Quantity("20".into())
        );
    }

    #[tokio::test]
    async fn a_namespace_the_tenant_gives_up_is_cleared() {
        let fake = FakeApi::start::<Tenant>(Vec::new(), None).await;
        converge(&tenant(&["acme-dev", "acme-prod"]), &fake.client)
            .await
            .unwrap();

        let changes = converge(&tenant(&["acme-prod"]), &fake.client)
            .await
            .unwrap();

        assert_eq!(
            changes,
            [
                "deleted ResourceQuota acme-dev/tenant-quota",
                "deleted RoleBinding acme-dev/tenant-admins"
            ]
        );
    }

    #[tokio::test]
    async fn cleanup_deletes_everything_once() {
        let fake = FakeApi::start::<Tenant>(Vec::new(), None).await;
        let obj = tenant(&["acme-dev", "acme-prod"]);
        converge(&obj, &fake.client).await.unwrap();
        fake.take_writes();

        assert_eq!(
            cleanup(&obj, &fake.client).await.unwrap(),
            Action::await_change()
        );

        let mut deleted = fake.take_writes();
        deleted.sort();
        assert_eq!(
            deleted,
            [
                "delete acme-dev/tenant-admins",
                "delete acme-dev/tenant-quota",
                "delete acme-prod/tenant-admins",
                "delete acme-prod/tenant-quota",
            ]
        );
        let left = Api::<ResourceQuota>::all(fake.client.clone())
            .list(&ListParams::default())
            .await
            .unwrap();
        assert!(left.items.is_empty(), "{:?}", left.items);
        // Running it again (the finalizer was not removed yet) deletes nothing more.
        assert_eq!(
            cleanup(&obj, &fake.client).await.unwrap(),
            Action::await_change()
        );
        assert_eq!(fake.take_writes(), Vec::<String>::new());
    }
}
