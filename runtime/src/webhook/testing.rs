//! Helpers for testing webhooks without a cluster: build the reviews the API server sends,
//! send them through [`Server::handle`], and read the answers.
//!
//! ```
//! # use rop::webhook::{Defaulter, Denied, Registration, Request, Server};
//! # #[derive(rop::CustomResource, serde::Serialize, serde::Deserialize, Clone, Debug, Default, PartialEq, rop::JsonSchema)]
//! # #[rop(group = "cache.example.com", version = "v1", kind = "Memcached", namespaced)]
//! # #[rop(derive = "PartialEq", webhook(mutating))]
//! # pub struct MemcachedSpec { #[serde(default)] pub size: Option<i32> }
//! /// Sets `size` when the user left it out.
//! pub struct MemcachedDefaulter;
//!
//! impl Defaulter for MemcachedDefaulter {
//!     type Kind = Memcached;
//!
//!     async fn default(&self, object: &mut Memcached, _: &Request<'_, Memcached>) -> Result<(), Denied> {
//!         object.spec.size.get_or_insert(1);
//!         Ok(())
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! use rop::WebhookTarget as _;
//! use rop::webhook::testing;
//!
//! let server = Server::build([Registration::defaulter(MemcachedDefaulter)]).unwrap();
//! let path = Memcached::TARGET.mutating_webhook().unwrap().path;
//! let object = Memcached::new("sample", MemcachedSpec::default());
//! let review = testing::admission_review("CREATE", Some(&object), None);
//! let answer = server.handle(path, review).await.unwrap();
//! assert_eq!(testing::verdict(&answer), Ok(vec![]));
//! let defaulted: Memcached = testing::patched(&answer, &object);
//! assert_eq!(defaulted.spec.size, Some(1));
//! assert_eq!(Ok(defaulted), testing::defaulted(&MemcachedDefaulter, &object).await);
//! # }
//! ```

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::request::{Request, no_client};
use super::{Defaulter, Denied, Server};
use crate::ObjectOf;
use crate::WebhookTarget;

/// An `admission.k8s.io/v1` `AdmissionReview` for an `operation` (`CREATE`, `UPDATE`, `DELETE`)
/// on `object` (absent for `DELETE`) replacing `old` (present for `UPDATE` and `DELETE`), as
/// the API server sends it.
///
/// # Panics
/// When an object does not serialise (it always does for a derived kind).
pub fn admission_review<K>(operation: &str, object: Option<&K>, old: Option<&K>) -> Value
where
    K: kube_core::Resource<DynamicType = ()> + Serialize,
{
    let (group, version, kind, plural) = (K::group(&()), K::version(&()), K::kind(&()), K::plural(&()));
    let name = object.or(old).map(|o| serde_json::to_value(o).expect("the object serialises"));
    let meta = |key: &str| name.as_ref().and_then(|o| o["metadata"].get(key)).cloned();
    let mut review = json!({
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "request": {
            "uid": "00000000-0000-0000-0000-000000000000",
            "kind": {"group": group, "version": version, "kind": kind},
            "resource": {"group": group, "version": version, "resource": plural},
            "requestKind": {"group": group, "version": version, "kind": kind},
            "requestResource": {"group": group, "version": version, "resource": plural},
            "operation": operation,
            "userInfo": {"username": "test"},
            "object": object.map(|o| serde_json::to_value(o).expect("the object serialises")),
            "oldObject": old.map(|o| serde_json::to_value(o).expect("the object serialises")),
            "dryRun": false,
        }
    });
    // The API server leaves out what the object does not have (a generateName object has no
    // name yet, a cluster-scoped one no namespace).
    for key in ["name", "namespace"] {
        if let Some(value) = meta(key) {
            review["request"][key] = value;
        }
    }
    review
}

