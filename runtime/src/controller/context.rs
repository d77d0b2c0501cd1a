//! What a reconciler calls: the client, server-side apply of owned objects, status writes and
//! Events.

use std::fmt::Debug;
use std::marker::PhantomData;
use std::sync::Arc;

use kube::api::{Patch, PatchParams};
use kube::core::object::HasStatus;
use kube::runtime::events::{Event, EventType, Recorder, Reporter};
use kube::{Api, Client, Resource, ResourceExt};
use serde::Serialize;
use serde::de::DeserializeOwned;
use tracing::{debug, warn};

use super::error::{ApplyError, error_chain};
use super::owned::Owned;
use super::scope::{self, Kind, KindScope};
use super::written::Written;
use crate::ObjectOf;

/// The controller's handle on the cluster, shared by every pass of one controller.
///
/// Writes carry the controller's name: server-side apply uses the field manager
/// `<controller>-controller` and Events the reporting controller of the same name (as
/// kubebuilder's `mgr.GetEventRecorderFor("<kind>-controller")`), with the instance from the
/// `POD_NAME` environment variable.
pub struct Context<K> {
    client: Client,
    controller: String,
    field_manager: String,
    recorder: Recorder,
    owned: Arc<Owned>,
    written: Arc<Written>,
    kind: PhantomData<fn() -> K>,
}

// By hand: a derive would ask `K: Clone` of the kind's marker type.
impl<K> Clone for Context<K> {
    fn clone(&self) -> Self {
        Self {
            client: self.client.clone(),
            controller: self.controller.clone(),
            field_manager: self.field_manager.clone(),
            recorder: self.recorder.clone(),
            owned: Arc::clone(&self.owned),
            written: Arc::clone(&self.written),
            kind: PhantomData,
        }
    }
}

impl<K: Kind> Context<K> {
    /// A context whose applies know the objects `owned` watches.
    pub(crate) fn with_owned(client: Client, controller: &str, owned: Owned) -> Self {
        let field_manager = format!("{controller}-controller");
        let reporter = Reporter { controller: field_manager.clone(), instance: std::env::var("POD_NAME").ok() };
        Self {
            recorder: Recorder::new(client.clone(), reporter),
            client,
            controller: controller.into(),
            field_manager,
            owned: Arc::new(owned),
            written: Arc::default(),
            kind: PhantomData,
        }
    }

    /// The manager's client, for reads and writes the helpers here do not cover.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// The controller's name: the lower-cased kind, as in the metrics' `controller` label.
    pub fn controller(&self) -> &str {
        &self.controller
    }

    /// The API for objects of the kind in `object`'s namespace (all of them for a cluster-scoped
    /// kind).
    pub fn api(&self, object: &ObjectOf<K>) -> Api<ObjectOf<K>> {
        scope::api(self.client.clone(), object.meta().namespace.as_deref())
    }

