//! Defaulting and validating admission: the traits a project implements per kind, and the
//! review handling around them.

use std::future::Future;

use kube::Client;
use kube_core::DynamicObject;
use kube_core::admission::{AdmissionRequest, AdmissionResponse, AdmissionReview, Operation};
use kube_core::response::Status;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::request::Request;
use crate::ObjectOf;
use crate::{MutatingWebhookTarget, ValidatingWebhookTarget};

/// Fills in defaults of a kind's objects before the API server stores them (a mutating
/// admission webhook; controller-runtime's `CustomDefaulter`).
///
/// Change the object in place; the server sends the API server the JSON patch from the object
/// it received to the changed one. Called on the operations of the kind's
/// `#[rop(webhook(mutating, ...))]` attribute (default `CREATE` and `UPDATE`). The [`Request`]
/// has the object as stored before an update and the manager's client.
pub trait Defaulter: Send + Sync + 'static {
    /// What the webhook is for: a root type such as `v1::Memcached`, or a built-in kind's
    /// marker type (`#[derive(rop::BuiltinKind)]`), with `#[rop(webhook(mutating))]`: a kind
    /// without it does not compile here.
    type Kind: MutatingWebhookTarget<Object: Serialize + DeserializeOwned + Send + Sync> + 'static;

    /// Sets the defaults on `object`.
    ///
    /// # Errors
    /// [`Denied`] refuses the request with its message.
    fn default(
        &self,
        object: &mut ObjectOf<Self::Kind>,
        request: &Request<'_, Self::Kind>,
    ) -> impl Future<Output = Result<(), Denied>> + Send;
}

/// Checks a kind's objects beyond what its OpenAPI schema and CEL rules can say (a validating
/// admission webhook; controller-runtime's `CustomValidator`).
///
/// Each check returns the warnings to show the user (`kubectl` prints them), or [`Denied`].
/// `validate_delete` is called only when the webhook's `operations` include `DELETE`. The
/// [`Request`] has who asked and the manager's client, to check an object against others.
pub trait Validator: Send + Sync + 'static {
    /// What the webhook is for, as [`Defaulter::Kind`], with `#[rop(webhook(validating))]`.
    type Kind: ValidatingWebhookTarget<Object: Serialize + DeserializeOwned + Send + Sync> + 'static;

    /// Checks an object about to be created.
    fn validate_create(
        &self,
        object: &ObjectOf<Self::Kind>,
        request: &Request<'_, Self::Kind>,
    ) -> impl Future<Output = Verdict> + Send;

    /// Checks an update from `old` to `new`.
    fn validate_update(
        &self,
        old: &ObjectOf<Self::Kind>,
        new: &ObjectOf<Self::Kind>,
        request: &Request<'_, Self::Kind>,
    ) -> impl Future<Output = Verdict> + Send;

    /// Checks an object about to be deleted.
    fn validate_delete(
        &self,
        object: &ObjectOf<Self::Kind>,
        request: &Request<'_, Self::Kind>,
    ) -> impl Future<Output = Verdict> + Send;
}

/// What a validation check decides: allowed with these warnings (often none), or [`Denied`].
pub type Verdict = Result<Vec<String>, Denied>;

/// A refused admission request: the API server answers the user with
/// `admission webhook "<name>" denied the request: <message>` (HTTP 403).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Denied {
    /// Why, in words the user can act on.
    pub message: String,
    /// Warnings to show along with the refusal.
    pub warnings: Vec<String>,
}

impl Denied {
    /// A refusal with `message` and no warnings.
    pub fn new(message: impl Into<String>) -> Denied {
        Denied { message: message.into(), warnings: Vec::new() }
    }

    /// The same refusal with one more warning.
    #[must_use]
    pub fn with_warning(mut self, warning: impl Into<String>) -> Denied {
        self.warnings.push(warning.into());
        self
    }
}

/// Reads the request of an `AdmissionReview`, or the review to answer when there is none.
fn request_of(body: Value) -> Result<AdmissionRequest<DynamicObject>, Value> {
    let review: AdmissionReview<DynamicObject> = serde_json::from_value(body)
        .map_err(|e| review_json(AdmissionResponse::invalid(format!("the body is not an AdmissionReview: {e}"))))?;
    review.try_into().map_err(|_| review_json(AdmissionResponse::invalid("the AdmissionReview has no request")))
}

