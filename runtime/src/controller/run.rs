//! Running a [`Reconciler`] on kube-runtime's `Controller`: the watches, the finalizer, the
//! span, the metrics and the backoff around each pass.

use std::future::Future;
use std::sync::Arc;
use std::time::Instant;

use futures::{Stream, StreamExt, TryStreamExt};
use kube::api::ApiResource;
use kube::runtime::WatchStreamExt;
use kube::runtime::controller::{self, Action};
use kube::runtime::reflector::{self, ObjectRef, reflector};
use kube::{Api, Client, Resource, ResourceExt};
use tracing::{Instrument, debug, info, warn};

use super::backoff::Backoff;
use super::changes::SpecChanges;
use super::config::{Changes, Config, KindKey};
use super::error::{Error, error_chain, error_reason, is_terminal, is_unreachable};
use super::index::Index;
use super::listing;
use super::metrics::Metrics;
use super::owned::Owned;
use super::recovery;
use super::relist::triggers;
use super::retry::{NoPause, retrying};
use super::scope::{self, CleanupOf};
use super::shared::RelatedWatches;
use super::watched::{Cache, Watched};
use super::{Cleanup, Context, EventType, Reconciler, finalizer, stalled};
use crate::ControllerTarget;
use crate::ObjectOf;
use rop_core::CleanupOutcome;

/// The objects reconciler `R` reconciles.
type Object<R> = ObjectOf<<R as Reconciler>::Kind>;
/// What the cleanup of `R`'s kind returns: `Cleanup` when the kind declares a finalizer.
type FinalizerOf<R> = CleanupOf<<R as Reconciler>::Kind>;

/// Where and when the manager runs one controller (how it runs is its [`Config`]).
#[derive(Clone, Debug, Default)]
pub(crate) struct RunOptions {
    /// Watch only this namespace (a namespace-scoped manager, `WATCH_NAMESPACE`); `None` watches
    /// every namespace. Cluster-scoped kinds are always watched whole.
    pub(crate) watch_namespace: Option<String>,
    /// `None` reconciles from the start. With a receiver (a replica under leader election),
    /// the controller watches and fills its caches at once, starts passes only while it holds
    /// `true`, and reconciles every cached object when it turns `true`: a new leader needs no
    /// initial list.
    pub(crate) leading: Option<tokio::sync::watch::Receiver<bool>>,
    /// The watches of owned and watched kinds, shared by the controllers [`start`]ed with clones
    /// of it and run joined with its `run()`: the manager gives all of its controllers one, so
    /// that a kind two of them own is watched and kept in memory once.
    pub(crate) related: RelatedWatches,
}

/// `stream`, left out while `leading` holds `false`: its objects are in the caches already,
/// and the controller reconciles them all when it starts leading.
fn while_leading<S: Stream>(
    stream: S,
    leading: Option<&tokio::sync::watch::Receiver<bool>>,
) -> impl Stream<Item = S::Item> + use<S> {
    let leading = leading.cloned();
    stream.filter(move |_| std::future::ready(leading.as_ref().is_none_or(|leading| *leading.borrow())))
}

/// One item when `leading` turns `true` (none without a receiver).
fn became_leader(leading: Option<&tokio::sync::watch::Receiver<bool>>) -> impl Stream<Item = ()> + use<> {
    let leading = leading.cloned();
    futures::stream::once(async move {
        let mut leading = leading?;
        leading.wait_for(|leading| *leading).await.ok().map(drop)
    })
    .filter_map(std::future::ready)
}

/// A running controller's state, shared by its passes.
struct Shared<R: Reconciler> {
    reconciler: R,
    context: Context<R::Kind>,
    metrics: Metrics,
    backoff: Arc<Backoff<Object<R>>>,
    finalizer: &'static str,
    /// When a pass that could not reach the API server was last logged at WARN.
    unreachable_logged: Every,
}

