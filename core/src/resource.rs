//! The traits `#[derive(CustomResource)]` and `#[derive(BuiltinKind)]` implement: a kind's facts
//! ([`crate::definition`]) tied to its Rust types, and what is built from them.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use schemars::JsonSchema;

use crate::definition::{AdmissionTarget, ControllerDefinition, KindDefinition};
use crate::schema::structural_schema_for;
use crate::{crd, rbac, schema};

/// A type that stands for a kind in a controller or webhook: every `#[derive(CustomResource)]`
/// root type (its `Object` is itself), and every `#[derive(rop::BuiltinKind)]` marker type (its
/// `Object` is the k8s-openapi type, e.g. `k8s_openapi::api::apps::v1::Deployment`). Both derives
/// implement it; user code names the objects as [`ObjectOf<K>`].
///
/// The derives implement it and the traits built on it ([`WebhookTarget`], [`ControllerTarget`],
/// [`MutatingWebhookTarget`], [`ValidatingWebhookTarget`]); a project never implements them by
/// hand. They appear in the bounds of `rop::controller::Reconciler` and the webhook traits.
pub trait Target {
    /// The type of the kind's objects, as the API server sends them and reconcilers get them.
    type Object;
}

/// The objects of kind `K`: `K` itself for a custom kind, the k8s-openapi type for a built-in
/// kind's marker type. What a reconciler, a defaulter and a validator of `K` are handed.
pub type ObjectOf<K> = <K as Target>::Object;

/// Something admission webhooks can be registered for: every `#[derive(CustomResource)]` root
/// type, and every `#[derive(rop::BuiltinKind)]` marker type ([`Target`]).
pub trait WebhookTarget: Target {
    /// The kind and its webhooks.
    const TARGET: AdmissionTarget;
}

/// A [`WebhookTarget`] with a mutating (defaulting) webhook: the derives implement it for a kind
/// whose `#[rop(...)]` has `webhook(mutating, ...)`, so a defaulter for a kind without one is
/// refused at compile time.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no defaulting webhook",
    label = "no #[rop(webhook(mutating))] on this kind",
    note = "add #[rop(webhook(mutating))] to its spec type, or to its #[derive(rop::BuiltinKind)] type (`rop create webhook --defaulting` does), then `make manifests`"
)]
pub trait MutatingWebhookTarget: WebhookTarget {}

/// A [`WebhookTarget`] with a validating webhook: the derives implement it for a kind whose
/// `#[rop(...)]` has `webhook(validating, ...)`, so a validator for a kind without one is
/// refused at compile time.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no validating webhook",
    label = "no #[rop(webhook(validating))] on this kind",
    note = "add #[rop(webhook(validating))] to its spec type, or to its #[derive(rop::BuiltinKind)] type (`rop create webhook --programmatic-validation` does), then `make manifests`"
)]
pub trait ValidatingWebhookTarget: WebhookTarget {}

/// Implemented by `#[derive(CustomResource)]` for every root type.
///
/// `Spec` and `Status` are the user's types; their JSON schemas become the CRD's
/// `spec` and `status` properties. A kind without status uses `()` as `Status`.
pub trait CustomResource {
    /// The spec type, the one `#[derive(CustomResource)]` is on; its schema is the CRD's
    /// `spec` property.
    type Spec: JsonSchema;
    /// The type named by `status = "..."` in `#[rop(...)]`, `()` when there is none; its schema
    /// is the CRD's `status` property.
    type Status: JsonSchema;

    /// The kind's facts from its `#[rop(...)]` attribute.
    #[doc(hidden)]
    const DEFINITION: KindDefinition;

    /// This version's `CustomResourceDefinition` (a single version; see [`crd::merge`]).
    ///
    /// # Panics
    /// When schemars produces a schema `JSONSchemaProps` cannot hold, which would be a bug in
    /// [`crate::schema`].
    fn custom_resource_definition() -> CustomResourceDefinition {
        // The generic part stays this thin: the schemas of `Spec` and `Status`. Everything
        // else is assembled once, not once per kind.
        let status = Self::DEFINITION.has_status.then(structural_schema_for::<Self::Status>);
        let root =
            crd::root_schema(&Self::DEFINITION, structural_schema_for::<Self::Spec>(), status, Self::root_rules());
        crd::for_definition(&Self::DEFINITION, root)
    }

