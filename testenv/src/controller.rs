//! A project's controller on the test API server, as the project deploys it: what each
//! scaffolded `tests/<kind>_controller.rs` runs (controller-runtime's `suite_test.go`).
//!
//! [`TestEnv::start_controller`] installs the project's CRDs and the manager's RBAC, runs a
//! manager with one reconciler as the manager's ServiceAccount, and hands back a
//! [`ControllerTest`]: the objects' API, the passes per object, a wait until the manager has
//! settled, and a stop that fails the test when the manager failed. Its waits fail at once
//! when the manager ends or the API server refuses it a request, naming the missing rule.

use std::collections::HashMap;
use std::fmt::Debug;
use std::future::Future;
use std::marker::PhantomData;
use std::panic::Location;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use kube::api::{DeleteParams, ListParams, Patch, PatchParams, PostParams};
use kube::{Api, Client, Resource, ResourceExt};
use rop::ObjectOf;
use rop::controller::{
    Action, Cache, CleanupOf, Config, Context, Kind, KindScope, ObjectRef, Reconciler, Watched, error_chain,
};
use rop::manager::{Manager, Options};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio::sync::{oneshot, watch};
use tokio::task::JoinHandle;

use crate::denials::Denials;
use crate::manifests::ensure_crds;
use crate::wait::Caller;
use crate::{MANAGER_NAMESPACE, MANAGER_SERVICE_ACCOUNT, TestEnv, WAIT, install_manager_rbac};

/// The namespace a test's namespaced objects live in, and the one the manager watches.
pub const TEST_NAMESPACE: &str = "default";

/// How long the manager must have started no pass, with none running, to count as settled.
const QUIET: Duration = Duration::from_millis(500);

/// How often [`ControllerTest::settled`] looks.
const POLL: Duration = Duration::from_millis(50);

/// The passes of the controller under test.
#[derive(Default)]
struct Passes {
    /// Passes that succeeded, per object (namespace, name).
    done: Mutex<HashMap<(String, String), u64>>,
    /// Passes running now.
    running: AtomicUsize,
    /// When the last pass started or ended.
    last: Mutex<Option<Instant>>,
    /// Why the last pass failed, while the next one has not succeeded.
    failure: Mutex<Option<String>>,
}

impl Passes {
    fn touch(&self) {
        *self.last.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(Instant::now());
    }
}

/// A pass in flight: counted while it lives (also when a shutdown drops it).
struct InFlight<'a>(&'a Passes);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.running.fetch_sub(1, Ordering::SeqCst);
        self.0.touch();
    }
}

/// The reconciler under test, counting its passes: everything else is the reconciler's own.
/// Every method of `Reconciler` is forwarded: one left out would silently take its default
/// under test (no index, no cleanup), so a new one must be added here too.
struct Counted<R> {
    inner: R,
    passes: Arc<Passes>,
}

impl<R: Reconciler> Reconciler for Counted<R> {
    type Kind = R::Kind;
    type Error = R::Error;

    async fn reconcile(&self, object: Arc<ObjectOf<R::Kind>>, ctx: &Context<R::Kind>) -> Result<Action, R::Error> {
        self.passes.running.fetch_add(1, Ordering::SeqCst);
        self.passes.touch();
        let _in_flight = InFlight(&self.passes);
        let result = self.inner.reconcile(object.clone(), ctx).await;
        let failure = result.as_ref().err().map(|err| format!("{} failed: {}", object.name_any(), error_chain(err)));
        *self.passes.failure.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = failure;
        if result.is_ok() {
            let mut done = self.passes.done.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            *done.entry(key(&*object)).or_default() += 1;
        }
        result
    }

    fn cleanup(
        &self,
        object: Arc<ObjectOf<R::Kind>>,
        ctx: &Context<R::Kind>,
    ) -> impl Future<Output = Result<CleanupOf<R::Kind>, R::Error>> + Send {
        self.inner.cleanup(object, ctx)
    }

    fn map_watched(&self, watched: &Watched, cache: &Cache<R::Kind>) -> Vec<ObjectRef<ObjectOf<R::Kind>>> {
        self.inner.map_watched(watched, cache)
    }

    fn config(&self) -> Config<R::Kind> {
        self.inner.config()
    }
}