/// A rate limit for log lines: [`Every::due`] says yes at most once per [`Every::PERIOD`].
/// While the API server cannot be reached every pass fails, each object's again and again
/// as it backs off (about 6,000 failures of 500 objects in a 20 s outage): one line in
/// ten seconds says so at WARN, the others go to DEBUG, and the metrics count each.
#[derive(Default)]
struct Every {
    last: std::sync::Mutex<Option<Instant>>,
}

impl Every {
    const PERIOD: std::time::Duration = std::time::Duration::from_secs(10);

    /// Whether a line is due now; if so, the next is due a period later.
    fn due(&self) -> bool {
        let mut last = self.last.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let due = last.is_none_or(|at| at.elapsed() >= Self::PERIOD);
        if due {
            *last = Some(Instant::now());
        }
        due
    }
}

/// The controller of `reconciler` with `config` (checked by the caller: [`Config::check`]),
/// running until `shutdown` completes, then letting the passes that are running finish. Its
/// name is the lower-cased kind. It is set up (its share of `options.related` subscribed)
/// before this returns, without the shared watches: the manager starts each controller, then
/// runs the returned futures joined with `options.related.run()`, so that the watches start
/// with all their controllers subscribed.
pub(crate) fn start<R: Reconciler>(
    reconciler: R,
    config: Config<R::Kind>,
    client: Client,
    metrics: Metrics,
    options: RunOptions,
    shutdown: impl Future<Output = ()> + Send + Sync + 'static,
) -> impl Future<Output = ()> + Send + 'static {
    let definition = <R::Kind as ControllerTarget>::CONTROLLER;
    let name = definition.kind.to_lowercase();
    let namespace = options.watch_namespace.as_deref().filter(|ns| !ns.is_empty());
    let objects: Api<Object<R>> = scope::api(client.clone(), namespace);
    let own = config.watch_of(&KindKey::of_object::<Object<R>>());
    let (reader, writer) = reflector::store();
    // Managed fields are left out of the cache: they are often half of an object's size.
    let watch = listing::watch(objects, definition.kind.to_string(), own.watcher_config())
        .modify(|o| o.meta_mut().managed_fields = None);
    let watch = retrying(watch, definition.kind.to_string());
    let index = Arc::new(Index::new(config.index.clone()));
    let indexing = index.clone();
    let events = reflector(writer, watch).inspect_ok(move |event| indexing.follow(event));
    let (events, recovered) = recovery::outages(events);
    // By default only changes a pass can act on start one (see `changed`).
    let all = own.changes.unwrap_or(Changes::Spec) == Changes::All;
    let mut spec_changes = SpecChanges::default();
    let changes = triggers(events, reader.clone(), (), move |event| all || spec_changes.pass(event), false);
    let (base, max) = config.backoff;
    let backoff = Arc::new(Backoff::new(base, max));
    let retries = recovery::retries(recovered, backoff.clone(), reader.clone()).map(Ok);
    let changes = futures::stream::select(changes, retries);
    let leading = options.leading.as_ref();
    let changes = while_leading(changes, leading);
    let concurrency = config.concurrency;
    // Each watch retries on its own (`retrying`); a pause of the merged stream would stop all.
    let mut controller = controller::Controller::for_stream(changes, reader.clone())
        .with_config(controller::Config::default().concurrency(concurrency))
        .trigger_backoff(NoPause)
        .reconcile_all_on(became_leader(leading));

    // Owned kinds reconcile the owner in their controller owner reference; watched kinds the
    // objects `map_watched` names.
    let mut owned = Owned::default();
    let resource = |related: &crate::RelatedKind| ApiResource {
        group: related.group.into(),
        version: related.version.into(),
        api_version: related.api_version(),
        kind: related.kind.into(),
        plural: related.plural.into(),
    };
    for related in definition.owns {
        let resource = resource(related);
        let watch = config.watch_of(&KindKey::of_related(related));
        let changes = owned.watch(&options.related, &client, namespace, &resource, &watch);
        controller = controller.owns_stream_with(while_leading(changes, leading), resource);
    }
    let mut watched = Vec::new();
    for related in definition.watches {
        let resource = resource(related);
        let watch = config.watch_of(&KindKey::of_related(related));
        let changes = owned.watch(&options.related, &client, namespace, &resource, &watch);
        watched.push((*related, while_leading(changes, leading), resource));
    }

    metrics.init_controller(&name);
    let shared = Arc::new(Shared {
        context: Context::with_owned(client, &name, owned),
        reconciler,
        metrics,
        backoff,
        finalizer: definition.finalizer,
        unreachable_logged: Every::default(),
    });
    for (related, changes, resource) in watched {
        let (shared, cache) = (shared.clone(), Cache::<R::Kind>::new(reader.clone(), index.clone()));
        let map = move |object| shared.reconciler.map_watched(&Watched::new(related, object), &cache);
        controller = controller.watches_stream_with(changes, map, resource);
    }
    async move {
        info!(controller = %name, concurrency, "starting controller");
        controller
            .graceful_shutdown_on(shutdown)
            .run(reconcile, error_policy, shared)
            .for_each(|result| async move {
                match result {
                    Ok((object, action)) => debug!(%object, ?action, "reconciled"),
                    // error_policy has logged it with the object, `retrying` a watch's error.
                    Err(controller::Error::ReconcilerFailed(..) | controller::Error::QueueError(_)) => {}
                    // An owner deleted since, or outside the kind's label selection
                    // (`Config::watch`): nothing to reconcile.
                    Err(controller::Error::ObjectNotFound(object)) => {
                        debug!(%object, "not in the cache, not reconciled")
                    }
                    Err(err) => warn!(error = error_chain(&err), "controller error"),
                }
            })
            .await;
        info!(controller = %name, "controller stopped");
    }
}