    /// Creates or updates `desired` with server-side apply, as owned by `owner`, and returns it as
    /// the API server stored it (without `metadata.managedFields`).
    ///
    /// `desired` holds only the fields the controller manages (build it from scratch, not from an
    /// object read back: a `resourceVersion` would make the apply conditional). The runtime adds
    /// `owner`'s controller owner reference (so the garbage collector deletes it with `owner`, and
    /// a change to it reconciles `owner` when the kind `owns` it) and, for a namespaced object
    /// without a namespace, `owner`'s namespace. The apply forces conflicts: fields this
    /// controller managed and someone else changed are taken back, fields it never set are left
    /// alone, and an apply that changes nothing is not a write (the resourceVersion stays). It
    /// is sent with `fieldValidation=Ignore`: by default (`Warn`) the API server decodes an
    /// apply a second time to look for duplicate keys, which serde's output never has, about a
    /// fifth of the API server's CPU for the apply of a Deployment (docs/benchmarks.md). An
    /// unknown field (a Rust type newer than the installed CRD) fails the apply either way
    /// (`field not declared in schema`). For
    /// a kind in `#[rop(owns(...))]` or `watches(...)`, an apply of the same object the last one
    /// sent, while the watch shows it unchanged since, is not even sent: the object that apply
    /// returned is returned again.
    ///
    /// An object of that name that exists and is not controlled by `owner` is never adopted,
    /// whether it has no controller or another one (controller-runtime's `AlreadyOwnedError`
    /// covers only the second): the apply fails, the pass fails, and its error names the
    /// object in the Warning Event and, for `rop::workload`, the `Degraded` condition. The
    /// check reads the watch of a kind in `#[rop(owns(...))]` or `watches(...)`, at no cost;
    /// for other kinds the API server refuses only a second controller.
    ///
    /// # Errors
    /// [`ApplyError`], naming the object, with the API server's refusal as its source: an
    /// invalid object, no RBAC permission for the kind (`#[rop(owns(...))]` gives it), or an
    /// object of that name another controller owns; for an owned or watched kind, an object of
    /// that name not controlled by `owner`: a `409 AlreadyExists` written here, not by the
    /// server (its reason is `AlreadyExists`).
    pub async fn apply<D>(&self, owner: &ObjectOf<K>, mut desired: D) -> Result<D, ApplyError>
    where
        D: Resource<DynamicType = (), Scope: KindScope> + Clone + Debug + Serialize + DeserializeOwned,
    {
        if let Some(reference) = owner.controller_owner_ref(&()) {
            let references = desired.meta_mut().owner_references.get_or_insert_with(Vec::new);
            if !references.iter().any(|r| r.uid == reference.uid) {
                references.push(reference);
            }
        }
        if <D::Scope as KindScope>::NAMESPACED && desired.meta().namespace.is_none() {
            desired.meta_mut().namespace = owner.namespace();
        }
        let object = match desired.namespace() {
            Some(namespace) => format!("{} {namespace}/{}", D::kind(&()), desired.name_any()),
            None => format!("{} {}", D::kind(&()), desired.name_any()),
        };
        self.apply_owned(owner, desired).await.map_err(|source| ApplyError::new(object, source))
    }

    /// [`Context::apply`] of `desired` with its owner reference and namespace set, with the
    /// API server's answer as it came.
    async fn apply_owned<D>(&self, owner: &ObjectOf<K>, desired: D) -> Result<D, kube::Error>
    where
        D: Resource<DynamicType = (), Scope: KindScope> + Clone + Debug + Serialize + DeserializeOwned,
    {
        if let Some(stored) = self.owned.unchanged(&desired) {
            return Ok(stored);
        }
        if let Some(uid) = owner.uid()
            && let Some(controller) = self.owned.foreign_controller(&self.client, &desired, &uid).await?
        {
            return Err(not_adopted(owner, controller));
        }
        let api: Api<D> = scope::api(self.client.clone(), desired.meta().namespace.as_deref());
        let params = PatchParams::apply(&self.field_manager).force().validation_ignore();
        let mut stored = api.patch(&desired.name_any(), &params, &Patch::Apply(&desired)).await?;
        // Often half of the object, and of no use to a pass: the apply is what manages fields.
        stored.meta_mut().managed_fields = None;
        self.owned.record(&desired, &stored);
        Ok(stored)
    }

    /// Writes `status` into `object`'s status subresource, unless `object` already reports
    /// exactly that. Returns whether it wrote.
    ///
    /// The write is a JSON merge patch of the status subresource, sent with
    /// `fieldValidation=Ignore`: the API server drops a field its schema does not have (a Rust
    /// type newer than the installed CRD) either way, and the warning it would send otherwise
    /// is never read.
    ///
    /// Build `status` from `object` and what was observed, with conditions set through
    /// [`HasConditions::set_condition`](crate::conditions::HasConditions::set_condition) (whose times only move when a condition's status does), so a
    /// converged object is not written at all. Nor is a status this controller wrote on top of
    /// the very version of `object` its cache still shows (the watch has not caught up yet).
    ///
    /// # Errors
    /// The API server's refusal (a status its CRD's schema refuses, a deleted object).
    pub async fn update_status(
        &self,
        object: &ObjectOf<K>,
        status: <ObjectOf<K> as HasStatus>::Status,
    ) -> Result<bool, kube::Error>
    where
        ObjectOf<K>: HasStatus,
        <ObjectOf<K> as HasStatus>::Status: Serialize + PartialEq,
    {
        if object.status() == Some(&status) || self.written.done(object, "status", &status) {
            return Ok(false);
        }
        let patch = serde_json::json!({ "status": status });
        let params = PatchParams::default().validation_ignore();
        self.api(object).patch_status(&object.name_any(), &params, &Patch::Merge(&patch)).await?;
        self.written.record(object, "status", &status);
        debug!(controller = %self.controller, name = %object.name_any(), "status updated");
        Ok(true)
    }