fn key<K: Resource>(object: &K) -> (String, String) {
    (object.namespace().unwrap_or_default(), object.name_any())
}

/// The controller of kind `K` running in a manager on the test API server; see
/// [`TestEnv::start_controller`]. Dropping it stops the manager; [`ControllerTest::stop`]
/// stops it and checks it stopped cleanly.
pub struct ControllerTest<K: Kind> {
    client: Client,
    /// `METHOD path` of each request of the manager's that wrote.
    writes: Arc<Mutex<Vec<String>>>,
    /// The manager's requests the API server refused.
    denials: Denials,
    project: PathBuf,
    passes: Arc<Passes>,
    stop: Option<oneshot::Sender<()>>,
    running: Option<JoinHandle<Result<(), rop::manager::Error>>>,
    /// Why the manager ended, once it has: its error, or that it stopped.
    ended: watch::Receiver<Option<String>>,
    kind: PhantomData<fn() -> K>,
}

impl TestEnv {
    /// Starts `reconciler`'s controller as the project in folder `project` (its
    /// `CARGO_MANIFEST_DIR`) deploys it: installs its CRDs from `config/crd/bases` (and those
    /// of other projects it uses from `config/crd/external`, where `rop import crd
    /// --types-only` puts them, as envtest's `CRDDirectoryPaths` takes more folders) and the
    /// manager's RBAC from `config/rbac/role.yaml` (so a rule missing there fails the test as
    /// it would fail in a cluster; CRDs [`TestEnv::serve_webhooks`] installed stay as they are),
    /// then runs a manager with the reconciler as the manager's
    /// ServiceAccount, watching [`TEST_NAMESPACE`] for a namespaced kind (a namespace-scoped
    /// manager's Role works too) and the whole cluster for a cluster-scoped one.
    ///
    /// # Panics
    /// When the CRDs or the RBAC do not install (run `make manifests` first).
    #[track_caller]
    pub fn start_controller<R: Reconciler>(
        &self,
        project: impl AsRef<Path>,
        reconciler: R,
    ) -> impl Future<Output = ControllerTest<R::Kind>> {
        self.start_controller_at(project.as_ref().to_path_buf(), reconciler, Location::caller())
    }

    async fn start_controller_at<R: Reconciler>(
        &self,
        project: PathBuf,
        reconciler: R,
        at: Caller,
    ) -> ControllerTest<R::Kind> {
        let client = self.client();
        if let Err(err) = ensure_crds(&client, &project.join("config/crd/bases")).await {
            panic!("{at}: the CRDs install (run `make manifests` first): {err}");
        }
        // The CRDs of other projects it uses (`rop import crd --types-only` keeps them there).
        let external = project.join("config/crd/external");
        if external.is_dir()
            && let Err(err) = ensure_crds(&client, &external).await
        {
            panic!("{at}: the CRDs in config/crd/external install: {err}");
        }
        if let Err(err) = install_manager_rbac(&client, &project.join("config/rbac/role.yaml")).await {
            panic!("{at}: the manager's RBAC installs (run `make manifests` first): {err}");
        }
        let writes = Arc::new(Mutex::new(Vec::new()));
        let denials = Denials::default();
        let as_manager = self
            .client_as_service_account_noting_writes(
                MANAGER_NAMESPACE,
                MANAGER_SERVICE_ACCOUNT,
                writes.clone(),
                denials.clone(),
            )
            .unwrap_or_else(|err| panic!("{at}: a client as the manager's ServiceAccount: {err}"));
        let namespaced = <<ObjectOf<R::Kind> as Resource>::Scope as KindScope>::NAMESPACED;
        let mut options = Options::for_tests();
        options.watch_namespace = namespaced.then(|| TEST_NAMESPACE.into());
        let mut manager = Manager::with_client("test", options, as_manager);
        let passes = Arc::new(Passes::default());
        manager.add_controller(Counted { inner: reconciler, passes: passes.clone() });
        let (stop, stopped) = oneshot::channel::<()>();
        let (report_end, ended) = watch::channel(None);
        let running = tokio::spawn(async move {
            let result = manager
                .run_until(async {
                    let _ = stopped.await;
                })
                .await;
            let why = match &result {
                Ok(()) => "the manager stopped".to_string(),
                Err(err) => format!("the manager failed: {}", error_chain(err)),
            };
            let _ = report_end.send(Some(why));
            result
        });
        let (stop, running) = (Some(stop), Some(running));
        ControllerTest { client, writes, denials, project, passes, stop, running, ended, kind: PhantomData }
    }
}

