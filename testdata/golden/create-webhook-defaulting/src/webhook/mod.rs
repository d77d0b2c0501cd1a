// Copyright 2026.
// SPDX-License-Identifier: Apache-2.0

//! Admission and conversion webhooks: one module per kind version with a defaulter or a
//! validator, and the server that serves them all. `rop create webhook` adds them here.

use rop::webhook::Registration;
use rop::webhook::{Server, SetupError};
// +rop:scaffold:webhook-uses

pub mod memcached_v1;
// +rop:scaffold:webhook-modules

/// The manager's webhook server with every webhook of the project; empty when there is none.
/// Each webhook is served at the path of its kind's `#[rop(webhook(...))]` attribute.
///
/// # Errors
/// A webhook without its attribute, two at one path, or a conversion whose hub is not the
/// storage version.
pub fn server() -> Result<Server, SetupError> {
    Server::build([
        Registration::defaulter(memcached_v1::MemcachedDefaulter),
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
    // +rop:scaffold:webhook-tests
}
