// Copyright 2026 The Memcached Authors.
// SPDX-License-Identifier: Apache-2.0

//! Controller for `Memcached`: Observe → Diff → Act.

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use futures::future::BoxFuture;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use k8s_openapi::jiff::Timestamp;
use kube::api::{Api, Patch, PatchParams};
use kube::runtime::controller::{Action, Controller};
use kube::runtime::finalizer::{self, Event, finalizer};
use kube::runtime::watcher;
use kube::{Client, ResourceExt};
use memcached_operator_api::v1alpha1::{Memcached, MemcachedStatus};
use tokio_util::sync::CancellationToken;
use tracing::{debug, info, warn};

use super::{Context, error_chain, set_condition};

/// Name of this controller in logs and metrics.
pub const CONTROLLER_NAME: &str = "memcached";
/// Finalizer that keeps a `Memcached` until `cleanup` has run.
pub const FINALIZER: &str = "cache.example.com/finalizer";
/// Periodic re-check of a healthy object, to repair drift nobody told us about.
const REQUEUE_AFTER: Duration = Duration::from_secs(5 * 60);
/// Retry delay after a failed reconciliation.
const ERROR_REQUEUE_AFTER: Duration = Duration::from_secs(15);

/// Why a reconciliation failed. `key` is the object's `namespace/name`.
/// Sources are boxed to keep `Result<_, Error>` small.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{key}: object has no namespace")]
    MissingNamespace { key: String },

    #[error("{key}: failed to get the object")]
    Get {
        key: String,
        #[source]
        source: Box<kube::Error>,
    },

    #[error("{key}: failed to update the status")]
    PatchStatus {
        key: String,
        #[source]
        source: Box<kube::Error>,
    },

    #[error("{key}: failed to update the finalizer")]
    Finalizer {
        key: String,
        #[source]
        source: Box<finalizer::Error<Error>>,
    },
    // TODO(user): add variants for the errors of your own steps.
}

impl Error {
    /// Short label for the `reason` of `controller_runtime_reconcile_errors_total`.
    pub fn metric_label(&self) -> &'static str {
        match self {
            Self::MissingNamespace { .. } => "missing_namespace",
            Self::Get { .. } => "get",
            Self::PatchStatus { .. } => "patch_status",
            Self::Finalizer { .. } => "finalizer",
        }
    }
}

