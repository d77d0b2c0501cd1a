//! A kind's controller: the user's [`Reconciler`] on kube-runtime's `Controller` (feature
//! `controller`).
//!
//! A project implements [`Reconciler`] for one kind: [`Reconciler::reconcile`] brings the cluster
//! in line with an object, and [`Reconciler::cleanup`], when the reconciler overrides it,
//! releases what the object holds before it is deleted. The runtime does the rest, the way
//! controller-runtime does it for a Go reconciler:
//!
//! - it watches the kind, and the kinds its `#[rop(owns(...))]` and `#[rop(watches(...))]`
//!   attributes name (a change to an owned object reconciles its owner; a change to a watched
//!   one reconciles the objects [`Reconciler::map_watched`] names), in `WATCH_NAMESPACE` when
//!   the manager has one; the controllers of a manager share one metadata-only watch and
//!   cache of each owned or watched kind ([`RelatedWatches`]);
//! - each watch retries by itself after an error: at once after `410 Gone` (a restarted API
//!   server's answer to an old resource version), else after a pause of 200 ms doubling to 5 s
//!   (1 s while the server answers that it is busy, 30 s while it refuses the request with a
//!   4xx), so one watch's errors never stop the others and a restored API server is seen in
//!   seconds;
//! - it hands `reconcile` the object from the watch cache, never a live read per pass;
//! - when `cleanup` gives an object a future, it adds the kind's finalizer (`<group>/finalizer`
//!   for a custom kind, from [`crate::ControllerDefinition::finalizer`]) before the first
//!   `reconcile`, awaits the future once the object is being deleted and removes the finalizer
//!   when it returns [`Cleanup::Done`]; otherwise no finalizer is added and owner references let
//!   the garbage collector do the cleaning;
//! - it runs each pass in a `reconcile` span that names the controller and the object, counts it
//!   in controller-runtime's metrics (`controller_runtime_reconcile_total`, `_errors_total` with a
//!   `reason`, `_time_seconds`), records a Warning Event when a pass fails, and retries a failed
//!   object with controller-runtime's per-object exponential backoff (5 ms doubling up to 1000 s);
//!   a [`Terminal`] error is not retried until the object changes, and is reported in a
//!   `Stalled` condition; objects still backing off after an API server outage get a pass as
//!   soon as the kind's watch is answered again.
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
mod changes;
mod cleanup;
mod context;
mod error;
mod finalizer;
mod index;
mod listing;
pub mod metrics;
mod owned;
mod recovery;
mod relist;
mod retry;
mod run;
mod scope;
mod shared;
mod stalled;
mod watched;
mod written;

use std::future::Future;
use std::sync::Arc;

pub use kube::runtime::controller::Action;
pub use kube::runtime::events::EventType;

pub use crate::RelatedKind;
pub use changes::OwnedChanges;
pub use cleanup::Cleanup;
pub use context::Context;
pub use error::{Error, Terminal, error_chain, error_reason, is_terminal};
pub use kube::runtime::reflector::ObjectRef;
pub use metrics::Metrics;
pub use run::{RunOptions, run, start};
pub use scope::{Kind, KindObject, KindScope, ObjectOf};
pub use shared::RelatedWatches;
pub use watched::{Cache, Watched};