/// One pass over `object`, in a `reconcile` span that names it, counted in the metrics.
async fn reconcile<R: Reconciler>(object: Arc<Object<R>>, shared: Arc<Shared<R>>) -> Result<Action, Error<R::Error>> {
    let controller = shared.context.controller();
    let span = tracing::info_span!(
        "reconcile",
        controller,
        name = %object.name_any(),
        namespace = object.meta().namespace.as_deref().unwrap_or_default(),
    );
    let start = Instant::now();
    let result = {
        let _worker = Worker::start(&shared.metrics, controller);
        shared.pass(object.clone()).instrument(span).await
    };
    shared.metrics.reconciled(controller, result.is_ok(), start.elapsed());
    if result.is_ok() {
        shared.backoff.succeeded(&ObjectRef::from_obj(&*object));
        if object.meta().deletion_timestamp.is_none() && stalled::is_stalled(R::Kind::status_conditions(&object)) {
            let api = shared.context.api(&object);
            if let Err(err) = stalled::clear(&api, &*object).await {
                debug!(name = %object.name_any(), error = error_chain(&err), "cannot remove the Stalled condition");
            }
        }
    }
    result
}

impl<R: Reconciler> Shared<R> {
    async fn pass(&self, object: Arc<Object<R>>) -> Result<Action, Error<R::Error>> {
        let api = self.context.api(&object);
        let finalized = object.finalizers().iter().any(|f| f == self.finalizer)
            || self.context.written().done(&*object, "finalizer", &self.finalizer);
        if object.meta().deletion_timestamp.is_some() {
            if !finalized {
                return Ok(Action::await_change());
            }
            // A kind without a finalizer has no cleanup: the finalizer is one an earlier version
            // of the controller left, and goes.
            if <FinalizerOf<R> as CleanupOutcome>::FINALIZES {
                let cleanup = self.reconciler.cleanup(object.clone(), &self.context).await;
                if let Cleanup::RequeueAfter(delay) = cleanup.map_err(Error::Cleanup)?.into_cleanup() {
                    debug!(retry_in = ?delay, "cleanup not done yet, the finalizer stays");
                    return Ok(Action::requeue(delay));
                }
            }
            finalizer::remove(&api, &*object, self.finalizer).await.map_err(|source| Error::Finalizer {
                action: "remove",
                finalizer: self.finalizer.into(),
                source,
            })?;
            debug!(finalizer = %self.finalizer, "finalizer removed");
            self.context.written().forget(&*object);
            return Ok(Action::await_change());
        }
        let object =
            if <FinalizerOf<R> as CleanupOutcome>::FINALIZES && !finalized {
                let added = finalizer::add(&api, &*object, self.finalizer)
                    .await
                    .map_err(|source| Error::Finalizer { action: "add", finalizer: self.finalizer.into(), source })?;
                debug!(finalizer = %self.finalizer, "finalizer added");
                self.context.written().record(&*object, "finalizer", &self.finalizer);
                Arc::new(added)
            } else {
                object
            };
        self.reconciler.reconcile(object, &self.context).await.map_err(Error::Reconcile)
    }
}

