//! A kind's controller: the user's [`Reconciler`] on kube-runtime's `Controller` (feature
//! `controller`).
//!
//! A project implements [`Reconciler`] for one kind: [`Reconciler::reconcile`] brings the cluster
//! in line with an object, and, when [`Reconciler::CLEANUP`] is set, [`Reconciler::cleanup`]
//! releases what it holds before it is deleted. The runtime does the rest, the way
//! controller-runtime does it for a Go reconciler:
//!
//! - it watches the kind, and the kinds its `#[rop(owns(...))]` and `#[rop(watches(...))]`
//!   attributes name (a change to an owned object reconciles its owner), in `WATCH_NAMESPACE`
//!   when the manager has one;
//! - it hands `reconcile` the object from the watch cache, never a live read per pass;
//! - with `CLEANUP`, it adds the kind's finalizer (`<group>/finalizer` for a custom kind, from
//!   [`crate::ControllerDefinition::finalizer`]) before the first `reconcile`, runs `cleanup` once the
//!   object is being deleted and removes the finalizer when `cleanup` succeeds; without it, no
//!   finalizer is added and owner references let the garbage collector do the cleaning;
//! - it runs each pass in a `reconcile` span that names the controller and the object, counts it
//!   in controller-runtime's metrics (`controller_runtime_reconcile_total`, `_errors_total` with a
//!   `reason`, `_time_seconds`), records a Warning Event when a pass fails, and retries a failed
//!   object with controller-runtime's per-object exponential backoff (5 ms doubling up to 1000 s).
//!
//! [`Context`] holds what a reconciler calls: server-side apply of owned objects with an owner
//! reference, a status write that is skipped when nothing changed, and an Events recorder.
//! [`crate::conditions`] sets status conditions with apimachinery's semantics.
//!
//! ```ignore
//! use std::sync::Arc;
//! use rop::controller::{Action, Context, Reconciler};
//!
//! pub struct MemcachedReconciler;
//!
//! impl Reconciler for MemcachedReconciler {
//!     type Kind = Memcached;
//!     type Error = kube::Error;
//!
//!     async fn reconcile(&self, memcached: Arc<Memcached>, ctx: &Context<Memcached>) -> Result<Action, kube::Error> {
//!         ctx.apply(&memcached, desired_deployment(&memcached)).await?;
//!         ctx.update_status(&memcached, desired_status(&memcached)).await?;
//!         Ok(Action::requeue(std::time::Duration::from_secs(300)))
//!     }
//! }
//! ```
//!
//! `docs/runtime.md` shows a complete reconciler and its tests.

#![warn(missing_docs)]

mod backoff;
mod context;
mod error;
mod finalizer;
pub mod metrics;
mod owned;
mod run;
mod scope;
mod written;

use std::future::Future;
use std::sync::Arc;

pub use kube::runtime::controller::Action;
pub use kube::runtime::events::EventType;

pub use context::Context;
pub use error::{Error, error_chain, error_reason};
pub use metrics::Metrics;
pub use run::{RunOptions, run};
pub use scope::{Kind, KindObject, KindScope, ObjectOf};

/// The user's half of a controller for one kind: what to do for an object. The runtime calls it
/// (see the module docs); it never calls the API server for the object itself.
///
/// `reconcile` must be idempotent: it runs again after every change to the object or an object
/// it owns, after each requeue, and after a failure. Compute the desired state from the object,
/// apply it, report what was observed in the status, and return when to look again.
pub trait Reconciler: Send + Sync + 'static {
    /// The kind this controller reconciles: a `#[derive(CustomResource)]` root type, or for a
    /// kind Kubernetes serves, its `#[derive(rop::BuiltinKind)]` marker type with
    /// `#[rop(controller)]` (whose objects are the k8s-openapi type, as with webhooks).
    type Kind: Kind;

    /// Why a pass failed. `kube::Error` is enough while `reconcile` only calls the API server;
    /// an own `thiserror` enum says more in logs, Events and the error metric's `reason`.
    type Error: std::error::Error + Send + Sync + 'static;

    /// Whether deleting an object waits for [`Reconciler::cleanup`]: `true` puts the kind's
    /// finalizer on every object. Leave it `false` when owner references on what `reconcile`
    /// creates are all the cleaning there is (the garbage collector deletes those). A finalizer
    /// left on objects from a time it was `true` is removed at deletion.
    const CLEANUP: bool = false;

    /// One pass over `object` (from the watch cache; `metadata.deletionTimestamp` is unset).
    ///
    /// # Errors
    /// Whatever failed; the runtime logs it, counts it, records a Warning Event on the object and
    /// retries with exponential backoff.
    fn reconcile(
        &self,
        object: Arc<ObjectOf<Self::Kind>>,
        ctx: &Context<Self::Kind>,
    ) -> impl Future<Output = Result<Action, Self::Error>> + Send;

    /// Releases what `object` holds outside the cluster (or anything owner references cannot
    /// reach) before it goes; runs only with [`Reconciler::CLEANUP`], and again until it succeeds.
    /// It must be idempotent. The default does nothing.
    ///
    /// # Errors
    /// Whatever failed; the finalizer stays and the cleanup is retried with backoff.
    fn cleanup(
        &self,
        object: Arc<ObjectOf<Self::Kind>>,
        ctx: &Context<Self::Kind>,
    ) -> impl Future<Output = Result<Action, Self::Error>> + Send {
        let _ = (object, ctx);
        std::future::ready(Ok(Action::await_change()))
    }

    /// The `reason` label of `controller_runtime_reconcile_errors_total` for `error`: a short,
    /// bounded name, never the message. The default is [`error_reason`] (the API status of the
    /// first `kube::Error` in the chain: `conflict`, `not_found`, `forbidden`, `invalid`, `api`;
    /// else `reconcile`).
    fn error_reason(error: &Self::Error) -> &'static str {
        error_reason(error)
    }
}
