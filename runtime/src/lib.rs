//! The runtime of operators scaffolded by `rop`: what a generated project depends on.
//!
//! Generated API crates put `#[derive(CustomResource)]` on a `FooSpec` struct; the derive emits the
//! root type `Foo` and implements [`CustomResource`] for it. The I/O-free part, re-exported
//! here from `rop-core`:
//!
//! - [`manifests`]: the entry point of a project's `manifests` binary, which `rop generate`
//!   runs to write the CRDs, RBAC rules and webhook configurations under `config/`;
//! - [`conversion`]: hub-and-spoke conversion between the versions of a kind;
//! - [`conditions`]: status conditions with apimachinery's `meta.SetStatusCondition` semantics;
//! - [`names`]: Kubernetes name rules and the plural of a kind.
//!
//! The features add what the project's manager binary runs:
//!
//! - `controller`: `controller`, a kind's controller from the project's `Reconciler` on
//!   kube-runtime (finalizer, server-side apply, status, Events, metrics, backoff), and
//!   `workload`, the Deployments and StatefulSets of `rop create api --image` (restricted
//!   Pods, a rollout one ordinal at a time within the disruption budget, their conditions);
//! - `manager` (a generated manager turns it on): `manager`, the manager's flags, probes,
//!   `/metrics`, leader election, logging and shutdown, and the webhook server;
//! - `webhook` (a generated manager turns it on): [`webhook`], the HTTPS server for
//!   defaulting, validating and conversion webhooks;
//! - `otel`: the manager exports a span per reconciliation over OTLP/HTTP;
//! - `k8s-json-schema` (on by default): `JsonSchema` for k8s-openapi's types, so a spec or
//!   status can hold a `Condition`, a `PodTemplateSpec` or a `Quantity`. Only a crate that
//!   never derives a schema (the rop CLI) turns it off, and builds k8s-openapi in a third of
//!   the time.
//!
//! The CRD verifier the `rop` CLI runs is the `rop-verify` crate.

#![deny(missing_docs)]

/// k8s-openapi, the Kubernetes API types, at the version rop is built with: a generated project
/// names it `rop::k8s_openapi` and has no dependency of its own, so upgrading rop upgrades it.
/// The Kubernetes version is a feature of rop's (`v1_37`, ...), as of k8s-openapi's.
pub use k8s_openapi;
/// kube, the Kubernetes client and controller runtime, at the version rop is built with (feature
/// `controller` or `webhook`): `rop::kube::Api`, `rop::kube::ResourceExt`, `rop::kube::Error`.
#[cfg(any(feature = "controller", feature = "webhook"))]
pub use kube;
/// prometheus-client, the metrics library behind the manager's `/metrics`, at the version rop is
/// built with (feature `manager`): a project registers its own metrics in
/// [`manager::Manager::metrics_registry`] with `rop::prometheus_client::metrics::counter::Counter`
/// and the like, with no dependency of its own that could drift from rop's.
#[cfg(feature = "manager")]
pub use prometheus_client;

#[cfg(feature = "controller")]
pub mod controller;
#[cfg(feature = "manager")]
pub mod manager;
#[cfg(feature = "webhook")]
pub mod webhook;
#[cfg(feature = "controller")]
pub mod workload;