/// An object of the request as JSON and as `K`; the review refusing the request when it does
/// not decode as `K` (the API server sent another version, or the schema and the types differ).
fn decode<K: DeserializeOwned>(
    request: &AdmissionRequest<DynamicObject>,
    object: &DynamicObject,
) -> Result<(Value, K), Value> {
    let json = serde_json::to_value(object).map_err(|e| review_json(refuse(request, &Denied::new(e.to_string()))))?;
    let typed = serde_json::from_value(json.clone()).map_err(|e| {
        let message = format!("the object does not decode as {}: {e}", std::any::type_name::<K>());
        review_json(refuse(request, &Denied::new(message)))
    })?;
    Ok((json, typed))
}

/// The refusal of `request`: allowed false, status 403 Forbidden with the message.
fn refuse(request: &AdmissionRequest<DynamicObject>, denied: &Denied) -> AdmissionResponse {
    let mut response = AdmissionResponse::from(request);
    response.allowed = false;
    response.result = Status::failure(&denied.message, "Forbidden").with_code(403);
    response.warnings = (!denied.warnings.is_empty()).then(|| denied.warnings.clone());
    response
}

fn review_json(response: AdmissionResponse) -> Value {
    serde_json::to_value(response.into_review()).expect("an AdmissionReview always serialises")
}

/// Answers a mutating `AdmissionReview` with `defaulter`.
pub(crate) async fn default<D: Defaulter>(defaulter: &D, body: Value, client: Client) -> Value {
    let request = match request_of(body) {
        Ok(request) => request,
        Err(invalid) => return invalid,
    };
    let Some(object) = &request.object else {
        // DELETE and CONNECT carry no new object: nothing to default.
        return review_json(AdmissionResponse::from(&request));
    };
    let (original, mut typed) = match decode::<ObjectOf<D::Kind>>(&request, object) {
        Ok(decoded) => decoded,
        Err(refusal) => return refusal,
    };
    let old = match &request.old_object {
        Some(old) => match decode::<ObjectOf<D::Kind>>(&request, old) {
            Ok((_, old)) => Some(old),
            Err(refusal) => return refusal,
        },
        None => None,
    };
    let context = Request::<D::Kind>::new(&request, old.as_ref(), &client);
    if let Err(denied) = defaulter.default(&mut typed, &context).await {
        return review_json(refuse(&request, &denied));
    }
    // The defaulter may have set a value its type cannot write (a custom `Serialize` that
    // fails): the request is refused with the reason, and the server keeps running.
    let defaulted = match serde_json::to_value(&typed) {
        Ok(defaulted) => defaulted,
        Err(e) => {
            let message = format!("the defaulted object cannot be written as JSON: {e}");
            return review_json(refuse(&request, &Denied::new(message)));
        }
    };
    let patch = json_patch::diff(&original, &defaulted);
    let response = AdmissionResponse::from(&request);
    if patch.0.is_empty() {
        return review_json(response);
    }
    match response.with_patch(patch) {
        Ok(response) => review_json(response),
        Err(e) => review_json(refuse(&request, &Denied::new(e.to_string()))),
    }
}

/// Answers a validating `AdmissionReview` with `validator`.
pub(crate) async fn validate<V: Validator>(validator: &V, body: Value, client: Client) -> Value {
    let request = match request_of(body) {
        Ok(request) => request,
        Err(invalid) => return invalid,
    };
    let object = |o: &Option<DynamicObject>, what: &str| {
        o.as_ref()
            .ok_or_else(|| {
                let message = format!("the {:?} request has no {what}", request.operation);
                review_json(refuse(&request, &Denied::new(message)))
            })
            .and_then(|o| decode::<ObjectOf<V::Kind>>(&request, o).map(|(_, typed)| typed))
    };
    let verdict = match request.operation {
        Operation::Create => match object(&request.object, "object") {
            Ok(new) => validator.validate_create(&new, &Request::new(&request, None, &client)).await,
            Err(refusal) => return refusal,
        },
        Operation::Update => match (object(&request.old_object, "oldObject"), object(&request.object, "object")) {
            (Ok(old), Ok(new)) => {
                validator.validate_update(&old, &new, &Request::new(&request, Some(&old), &client)).await
            }
            (Err(refusal), _) | (_, Err(refusal)) => return refusal,
        },
        Operation::Delete => match object(&request.old_object, "oldObject") {
            Ok(old) => validator.validate_delete(&old, &Request::new(&request, Some(&old), &client)).await,
            Err(refusal) => return refusal,
        },
        Operation::Connect => Ok(Vec::new()),
    };
    match verdict {
        Ok(warnings) => {
            let mut response = AdmissionResponse::from(&request);
            response.warnings = (!warnings.is_empty()).then_some(warnings);
            review_json(response)
        }
        Err(denied) => review_json(refuse(&request, &denied)),
    }
}
