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
//!   cache of each owned or watched kind (and selection: [`Config::watch`]);
//! - each watch retries by itself after an error: at once after `410 Gone` (a restarted API
//!   server's answer to an old resource version), else after a pause of 200 ms doubling to 5 s
//!   (1 s while the server answers that it is busy, 30 s while it refuses the request with a
//!   4xx), so one watch's errors never stop the others and a restored API server is seen in
//!   seconds;
//! - it hands `reconcile` the object from the watch cache, never a live read per pass;
//! - when the kind declares a finalizer (`#[rop(finalizer)]`), it adds it to each object
//!   before the first `reconcile`, awaits [`Reconciler::cleanup`] once the object is being
//!   deleted and removes the finalizer when it returns [`Cleanup::Done`]; otherwise no
//!   finalizer is added and owner references let the garbage collector do the cleaning;
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
//! How the controller runs (concurrency, what its watches select and which changes start a
//! pass, the cache's index, the backoff) is one [`Config`] that [`Reconciler::config`] returns.
//!
//! ```
//! use std::sync::Arc;
//! use std::time::Duration;
//!
//! use rop::controller::{Action, Config, Context, Reconciler};
//! use rop::k8s_openapi::api::core::v1::ConfigMap;
//! use rop::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
//! use rop::{CustomResource, JsonSchema};
//! use serde::{Deserialize, Serialize};
//!
//! /// A page, served from a ConfigMap that the Website owns.
//! #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
//! #[rop(group = "example.com", version = "v1", kind = "Website", namespaced)]
//! #[rop(owns(rop::k8s_openapi::api::core::v1::ConfigMap))]
//! pub struct WebsiteSpec {
//!     /// The page's HTML.
//!     pub html: String,
//! }
//!
//! pub struct WebsiteReconciler {
//!     /// Passes at once, from a flag of the manager's.
//!     pub concurrency: u16,
//! }
//!
//! impl Reconciler for WebsiteReconciler {
//!     type Kind = Website;
//!     type Error = rop::kube::Error;
//!
//!     async fn reconcile(&self, website: Arc<Website>, ctx: &Context<Website>) -> Result<Action, Self::Error> {
//!         let page = ConfigMap {
//!             metadata: ObjectMeta { name: website.metadata.name.clone(), ..ObjectMeta::default() },
//!             data: Some([("index.html".to_string(), website.spec.html.clone())].into()),
//!             ..ConfigMap::default()
//!         };
//!         // Server-side apply, with the Website as the ConfigMap's controller owner.
//!         ctx.apply(&website, page).await?;
//!         Ok(Action::requeue(Duration::from_secs(300)))
//!     }
//!
//!     fn config(&self) -> Config<Website> {
//!         Config::default().concurrency(self.concurrency)
//!     }
//! }
//! ```
//!
//! `docs/runtime.md` shows a complete reconciler and its tests.

mod backoff;
mod changes;
mod config;
mod context;
mod error;
mod finalizer;
mod forbidden;
mod index;
mod listing;
mod metrics;
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

use rop_core::ObjectOf;

pub use kube::runtime::controller::Action;
pub use kube::runtime::events::EventType;

pub use config::{Changes, Config, Watch};
pub use context::Context;
#[doc(hidden)]
pub use error::error_chain;
pub use error::{ApplyError, Terminal};
pub use kube::runtime::reflector::ObjectRef;
pub use metrics::Metrics;
pub use rop_core::RelatedKind;
pub use rop_core::{Cleanup, CleanupOutcome, NoFinalizer};
pub(crate) use run::{RunOptions, start};
pub use scope::{CleanupOf, Kind, KindObject, KindScope};
pub(crate) use shared::RelatedWatches;
pub use watched::{Cache, Watched};

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

    /// One pass over `object` (from the watch cache; `metadata.deletionTimestamp` is unset).
    ///
    /// # Errors
    /// Whatever failed; the runtime logs it, counts it, records a Warning Event on the object and
    /// retries with exponential backoff ([`Config::backoff`]), unless a [`Terminal`] in the
    /// error's chain of sources says retrying cannot help.
    fn reconcile(
        &self,
        object: Arc<ObjectOf<Self::Kind>>,
        ctx: &Context<Self::Kind>,
    ) -> impl Future<Output = Result<Action, Self::Error>> + Send;

    /// Releases what `object`, which is being deleted, holds outside the cluster (or anything
    /// owner references cannot reach: the garbage collector deletes what `reconcile` created
    /// with an owner reference), and says whether it is done.
    ///
    /// Only a kind that declares a finalizer may have a cleanup (`#[rop(finalizer)]` on a
    /// custom kind's spec type, `#[rop(controller(finalizer = "..."))]` on a built-in kind's
    /// marker): its objects carry the finalizer from before their first `reconcile`, and once
    /// one is being deleted the runtime awaits this and removes the finalizer when it returns
    /// [`Cleanup::Done`] (the default returns it at once). [`Cleanup::RequeueAfter`] keeps the
    /// finalizer and asks again later, with no error logged, counted or recorded (waiting for
    /// Namespaces to terminate, say); an `Err` is a failure, retried with backoff. For a kind
    /// without a finalizer the return type is [`NoFinalizer`], which user code cannot build, so
    /// overriding this does not compile; a finalizer an earlier version of the controller left
    /// on such a kind's object is removed at deletion.
    ///
    /// Write it as an `async fn ... -> Result<Cleanup, Self::Error>`. It must be idempotent:
    /// it runs again after a failure, or after the controller restarts in the middle of it.
    ///
    /// # Errors
    /// Whatever failed; the finalizer stays and the runtime retries with backoff.
    fn cleanup(
        &self,
        object: Arc<ObjectOf<Self::Kind>>,
        ctx: &Context<Self::Kind>,
    ) -> impl Future<Output = Result<CleanupOf<Self::Kind>, Self::Error>> + Send {
        let _ = (object, ctx);
        std::future::ready(Ok(CleanupOutcome::nothing_to_clean()))
    }

    /// The objects of this kind to reconcile when `watched`, an object of a kind in the kind's
    /// `#[rop(watches(...))]`, changes (controller-runtime's `handler.EnqueueRequestsFromMapFunc`).
    /// `cache` holds this controller's objects as its watch last saw them, to look up those
    /// that refer to `watched` (`cache.find(|tenant| ...)`).
    ///
    /// The default is the object named in `watched`'s controller owner reference
    /// ([`Watched::controller_owner`]), as for kinds in `owns(...)`. Override it when objects
    /// refer to what they watch by name or label (a Secret, a ConfigMap, a Namespace):
    /// [`Cache::indexed`] looks them up by a key of [`Config::index`],
    /// [`Cache::find`] scans them, [`Watched::same_name`] names the one of the same name, and
    /// [`Watched::labelled`] the one a label of the watched object names.
    fn map_watched(&self, watched: &Watched, cache: &Cache<Self::Kind>) -> Vec<ObjectRef<ObjectOf<Self::Kind>>> {
        let _ = cache;
        watched.controller_owner()
    }

    /// How this controller runs: its concurrency, what its watches select and which of their
    /// changes start a pass, the index of its cache, the backoff of failed passes (see
    /// [`Config`]). The manager asks once, when the controller is added; the default is
    /// [`Config::default`]. A reconciler whose settings come from flags or the environment
    /// keeps them in its fields and builds the `Config` from them here.
    fn config(&self) -> Config<Self::Kind> {
        Config::default()
    }
}
