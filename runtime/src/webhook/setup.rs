//! Why a webhook cannot be registered with the server.

/// A webhook that cannot be registered with [`super::Server::build`]: a defaulter or validator
/// for a kind without the matching `#[rop(webhook(...))]`, two handlers at one URL path, or a
/// conversion whose hub is not the storage version, whose spoke is another kind, or whose kind
/// has two hubs. Its message says which, and what to change.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(transparent)]
pub struct SetupError(#[from] Problem);

/// What [`SetupError`] says.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Problem {
    /// A defaulter or validator was registered for a kind without the matching
    /// `#[rop(webhook(...))]`.
    #[error(
        "{kind} has no {which} webhook: add #[rop(webhook({flag}))] to its spec type, or to its #[derive(rop::BuiltinKind)] type (`rop create webhook {option}` does), then `make manifests`"
    )]
    NoWebhook {
        /// The kind, `<group>/<version> <kind>` (`<version> <kind>` for the core group).
        kind: String,
        /// `defaulting` or `validating`.
        which: &'static str,
        /// The `webhook(...)` flag that declares it: `mutating` or `validating`.
        flag: &'static str,
        /// The `rop create webhook` option that adds it: `--defaulting` or
        /// `--programmatic-validation`.
        option: &'static str,
    },
    /// Two handlers at one URL path: two webhooks, or a webhook at [`super::CONVERSION_PATH`].
    #[error("two webhooks are served at {path}: give one of them another `path` in #[rop(webhook(...))]")]
    SamePath {
        /// The URL path on the webhook server, e.g. `/mutate-cache-example-com-v1-memcached`.
        path: String,
    },
    /// The hub of a conversion is not its kind's storage version.
    #[error(
        "{hub} is the hub of its conversion but not the kind's storage version: mark it `storage` in #[rop(...)], or make the storage version the hub"
    )]
    HubNotStorage {
        /// The hub version, `<group>/<version> <kind>`.
        hub: String,
    },
    /// A spoke of a conversion is of another group or kind than the hub, or is the hub's
    /// version.
    #[error("{spoke} is not a spoke of {hub}: a spoke is another version of the same group and kind")]
    NotASpoke {
        /// The hub version, `<group>/<version> <kind>`.
        hub: String,
        /// The refused spoke, `<group>/<version> <kind>`.
        spoke: String,
    },
    /// Conversions of one kind were registered with two different hubs.
    #[error("{kind} has two hubs, {first} and {second}: a kind has one hub, its storage version")]
    TwoHubs {
        /// The kind, `<group> <kind>`.
        kind: String,
        /// The version of the hub registered first, e.g. `v1`.
        first: String,
        /// The version of the other hub.
        second: String,
    },
}
