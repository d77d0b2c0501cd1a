//! rop's controller runtime against a real API server: a `Reconciler` run by the `Manager`
//! gets its kind's finalizer, applies an owned object, writes its status once, is retried with
//! backoff after a failure (counted with a reason and recorded as a Warning Event), runs its
//! cleanup on deletion (waiting, without an error, while the cleanup says it is not done), and
//! lets the object go. A terminal error is not retried and leaves a `Stalled` condition until
//! the object changes; a watched Secret reconciles the objects that name it. The controller of
//! a kind declared without a finalizer puts none on its objects and removes one left from
//! before. A
//! controller for a built-in kind (v1 ServiceAccount) runs with only the RBAC rules its marker
//! type gives. Two controllers that own ConfigMaps share one watch of them.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::Duration;

use k8s_openapi::api::core::v1::{ConfigMap, Secret, ServiceAccount};
use k8s_openapi::api::events::v1::Event;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, ObjectMeta};
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams, PostParams};
use kube::{Client, ResourceExt};
use rop::JsonSchema;
use rop::conditions::{self, HasConditions};
use rop::controller::{
    Action, ApplyError, Cache, Changes, Cleanup, Config, Context, Metrics, ObjectRef, Reconciler, Terminal, Watch,
    Watched,
};
use rop::kube::core::Selector;
use rop::manager::{Manager, Options};
use rop::{BuiltinKind as _, CustomResource};
use rop_testenv::{TestEnv, wait_for, wait_until, wait_until_gone};
use serde::{Deserialize, Serialize};

/// A gadget publishes `value` in a ConfigMap it owns.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[rop(group = "runtime.rop.dev", version = "v1", kind = "Gadget", plural = "gadgets")]
#[rop(namespaced, storage, status = "GadgetStatus", derive = "Default", derive = "PartialEq", finalizer)]
#[rop(owns(k8s_openapi::api::core::v1::ConfigMap), watches(k8s_openapi::api::core::v1::Secret))]
#[serde(rename_all = "camelCase")]
pub struct GadgetSpec {
    /// What the ConfigMap holds.
    pub value: String,
}

/// What the gadget's controller observed.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GadgetStatus {
    /// `Available` once the ConfigMap holds the value.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
    /// The generation the status was computed for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
}

