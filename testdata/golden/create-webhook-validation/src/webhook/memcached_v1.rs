// Copyright 2026.
// SPDX-License-Identifier: Apache-2.0

//! Admission webhooks of Memcached v1. Their settings (path, failure policy,
//! operations, selectors) are the `#[rop(webhook(...))]` attributes on `MemcachedSpec` in
//! api/src/v1/memcached.rs; run `make manifests` after changing them.

use memcached_operator_api::v1::Memcached;
use rop::webhook::Request;
use rop::webhook::{Validator, Verdict};
// +rop:scaffold:webhook-uses

/// Checks Memcached objects beyond their schema: return warnings to allow, `Denied` to refuse.
/// Each check gets the request, with who sent it (`user_info()`) and the manager's client
/// (`client()`), to check an object against others: rename `_request` to use it.
pub struct MemcachedValidator;

impl Validator for MemcachedValidator {
    type Kind = Memcached;

    async fn validate_create(
        &self,
        object: &Memcached,
        _request: &Request<'_, Self::Kind>,
    ) -> Verdict {
        tracing::debug!(name = ?object.metadata.name, "validating the creation of Memcached");
        // TODO(user): check the new object, e.g.
        // `return Err(Denied::new("spec.size must be even"));` (`rop::webhook::Denied`)
        Ok(vec![])
    }

    async fn validate_update(
        &self,
        _old: &Memcached,
        new: &Memcached,
        _request: &Request<'_, Self::Kind>,
    ) -> Verdict {
        tracing::debug!(name = ?new.metadata.name, "validating an update of Memcached");
        // TODO(user): check the change from `_old` (rename it to use it), e.g. refuse changes
        // to a field that is set once.
        Ok(vec![])
    }

    async fn validate_delete(
        &self,
        object: &Memcached,
        _request: &Request<'_, Self::Kind>,
    ) -> Verdict {
        // Called only if `operations` in the webhook's attribute include "DELETE".
        tracing::debug!(name = ?object.metadata.name, "validating the deletion of Memcached");
        Ok(vec![])
    }
}
// +rop:scaffold:webhook-impls

#[cfg(test)]
mod tests {
    use super::*;
    use rop::WebhookTarget as _;
    use rop::webhook::{Server, testing};

    /// An object as a user would create it; the tests send it through the webhook server.
    fn object() -> Memcached {
        let name = "memcached-sample";
        let spec = Default::default();
        let mut object = Memcached::new(name, spec);
        object.metadata.namespace = Some("default".into());
        object
    }

    fn server() -> Server {
        crate::webhook::server().expect("the webhooks register")
    }

    /// The server answers with the validator's verdict on create, update and delete. It has no
    /// cluster here: a check that reads others through `client()` belongs in tests/webhooks.rs.
    #[tokio::test]
    async fn validation_answers_with_the_verdict() {
        let object = object();
        let webhook = Memcached::TARGET.validating_webhook();
        let path = webhook.expect("a validating webhook").path;
        let server = server();
        let reviews = [
            testing::admission_review("CREATE", Some(&object), None),
            testing::admission_review("UPDATE", Some(&object), Some(&object)),
            testing::admission_review("DELETE", None, Some(&object)),
        ];
        for review in reviews {
            let answer = server
                .handle(path, review)
                .await
                .expect("the path is served");
            // TODO(user): add objects your rules refuse, and assert the denial's message.
            assert_eq!(testing::verdict(&answer), Ok(vec![]));
        }
    }
    // +rop:scaffold:webhook-tests
}
