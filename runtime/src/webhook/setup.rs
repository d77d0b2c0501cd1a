//! Why a webhook cannot be registered with the server.

/// A webhook that cannot be registered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    #[error(
        "{kind} has no {which} webhook: add #[rop(webhook({flag}))] to its spec type, or to its #[derive(rop::BuiltinKind)] type (`rop create webhook {option}` does), then `make manifests`"
    )]
    NoWebhook { kind: String, which: &'static str, flag: &'static str, option: &'static str },
    #[error("two webhooks are served at {path}: give one of them another `path` in #[rop(webhook(...))]")]
    SamePath { path: String },
    #[error(
        "{hub} is the hub of its conversion but not the kind's storage version: mark it `storage` in #[rop(...)], or make the storage version the hub"
    )]
    HubNotStorage { hub: String },
    #[error("{spoke} is not a spoke of {hub}: a spoke is another version of the same group and kind")]
    NotASpoke { hub: String, spoke: String },
    #[error("{kind} has two hubs, {first} and {second}: a kind has one hub, its storage version")]
    TwoHubs { kind: String, first: String, second: String },
}