/// `object` as `defaulter` changes it on a `CREATE`, called directly (no review, no patch): what
/// the object the server's patch gives should equal. The request's client is one whose every
/// call fails (see [`super::Request::client`]).
///
/// # Errors
/// The defaulter's [`Denied`].
///
/// # Panics
/// When `object` does not serialise as JSON.
pub async fn defaulted<D: Defaulter>(defaulter: &D, object: &ObjectOf<D::Kind>) -> Result<ObjectOf<D::Kind>, Denied>
where
    ObjectOf<D::Kind>: Clone,
{
    let target = <D::Kind as WebhookTarget>::TARGET;
    let json = serde_json::to_value(object).expect("the object serialises");
    let review = json!({
        "uid": "00000000-0000-0000-0000-000000000000",
        "kind": {"group": target.group, "version": target.version, "kind": target.kind},
        "resource": {"group": target.group, "version": target.version, "resource": target.plural},
        "operation": "CREATE",
        "userInfo": {"username": "test"},
        "name": json["metadata"]["name"].as_str().unwrap_or_default(),
        "object": json,
        "dryRun": false,
    });
    let review = serde_json::from_value(review).expect("the request is an AdmissionRequest");
    let client = no_client();
    let mut defaulted = object.clone();
    defaulter.default(&mut defaulted, &Request::<D::Kind>::new(&review, None, &client)).await?;
    Ok(defaulted)
}

/// The decision in an `AdmissionReview` answer: its warnings when allowed, else the denial
/// with its message and warnings.
///
/// # Panics
/// When `answer` is not an `AdmissionReview` with a response.
pub fn verdict(answer: &Value) -> Result<Vec<String>, Denied> {
    let response = &answer["response"];
    assert!(response.is_object(), "not an AdmissionReview answer: {answer}");
    let warnings: Vec<String> = serde_json::from_value(response["warnings"].clone()).unwrap_or_default();
    if response["allowed"] == Value::Bool(true) {
        Ok(warnings)
    } else {
        let message = response["status"]["message"].as_str().unwrap_or_default();
        Err(Denied { message: message.into(), warnings })
    }
}

/// `original` with the JSON patch of a defaulting answer applied, as the API server applies it.
///
/// # Panics
/// When the answer denies the request, or its patch does not apply to `original`.
pub fn patched<K: Serialize + DeserializeOwned>(answer: &Value, original: &K) -> K {
    let response = &answer["response"];
    assert_eq!(response["allowed"], Value::Bool(true), "the request was denied: {answer}");
    let mut object = serde_json::to_value(original).expect("the object serialises");
    if let Some(encoded) = response.get("patch") {
        let bytes: Vec<u8> = serde_json::from_value(encoded.clone()).expect("the patch is base64 bytes");
        let patch: json_patch::Patch = serde_json::from_slice(&bytes).expect("the patch is a JSON patch");
        json_patch::patch(&mut object, &patch).expect("the patch applies to the object");
    }
    serde_json::from_value(object).expect("the patched object decodes")
}

/// The object a sample file holds (`config/samples/<group>_<version>_<kind>.yaml`, read with
/// `include_str!`), for tests that start from what the sample sets.
///
/// # Panics
/// When the text is not YAML, or not an object of `K`; the message names the field.
pub fn sample<K: DeserializeOwned>(yaml: &str) -> K {
    let value: Value = serde_yaml::from_str(yaml).unwrap_or_else(|e| panic!("the sample is not YAML: {e}"));
    crate::conversion::decode(value).unwrap_or_else(|e| panic!("the sample is not an object of this kind: {e}"))
}

/// Converts `object` to `desired_api_version` (`<group>/<version>`) through the server's
/// conversion webhook, as the API server does when a client asks for another version.
///
/// # Errors
/// The conversion's failure message, or a decode error naming the field (`spec.image: ...`).
///
/// # Panics
/// When the server has no conversion webhook.
pub async fn convert<T: Serialize, U: DeserializeOwned>(
    server: &Server,
    desired_api_version: &str,
    object: &T,
) -> Result<U, String> {
    let review = json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "ConversionReview",
        "request": {
            "uid": "00000000-0000-0000-0000-000000000000",
            "desiredAPIVersion": desired_api_version,
            "objects": [serde_json::to_value(object).expect("the object serialises")],
        }
    });
    let answer = server.handle(super::CONVERSION_PATH, review).await.expect("the server has a conversion webhook");
    let result = &answer["response"]["result"];
    if result["status"] != "Success" {
        return Err(result["message"].as_str().unwrap_or_default().to_string());
    }
    crate::conversion::decode(answer["response"]["convertedObjects"][0].clone())
}