pub use rop_core::{
    AdmissionTarget, BuiltinKind, ControllerTarget, CustomResource, LabelSelector, MutatingWebhookTarget, ObjectOf,
    SelectorRequirement, Target, ValidatingWebhookTarget, Webhook, WebhookTarget, conditions, conversion, manifests,
    names,
};
/// The generator's plumbing: what the derives' expansions, the `manifests` binary's entry point
/// and the `rop` CLI name. Not for user code, and not covered by semver; its stable face is
/// [`manifests`] and the derives.
#[doc(hidden)]
pub use rop_core::{
    BuiltinResource, ControllerDefinition, KindDefinition, PrinterColumn, RbacRule, RelatedKind, Scale, crd, rbac,
    schema, webhook_configuration, yaml,
};
/// `#[derive(rop::JsonSchema)]`: schemars' `JsonSchema` derive that also applies `#[rop(...)]`
/// schema markers on the type, its fields and its variants' fields (docs/markers.md). It
/// accepts every `#[schemars(...)]` and `#[serde(...)]` attribute schemars' own derive does.
pub use rop_macros::JsonSchema;
pub use rop_macros::{BuiltinKind, CustomResource};
/// The `JsonSchema` trait (schemars'), so that `use rop::JsonSchema;` brings both the trait
/// and rop's derive.
pub use schemars_trait::*;

mod schemars_trait {
    // A glob re-export: the explicit `rop_macros::JsonSchema` above shadows the derive macro of
    // the same name, so only the trait comes through here.
    pub use schemars::JsonSchema;
}

/// Paths the derive's expansion uses, so a project needs no direct dependency on them.
#[doc(hidden)]
pub mod __private {
    pub use k8s_openapi;
    pub use kube_core;
    pub use schemars;
    pub use serde;
    pub use serde_json;

    pub use rop_core::str_eq;
    pub use rop_core::{Cleanup, NoFinalizer};

    /// Implemented by `#[derive(CustomResource)]` for its spec type, so that kind-level keys
    /// (`group`, `version`, ...) on a type that only derives `rop::JsonSchema` are an error.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` has kind-level #[rop(...)] keys, but does not derive CustomResource",
        label = "kind-level keys (group, version, kind, status, ...) belong on the spec type that derives `rop::CustomResource`",
        note = "on other types, #[rop(...)] takes schema markers only; see docs/markers.md"
    )]
    pub trait KindSpec {}

    /// The schema `rop::JsonSchema` hands on from the mirror type it derives schemars'
    /// `JsonSchema` on. When schemars' derive refuses an attribute (`#[schemars(bogus)]`), its
    /// error is the only one: the mirror then has no `JsonSchema`, and method resolution falls
    /// back from [`MirrorSchema`] (on `Mirror<T>`) to [`MirrorFailed`] (on `&Mirror<T>`),
    /// instead of an E0277 listing every type that implements the trait.
    pub struct Mirror<T>(pub ::core::marker::PhantomData<T>);

    /// The mirror's schema, when schemars' derive made it.
    pub trait MirrorSchema {
        fn schema_name(&self) -> ::std::borrow::Cow<'static, str>;
        fn schema_id(&self) -> ::std::borrow::Cow<'static, str>;
        fn inline_schema(&self) -> bool;
        fn json_schema(&self, generator: &mut schemars::SchemaGenerator) -> schemars::Schema;
    }

    impl<T: schemars::JsonSchema> MirrorSchema for Mirror<T> {
        fn schema_name(&self) -> ::std::borrow::Cow<'static, str> {
            T::schema_name()
        }
        fn schema_id(&self) -> ::std::borrow::Cow<'static, str> {
            T::schema_id()
        }
        fn inline_schema(&self) -> bool {
            T::inline_schema()
        }
        fn json_schema(&self, generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
            T::json_schema(generator)
        }
    }

    /// Never called: a crate where it is chosen does not compile (schemars' derive failed).
    pub trait MirrorFailed {
        fn schema_name(&self) -> ::std::borrow::Cow<'static, str> {
            unreachable!("schemars' derive failed")
        }
        fn schema_id(&self) -> ::std::borrow::Cow<'static, str> {
            unreachable!("schemars' derive failed")
        }
        fn inline_schema(&self) -> bool {
            unreachable!("schemars' derive failed")
        }
        fn json_schema(&self, _: &mut schemars::SchemaGenerator) -> schemars::Schema {
            unreachable!("schemars' derive failed")
        }
    }

    impl<T> MirrorFailed for &Mirror<T> {}
}
