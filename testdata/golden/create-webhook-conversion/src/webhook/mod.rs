// Copyright 2026.
// SPDX-License-Identifier: Apache-2.0

//! Admission and conversion webhooks: one module per kind version with a defaulter or a
//! validator, and the server that serves them all. `rop create webhook` adds them here.

use rop::webhook::HubConversion;
use rop::webhook::Registration;
use rop::webhook::{Server, SetupError};
// +rop:scaffold:webhook-uses

// +rop:scaffold:webhook-modules

/// The manager's webhook server with every webhook of the project; empty when there is none.
/// Each webhook is served at the path of its kind's `#[rop(webhook(...))]` attribute.
///
/// # Errors
/// A webhook without its attribute, two at one path, or a conversion whose hub is not the
/// storage version.
pub fn server() -> Result<Server, SetupError> {
    Server::build([
        Registration::conversion(
            HubConversion::<memcached_operator_api::v1::Memcached>::hub()
                .spoke::<memcached_operator_api::v1beta1::Memcached>(),
        ),
        // +rop:scaffold:webhooks
    ])
}

#[cfg(test)]
mod tests {
    /// Every registered webhook has its attribute, and no two share a path.
    #[test]
    fn every_webhook_registers() {
        if let Err(e) = super::server() {
            panic!("{e}");
        }
    }

    /// Memcached v1beta1 → v1 (the hub) → v1beta1 gives the object back. The object is
    /// the v1beta1 sample: keep a value for every field there, so the round trip covers them all.
    #[tokio::test]
    async fn memcached_v1beta1_round_trips_through_the_hub() {
        use memcached_operator_api::v1beta1::Memcached;
        use rop::webhook::testing;
        let sample = include_str!("../../config/samples/cache_v1beta1_memcached.yaml");
        let object: Memcached = testing::sample(sample);
        let server = super::server().expect("the webhooks register");
        let hub_version = "cache.example.com/v1";
        let spoke_version = "cache.example.com/v1beta1";
        // A failure below is in api/src/v1beta1/memcached_conversion.rs: the conversion there
        // loses a field, or cannot carry one whose shape differs between the versions.
        let hub = testing::convert(&server, hub_version, &object).await;
        let hub: serde_json::Value = hub.expect("converts to the hub");
        assert_eq!(hub["apiVersion"], hub_version);
        let back = testing::convert(&server, spoke_version, &hub).await;
        let back: Memcached = back.expect("converts back");
        assert_eq!(back, object);
    }
    // +rop:scaffold:webhook-tests
}