/// Tests `reconciler`'s controller as the project in folder `project` deploys it: starts a test
/// API server (or skips, see [`TestEnv::start_or_skip`]), the controller
/// ([`TestEnv::start_controller`]) and the sample `config/samples/<sample>`, and runs `checks`
/// on the controller and the sample as created. Then checks what every controller owes: a pass
/// over the converged object writes nothing ([`ControllerTest::assert_idempotent`]), deleting
/// it lets it go ([`ControllerTest::delete`]), and the manager stops without an error. A
/// project's `tests/<kind>_controller.rs` is one call of it, with the kind's own checks.
///
/// ```no_run
/// # use std::sync::Arc;
/// # use rop::controller::{Action, Context, Reconciler};
/// # #[derive(rop::CustomResource, serde::Serialize, serde::Deserialize, Clone, Debug, rop::JsonSchema)]
/// # #[rop(group = "cache.example.com", version = "v1alpha1", kind = "Memcached", namespaced)]
/// # pub struct MemcachedSpec {}
/// # pub struct MemcachedReconciler;
/// # impl Reconciler for MemcachedReconciler {
/// #     type Kind = Memcached;
/// #     type Error = rop::kube::Error;
/// #     async fn reconcile(&self, _: Arc<Memcached>, _: &Context<Memcached>) -> Result<Action, Self::Error> {
/// #         Ok(Action::await_change())
/// #     }
/// # }
/// use rop_testenv::{caught_up, check_controller, condition};
///
/// // The body of a `#[test]` in the project's tests/memcached_controller.rs:
/// let project = env!("CARGO_MANIFEST_DIR");
/// check_controller(project, MemcachedReconciler, "cache_v1alpha1_memcached.yaml", async |controller, object| {
///     let reconciled = controller.wait_for(object, condition("Available")).await;
///     assert!(caught_up(&reconciled), "the status is of the current spec");
/// });
/// ```
///
/// # Panics
/// When a check fails, or the test API server cannot start (with `ROP_TESTENV_REQUIRE=1`, or
/// binaries that are there but broken). Its own checks' messages start with the line that
/// called it.
#[track_caller]
pub fn check_controller<R, F>(project: impl AsRef<Path>, reconciler: R, sample: &str, checks: F)
where
    R: Reconciler,
    F: AsyncFnOnce(&ControllerTest<R::Kind>, &ObjectOf<R::Kind>),
{
    let at = Location::caller();
    let Some(env) = TestEnv::start_or_skip() else { return };
    env.block_on(async {
        let controller = env.start_controller_at(project.as_ref().to_path_buf(), reconciler, at).await;
        let object = controller.create_sample_at(sample, at).await;
        checks(&controller, &object).await;
        controller.assert_idempotent_at(&object, at).await;
        controller.delete_at(&object, at).await;
        controller.stop_at(at).await;
    });
}

impl<K: Kind> ControllerTest<K> {
    /// A client with every permission (the API server's admin), to act as a user would.
    pub fn client(&self) -> Client {
        self.client.clone()
    }

    /// The objects of kind `K`: in [`TEST_NAMESPACE`], or all of them for a cluster-scoped
    /// kind.
    pub fn api(&self) -> Api<ObjectOf<K>> {
        self.api_of()
    }

    /// The objects of kind `O` (an owned Deployment, say) where the test's objects are: in
    /// [`TEST_NAMESPACE`], or all of them for a cluster-scoped kind.
    pub fn api_of<O>(&self) -> Api<O>
    where
        O: Resource<DynamicType = (), Scope: KindScope>,
    {
        <O::Scope as KindScope>::api(self.client.clone(), Some(TEST_NAMESPACE))
    }

