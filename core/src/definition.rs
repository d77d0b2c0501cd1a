//! The facts `#[derive(CustomResource)]` and `#[derive(BuiltinKind)]` record about a kind: plain
//! `const` data, which the CRD, RBAC and webhook assembly read.

/// One additional printer column (`additionalPrinterColumns` entry of a CRD version).
///
/// Mirrors `apiextensions.k8s.io/v1 CustomResourceColumnDefinition`; `type_` is one of
/// `integer`, `number`, `string`, `boolean`, `date`, and `json_path` is a simple JSON path
/// such as `.spec.size`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PrinterColumn {
    /// The column's heading in `kubectl get` (`additionalPrinterColumns[].name`).
    pub name: &'static str,
    /// The OpenAPI type of the value (`additionalPrinterColumns[].type`): `integer`, `number`,
    /// `string`, `boolean` or `date`; empty when `printcolumn(...)` left it out, and the CRD
    /// takes it from the schema of the field at `json_path`.
    pub type_: &'static str,
    /// The simple JSON path evaluated against each object for the value, starting with `.`,
    /// e.g. `.spec.size` (`additionalPrinterColumns[].jsonPath`).
    pub json_path: &'static str,
    /// A human-readable description of the column (`additionalPrinterColumns[].description`).
    pub description: Option<&'static str>,
    /// An OpenAPI format for the value, e.g. `int32` or `date-time`
    /// (`additionalPrinterColumns[].format`).
    pub format: Option<&'static str>,
    /// `additionalPrinterColumns[].priority`: `0` (or `None`) shows the column in the standard
    /// view; a greater number only in the wide view (`kubectl get -o wide`).
    pub priority: Option<i32>,
}

/// The scale subresource (`subresources.scale`): JSON paths of the replica counts and,
/// optionally, of the label selector (in `status`) used by the HorizontalPodAutoscaler.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scale {
    /// JSON path of the desired replica count, under `.spec`, e.g. `.spec.replicas`
    /// (`subresources.scale.specReplicasPath`, the Scale's `spec.replicas`).
    pub spec_replicas_path: &'static str,
    /// JSON path of the observed replica count, under `.status`, e.g. `.status.replicas`
    /// (`subresources.scale.statusReplicasPath`, the Scale's `status.replicas`).
    pub status_replicas_path: &'static str,
    /// JSON path of a string field holding the serialised label selector, e.g.
    /// `.status.selector` (`subresources.scale.labelSelectorPath`, the Scale's
    /// `status.selector`); the HorizontalPodAutoscaler needs it.
    pub label_selector_path: Option<&'static str>,
}

/// One RBAC rule the kind's controller needs beyond the kind itself, from
/// `#[rop(rbac(...))]`: the fields of kubebuilder's `+kubebuilder:rbac` marker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RbacRule {
    /// API groups; `""` (or `"core"`) is the core group.
    pub groups: &'static [&'static str],
    /// Lower-case plural resource names, e.g. `deployments`, or subresources such as
    /// `deployments/scale`.
    pub resources: &'static [&'static str],
    /// Names of the objects the rule is limited to (`resourceNames`); empty for every object.
    pub resource_names: &'static [&'static str],
    /// Verbs allowed, e.g. `get`, `list`, `watch`, or `*` for all.
    pub verbs: &'static [&'static str],
    /// Non-resource URLs such as `/metrics`.
    pub urls: &'static [&'static str],
    /// Empty for a cluster-wide rule; else the rule goes to a `Role` in this namespace.
    pub namespace: &'static str,
    /// Empty for the manager's role (`manager-role`).
    pub role_name: &'static str,
}

