//! How one controller runs: the settings a reconciler returns from [`super::Reconciler::config`],
//! controller-runtime's builder (`WithOptions`, `Owns(..., WithPredicates(...))`,
//! `cache.ByObject`) as one value.
//!
//! What `rop generate` must read (the kinds owned and watched, the RBAC rules, the finalizer)
//! stays in the kind's `#[rop(...)]` attributes, where it is `const` data; everything else is
//! here, built at run time, so a flag or an environment variable can set it.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use kube::Resource;
use kube::core::{Expression, Selector};
use kube::runtime::watcher;

use super::index::Keys;
use super::scope::Kind;
use crate::ObjectOf;
use crate::{ControllerTarget, RelatedKind};

/// Passes of one controller that run at once when its [`Config`] does not say.
const DEFAULT_CONCURRENCY: u16 = 16;
/// The first retry delay after a failed pass (client-go's `DefaultItemBasedRateLimiter`: 5 ms).
const DEFAULT_BACKOFF_BASE: Duration = Duration::from_millis(5);
/// The longest retry delay (client-go's: 1000 s).
const DEFAULT_BACKOFF_MAX: Duration = Duration::from_secs(1000);

/// Which changes of a watched object start a pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Changes {
    /// Every change, its status included: what a reconciler that reads an owned object's
    /// status needs (a Deployment's available replicas). The default for owned and watched
    /// kinds.
    All,
    /// A change of its spec (`metadata.generation`), labels or annotations, its deletion
    /// starting or done, and its creation; an update of its status alone (and of its
    /// finalizers or managed fields) starts no pass: controller-runtime's
    /// `GenerationChangedPredicate`. The default for the reconciled kind, whose status the
    /// controller writes itself. An object without a generation (a ConfigMap, a Secret)
    /// starts a pass on every change either way.
    Spec,
}

/// How the controller watches one kind: which changes start a pass, and which objects it
/// watches and keeps in its cache at all (controller-runtime's `cache.ByObject`). Build it
/// from [`Watch::default`] (every object, the kind's default [`Changes`]).
///
/// ```
/// use rop::controller::{Changes, Watch};
/// use rop::kube::core::{Expression, Selector};
///
/// let pods = Watch::default()
///     .labels(Expression::Equal("app.kubernetes.io/managed-by".into(), "redis-operator".into()))
///     .changes(Changes::Spec);
/// let pairs = Watch::default().labels(Selector::from_iter([("app", "redis"), ("tier", "cache")]));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Watch {
    pub(crate) changes: Option<Changes>,
    pub(crate) labels: Option<Selector>,
    pub(crate) fields: Option<String>,
}

impl Watch {
    /// Which changes of the kind's objects start a pass.
    #[must_use]
    pub fn changes(mut self, changes: Changes) -> Self {
        self.changes = Some(changes);
        self
    }

    /// Watches only the objects whose labels `selector` matches (kube's [`Selector`], built
    /// from [`Expression`]s, `key = value` pairs or a `LabelSelector`): objects outside it are
    /// never listed, watched or kept in memory, and a change of one starts no pass. Label keys
    /// must be qualified names and values label values; the controller checks them when it
    /// starts (see [`Config::watch`]).
    #[must_use]
    pub fn labels(mut self, selector: impl Into<Selector>) -> Self {
        self.labels = Some(selector.into());
        self
    }

    /// Watches only the objects whose fields match `selector`, a field selector in the API
    /// server's syntax (`spec.nodeName=node-1`, `metadata.name!=x`): which fields a kind can be
    /// selected by is the API server's to say (`metadata.name` and `metadata.namespace` for
    /// every kind), and a watch it refuses is retried and logged at WARN.
    #[must_use]
    pub fn fields(mut self, selector: &str) -> Self {
        self.fields = Some(selector.to_owned());
        self
    }

    /// kube-runtime's watcher configuration for these selectors.
    pub(crate) fn watcher_config(&self) -> watcher::Config {
        let mut config = watcher::Config::default();
        if let Some(labels) = &self.labels {
            config = config.labels_from(labels);
        }
        if let Some(fields) = &self.fields {
            config = config.fields(fields);
        }
        config
    }

    /// The label selector and field selector as the API server reads them (empty when unset),
    /// which tell two selections of one kind apart.
    pub(crate) fn selection(&self) -> (String, String) {
        let labels = self.labels.as_ref().map(ToString::to_string).unwrap_or_default();
        (labels, self.fields.clone().unwrap_or_default())
    }