/// Runs the controller until `shutdown` is cancelled, then lets running
/// reconciliations finish.
pub fn run(
    client: Client,
    ctx: Arc<Context>,
    shutdown: CancellationToken,
) -> BoxFuture<'static, ()> {
    Box::pin(async move {
        info!(controller = CONTROLLER_NAME, "starting controller");
        ctx.metrics.init_controller(CONTROLLER_NAME);
        // The kinds in `#[rop(owns(...))]` and `#[rop(watches(...))]` on the types are watched
        // too; the same attributes give the RBAC rules those watches need.
        let controller = Controller::new(watched(client.clone()), watcher::Config::default());
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

/// The `Memcached`s this controller watches: those in `WATCH_NAMESPACE` when it is set (a
/// namespace-scoped manager, see `rop edit --namespaced`), else every namespace.
fn watched(client: Client) -> Api<Memcached> {
    match std::env::var("WATCH_NAMESPACE") {
        Ok(namespace) if !namespace.is_empty() => Api::namespaced(client, &namespace),
        _ => Api::all(client),
    }
}

/// Brings the cluster in line with one `Memcached`, in a span naming it, counted in the metrics.
pub async fn reconcile(obj: Arc<Memcached>, ctx: Arc<Context>) -> Result<Action, Error> {
    super::instrumented(
        &ctx,
        CONTROLLER_NAME,
        obj.as_ref(),
        reconcile_object(&obj, &ctx),
    )
    .await
}

/// Decides when to retry a failed reconciliation.
pub fn error_policy(_obj: Arc<Memcached>, err: &Error, ctx: Arc<Context>) -> Action {
    ctx.metrics
        .reconcile_failed(CONTROLLER_NAME, err.metric_label());
    Action::requeue(ERROR_REQUEUE_AFTER)
}

async fn reconcile_object(obj: &Memcached, ctx: &Context) -> Result<Action, Error> {
    let key = key(obj);
    let api = api(obj, ctx)?;

    // Observe: the watch cache can lag behind, so read the latest version.
    let latest = api
        .get_opt(&obj.name_any())
        .await
        .map_err(|source| Error::Get {
            key: key.clone(),
            source: Box::new(source),
        })?;
    let Some(latest) = latest else {
        debug!(%key, "object is gone");
        return Ok(Action::await_change());
    };

    finalizer(&api, FINALIZER, Arc::new(latest), |event| async move {
        match event {
            Event::Apply(obj) => apply(&obj, ctx).await,
            Event::Cleanup(obj) => cleanup(&obj, ctx).await,
        }
    })
    .await
    .map_err(|err| match err {
        finalizer::Error::ApplyFailed(err) | finalizer::Error::CleanupFailed(err) => err,
        other => Error::Finalizer {
            key,
            source: Box::new(other),
        },
    })
}

/// Makes the cluster match `obj.spec`, then reports it in `obj.status`.
async fn apply(obj: &Memcached, ctx: &Context) -> Result<Action, Error> {
    let key = key(obj);

    // TODO(user): Diff and Act. Build the objects `obj.spec` asks for, compare them
    // with what exists (read with `ctx.client`), and create, update or delete to
    // converge. Give created objects `obj.controller_owner_ref(&())` so they are
    // garbage-collected with `obj`, and watch them with `.owns(..)` in `run`.

    let status = desired_status(obj, Time(Timestamp::now()));
    if obj.status.as_ref() != Some(&status) {
        let patch = serde_json::json!({ "status": status });
        api(obj, ctx)?
            .patch_status(
                &obj.name_any(),
                &PatchParams::default(),
                &Patch::Merge(&patch),
            )
            .await
            .map_err(|source| Error::PatchStatus {
                key: key.clone(),
                source: Box::new(source),
            })?;
        info!(%key, "status updated");
    }
    Ok(Action::requeue(REQUEUE_AFTER))
}

/// Releases what `apply` created outside the cluster before `obj` is deleted.
/// Objects with an owner reference to `obj` are garbage-collected by Kubernetes.
async fn cleanup(obj: &Memcached, _ctx: &Context) -> Result<Action, Error> {
    // TODO(user): delete external resources here; this must be idempotent.
    info!(key = %key(obj), "cleaning up");
    Ok(Action::await_change())
}

/// The status `obj` reports once reconciled; `now` stamps conditions that change.
fn desired_status(obj: &Memcached, now: Time) -> MemcachedStatus {
    let generation = obj.metadata.generation;
    let mut status = MemcachedStatus {
        observed_generation: generation,
        ..obj.status.clone().unwrap_or_default()
    };
    // TODO(user): report what you observed, e.g. "Available" only once the workload is ready.
    set_condition(
        &mut status.conditions,
        Condition {
            type_: "Available".into(),
            status: "True".into(),
            reason: "Reconciled".into(),
            message: "Memcached is reconciled".into(),
            observed_generation: generation,
            last_transition_time: now,
        },
    );
    status
}

/// `namespace/name` of `obj`, for logs and errors.
fn key(obj: &Memcached) -> String {
    format!("{}/{}", obj.namespace().unwrap_or_default(), obj.name_any())
}

/// API for `Memcached`s in the namespace of `obj`.
fn api(obj: &Memcached, ctx: &Context) -> Result<Api<Memcached>, Error> {
    let namespace = obj
        .namespace()
        .ok_or_else(|| Error::MissingNamespace { key: key(obj) })?;
    Ok(Api::namespaced(ctx.client.clone(), &namespace))
}

#[cfg(test)]
mod tests {
    use kube::api::PostParams;
    use memcached_operator_api::v1alpha1::MemcachedSpec;

    use super::*;
    use crate::controller::testing::fake_client;
    use crate::metrics::{Metrics, ReconcileLabels};

    const NAMESPACE: &str = "default";

    async fn context() -> Arc<Context> {
        Arc::new(Context {
            client: fake_client::<Memcached>().await,
            metrics: Metrics::default(),
        })
    }

    fn object(name: &str) -> Memcached {
        let mut obj = Memcached::new(name, MemcachedSpec::default());
        obj.metadata.namespace = Some(NAMESPACE.into());
        obj
    }

    fn successes(ctx: &Context) -> u64 {
        ctx.metrics
            .reconciles
            .get_or_create(&ReconcileLabels {
                controller: CONTROLLER_NAME,
                result: "success",
            })
            .get()
    }

    #[tokio::test]
    async fn reconcile_adds_finalizer_and_reports_available() {
        let ctx = context().await;
        let api = Api::<Memcached>::namespaced(ctx.client.clone(), NAMESPACE);
        let created = api
            .create(&PostParams::default(), &object("test"))
            .await
            .expect("create");

        // The first pass only adds the finalizer; its write triggers the next pass.
        let action = reconcile(Arc::new(created), ctx.clone()).await.unwrap();
        assert_eq!(action, Action::await_change());
        let current = api.get("test").await.unwrap();
        assert_eq!(current.finalizers(), [FINALIZER]);
        assert_eq!(current.status, None);

        let action = reconcile(Arc::new(current), ctx.clone()).await.unwrap();
        assert_eq!(action, Action::requeue(REQUEUE_AFTER));

        let current = api.get("test").await.unwrap();
        assert_eq!(current.finalizers(), [FINALIZER]);
        let status = current.status.expect("status is set");
        assert_eq!(status.observed_generation, current.metadata.generation);
        assert!(status.observed_generation.is_some());
        let [available] = status.conditions.as_slice() else {
            panic!("expected one condition, got {:?}", status.conditions);
        };
        assert_eq!(available.type_, "Available");
        assert_eq!(available.status, "True");
        assert_eq!(available.reason, "Reconciled");
        assert_eq!(available.observed_generation, current.metadata.generation);
        assert_eq!(successes(&ctx), 2);
    }

    #[tokio::test]
    async fn reconcile_does_not_rewrite_unchanged_status() {
        let ctx = context().await;
        let api = Api::<Memcached>::namespaced(ctx.client.clone(), NAMESPACE);
        let created = api
            .create(&PostParams::default(), &object("test"))
            .await
            .unwrap();
        reconcile(Arc::new(created), ctx.clone()).await.unwrap();
        let current = api.get("test").await.unwrap();
        reconcile(Arc::new(current), ctx.clone()).await.unwrap();
        let reconciled = api.get("test").await.unwrap();

        reconcile(Arc::new(reconciled.clone()), ctx.clone())
            .await
            .unwrap();

        let after = api.get("test").await.unwrap();
        assert_eq!(after.resource_version(), reconciled.resource_version());
        assert_eq!(after.status, reconciled.status);
    }

    #[tokio::test]
    async fn reconcile_of_deleted_object_awaits_change() {
        let ctx = context().await;

        let action = reconcile(Arc::new(object("gone")), ctx.clone())
            .await
            .unwrap();

        assert_eq!(action, Action::await_change());
        assert_eq!(successes(&ctx), 1);
    }

    #[tokio::test]
    async fn error_policy_retries_later_and_counts_the_error() {
        let ctx = context().await;
        let err = Error::MissingNamespace { key: "/x".into() };

        let action = error_policy(Arc::new(object("x")), &err, ctx.clone());

        assert_eq!(action, Action::requeue(ERROR_REQUEUE_AFTER));
        let errors = ctx
            .metrics
            .reconcile_errors
            .get_or_create(&crate::metrics::ErrorLabels {
                controller: CONTROLLER_NAME,
                reason: "missing_namespace",
            })
            .get();
        assert_eq!(errors, 1);
    }
}