/// A Kubernetes API type `owns(...)`/`watches(...)` can name by type (any k8s-openapi
/// resource: `k8s_openapi::api::apps::v1::Deployment`): its group, version, kind and plural are
/// k8s-openapi's `Resource` constants, so nothing is guessed.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a Kubernetes API type that owns(...) or watches(...) can name by type",
    label = "not a k8s-openapi resource type",
    note = "name a built-in kind by its k8s-openapi type, e.g. owns(rop::k8s_openapi::api::apps::v1::Deployment); a custom kind with group = \"...\", version = \"...\", kind = \"...\""
)]
pub trait BuiltinResource {
    /// The API group, `""` for the core group (k8s-openapi's `Resource::GROUP`).
    const GROUP: &'static str;
    /// The API version, e.g. `v1` (k8s-openapi's `Resource::VERSION`).
    const VERSION: &'static str;
    /// The kind, UpperCamelCase, e.g. `Deployment` (k8s-openapi's `Resource::KIND`).
    const KIND: &'static str;
    /// The lower-case plural in its URLs and RBAC rules.
    const PLURAL: &'static str;
}

impl<T: k8s_openapi::Resource> BuiltinResource for T {
    const GROUP: &'static str = T::GROUP;
    const VERSION: &'static str = T::VERSION;
    const KIND: &'static str = T::KIND;
    const PLURAL: &'static str = T::URL_PATH_SEGMENT;
}

/// Another kind the controller owns or watches, from `#[rop(owns(...))]` / `#[rop(watches(...))]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RelatedKind {
    /// API group, `""` for the core group (Pods, ConfigMaps, Services, ...).
    pub group: &'static str,
    /// API version, e.g. `v1`.
    pub version: &'static str,
    /// Kind, UpperCamelCase, e.g. `Deployment`.
    pub kind: &'static str,
    /// Lower-case plural resource name, e.g. `deployments`.
    pub plural: &'static str,
}

impl RelatedKind {
    /// `<group>/<version>`, or just `<version>` for the core group.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() { self.version.to_string() } else { format!("{}/{}", self.group, self.version) }
    }
}

/// A label selector as a webhook's `namespaceSelector` or `objectSelector`
/// (`meta/v1 LabelSelector`): every `match_labels` pair and every requirement must hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LabelSelector {
    /// `key = value` pairs (`matchLabels`).
    pub match_labels: &'static [(&'static str, &'static str)],
    /// Set-based requirements (`matchExpressions`).
    pub match_expressions: &'static [SelectorRequirement],
}

/// One `matchExpressions` entry: `operator` is `In`, `NotIn`, `Exists` or `DoesNotExist`;
/// `values` is empty for the last two.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SelectorRequirement {
    /// The label key the requirement applies to (`matchExpressions[].key`).
    pub key: &'static str,
    /// `In`, `NotIn`, `Exists` or `DoesNotExist` (`matchExpressions[].operator`).
    pub operator: &'static str,
    /// The label values for `In` and `NotIn`; empty for `Exists` and `DoesNotExist`
    /// (`matchExpressions[].values`).
    pub values: &'static [&'static str],
}

/// One admission webhook for this version of the kind, from `#[rop(webhook(...))]`: the fields
/// of controller-gen's `+kubebuilder:webhook` marker. `rop generate` turns it into an entry of
/// `config/webhook/manifests.yaml`; the manager's webhook server serves `path`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Webhook {
    /// `true` for a defaulting (mutating) webhook, `false` for a validating one.
    pub mutating: bool,
    /// The webhook's name, a fully qualified DNS name such as `mmemcached-v1.cache.example.com`.
    pub name: &'static str,
    /// URL path on the webhook server, e.g. `/mutate-cache-example-com-v1-memcached`.
    pub path: &'static str,
    /// `Fail` or `Ignore`: what the API server does when the webhook cannot be called.
    pub failure_policy: &'static str,
    /// `None` or `NoneOnDryRun`.
    pub side_effects: &'static str,
    /// Operations the webhook is called for: `CREATE`, `UPDATE`, `DELETE`, `CONNECT` or `*`.
    pub operations: &'static [&'static str],
    /// `AdmissionReview` versions the webhook accepts, e.g. `["v1"]`.
    pub admission_review_versions: &'static [&'static str],
    /// Seconds the API server waits for an answer, 1–30 (server default 10).
    pub timeout_seconds: Option<i32>,
    /// `Exact` or `Equivalent` (server default `Equivalent`).
    pub match_policy: Option<&'static str>,
    /// Mutating webhooks only: `Never` or `IfNeeded`.
    pub reinvocation_policy: Option<&'static str>,
    /// Only objects in namespaces matching this selector are sent.
    pub namespace_selector: Option<LabelSelector>,
    /// Only objects whose labels match this selector are sent.
    pub object_selector: Option<LabelSelector>,
}