    /// What is wrong with the label selector's keys and values, if anything (apimachinery's
    /// `IsQualifiedName` and `IsValidLabelValue`, which the API server applies).
    fn check_labels(&self) -> Result<(), String> {
        let Some(selector) = &self.labels else { return Ok(()) };
        for expression in selector.clone() {
            let (key, values): (&String, Vec<&String>) = match &expression {
                Expression::In(key, values) | Expression::NotIn(key, values) => (key, values.iter().collect()),
                Expression::Equal(key, value) | Expression::NotEqual(key, value) => (key, vec![value]),
                Expression::Exists(key) | Expression::DoesNotExist(key) => (key, Vec::new()),
            };
            if !crate::names::is_qualified_name(key) {
                return Err(format!(
                    "the label key {key:?} is not a qualified name ([prefix/]name: a DNS subdomain prefix, \
                     a name of 1-63 letters, digits, '-', '_' or '.' that starts and ends with a letter or digit)"
                ));
            }
            if let Some(value) = values.into_iter().find(|value| !crate::names::is_label_value(value)) {
                return Err(format!(
                    "the label value {value:?} of {key:?} is not a label value (at most 63 letters, digits, \
                     '-', '_' or '.', starting and ending with a letter or digit)"
                ));
            }
        }
        Ok(())
    }
}

/// A kind a [`Config`] sets a [`Watch`] for: its `apiVersion` and kind.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct KindKey {
    pub(crate) api_version: String,
    pub(crate) kind: String,
}

impl KindKey {
    pub(crate) fn of_object<O: Resource<DynamicType = ()>>() -> Self {
        Self { api_version: O::api_version(&()).into_owned(), kind: O::kind(&()).into_owned() }
    }

    pub(crate) fn of_related(related: &RelatedKind) -> Self {
        Self { api_version: related.api_version(), kind: related.kind.to_owned() }
    }
}

impl fmt::Display for KindKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.api_version, self.kind)
    }
}

/// How the controller of kind `K` runs: concurrency, what its watches select and which of
/// their changes start a pass, the index its cache keeps, and the backoff of failed passes.
/// [`super::Reconciler::config`] returns it; [`Config::default`] is what a reconciler that
/// does not override it gets.
///
/// ```
/// # #[derive(rop::BuiltinKind)]
/// # #[rop(group = "apps", version = "v1", kind = "StatefulSet", plural = "statefulsets",
/// #       object = "rop::k8s_openapi::api::apps::v1::StatefulSet")]
/// # #[rop(controller, owns(rop::k8s_openapi::api::policy::v1::PodDisruptionBudget),
/// #       watches(rop::k8s_openapi::api::core::v1::Pod))]
/// # struct Redis;
/// use rop::controller::{Changes, Config, Watch};
/// use rop::k8s_openapi::api::core::v1::Pod;
/// use rop::k8s_openapi::api::policy::v1::PodDisruptionBudget;
/// use rop::kube::core::Selector;
///
/// // From a flag of the manager's, say `--redis-concurrency`.
/// let concurrency = 4;
/// let managed = Selector::from_iter([("app.kubernetes.io/managed-by", "redis-operator")]);
/// let config = Config::<Redis>::default()
///     .concurrency(concurrency)
///     .watch::<Pod>(Watch::default().labels(managed))
///     .watch::<PodDisruptionBudget>(Watch::default().changes(Changes::Spec));
/// ```
pub struct Config<K: Kind> {
    pub(crate) concurrency: u16,
    pub(crate) watches: Vec<(KindKey, Watch)>,
    pub(crate) index: Option<Keys<ObjectOf<K>>>,
    pub(crate) backoff: (Duration, Duration),
}

impl<K: Kind> Default for Config<K> {
    /// 16 passes at once, every object of each kind watched, the reconciled kind's
    /// [`Changes::Spec`] and every change of owned and watched kinds starting a pass, no
    /// index, and client-go's backoff (5 ms doubling up to 1000 s).
    fn default() -> Self {
        Self {
            concurrency: DEFAULT_CONCURRENCY,
            watches: Vec::new(),
            index: None,
            backoff: (DEFAULT_BACKOFF_BASE, DEFAULT_BACKOFF_MAX),
        }
    }
}