    /// Creates the sample `config/samples/<file>` (in [`TEST_NAMESPACE`] for a namespaced
    /// kind) and returns it as the API server stored it.
    ///
    /// # Panics
    /// When the file is no object of the kind, the API server refuses it, or what it stored
    /// does not read back as the kind (the CRD in `config/crd/bases` is older than the types:
    /// the server prunes the fields it does not know; run `make manifests`).
    #[track_caller]
    pub fn create_sample(&self, file: &str) -> impl Future<Output = ObjectOf<K>> {
        self.create_sample_at(file, Location::caller())
    }

    async fn create_sample_at(&self, file: &str, at: Caller) -> ObjectOf<K> {
        let path = self.project.join("config/samples").join(file);
        let sample: ObjectOf<K> =
            crate::object_from_file(&path).unwrap_or_else(|err| panic!("{at}: the sample {}: {err}", path.display()));
        match self.api().create(&PostParams::default(), &sample).await {
            Ok(created) => created,
            Err(kube::Error::SerdeError(err)) => panic!(
                "{at}: the API server stored the sample {}, but it does not read back as {}: {err}. The CRD installed from config/crd/bases is likely older than the types (the server drops fields its schema lacks): run `make manifests`",
                path.display(),
                <ObjectOf<K> as Resource>::kind(&()),
            ),
            Err(err) => panic!("{at}: the API server refuses the sample {}: {err}", path.display()),
        }
    }

    /// Polls `object` until `done` holds for it (see [`crate::wait_for`]); returns it.
    ///
    /// # Panics
    /// When that does not happen within [`WAIT`], or the manager ends first (with its error).
    #[track_caller]
    pub fn wait_for(
        &self,
        object: &ObjectOf<K>,
        done: impl Fn(&ObjectOf<K>) -> bool,
    ) -> impl Future<Output = ObjectOf<K>> {
        let at = Location::caller();
        let (api, name) = (self.api(), object.name_any());
        async move {
            let why = || {
                let failure = self.passes.failure.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                failure.as_ref().map(|why| format!("; the last pass over {why}")).unwrap_or_default()
            };
            self.unless_manager_ends(crate::wait::wait_for_or(&api, &name, done, why, at), at).await
        }
    }

    /// `wait`'s outcome; but when the manager ends first (a `Config` it refused at start, a
    /// port it could not bind), or the API server refuses it a request (a rule missing from
    /// `config/rbac/role.yaml`), a panic at once that says so: what the manager was to do will
    /// not happen, and the wait would only time out.
    async fn unless_manager_ends<T>(&self, wait: impl Future<Output = T>, at: Caller) -> T {
        let mut ended = self.ended.clone();
        tokio::select! {
            value = wait => value,
            Ok(why) = ended.wait_for(Option::is_some) => {
                panic!("{at}: while the test waited, {}", why.as_deref().unwrap_or("the manager ended"))
            }
            denial = self.denials.first() => panic!("{at}: while the test waited, {}", denial.explain()),
        }
    }

    /// The passes over `object` that succeeded so far.
    pub fn passes(&self, object: &ObjectOf<K>) -> u64 {
        let done = self.passes.done.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        done.get(&key(object)).copied().unwrap_or(0)
    }

    /// Waits until the manager has settled: no pass running, and none started or ended for
    /// 500 ms, counted from this call at the earliest (a pass's own writes, and what the test
    /// wrote just before, have come back through the watches and started whatever they
    /// start). Check idempotence only then.
    ///
    /// # Panics
    /// When that does not happen within [`WAIT`], or the manager ends first.
    #[track_caller]
    pub fn settled(&self) -> impl Future<Output = ()> {
        self.settled_at(Location::caller())
    }

    async fn settled_at(&self, at: Caller) {
        self.unless_manager_ends(self.settle(at), at).await;
    }