/// The kind in one version that admission webhooks are for: what the webhook server and
/// `rop generate` need of it. A custom kind's comes from its `#[rop(...)]`; a built-in kind's
/// (apps/v1 Deployment, v1 Pod, ...) from `#[derive(rop::BuiltinKind)]` on a marker type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AdmissionTarget {
    /// API group; `""` for the core group (Pods, Services, ...).
    pub group: &'static str,
    /// API version, e.g. `v1`.
    pub version: &'static str,
    /// Kind, UpperCamelCase, e.g. `Deployment`.
    pub kind: &'static str,
    /// Lower-case plural resource name, e.g. `deployments`.
    pub plural: &'static str,
    /// The webhooks, at most one mutating and one validating.
    pub webhooks: &'static [Webhook],
}

impl AdmissionTarget {
    /// The mutating (defaulting) webhook, if the kind has one.
    pub fn mutating_webhook(&self) -> Option<&'static Webhook> {
        self.webhooks.iter().find(|w| w.mutating)
    }

    /// The validating webhook, if the kind has one.
    pub fn validating_webhook(&self) -> Option<&'static Webhook> {
        self.webhooks.iter().find(|w| !w.mutating)
    }

    /// `<group>/<version> <kind>`, or `<version> <kind>` for the core group, for messages.
    pub fn name(&self) -> String {
        if self.group.is_empty() {
            format!("{} {}", self.version, self.kind)
        } else {
            format!("{}/{} {}", self.group, self.version, self.kind)
        }
    }
}

/// Everything a CRD version and the kind's controller need to know about a kind, as written in
/// its `#[rop(...)]` attribute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KindDefinition {
    /// API group, e.g. `cache.example.com`.
    pub group: &'static str,
    /// API version, e.g. `v1alpha1`.
    pub version: &'static str,
    /// Kind, UpperCamelCase, e.g. `Memcached`.
    pub kind: &'static str,
    /// Lower-case plural used in URLs and the CRD name, e.g. `memcacheds`.
    pub plural: &'static str,
    /// Lower-case singular, e.g. `memcached`.
    pub singular: &'static str,
    /// `true` for `scope: Namespaced`, `false` for `scope: Cluster`.
    pub namespaced: bool,
    /// Short names `kubectl` accepts for the plural, e.g. `mc` (`spec.names.shortNames`, one
    /// `shortname = "..."` each).
    pub short_names: &'static [&'static str],
    /// Groups of resources the kind is in, e.g. `all` for `kubectl get all`
    /// (`spec.names.categories`, one `category = "..."` each).
    pub categories: &'static [&'static str],
    /// The version's extra `kubectl get` columns (`versions[].additionalPrinterColumns`, one
    /// `printcolumn(...)` each).
    pub printer_columns: &'static [PrinterColumn],
    /// Whether the kind has a `status` and the status subresource.
    pub has_status: bool,
    /// The version's scale subresource (`versions[].subresources.scale`, from `scale(...)`).
    pub scale: Option<Scale>,
    /// Whether this version is the storage version. A kind has exactly one.
    pub storage: bool,
    /// Whether this version is served by the API server.
    pub served: bool,
    /// `Some(warning)` marks the version deprecated; an empty warning uses the server's default.
    pub deprecated: Option<&'static str>,
    /// Description of the root schema (the doc comment of the kind).
    pub description: &'static str,
    /// Extra RBAC rules of the kind's controller (`rbac(...)`).
    pub rbac: &'static [RbacRule],
    /// Kinds the controller creates and owns (owner references to this kind): it watches them
    /// and needs get, list, watch, create, update, patch and delete on them.
    pub owns: &'static [RelatedKind],
    /// Kinds the controller only reads: it watches them (a change reconciles the object of this
    /// kind named in their owner references) and needs get, list and watch.
    pub watches: &'static [RelatedKind],
    /// Admission webhooks for this version (`webhook(...)`), at most one mutating and one
    /// validating.
    pub webhooks: &'static [Webhook],
    /// JSON paths of the version's `selectableFields` (controller-gen
    /// `+kubebuilder:selectablefield`): fields usable in field selectors.
    pub selectable_fields: &'static [&'static str],
    /// Labels of the CRD object itself (controller-gen `+kubebuilder:metadata:labels`).
    pub labels: &'static [(&'static str, &'static str)],
    /// Annotations of the CRD object itself (controller-gen `+kubebuilder:metadata:annotations`).
    pub annotations: &'static [(&'static str, &'static str)],
    /// Leave this version out of the merged CRD (controller-gen `+kubebuilder:skipversion`).
    pub skip_version: bool,
    /// Cap on every description in the schema (controller-gen's `crd:maxDescLen`): `Some(0)`
    /// drops them, `Some(n)` cuts longer ones to their last full sentence within `n` bytes.
    pub max_desc_len: Option<usize>,
    /// Whether a kind with a status has the status subresource (`status_subresource = false`
    /// leaves it out: the status is then written with the rest of the object, as in a CRD
    /// without `subresources.status`).
    pub status_subresource: bool,
}