    #[doc(hidden)]
    /// The nodes of the spec's and status's schemas that keep unknown fields only because serde
    /// writes their values as more than one JSON type (see [`schema::Unstructured`]); `rop
    /// generate` refuses the kind while there is one. Paths start at `spec` / `status`.
    fn unstructured_nodes() -> Vec<schema::Unstructured> {
        let mut found = schema::structural_schema_checked::<Self::Spec>("spec").1;
        if Self::DEFINITION.has_status {
            found.extend(schema::structural_schema_checked::<Self::Status>("status").1);
        }
        found
    }

    #[doc(hidden)]
    /// This version's CRD with its `#[rop(skip_version)]`, as [`crd::merge`] takes it.
    fn version_crd() -> crd::VersionCrd {
        crd::VersionCrd { crd: Self::custom_resource_definition(), skip: Self::DEFINITION.skip_version }
    }

    #[doc(hidden)]
    /// The `x-kubernetes-validations` rules on the root of the schema (`root_validation(...)`
    /// in `#[rop(...)]`, controller-gen's `+kubebuilder:validation:XValidation` on the kind's
    /// type), where `self` is the whole object: `self.metadata.name`, `self.spec`,
    /// `self.status`. None by default.
    fn root_rules() -> Vec<schema::Rule> {
        Vec::new()
    }

    #[doc(hidden)]
    /// RBAC rules this kind's controller needs: on the kind itself the resource with every verb
    /// a reconciler uses, `/status` get/update/patch and `/finalizers` update (the three
    /// `+kubebuilder:rbac` markers kubebuilder scaffolds on a controller); then the kinds it
    /// owns and watches, and its `rbac(...)` rules. Owned and watched kinds thus always have
    /// the permissions their watches need.
    fn rbac_rules() -> Vec<rbac::Rule> {
        rbac::Rule::for_kind(&Self::DEFINITION)
    }
}

/// A kind a controller can reconcile, as `rop::controller::Reconciler::Kind` names it: every
/// `#[derive(CustomResource)]` root type (its `Object` is itself), and every
/// `#[derive(rop::BuiltinKind)]` marker type with `controller` (its `Object` is the k8s-openapi
/// type, e.g. `k8s_openapi::api::core::v1::ServiceAccount`), as [`WebhookTarget`] for webhooks.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a kind a controller can reconcile",
    label = "not a `#[derive(CustomResource)]` root type, nor a `#[derive(rop::BuiltinKind)]` marker with `controller`",
    note = "a controller for a built-in kind names its marker type in api/src/builtin.rs (`rop create api --group core --version v1 --kind ServiceAccount --resource=false` writes it), with #[rop(controller)] on it"
)]
pub trait ControllerTarget: Target {
    /// What the controller's cleanup returns: [`crate::Cleanup`] for a kind with a finalizer
    /// (its objects carry it while they live), [`crate::NoFinalizer`] for one without.
    type Cleanup: crate::CleanupOutcome;

    #[doc(hidden)]
    /// The kind and what its controller watches.
    const CONTROLLER: ControllerDefinition;

    /// The conditions of `object`'s status, when its status type has them
    /// ([`crate::conditions::HasConditions`]); none otherwise. The runtime reads its `Stalled`
    /// condition here. `#[derive(CustomResource)]` implements it; a built-in kind's status is
    /// not its controller's to write, so it has none.
    #[doc(hidden)]
    fn status_conditions(object: &Self::Object) -> &[k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition] {
        let _ = object;
        &[]
    }
}

/// Implemented by `#[derive(rop::BuiltinKind)]`: a marker type for a kind Kubernetes itself
/// serves, carrying this project's admission webhooks for it ([`WebhookTarget`]) and, with
/// `controller`, the facts of its controller ([`ControllerTarget`]).
pub trait BuiltinKind: WebhookTarget {
    #[doc(hidden)]
    /// The controller's definition with `#[rop(controller)]`, else `None`.
    const CONTROLLER: Option<ControllerDefinition>;

    #[doc(hidden)]
    /// RBAC rules the kind's controller needs (see [`rbac::Rule::for_controller`]);
    /// none without `controller`.
    fn rbac_rules() -> Vec<rbac::Rule> {
        <Self as BuiltinKind>::CONTROLLER.map(|c| rbac::Rule::for_controller(&c)).unwrap_or_default()
    }
}