#[derive(Debug, thiserror::Error)]
enum GadgetError {
    #[error("the first pass of {0} fails on purpose")]
    FirstPass(String),
    #[error("the value is invalid")]
    Invalid(#[from] Terminal),
    #[error(transparent)]
    Apply(#[from] ApplyError),
    #[error(transparent)]
    Api(#[from] kube::Error),
}

/// Counts its calls; the first pass over an object named `flaky` fails, and a pass over an
/// object whose value is `invalid` fails for good. The cleanup of an object named `waiting`
/// is not done until `released` is set.
#[derive(Clone, Default)]
struct Gadgets(Arc<Calls>);

#[derive(Default)]
struct Calls {
    passes: AtomicU32,
    cleanups: AtomicU32,
    flaky_failed: AtomicU32,
    released: AtomicBool,
}

impl Gadgets {
    async fn release(&self, gadget: Arc<Gadget>) -> Result<Cleanup, GadgetError> {
        self.0.cleanups.fetch_add(1, Ordering::SeqCst);
        if gadget.name_any() == "waiting" && !self.0.released.load(Ordering::SeqCst) {
            return Ok(Cleanup::RequeueAfter(Duration::from_millis(200)));
        }
        Ok(Cleanup::Done)
    }
}

impl Reconciler for Gadgets {
    type Kind = Gadget;
    type Error = GadgetError;

    async fn reconcile(&self, gadget: Arc<Gadget>, ctx: &Context<Gadget>) -> Result<Action, GadgetError> {
        self.0.passes.fetch_add(1, Ordering::SeqCst);
        if gadget.name_any() == "flaky" && self.0.flaky_failed.fetch_add(1, Ordering::SeqCst) == 0 {
            return Err(GadgetError::FirstPass(gadget.name_any()));
        }
        if gadget.spec.value == "invalid" {
            return Err(Terminal::new("spec.value must not be `invalid`: choose another value").into());
        }
        let config_map = ConfigMap {
            metadata: ObjectMeta { name: Some(gadget.name_any()), ..ObjectMeta::default() },
            data: Some([("value".to_string(), gadget.spec.value.clone())].into()),
            ..ConfigMap::default()
        };
        ctx.apply(&gadget, config_map).await?;
        let mut status = GadgetStatus { observed_generation: gadget.metadata.generation, ..Default::default() };
        status.conditions = gadget.status.clone().unwrap_or_default().conditions;
        status.set_condition(conditions::new("Available", true, "Published", "", gadget.metadata.generation));
        ctx.update_status(&gadget, status).await?;
        Ok(Action::await_change())
    }

    async fn cleanup(&self, gadget: Arc<Gadget>, _ctx: &Context<Gadget>) -> Result<Cleanup, GadgetError> {
        self.release(gadget).await
    }

    /// A gadget is indexed by the Secret its value names.
    fn config(&self) -> Config<Gadget> {
        Config::default().index(|gadget: &Gadget| vec![gadget.spec.value.clone()])
    }

    /// A Secret reconciles the gadgets whose value names it (found in the index), and the one
    /// its label `runtime.rop.dev/gadget` names.
    fn map_watched(&self, watched: &Watched, cache: &Cache<Gadget>) -> Vec<ObjectRef<Gadget>> {
        assert!(watched.is::<Secret>());
        let mut mapped = cache.indexed(watched.namespace().as_deref(), &watched.name());
        assert_eq!(mapped, cache.find(|gadget| gadget.spec.value == watched.name()), "the index is the scan");
        mapped.extend(watched.labelled("runtime.rop.dev/gadget"));
        mapped
    }
}

/// The same kind declared without a finalizer, as by a project whose controller has nothing
/// to clean up.
mod plain {
    use super::*;

    /// A gadget, without `finalizer`.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
    #[rop(group = "runtime.rop.dev", version = "v1", kind = "Gadget", plural = "gadgets", namespaced, storage)]
    #[rop(owns(k8s_openapi::api::core::v1::ConfigMap), watches(k8s_openapi::api::core::v1::Secret))]
    pub struct GadgetSpec {
        /// What the ConfigMap holds.
        pub value: String,
    }

    /// Reconciles it: nothing to do.
    pub struct Plain;

    impl Reconciler for Plain {
        type Kind = Gadget;
        type Error = kube::Error;

        async fn reconcile(&self, _gadget: Arc<Gadget>, _ctx: &Context<Gadget>) -> Result<Action, kube::Error> {
            Ok(Action::await_change())
        }
    }

    pub fn gadget(name: &str) -> Gadget {
        let mut gadget = Gadget::new(name, GadgetSpec { value: format!("{name}-value") });
        gadget.metadata.namespace = Some("default".into());
        gadget
    }
}

/// The built-in kind v1 ServiceAccount, reconciled: each one gets a ConfigMap naming it.
#[derive(rop::BuiltinKind)]
#[rop(group = "", version = "v1", kind = "ServiceAccount", plural = "serviceaccounts")]
#[rop(object = "k8s_openapi::api::core::v1::ServiceAccount")]
#[rop(controller(finalizer = "runtime.rop.dev/finalizer"), owns(k8s_openapi::api::core::v1::ConfigMap))]
pub struct ServiceAccountV1;

/// Publishes each ServiceAccount's name in a ConfigMap it owns; counts its cleanups.
#[derive(Clone, Default)]
struct Accounts(Arc<AtomicU32>);

impl Reconciler for Accounts {
    type Kind = ServiceAccountV1;
    type Error = kube::Error;

    async fn reconcile(
        &self,
        account: Arc<ServiceAccount>,
        ctx: &Context<ServiceAccountV1>,
    ) -> Result<Action, kube::Error> {
        let config_map = ConfigMap {
            metadata: ObjectMeta { name: Some(format!("{}-info", account.name_any())), ..ObjectMeta::default() },
            data: Some([("serviceAccount".to_string(), account.name_any())].into()),
            ..ConfigMap::default()
        };
        ctx.apply(&account, config_map).await?;
        Ok(Action::await_change())
    }

    async fn cleanup(
        &self,
        _account: Arc<ServiceAccount>,
        _ctx: &Context<ServiceAccountV1>,
    ) -> Result<Cleanup, kube::Error> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Ok(Cleanup::Done)
    }
}

fn gadget(name: &str) -> Gadget {
    let mut gadget = Gadget::new(name, GadgetSpec { value: format!("{name}-value") });
    gadget.metadata.namespace = Some("default".into());
    gadget
}

/// Runs a manager with `reconciler` until the returned sender is used; also returns its metrics.
fn start<R: Reconciler>(
    client: &Client,
    reconciler: R,
) -> (tokio::sync::oneshot::Sender<()>, tokio::task::JoinHandle<Result<(), rop::manager::Error>>, Metrics) {
    start_with(client, |manager| {
        manager.add_controller(reconciler);
    })
}

/// Runs a manager with the controllers `add` adds, as [`start`] does.
fn start_with(
    client: &Client,
    add: impl FnOnce(&mut Manager),
) -> (tokio::sync::oneshot::Sender<()>, tokio::task::JoinHandle<Result<(), rop::manager::Error>>, Metrics) {
    let mut manager = Manager::with_client("runtime-test", Options::for_tests(), client.clone());
    add(&mut manager);
    let metrics = manager.metrics().clone();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let running = tokio::spawn(manager.run_until(async {
        let _ = stopped.await;
    }));
    (stop, running, metrics)
}

/// Runs `test` on a test API server with the Gadget CRD installed and a manager running
/// [`Gadgets`] with the admin's client; stops the manager after, and fails if it failed.
fn with_gadgets<F, T>(test: F)
where
    F: FnOnce(Client, Api<Gadget>, Gadgets, Metrics) -> T,
    T: Future<Output = ()>,
{
    let Some(env) = TestEnv::start_or_skip() else { return };
    env.block_on(async {
        let client = env.client();
        rop_testenv::install_crd(&client, &Gadget::custom_resource_definition()).await.unwrap();
        let gadgets: Api<Gadget> = Api::namespaced(client.clone(), "default");
        let reconciler = Gadgets::default();
        let (stop, running, metrics) = start(&client, reconciler.clone());
        test(client, gadgets, reconciler, metrics).await;
        stop.send(()).unwrap();
        running.await.unwrap().unwrap();
    });
}

fn count(metrics: &Metrics, result: &'static str) -> u64 {
    metrics.reconcile_count("gadget", result)
}

#[test]
fn the_runtime_finalizes_applies_retries_and_cleans_up() {
    with_gadgets(|client, gadgets, reconciler, metrics| async move {
        let config_maps: Api<ConfigMap> = Api::namespaced(client.clone(), "default");

        gadgets.create(&PostParams::default(), &gadget("steady")).await.unwrap();
        let steady =
            wait_for(&gadgets, "steady", |g| g.status.as_ref().is_some_and(|s| s.is_condition_true("Available"))).await;
        assert_eq!(steady.finalizers(), ["runtime.rop.dev/finalizer"]);
        let config_map = wait_for(&config_maps, "steady", |_| true).await;
        assert_eq!(config_map.data.unwrap()["value"], "steady-value");
        let owner = &config_map.metadata.owner_references.unwrap()[0];
        assert_eq!((owner.kind.as_str(), owner.controller), ("Gadget", Some(true)));
        assert_eq!(Some(&owner.uid), steady.metadata.uid.as_ref());
        let managers: Vec<_> =
            config_map.metadata.managed_fields.unwrap().into_iter().filter_map(|m| m.manager).collect();
        assert_eq!(managers, ["gadget-controller"], "applied with the controller's field manager");

        // A change to the owned ConfigMap reconciles its owner, which takes its field back.
        let passes = reconciler.0.passes.load(Ordering::SeqCst);
        let edit = serde_json::json!({ "data": { "value": "edited" } });
        config_maps.patch("steady", &PatchParams::default(), &Patch::Merge(&edit)).await.unwrap();
        wait_for(&config_maps, "steady", |c| c.data.as_ref().is_some_and(|d| d["value"] == "steady-value")).await;
        assert!(reconciler.0.passes.load(Ordering::SeqCst) > passes);

        // A failed pass is counted with its reason, recorded as a Warning Event and retried.
        gadgets.create(&PostParams::default(), &gadget("flaky")).await.unwrap();
        wait_for(&gadgets, "flaky", |g| g.status.is_some()).await;
        assert_eq!(metrics.error_count("gadget", "reconcile"), 1);
        assert!(count(&metrics, "error") >= 1 && count(&metrics, "success") >= 2);
        let events: Api<Event> = Api::namespaced(client.clone(), "default");
        let warnings = wait_for_events(&events, "flaky").await;
        assert_eq!(warnings.reason.as_deref(), Some("ReconcileFailed"));
        assert_eq!(warnings.type_.as_deref(), Some("Warning"));
        assert_eq!(warnings.note.as_deref(), Some("reconcile failed: the first pass of flaky fails on purpose"));
        assert_eq!(warnings.reporting_controller.as_deref(), Some("gadget-controller"));

        // Deleting runs the cleanup once and lets the object go.
        gadgets.delete("steady", &DeleteParams::default()).await.unwrap();
        wait_until_gone(&gadgets, "steady").await;
        assert_eq!(reconciler.0.cleanups.load(Ordering::SeqCst), 1);

        // A cleanup that is not done keeps the finalizer, and looks again with no error.
        gadgets.create(&PostParams::default(), &gadget("waiting")).await.unwrap();
        wait_for(&gadgets, "waiting", |g| g.status.is_some()).await;
        let errors = count(&metrics, "error");
        gadgets.delete("waiting", &DeleteParams::default()).await.unwrap();
        wait_until("three looks at the cleanup", || reconciler.0.cleanups.load(Ordering::SeqCst) >= 4).await;
        let waiting = gadgets.get("waiting").await.unwrap();
        assert_eq!(waiting.finalizers(), ["runtime.rop.dev/finalizer"], "the finalizer stays while waiting");
        assert_eq!(count(&metrics, "error"), errors, "waiting is no error");
        reconciler.0.released.store(true, Ordering::SeqCst);
        wait_until_gone(&gadgets, "waiting").await;
        assert_eq!(events_about(&events, "waiting").await, Vec::<String>::new(), "no Event while waiting");
    });
}

/// An object of the owned object's name that exists already is never adopted: not one with no
/// controller (the server would let the apply take it), nor one another object controls.
#[test]
fn an_object_of_the_owned_name_that_exists_is_not_adopted() {
    with_gadgets(|client, gadgets, _reconciler, metrics| async move {
        let config_maps: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
        let theirs = ConfigMap {
            metadata: ObjectMeta { name: Some("taken".into()), ..ObjectMeta::default() },
            data: Some([("value".to_string(), "theirs".to_string())].into()),
            ..ConfigMap::default()
        };
        config_maps.create(&PostParams::default(), &theirs).await.unwrap();
        gadgets.create(&PostParams::default(), &gadget("taken")).await.unwrap();
        let events: Api<Event> = Api::namespaced(client.clone(), "default");
        let warning = wait_for_events(&events, "taken").await;
        let note = warning.note.unwrap();
        let expected = "reconcile failed: failed to apply ConfigMap default/taken: ApiError: it already exists and has no controller, not Gadget taken: it is not adopted; delete it, or rename Gadget taken: AlreadyExists";
        assert!(note.starts_with(expected), "{note}");
        assert!(metrics.error_count("gadget", "already_exists") >= 1);
        let left = config_maps.get("taken").await.unwrap();
        assert!(left.owner_references().is_empty(), "{left:?}");
        assert_eq!(left.data.unwrap()["value"], "theirs");

        // Once it is gone, the next try creates the gadget's own.
        config_maps.delete("taken", &DeleteParams::default()).await.unwrap();
        let ours = wait_for(&config_maps, "taken", |c| !c.owner_references().is_empty()).await;
        assert_eq!(ours.data.unwrap()["value"], "taken-value");
    });
}

#[test]
fn a_terminal_error_stalls_the_object_until_it_changes() {
    with_gadgets(|client, gadgets, reconciler, metrics| async move {
        let mut invalid = gadget("stuck");
        invalid.spec.value = "invalid".into();
        gadgets.create(&PostParams::default(), &invalid).await.unwrap();
        let stalled =
            wait_for(&gadgets, "stuck", |g| g.status.as_ref().is_some_and(|s| s.is_condition_true("Stalled"))).await;
        let condition = stalled.status.as_ref().unwrap().condition("Stalled").unwrap();
        assert_eq!(condition.reason, "TerminalError");
        assert_eq!(
            condition.message,
            "reconcile failed: the value is invalid: spec.value must not be `invalid`: choose another value"
        );
        assert_eq!(condition.observed_generation, stalled.metadata.generation);
        let events: Api<Event> = Api::namespaced(client.clone(), "default");
        wait_for_events(&events, "stuck").await;
        assert_eq!(events_about(&events, "stuck").await, ["Warning Stalled"]);
        assert_eq!(metrics.terminal_error_count("gadget"), 1);
        // Not retried: no backoff brings the pass back.
        tokio::time::sleep(Duration::from_secs(1)).await;
        assert_eq!(reconciler.0.passes.load(Ordering::SeqCst), 1);

        // A fixed spec is reconciled, and the condition goes.
        let fix = serde_json::json!({ "spec": { "value": "fixed" } });
        gadgets.patch("stuck", &PatchParams::default(), &Patch::Merge(&fix)).await.unwrap();
        let fixed = wait_for(&gadgets, "stuck", |g| {
            g.status.as_ref().is_some_and(|s| s.is_condition_true("Available") && s.condition("Stalled").is_none())
        })
        .await;
        assert_eq!(fixed.status.unwrap().conditions.len(), 1);
    });
}

#[test]
fn a_watched_object_reconciles_the_objects_that_name_it() {
    with_gadgets(|client, gadgets, reconciler, _metrics| async move {
        gadgets.create(&PostParams::default(), &gadget("reader")).await.unwrap();
        gadgets.create(&PostParams::default(), &gadget("bystander")).await.unwrap();
        wait_for(&gadgets, "reader", |g| g.status.is_some()).await;
        wait_for(&gadgets, "bystander", |g| g.status.is_some()).await;
        tokio::time::sleep(Duration::from_millis(500)).await;
        let passes = reconciler.0.passes.load(Ordering::SeqCst);

        // `reader`'s value names this Secret; no gadget owns it.
        let secrets: Api<Secret> = Api::namespaced(client.clone(), "default");
        let secret = Secret {
            metadata: ObjectMeta { name: Some("reader-value".into()), ..ObjectMeta::default() },
            ..Secret::default()
        };
        secrets.create(&PostParams::default(), &secret).await.unwrap();
        wait_until("a pass of reader", || reconciler.0.passes.load(Ordering::SeqCst) > passes).await;
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert_eq!(reconciler.0.passes.load(Ordering::SeqCst), passes + 1, "only reader is reconciled");

        // A Secret labelled with a gadget's name reconciles that gadget.
        let passes = reconciler.0.passes.load(Ordering::SeqCst);
        let labels = [("runtime.rop.dev/gadget".to_string(), "bystander".to_string())].into();
        let metadata = ObjectMeta { name: Some("labelled".into()), labels: Some(labels), ..ObjectMeta::default() };
        secrets.create(&PostParams::default(), &Secret { metadata, ..Secret::default() }).await.unwrap();
        wait_until("a pass of bystander", || reconciler.0.passes.load(Ordering::SeqCst) > passes).await;
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert_eq!(reconciler.0.passes.load(Ordering::SeqCst), passes + 1, "only bystander is reconciled");

        // The index follows the gadgets: once reader names another Secret, a change to the one
        // it named reconciles nothing.
        let elsewhere = serde_json::json!({ "spec": { "value": "elsewhere" } });
        gadgets.patch("reader", &PatchParams::default(), &Patch::Merge(&elsewhere)).await.unwrap();
        wait_for(&gadgets, "reader", |g| g.status.as_ref().unwrap().observed_generation == g.metadata.generation).await;
        tokio::time::sleep(Duration::from_millis(500)).await;
        let passes = reconciler.0.passes.load(Ordering::SeqCst);
        let touched = serde_json::json!({ "metadata": { "annotations": { "touched": "yes" } } });
        secrets.patch("reader-value", &PatchParams::default(), &Patch::Merge(&touched)).await.unwrap();
        tokio::time::sleep(Duration::from_millis(1000)).await;
        assert_eq!(reconciler.0.passes.load(Ordering::SeqCst), passes, "no gadget names it");
    });
}

#[test]
fn without_cleanup_no_finalizer_holds_an_object() {
    let Some(env) = TestEnv::start_or_skip() else { return };
    env.block_on(async {
        let client = env.client();
        rop_testenv::install_crd(&client, &Gadget::custom_resource_definition()).await.unwrap();
        let gadgets: Api<plain::Gadget> = Api::namespaced(client.clone(), "default");
        // One object left with the finalizer by an earlier version of the controller.
        let mut leftover = plain::gadget("leftover");
        leftover.metadata.finalizers = Some(vec!["runtime.rop.dev/finalizer".into()]);
        gadgets.create(&PostParams::default(), &leftover).await.unwrap();
        let (stop, running, metrics) = start(&client, plain::Plain);

        gadgets.create(&PostParams::default(), &plain::gadget("fresh")).await.unwrap();
        wait_until("two passes", || count(&metrics, "success") >= 2).await;
        assert!(gadgets.get("fresh").await.unwrap().finalizers().is_empty());

        gadgets.delete("leftover", &DeleteParams::default()).await.unwrap();
        wait_until_gone(&gadgets, "leftover").await;

        stop.send(()).unwrap();
        running.await.unwrap().unwrap();
    });
}

#[test]
fn a_manager_without_a_rule_is_refused_as_in_a_cluster() {
    let Some(env) = TestEnv::start_or_skip() else { return };
    env.block_on(async {
        let client = env.client();
        rop_testenv::install_crd(&client, &Gadget::custom_resource_definition()).await.unwrap();
        // The manager's role as `rop generate` writes it for Gadget, less the ConfigMap rule
        // that `owns` adds.
        let rules: Vec<_> = rop::rbac::Rule::for_kind(&Gadget::DEFINITION)
            .into_iter()
            .filter(|rule| !rule.resources.iter().any(|r| r == "configmaps"))
            .collect();
        let as_manager = client_with_rules(&env, &rules).await;
        let (stop, running, metrics) = start(&as_manager, Gadgets::default());

        let gadgets: Api<Gadget> = Api::namespaced(client.clone(), "default");
        gadgets.create(&PostParams::default(), &gadget("denied")).await.unwrap();
        wait_until("a pass refused", || metrics.error_count("gadget", "forbidden") > 0).await;
        let config_maps: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
        assert!(config_maps.get_opt("denied").await.unwrap().is_none());
        assert!(gadgets.get("denied").await.unwrap().status.is_none());

        stop.send(()).unwrap();
        running.await.unwrap().unwrap();
    });
}

/// A converged object costs one write of each kind: the controller's own writes (status,
/// finalizer, the owned object's apply) start no pass that writes again, even before its
/// watches have caught up with them.
#[test]
fn each_write_is_made_once() {
    let mut options = rop_testenv::Options::default();
    options.audit_log = true;
    let Some(env) = options.start_or_skip() else {
        return;
    };
    env.block_on(async {
        let client = env.client();
        let as_manager = gadgets_as_manager(&env, &Gadget::rbac_rules()).await;
        let (stop, running, metrics) = start(&as_manager, Gadgets::default());

        let gadgets: Api<Gadget> = Api::namespaced(client.clone(), "default");
        gadgets.create(&PostParams::default(), &gadget("once")).await.unwrap();
        wait_for(&gadgets, "once", |g| g.status.is_some()).await;
        // The ConfigMap's creation starts a second pass; the writes to the gadget start none.
        wait_until("two passes", || count(&metrics, "success") >= 2).await;
        tokio::time::sleep(Duration::from_secs(1)).await;
        assert_eq!(count(&metrics, "success"), 2);
        stop.send(()).unwrap();
        running.await.unwrap().unwrap();

        let writes = manager_requests(&env, |verb, _| verb != "list" && verb != "watch");
        assert_eq!(writes, ["patch configmaps: 1", "patch gadgets: 1", "patch gadgets/status: 1"]);
        // The apply and the status write, made of typed values, ask the API server not to look
        // for unknown fields (a second decoding of each); the finalizer's JSON patch keeps it.
        let mut checked: Vec<_> = env
            .writes_of(&manager_user())
            .unwrap()
            .into_iter()
            .map(|w| (w.resource, w.request_uri.contains("fieldValidation=Ignore")))
            .collect();
        checked.sort();
        let expected = [("configmaps", true), ("gadgets", false), ("gadgets/status", true)];
        assert_eq!(checked, expected.map(|(resource, ignore)| (resource.to_string(), ignore)));
    });
}

#[test]
fn controllers_that_own_a_kind_share_its_watch() {
    let mut options = rop_testenv::Options::default();
    options.audit_log = true;
    let Some(env) = options.start_or_skip() else {
        return;
    };
    env.block_on(async {
        let client = env.client();
        let rules = [Gadget::rbac_rules(), ServiceAccountV1::rbac_rules()].concat();
        let as_manager = gadgets_as_manager(&env, &rules).await;
        let (stop, running, metrics) = start_with(&as_manager, |manager| {
            manager.add_controller(Gadgets::default()).add_controller(Accounts::default());
        });

        // Both controllers own ConfigMaps: each gets its own, and gets it back when deleted.
        let gadgets: Api<Gadget> = Api::namespaced(client.clone(), "default");
        let accounts: Api<ServiceAccount> = Api::namespaced(client.clone(), "default");
        let config_maps: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
        gadgets.create(&PostParams::default(), &gadget("shared")).await.unwrap();
        let sharer = ServiceAccount {
            metadata: ObjectMeta { name: Some("sharer".into()), ..ObjectMeta::default() },
            ..ServiceAccount::default()
        };
        accounts.create(&PostParams::default(), &sharer).await.unwrap();
        for name in ["shared", "sharer-info"] {
            let uid = wait_for(&config_maps, name, |_| true).await.metadata.uid;
            config_maps.delete(name, &DeleteParams::default()).await.unwrap();
            wait_for(&config_maps, name, |c| c.metadata.uid.is_some() && c.metadata.uid != uid).await;
        }
        // The gadget's controller still sees the ConfigMap the other one controls.
        gadgets.create(&PostParams::default(), &gadget("sharer-info")).await.unwrap();
        wait_until("the taken name refused", || metrics.error_count("gadget", "already_exists") >= 1).await;
        stop.send(()).unwrap();
        running.await.unwrap().unwrap();

        let reads =
            manager_requests(&env, |verb, resource| (verb == "list" || verb == "watch") && resource == "configmaps");
        assert_eq!(reads, ["watch configmaps: 1"], "one watch for both controllers, its list streamed");
    });
}

/// Reconciles gadgets and counts its passes; watches only the Secrets labelled
/// `runtime.rop.dev/watched=yes` (a Secret reconciles the gadget of its name), and every change
/// of a gadget, its status too.
#[derive(Clone, Default)]
struct Selective(Arc<AtomicU32>);

// The kind without a finalizer: with `Changes::All`, the runtime's own write of a finalizer
// would start a pass too.
impl Reconciler for Selective {
    type Kind = plain::Gadget;
    type Error = kube::Error;

    async fn reconcile(
        &self,
        _gadget: Arc<plain::Gadget>,
        _ctx: &Context<plain::Gadget>,
    ) -> Result<Action, kube::Error> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Ok(Action::await_change())
    }

    fn map_watched(&self, watched: &Watched, _cache: &Cache<plain::Gadget>) -> Vec<ObjectRef<plain::Gadget>> {
        watched.same_name()
    }

    fn config(&self) -> Config<plain::Gadget> {
        let watched = Selector::from_iter([("runtime.rop.dev/watched", "yes")]);
        Config::default()
            .concurrency(1)
            .watch::<Secret>(Watch::default().labels(watched))
            .watch::<plain::Gadget>(Watch::default().changes(Changes::All))
    }
}

/// A `Config`'s label selector is the watch's: a Secret outside it is never listed or watched,
/// so no change of it starts a pass until it gets the label; and `Changes::All` on the
/// reconciled kind lets a change of its status alone start one.
#[test]
fn a_watch_selects_by_label_and_a_status_change_can_start_a_pass() {
    let mut options = rop_testenv::Options::default();
    options.audit_log = true;
    let Some(env) = options.start_or_skip() else {
        return;
    };
    env.block_on(async {
        let client = env.client();
        let as_manager = gadgets_as_manager(&env, &Gadget::rbac_rules()).await;
        let reconciler = Selective::default();
        let (stop, running, _metrics) = start(&as_manager, reconciler.clone());
        let passes = || reconciler.0.load(Ordering::SeqCst);
        let gadgets: Api<plain::Gadget> = Api::namespaced(client.clone(), "default");
        gadgets.create(&PostParams::default(), &plain::gadget("picked")).await.unwrap();
        wait_until("the first pass", || passes() == 1).await;

        let secrets: Api<Secret> = Api::namespaced(client.clone(), "default");
        let secret = Secret {
            metadata: ObjectMeta { name: Some("picked".into()), ..ObjectMeta::default() },
            string_data: Some([("key".to_string(), "one".to_string())].into()),
            ..Secret::default()
        };
        secrets.create(&PostParams::default(), &secret).await.unwrap();
        let edit = serde_json::json!({ "stringData": { "key": "two" } });
        secrets.patch("picked", &PatchParams::default(), &Patch::Merge(&edit)).await.unwrap();
        // The Secret's events would have come within this time, had the watch selected it.
        tokio::time::sleep(Duration::from_secs(2)).await;
        assert_eq!(passes(), 1, "an unlabelled Secret starts no pass");
        let label = serde_json::json!({ "metadata": { "labels": { "runtime.rop.dev/watched": "yes" } } });
        secrets.patch("picked", &PatchParams::default(), &Patch::Merge(&label)).await.unwrap();
        wait_until("a pass for the labelled Secret", || passes() == 2).await;

        let status = serde_json::json!({ "status": { "observedGeneration": 7 } });
        gadgets.patch_status("picked", &PatchParams::default(), &Patch::Merge(&status)).await.unwrap();
        wait_until("a pass for the status change", || passes() == 3).await;
        stop.send(()).unwrap();
        running.await.unwrap().unwrap();

        let log = std::fs::read_to_string(env.audit_log().unwrap()).unwrap();
        let selected = log.lines().any(|line| {
            line.contains("\"resource\":\"secrets\"")
                && line.contains("labelSelector=runtime.rop.dev%2Fwatched%3Dyes")
                && line.contains("\"verb\":\"watch\"")
        });
        assert!(selected, "the Secrets' watch carries the label selector");
        let unselected = log.lines().any(|line| {
            line.contains("\"resource\":\"secrets\"")
                && line.contains(&manager_user())
                && !line.contains("labelSelector=")
                && (line.contains("\"verb\":\"watch\"") || line.contains("\"verb\":\"list\""))
        });
        assert!(!unselected, "no watch or list of every Secret");
    });
}

/// On an API server without the WatchList feature (Kubernetes 1.33, or turned off), which
/// refuses a watch that streams its list, each watch lists and then watches, once refused.
#[test]
fn watches_list_where_lists_cannot_be_streamed() {
    let mut options = rop_testenv::Options::default();
    options.audit_log = true;
    options.feature_gates = vec!["WatchList=false".into()];
    let Some(env) = options.start_or_skip() else { return };
    env.block_on(async {
        let client = env.client();
        let as_manager = gadgets_as_manager(&env, &Gadget::rbac_rules()).await;
        let (stop, running, _) = start(&as_manager, Gadgets::default());

        let gadgets: Api<Gadget> = Api::namespaced(client.clone(), "default");
        let config_maps: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
        gadgets.create(&PostParams::default(), &gadget("paged")).await.unwrap();
        wait_for(&gadgets, "paged", |g| g.status.is_some()).await;
        let uid = wait_for(&config_maps, "paged", |_| true).await.metadata.uid;
        config_maps.delete("paged", &DeleteParams::default()).await.unwrap();
        wait_for(&config_maps, "paged", |c| c.metadata.uid.is_some() && c.metadata.uid != uid).await;
        stop.send(()).unwrap();
        running.await.unwrap().unwrap();

        let reads = manager_requests(&env, |verb, _| verb == "list" || verb == "watch");
        // Each kind (gadgets, the owned ConfigMaps, the watched Secrets): the refused watch,
        // then a list and the watch that follows it.
        let expected = [
            "list configmaps: 1",
            "list gadgets: 1",
            "list secrets: 1",
            "watch configmaps: 2",
            "watch gadgets: 2",
            "watch secrets: 2",
        ];
        assert_eq!(reads, expected);
    });
}

#[test]
fn a_builtin_kind_controller_runs_with_the_rules_of_its_marker() {
    let Some(env) = TestEnv::start_or_skip() else { return };
    env.block_on(async {
        let client = env.client();
        let as_manager = client_with_rules(&env, &ServiceAccountV1::rbac_rules()).await;
        let reconciler = Accounts::default();
        let (stop, running, metrics) = start(&as_manager, reconciler.clone());

        let accounts: Api<ServiceAccount> = Api::namespaced(client.clone(), "default");
        let config_maps: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
        let builder = ServiceAccount {
            metadata: ObjectMeta { name: Some("builder".into()), ..ObjectMeta::default() },
            ..ServiceAccount::default()
        };
        accounts.create(&PostParams::default(), &builder).await.unwrap();
        let config_map = wait_for(&config_maps, "builder-info", |_| true).await;
        assert_eq!(config_map.data.unwrap()["serviceAccount"], "builder");
        let owner = &config_map.metadata.owner_references.unwrap()[0];
        assert_eq!((owner.kind.as_str(), owner.name.as_str()), ("ServiceAccount", "builder"));
        let managers: Vec<_> =
            config_map.metadata.managed_fields.unwrap().into_iter().filter_map(|m| m.manager).collect();
        assert_eq!(managers, ["serviceaccount-controller"], "named after the lower-cased kind");
        assert_eq!(accounts.get("builder").await.unwrap().finalizers(), ["runtime.rop.dev/finalizer"]);

        // The owned ConfigMap is watched: deleted, it comes back (a new one, maybe at once).
        let uid = config_map.metadata.uid.clone();
        config_maps.delete("builder-info", &DeleteParams::default()).await.unwrap();
        wait_for(&config_maps, "builder-info", |c| c.metadata.uid != uid).await;

        accounts.delete("builder", &DeleteParams::default()).await.unwrap();
        wait_until_gone(&accounts, "builder").await;
        assert_eq!(reconciler.0.load(Ordering::SeqCst), 1);
        assert_eq!(metrics.error_count("serviceaccount", "forbidden"), 0, "the marker's rules are enough");

        stop.send(()).unwrap();
        running.await.unwrap().unwrap();
    });
}

/// The requests of the manager's service account that `keep` keeps (by verb and resource), as
/// `<verb> <resource>: <count>`.
fn manager_requests(env: &TestEnv, keep: impl Fn(&str, &str) -> bool) -> Vec<String> {
    env.requests_of(&manager_user())
        .unwrap()
        .into_iter()
        .filter(|((verb, resource), _)| keep(verb, resource))
        .map(|((verb, resource), count)| format!("{verb} {resource}: {count}"))
        .collect()
}

/// The user name the manager's requests carry: its service account's.
fn manager_user() -> String {
    format!("system:serviceaccount:{}:{}", rop_testenv::MANAGER_NAMESPACE, rop_testenv::MANAGER_SERVICE_ACCOUNT)
}

/// The Gadget CRD installed, a client of the manager's service account with only `rules`
/// ([`client_with_rules`]).
async fn gadgets_as_manager(env: &TestEnv, rules: &[rop::rbac::Rule]) -> Client {
    rop_testenv::install_crd(&env.client(), &Gadget::custom_resource_definition()).await.unwrap();
    client_with_rules(env, rules).await
}

/// A client of the manager's service account, bound to a `manager-role` with only `rules`, as
/// `rop generate` would write it.
async fn client_with_rules(env: &TestEnv, rules: &[rop::rbac::Rule]) -> Client {
    let roles: Vec<_> = rop::rbac::roles(rules, "manager-role").iter().map(|r| r.to_object()).collect();
    let dir = tempfile::tempdir().unwrap();
    let role = dir.path().join("role.yaml");
    std::fs::write(&role, serde_yaml::to_string(&roles[0]).unwrap()).unwrap();
    rop_testenv::install_manager_rbac(&env.client(), &role).await.unwrap();
    env.client_as_service_account(rop_testenv::MANAGER_NAMESPACE, rop_testenv::MANAGER_SERVICE_ACCOUNT).unwrap()
}

/// The Events about the object `name`, as `<type> <reason>`.
async fn events_about(events: &Api<Event>, name: &str) -> Vec<String> {
    let list = events.list(&ListParams::default()).await.unwrap();
    list.items
        .into_iter()
        .filter(|e| e.regarding.as_ref().and_then(|r| r.name.as_deref()) == Some(name))
        .map(|e| format!("{} {}", e.type_.unwrap_or_default(), e.reason.unwrap_or_default()))
        .collect()
}

/// Waits for the first Event about the object `name`.
async fn wait_for_events(events: &Api<Event>, name: &str) -> Event {
    let deadline = std::time::Instant::now() + rop_testenv::WAIT;
    loop {
        let list = events.list(&ListParams::default()).await.unwrap();
        if let Some(event) =
            list.items.into_iter().find(|e| e.regarding.as_ref().and_then(|r| r.name.as_deref()) == Some(name))
        {
            return event;
        }
        assert!(std::time::Instant::now() < deadline, "no Event about {name}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
