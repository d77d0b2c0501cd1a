// Copyright 2026.
// SPDX-License-Identifier: Apache-2.0

//! Admission webhooks of Deployment v1. Their settings (path, failure policy,
//! operations, selectors) are the `#[rop(webhook(...))]` attributes on `DeploymentV1` in
//! api/src/builtin.rs; run `make manifests` after changing them.

use memcached_operator_api::builtin::DeploymentV1;
use rop::k8s_openapi::api::apps::v1::Deployment;
use rop::webhook::Request;
use rop::webhook::{Defaulter, Denied};
// +rop:scaffold:webhook-uses

/// Sets the defaults of Deployment objects before the API server stores them. The request has
/// the object as stored before an update (`old_object()`) and the manager's client
/// (`client()`), to read other objects: rename `_request` to use it.
pub struct DeploymentDefaulter;

impl Defaulter for DeploymentDefaulter {
    type Kind = DeploymentV1;

    async fn default(
        &self,
        object: &mut Deployment,
        _request: &Request<'_, Self::Kind>,
    ) -> Result<(), Denied> {
        tracing::debug!(name = ?object.metadata.name, "defaulting Deployment");
        // TODO(user): set the defaults of fields the user left out, for example a label. The
        // server sends the API server the patch.
        Ok(())
    }
}
// +rop:scaffold:webhook-impls

#[cfg(test)]
mod tests {
    use super::*;
    use rop::WebhookTarget as _;
    use rop::webhook::{Server, testing};

    /// An object as a user would create it; the tests send it through the webhook server.
    fn object() -> Deployment {
        let mut object = Deployment::default();
        object.metadata.name = Some("deployment-sample".into());
        object.metadata.namespace = Some("default".into());
        object
    }

    fn server() -> Server {
        crate::webhook::server().expect("the webhooks register")
    }

    /// The patch the server answers with turns the object into the one the defaulter makes.
    #[tokio::test]
    async fn defaulting_patch_gives_the_defaulted_object() {
        let object = object();
        let defaulter = DeploymentDefaulter;
        let expected = testing::defaulted(&defaulter, &object).await;
        let expected = expected.expect("the object is defaulted");
        let webhook = DeploymentV1::TARGET.mutating_webhook();
        let path = webhook.expect("a mutating webhook").path;
        let review = testing::admission_review("CREATE", Some(&object), None);
        let answer = server()
            .handle(path, review)
            .await
            .expect("the path is served");
        assert_eq!(testing::patched(&answer, &object), expected);
    }
    // +rop:scaffold:webhook-tests
}