    /// Records an Event about `object` (`kubectl describe` shows it): `reason` in UpperCamelCase,
    /// `note` for people. Repeats of the same Event are counted into one series. Best effort:
    /// an Event the API server refuses is logged, never an error of the pass.
    pub async fn event(&self, object: &ObjectOf<K>, type_: EventType, reason: &str, note: impl Into<String>) {
        let event = Event {
            type_,
            reason: reason.into(),
            note: Some(shorten(note.into(), MAX_NOTE)),
            action: "Reconcile".into(),
            secondary: None,
        };
        if let Err(err) = self.recorder.publish(&event, &object.object_ref(&())).await {
            let message = error_chain(&err);
            super::forbidden::log_missing_rule(&message);
            warn!(controller = %self.controller, name = %object.name_any(), error = message, "cannot record an Event");
        }
    }
}

/// The most characters an Event's note may have (events.k8s.io/v1 validation: 1024); a longer
/// one makes the API server refuse the whole Event.
const MAX_NOTE: usize = 1024;

/// `text` cut to `max` characters, the last three `...` when it was longer.
fn shorten(text: String, max: usize) -> String {
    if text.chars().count() <= max {
        return text;
    }
    let mut short: String = text.chars().take(max - 3).collect();
    short.push_str("...");
    short
}

/// The error of an apply that would adopt the object: a `409 AlreadyExists` naming its
/// `controller` (`None`: none) and what to do. [`ApplyError`] names the object.
fn not_adopted<O: Resource>(owner: &O, controller: Option<String>) -> kube::Error
where
    O::DynamicType: Default,
{
    let held = match controller {
        Some(controller) => format!("is controlled by {controller}"),
        None => "has no controller".to_string(),
    };
    let owner = format!("{} {}", O::kind(&O::DynamicType::default()), owner.name_any());
    let message = format!("it already exists and {held}, not {owner}: it is not adopted; delete it, or rename {owner}");
    kube::Error::Api(Box::new(kube::core::Status::failure(&message, "AlreadyExists").with_code(409)))
}

impl<K: Kind> Context<K> {
    /// What this controller wrote on top of versions its cache may still show.
    pub(crate) fn written(&self) -> &Written {
        &self.written
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_object_not_adopted_is_named_with_its_controller() {
        use k8s_openapi::api::core::v1::ConfigMap;
        let owner = ConfigMap {
            metadata: kube::api::ObjectMeta { name: Some("web".into()), ..Default::default() },
            ..Default::default()
        };
        let error = super::ApplyError::new("ConfigMap shop/web".into(), super::not_adopted(&owner, None));
        let expected = "failed to apply ConfigMap shop/web: ApiError: it already exists and has no controller, not ConfigMap web: it is not adopted; delete it, or rename ConfigMap web: AlreadyExists";
        assert!(super::error_chain(&error).starts_with(expected), "{}", super::error_chain(&error));
        assert_eq!(super::super::error::error_reason(&error), "already_exists");
        let error = super::not_adopted(&owner, Some("Memcached other".into()));
        assert!(
            error.to_string().contains("it already exists and is controlled by Memcached other, not ConfigMap web"),
            "{error}"
        );
    }

    #[test]
    fn a_long_note_is_cut_to_what_the_api_server_takes() {
        let long = "é".repeat(2000);
        let short = super::shorten(long, super::MAX_NOTE);
        assert_eq!(short.chars().count(), 1024);
        assert!(short.ends_with("é..."));
        assert_eq!(super::shorten("fine".into(), super::MAX_NOTE), "fine");
    }
}