/// Counts a failed pass, logs it, records a Warning Event on the object (not for a conflict,
/// which is routine), and retries the object after its backoff; a terminal error is reported in
/// the `Stalled` condition too, and not retried until the object changes.
fn error_policy<R: Reconciler>(object: Arc<Object<R>>, error: &Error<R::Error>, shared: Arc<Shared<R>>) -> Action {
    let (reason, terminal) = match error {
        Error::Reconcile(err) | Error::Cleanup(err) => (error_reason(err), is_terminal(err)),
        Error::Finalizer { source, .. } => match error_reason(source) {
            "conflict" => ("conflict", false),
            _ => ("finalizer", false),
        },
    };
    let controller = shared.context.controller();
    shared.metrics.reconcile_failed(controller, reason);
    let message = error_chain(error);
    super::forbidden::log_missing_rule(&message);
    let (name, namespace) = (object.name_any(), object.meta().namespace.clone().unwrap_or_default());
    if terminal {
        shared.metrics.terminal_failed(controller);
        warn!(controller, %name, %namespace, reason, error = %message, "reconcile failed, not retried until the object changes");
        let context = shared.context.clone();
        tokio::spawn(async move {
            context.event(&object, EventType::Warning, "Stalled", message.clone()).await;
            // Only a custom kind's status is the controller's to write.
            let custom = std::any::TypeId::of::<Object<R>>() == std::any::TypeId::of::<R::Kind>();
            if custom && let Err(err) = stalled::set(&context.api(&object), &name, &message).await {
                debug!(%name, error = error_chain(&err), "cannot set the Stalled condition");
            }
        });
        return Action::await_change();
    }
    let delay = shared.backoff.failed(ObjectRef::from_obj(&*object));
    let unreachable = is_unreachable(error);
    if unreachable && !shared.unreachable_logged.due() {
        debug!(controller, %name, %namespace, reason, retry_in = ?delay, error = %message, "reconcile failed");
    } else {
        warn!(controller, %name, %namespace, reason, retry_in = ?delay, error = %message, "reconcile failed");
    }
    // A conflict is routine, and an API server out of reach would refuse the Event too.
    if reason != "conflict" && !unreachable {
        let context = shared.context.clone();
        tokio::spawn(async move {
            context.event(&object, EventType::Warning, "ReconcileFailed", message).await;
        });
    }
    Action::requeue(delay)
}

/// Counts a running pass in `controller_runtime_active_workers` while it lives (also when the
/// pass is dropped at shutdown).
struct Worker<'a> {
    metrics: &'a Metrics,
    controller: &'a str,
}

impl<'a> Worker<'a> {
    fn start(metrics: &'a Metrics, controller: &'a str) -> Self {
        metrics.workers(controller, 1);
        Self { metrics, controller }
    }
}

impl Drop for Worker<'_> {
    fn drop(&mut self) {
        self.metrics.workers(self.controller, -1);
    }
}

#[cfg(test)]
mod tests {
    use super::Every;

    #[test]
    fn a_rate_limited_line_is_due_once_per_period() {
        let every = Every::default();
        assert!(every.due(), "the first line");
        assert!(!every.due(), "the second, within the period");
        *every.last.lock().unwrap() = Some(std::time::Instant::now() - Every::PERIOD);
        assert!(every.due(), "a period later");
        assert!(!every.due());
    }
}