/// The passes of one controller that run at once unless its reconciler says otherwise
/// ([`Reconciler::MAX_CONCURRENT_RECONCILES`]).
pub const DEFAULT_MAX_CONCURRENT_RECONCILES: u16 = 16;

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

    /// How many passes of this controller may run at once, each over a different object
    /// (controller-runtime's `MaxConcurrentReconciles`, whose default is 1); `0` sets no limit
    /// (kube-runtime's default). Two passes never run over the same object at once.
    ///
    /// The default, [`DEFAULT_MAX_CONCURRENT_RECONCILES`] (16), keeps a remote API server busy
    /// while bounding what a burst costs: when every object is due at once (a new leader, a
    /// watch that lists again after an outage), passes without a limit each hold a connection
    /// of their own and all finish together, so the first changed object is reconciled only
    /// when the last is; with a limit they finish in turn, the first within milliseconds.
    const MAX_CONCURRENT_RECONCILES: u16 = DEFAULT_MAX_CONCURRENT_RECONCILES;

    /// One pass over `object` (from the watch cache; `metadata.deletionTimestamp` is unset).
    ///
    /// # Errors
    /// Whatever failed; the runtime logs it, counts it, records a Warning Event on the object and
    /// retries with exponential backoff, unless [`Reconciler::is_terminal`] says retrying cannot
    /// help (see [`Terminal`]).
    fn reconcile(
        &self,
        object: Arc<ObjectOf<Self::Kind>>,
        ctx: &Context<Self::Kind>,
    ) -> impl Future<Output = Result<Action, Self::Error>> + Send;

    /// What deleting `object` must wait for: `None` (the default) when owner references on what
    /// `reconcile` creates are all the cleaning there is (the garbage collector deletes those),
    /// or the future that releases what the object holds outside the cluster (or anything owner
    /// references cannot reach).
    ///
    /// Overriding it is the whole opt-in, so the finalizer and the cleanup cannot disagree: an
    /// object for which this returns `Some` gets the kind's finalizer before its first
    /// `reconcile`; once it is being deleted the runtime awaits the future and removes the
    /// finalizer when it returns [`Cleanup::Done`]. [`Cleanup::RequeueAfter`] keeps the
    /// finalizer and asks again later, with no error logged, counted or recorded (waiting for
    /// Namespaces to terminate, say); an `Err` is a failure, retried with backoff. A finalizer
    /// left on an object for which this returns `None` is removed at deletion.
    ///
    /// The runtime also calls this, without awaiting the future, to learn whether an object
    /// needs the finalizer: decide here, do the work inside the future (an `async fn` of the
    /// reconciler, as in `Some(self.release(object, ctx))`). The cleanup must be idempotent.
    fn cleanup(
        &self,
        object: Arc<ObjectOf<Self::Kind>>,
        ctx: &Context<Self::Kind>,
    ) -> Option<impl Future<Output = Result<Cleanup, Self::Error>> + Send> {
        let _ = (object, ctx);
        None::<std::future::Ready<Result<Cleanup, Self::Error>>>
    }

    /// The objects of this kind to reconcile when `watched`, an object of a kind in the kind's
    /// `#[rop(watches(...))]`, changes (controller-runtime's `handler.EnqueueRequestsFromMapFunc`).
    /// `cache` holds this controller's objects as its watch last saw them, to look up those
    /// that refer to `watched` (`cache.find(|tenant| ...)`).
    ///
    /// The default is the object named in `watched`'s controller owner reference
    /// ([`Watched::controller_owner`]), as for kinds in `owns(...)`. Override it when objects
    /// refer to what they watch by name or label (a Secret, a ConfigMap, a Namespace):
    /// [`Cache::indexed`] looks them up by a key of [`Reconciler::index_keys`],
    /// [`Cache::find`] scans them, [`Watched::same_name`] names the one of the same name, and
    /// [`Watched::labelled`] the one a label of the watched object names.
    fn map_watched(&self, watched: &Watched, cache: &Cache<Self::Kind>) -> Vec<ObjectRef<ObjectOf<Self::Kind>>> {
        let _ = cache;
        watched.controller_owner()
    }

    /// Which changes of an object of `owned`, a kind in the kind's `#[rop(owns(...))]`,
    /// reconcile its owner (a kind in `watches(...)` starts [`Reconciler::map_watched`] on
    /// every change). [`OwnedChanges::All`], the default, is every change: what a
    /// reconciler that reads an owned object's status needs. [`OwnedChanges::Spec`] leaves out
    /// updates of the status alone, a pass each that a reconciler which never reads it does
    /// not need (a StatefulSet whose Pods it watches itself, a PodDisruptionBudget, whose
    /// status changes with every Pod): controller-runtime's
    /// `Owns(&obj, builder.WithPredicates(predicate.GenerationChangedPredicate{}))`: created
    /// and deleted objects still reconcile their owner, which applies them again.
    fn owned_changes(owned: &RelatedKind) -> OwnedChanges {
        let _ = owned;
        OwnedChanges::All
    }

    /// The keys under which the controller's cache indexes `object`, for
    /// [`Cache::indexed`] to find it by in [`Reconciler::map_watched`]: say the
    /// `<namespace>/<name>` of each Secret the object refers to, so a changed Secret is mapped
    /// to its objects without scanning them all (controller-runtime's `IndexField`). The
    /// default is none. Give one kind of key a prefix of its own (`secret:`, `config:`) when
    /// the objects refer to several kinds.
    fn index_keys(object: &ObjectOf<Self::Kind>) -> Vec<String> {
        let _ = object;
        Vec::new()
    }

    /// The `reason` label of `controller_runtime_reconcile_errors_total` for `error`: a short,
    /// bounded name, never the message. The default is [`error_reason`] (the API status of the
    /// first `kube::Error` in the chain: `conflict`, `not_found`, `forbidden`, `invalid`, `api`;
    /// else `reconcile`).
    fn error_reason(error: &Self::Error) -> &'static str {
        error_reason(error)
    }

    /// Whether retrying cannot fix `error` until the object changes (an invalid spec the schema
    /// cannot refuse, a reference to something that will never exist). The default is
    /// [`is_terminal`]: a [`Terminal`] anywhere in the error's chain of sources.
    fn is_terminal(error: &Self::Error) -> bool {
        is_terminal(error)
    }
}
