//! What a defaulter or validator knows besides the object: the request and the manager's
//! client.

use kube::Client;
use kube_core::DynamicObject;
use kube_core::admission::{AdmissionRequest, Operation};

use crate::{ObjectOf, WebhookTarget};

/// One admission request for an object of `K`, as a [`super::Defaulter`] or
/// [`super::Validator`] sees it (controller-runtime's `admission.Request` in the context).
///
/// [`Request::client`] is the manager's client, acting as the manager's ServiceAccount: a
/// webhook may read the cluster (list other objects of the kind, look up a referenced Secret)
/// with the RBAC rules `rop generate` wrote for the manager. Keep such reads quick: the API
/// server waits for the answer at most the webhook's `timeoutSeconds` (10 s by default).
pub struct Request<'a, K: WebhookTarget> {
    review: &'a AdmissionRequest<DynamicObject>,
    old_object: Option<&'a ObjectOf<K>>,
    client: &'a Client,
}

impl<'a, K: WebhookTarget> Request<'a, K> {
    pub(crate) fn new(
        review: &'a AdmissionRequest<DynamicObject>,
        old_object: Option<&'a ObjectOf<K>>,
        client: &'a Client,
    ) -> Self {
        Self { review, old_object, client }
    }

    /// `Create`, `Update`, `Delete` or `Connect`.
    pub fn operation(&self) -> &Operation {
        &self.review.operation
    }

    /// The object's name; empty on a create with `generateName`, before the API server picked
    /// one.
    pub fn name(&self) -> &str {
        &self.review.name
    }

    /// The object's namespace; `None` for a cluster-scoped kind.
    pub fn namespace(&self) -> Option<&str> {
        self.review.namespace.as_deref()
    }

    /// Who sent the request: user name, UID, groups and extra attributes.
    pub fn user_info(&self) -> &k8s_openapi::api::authentication::v1::UserInfo {
        &self.review.user_info
    }

    /// Whether the request is a dry run (`kubectl apply --dry-run=server`): a webhook with
    /// side effects must not make them.
    pub fn dry_run(&self) -> bool {
        self.review.dry_run
    }

    /// The object as stored before this request: set on `Update` (and on `Delete` for a
    /// validator), `None` on `Create`.
    pub fn old_object(&self) -> Option<&ObjectOf<K>> {
        self.old_object
    }

    /// The manager's client. Outside a manager (a unit test through
    /// [`super::Server::handle`] with no [`super::Server::with_client`]) every call with it
    /// fails with "this webhook server has no client".
    pub fn client(&self) -> &Client {
        self.client
    }
}

/// Why a request through the client of a server without one failed.
#[derive(Debug, thiserror::Error)]
#[error(
    "this webhook server has no client: the manager gives it its own; a test gives it one with `Server::with_client` (rop-testenv's `TestEnv::client`)"
)]
pub(crate) struct NoClient;

/// A client whose every request fails with [`NoClient`], for a server no manager runs.
pub(crate) fn no_client() -> Client {
    let service = tower::service_fn(|_: http::Request<kube::client::Body>| async {
        Err::<http::Response<kube::client::Body>, _>(NoClient)
    });
    Client::new(service, "default")
}