    async fn settle(&self, at: Caller) {
        let called = Instant::now();
        let deadline = called + WAIT;
        loop {
            let last = *self.passes.last.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let quiet = last.map_or(called, |last| last.max(called)).elapsed() >= QUIET;
            if self.passes.running.load(Ordering::SeqCst) == 0 && quiet {
                return;
            }
            if Instant::now() >= deadline {
                let writes = self.writes.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                let last = writes[writes.len().saturating_sub(5)..].join("\n");
                panic!(
                    "{at}: the manager did not settle within {WAIT:?} (a pass that writes what it watches starts the next one); its last writes:\n{last}"
                );
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// Starts a pass over `object` by setting an annotation on it, waits until that pass has
    /// run and the manager has settled, and returns the object as the annotation left it: an
    /// idempotent controller wrote nothing since, so reading it again gives the same
    /// `resourceVersion`.
    #[track_caller]
    pub fn touch(&self, object: &ObjectOf<K>) -> impl Future<Output = ObjectOf<K>> {
        self.touch_at(object, Location::caller())
    }

    async fn touch_at(&self, object: &ObjectOf<K>, at: Caller) -> ObjectOf<K> {
        self.settled_at(at).await;
        let before = self.passes(object);
        let stamp = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        let patch = serde_json::json!({ "metadata": { "annotations": { "rop-testenv/touched": stamp.as_nanos().to_string() } } });
        let touched = self.api().patch(&object.name_any(), &PatchParams::default(), &Patch::Merge(&patch)).await;
        let touched = touched.unwrap_or_else(|err| panic!("{at}: cannot annotate {}: {err}", object.name_any()));
        let pass = crate::wait::wait_until_at("a pass over the touched object", || self.passes(object) > before, at);
        self.unless_manager_ends(pass, at).await;
        self.settled_at(at).await;
        touched
    }

    /// Merges `spec` into the spec of `object` (a JSON merge patch, as `kubectl patch --type
    /// merge` sends), as its admin; returns the object as the API server stored it, or the
    /// API server's refusal.
    pub async fn patch_spec(&self, object: &ObjectOf<K>, spec: Value) -> Result<ObjectOf<K>, kube::Error> {
        let patch = Patch::Merge(serde_json::json!({ "spec": spec }));
        self.api().patch(&object.name_any(), &PatchParams::default(), &patch).await
    }

    /// Waits until `owner` has a controlled object of kind `O` (an owner reference to it with
    /// `controller: true`) where the test's objects are; returns it.
    ///
    /// # Panics
    /// When none appears within [`WAIT`], or `owner` controls more than one.
    #[track_caller]
    pub fn owned<O>(&self, owner: &ObjectOf<K>) -> impl Future<Output = O>
    where
        O: Resource<DynamicType = (), Scope: KindScope> + Clone + Debug + DeserializeOwned,
    {
        self.owned_at(owner, Location::caller())
    }

    async fn owned_at<O>(&self, owner: &ObjectOf<K>, at: Caller) -> O
    where
        O: Resource<DynamicType = (), Scope: KindScope> + Clone + Debug + DeserializeOwned,
    {
        let uid = owner.uid();
        let controlled =
            |o: &O| o.owner_references().iter().any(|r| Some(&r.uid) == uid.as_ref() && r.controller == Some(true));
        let what = format!("a {} controlled by {}", O::kind(&()), owner.name_any());
        let deadline = Instant::now() + WAIT;
        self.unless_manager_ends(
            async {
                loop {
                    let listed = self.api_of::<O>().list(&ListParams::default()).await;
                    let mut owned: Vec<O> =
                        listed.unwrap_or_else(|err| panic!("{at}: cannot list {what}: {err}")).items;
                    owned.retain(controlled);
                    match owned.len() {
                        0 => assert!(Instant::now() < deadline, "{at}: no {what} within {WAIT:?}"),
                        1 => return owned.remove(0),
                        n => panic!("{at}: {n} objects are {what}: use `api_of` and pick one"),
                    }
                    tokio::time::sleep(POLL).await;
                }
            },
            at,
        )
        .await
    }

    /// Checks that the controller heals `owned`, an object it applies: deleted, it comes back
    /// with the same spec; changed by the merge patch `change` (say `{"spec": {"replicas":
    /// 7}}`), its spec is put back.
    ///
    /// # Panics
    /// When either does not happen within [`WAIT`], or the API server refuses the deletion or
    /// the change.
    #[track_caller]
    pub fn heals<O>(&self, owned: &O, change: Value) -> impl Future<Output = ()>
    where
        O: Resource<DynamicType = (), Scope: KindScope> + Clone + Debug + Serialize + DeserializeOwned,
    {
        self.heals_at(owned, change, Location::caller())
    }

    async fn heals_at<O>(&self, owned: &O, change: Value, at: Caller)
    where
        O: Resource<DynamicType = (), Scope: KindScope> + Clone + Debug + Serialize + DeserializeOwned,
    {
        let (api, name, uid) = (self.api_of::<O>(), owned.name_any(), owned.uid());
        let spec = |o: &O| serde_json::to_value(o).ok().and_then(|mut json| json.get_mut("spec").map(Value::take));
        let as_applied = spec(owned);
        if let Err(err) = api.delete(&name, &DeleteParams::default()).await {
            panic!("{at}: cannot delete {name}: {err}");
        }
        let back = |o: &O| o.uid() != uid && spec(o) == as_applied;
        self.unless_manager_ends(crate::wait::wait_for_or(&api, &name, back, String::new, at), at).await;
        if let Err(err) = api.patch(&name, &PatchParams::default(), &Patch::Merge(&change)).await {
            panic!("{at}: cannot change {name}: {err}");
        }
        let put_back = |o: &O| spec(o) == as_applied;
        self.unless_manager_ends(crate::wait::wait_for_or(&api, &name, put_back, String::new, at), at).await;
    }

    /// Checks that the controller is idempotent: starts a pass over `object` (see
    /// [`ControllerTest::touch`]) and fails when the manager wrote anything meanwhile, the
    /// object, its status, an object it owns or an Event, naming each write.
    ///
    /// # Panics
    /// When the manager wrote, or the pass did not run within [`WAIT`].
    #[track_caller]
    pub fn assert_idempotent(&self, object: &ObjectOf<K>) -> impl Future<Output = ()> {
        self.assert_idempotent_at(object, Location::caller())
    }

    async fn assert_idempotent_at(&self, object: &ObjectOf<K>, at: Caller) {
        self.settled_at(at).await;
        let before = self.writes.lock().unwrap_or_else(std::sync::PoisonError::into_inner).len();
        let touched = self.touch_at(object, at).await;
        let writes = self.writes.lock().unwrap_or_else(std::sync::PoisonError::into_inner)[before..].to_vec();
        if writes.is_empty() {
            return;
        }
        // What changed in the object itself (its spec or status), if the writes touched it.
        let fields = |o: &ObjectOf<K>| {
            let mut json = serde_json::to_value(o).unwrap_or_default();
            if let Some(fields) = json.as_object_mut() {
                fields.retain(|key, _| key == "spec" || key == "status");
            }
            json
        };
        let now = self.api().get(&object.name_any()).await;
        let changed = now.map(|now| crate::diff(&fields(&touched), &fields(&now))).unwrap_or_default();
        let changed = if changed.is_empty() { String::new() } else { format!("\nand changed {changed:?}") };
        panic!("{at}: a pass over the converged {} wrote:\n{}{changed}", object.name_any(), writes.join("\n"));
    }

    /// Deletes `object` and waits until it is gone (its finalizers, if any, let it go).
    #[track_caller]
    pub fn delete(&self, object: &ObjectOf<K>) -> impl Future<Output = ()> {
        self.delete_at(object, Location::caller())
    }

    async fn delete_at(&self, object: &ObjectOf<K>, at: Caller) {
        let name = object.name_any();
        if let Err(err) = self.api().delete(&name, &DeleteParams::default()).await {
            panic!("{at}: cannot delete {name}: {err}");
        }
        self.unless_manager_ends(crate::wait::wait_until_gone_at(&self.api(), &name, at), at).await;
    }

    /// Stops the manager and waits for it.
    ///
    /// # Panics
    /// When the manager failed (a server that could not start, a lost lease): with its error.
    #[track_caller]
    pub fn stop(self) -> impl Future<Output = ()> {
        self.stop_at(Location::caller())
    }

    async fn stop_at(mut self, at: Caller) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        let Some(running) = self.running.take() else { return };
        match running.await {
            Ok(Ok(())) => {}
            Ok(Err(err)) => panic!("{at}: the manager failed: {}", error_chain(&err)),
            Err(err) => panic!("{at}: the manager's task failed: {err}"),
        }
    }
}

impl<K: Kind> Drop for ControllerTest<K> {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}