impl KindDefinition {
    /// `<plural>.<group>`: the name of the kind's `CustomResourceDefinition`.
    pub fn crd_name(&self) -> String {
        format!("{}.{}", self.plural, self.group)
    }

    /// `<group>/<version>`.
    pub fn api_version(&self) -> String {
        format!("{}/{}", self.group, self.version)
    }

    /// The kind's mutating (`true`) or validating (`false`) webhook, if it has one.
    pub fn webhook(&self, mutating: bool) -> Option<&'static Webhook> {
        self.webhooks.iter().find(|w| w.mutating == mutating)
    }
}

/// What the controller of a kind needs beyond the object type: the kind's names, the kinds it
/// owns and watches, its extra RBAC rules and its finalizer. A custom kind's comes from its
/// `#[rop(...)]`; a built-in kind's from `#[rop(controller, ...)]` on its
/// `#[derive(rop::BuiltinKind)]` marker type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ControllerDefinition {
    /// API group; `""` for the core group.
    pub group: &'static str,
    /// API version, e.g. `v1`.
    pub version: &'static str,
    /// Kind, UpperCamelCase; lower-cased, it names the controller (metrics, field manager,
    /// Events), as kubebuilder's `Named("<kind>")`.
    pub kind: &'static str,
    /// Lower-case plural resource name, in the controller's RBAC rules.
    pub plural: &'static str,
    /// Kinds the controller creates and owns: it watches them, and may write them.
    pub owns: &'static [RelatedKind],
    /// Kinds the controller only reads and watches.
    pub watches: &'static [RelatedKind],
    /// Extra RBAC rules (`rbac(...)`).
    pub rbac: &'static [RbacRule],
    /// The finalizer's name: `<group>/finalizer` for a custom kind, as kubebuilder's examples
    /// name it, or its `finalizer = "..."`; a built-in kind's `controller(finalizer = "...")`,
    /// empty when not given. The controller puts it on every live object when the kind
    /// declares it (`ControllerTarget::Cleanup` is `Cleanup`), and otherwise removes it from a
    /// deleted object that still carries it from an earlier version of the controller.
    pub finalizer: &'static str,
}

/// Whether two strings are equal, in a `const` context: `#[derive(rop::BuiltinKind)]` checks
/// at compile time that a marker's `group`, `version`, `kind` and `plural` are those of its
/// `object` type (k8s-openapi's `Resource` constants), so a marker cannot name one kind and
/// reconcile another.
pub const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}
