//! The I/O-free core of rop: what `#[derive(CustomResource)]` and `#[derive(BuiltinKind)]`
//! record about a kind, and the Kubernetes manifests made from those facts. It reads no files,
//! opens no connections and runs no controllers; the `rop` crate, which generated projects
//! depend on, re-exports all of it next to the controller runtime.
//!
//! - [`schema`]: schemars output → structural OpenAPI v3 schemas the API server accepts;
//! - [`crd`]: one `CustomResourceDefinition` per kind, all versions merged, one storage version;
//! - [`rbac`]: the RBAC rules controllers need, normalised the way controller-gen does;
//! - [`manifests`]: the generator entry point a project's `manifests` binary calls, and the
//!   assembly of the files `rop generate` writes under `config/`;
//! - [`webhook_configuration`]: `config/webhook/manifests.yaml` from the kinds' webhooks;
//! - [`conversion`]: hub-and-spoke conversion between the versions of a kind;
//! - [`conditions`]: status conditions with apimachinery's `meta.SetStatusCondition` semantics;
//! - [`names`]: Kubernetes name rules and the plural of a kind (the `rop-names` crate).

#![deny(missing_docs)]

mod cleanup;
pub mod conditions;
pub mod conversion;
pub mod crd;
mod definition;
pub mod manifests;
pub mod rbac;
mod resource;
pub mod schema;
pub mod webhook_configuration;
pub mod yaml;

pub use cleanup::CleanupOutcome;
pub use cleanup::{Cleanup, NoFinalizer};
pub use definition::{
    AdmissionTarget, BuiltinResource, ControllerDefinition, KindDefinition, LabelSelector, PrinterColumn, RbacRule,
    RelatedKind, Scale, SelectorRequirement, Webhook,
};
pub use resource::{
    BuiltinKind, ControllerTarget, CustomResource, MutatingWebhookTarget, ObjectOf, Target, ValidatingWebhookTarget,
    WebhookTarget,
};
/// Kubernetes name rules and the plural of a kind, as the derive, the CLI and the verifier
/// apply them.
pub use rop_names as names;

/// What the derive's expansion calls in a `const` context.
#[doc(hidden)]
pub use definition::str_eq;