impl<K: Kind> Clone for Config<K> {
    fn clone(&self) -> Self {
        Self {
            concurrency: self.concurrency,
            watches: self.watches.clone(),
            index: self.index.clone(),
            backoff: self.backoff,
        }
    }
}

impl<K: Kind> fmt::Debug for Config<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Config")
            .field("concurrency", &self.concurrency)
            .field("watches", &self.watches)
            .field("index", &self.index.is_some())
            .field("backoff", &self.backoff)
            .finish()
    }
}

impl<K: Kind> Config<K> {
    /// How many passes may run at once, each over a different object (controller-runtime's
    /// `MaxConcurrentReconciles`, whose default is 1); `0` sets no limit. Two passes never run
    /// over the same object at once. The default, 16, keeps a remote API server busy while
    /// bounding what a burst costs: when every object is due at once (a new leader, a watch
    /// that lists again after an outage), passes without a limit each hold a connection and
    /// all finish together, so the first object is done only when the last is.
    #[must_use]
    pub fn concurrency(mut self, passes: u16) -> Self {
        self.concurrency = passes;
        self
    }

    /// How the controller watches `O`: the reconciled kind itself (`K`'s object type), or a
    /// kind in its `#[rop(owns(...))]` or `#[rop(watches(...))]`. A later call for the same
    /// kind replaces an earlier one. Each distinct selection of a kind is its own watch,
    /// shared by the controllers of the manager that select it the same way.
    ///
    /// A kind the attributes do not name, or a label selector with an invalid key or value, stops the
    /// manager when it starts, with an error that names the controller and the kind
    /// ([`crate::manager::Error`]).
    #[must_use]
    pub fn watch<O: Resource<DynamicType = ()>>(mut self, watch: Watch) -> Self {
        let key = KindKey::of_object::<O>();
        self.watches.retain(|(k, _)| *k != key);
        self.watches.push((key, watch));
        self
    }

    /// Indexes the controller's cache by the keys `keys` gives each object, for
    /// [`super::Cache::indexed`] to find objects by in [`super::Reconciler::map_watched`]:
    /// say the `<namespace>/<name>` of each Secret an object refers to, so a changed Secret is
    /// mapped to its objects without scanning them all (controller-runtime's `IndexField`).
    /// Give one kind of key a prefix of its own (`secret:`, `config:`) when objects refer to
    /// several kinds.
    #[must_use]
    pub fn index(mut self, keys: impl Fn(&ObjectOf<K>) -> Vec<String> + Send + Sync + 'static) -> Self {
        self.index = Some(Arc::new(keys));
        self
    }

    /// The per-object backoff of failed passes: the first retry after `base`, each next one
    /// after twice the last, never after more than `max` (client-go's
    /// `ItemExponentialFailureRateLimiter`; the default is 5 ms and 1000 s). An object's
    /// backoff starts again after a pass that succeeds.
    #[must_use]
    pub fn backoff(mut self, base: Duration, max: Duration) -> Self {
        self.backoff = (base, max.max(base));
        self
    }

    /// The [`Watch`] set for the kind `key` (the default one when none is).
    pub(crate) fn watch_of(&self, key: &KindKey) -> Watch {
        self.watches.iter().find(|(k, _)| k == key).map(|(_, watch)| watch.clone()).unwrap_or_default()
    }

    /// What is wrong with this configuration for `K`'s controller: a [`Watch`] for a kind the
    /// controller neither reconciles, owns nor watches, or a label selector with a key or value
    /// the API server would refuse.
    pub(crate) fn check(&self) -> Result<(), String> {
        let definition = <K as ControllerTarget>::CONTROLLER;
        let own = KindKey::of_object::<ObjectOf<K>>();
        let related: Vec<KindKey> = definition.owns.iter().chain(definition.watches).map(KindKey::of_related).collect();
        for (key, watch) in &self.watches {
            if *key != own && !related.contains(key) {
                let names = related.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ");
                let names = if names.is_empty() { "none".to_owned() } else { names };
                return Err(format!(
                    "its config sets a watch of {key}, which the kind neither is nor names in \
                     #[rop(owns(...))] or #[rop(watches(...))] (it names: {names}): add the kind there, \
                     or remove the watch"
                ));
            }
            watch.check_labels().map_err(|err| format!("its watch of {key}: {err}"))?;
        }
        Ok(())
    }
}
