// Copyright 2026 The Memcached Authors.
// SPDX-License-Identifier: Apache-2.0

//! Controllers, one module per kind, and what they share.

use std::fmt::Debug;
use std::sync::Arc;

use futures::future::BoxFuture;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::api::{Api, ApiResource, DynamicObject};
use kube::runtime::{Controller, watcher};
use kube::{Client, Resource};
use serde::de::DeserializeOwned;
use tokio_util::sync::CancellationToken;

use crate::metrics::Metrics;

pub mod memcached;
// +rop:scaffold:controller-modules

#[cfg(test)]
pub mod testing;

/// Starts one controller: runs it until the token is cancelled. `src/main.rs` lists one per
/// kind (`rop create api` adds them).
pub type Start = fn(Client, Arc<Context>, CancellationToken) -> BoxFuture<'static, ()>;

/// Adds a watch for every kind `K`'s controller owns or watches (`#[rop(owns(...))]` and
/// `#[rop(watches(...))]` on `K`'s types): a change to such an object reconciles the `K` named
/// in its owner references. With `WATCH_NAMESPACE` set, only that namespace is watched.
pub fn watch_related<K>(mut controller: Controller<K>, client: &Client) -> Controller<K>
where
    K: rop::CustomResource
        + Resource<DynamicType = ()>
        + Clone
        + DeserializeOwned
        + Debug
        + Send
        + Sync
        + 'static,
{
    let namespace = std::env::var("WATCH_NAMESPACE")
        .ok()
        .filter(|ns| !ns.is_empty());
    for related in K::DEFINITION.owns.iter().chain(K::DEFINITION.watches) {
        let resource = ApiResource {
            group: related.group.into(),
            version: related.version.into(),
            api_version: related.api_version(),
            kind: related.kind.into(),
            plural: related.plural.into(),
        };
        let api = match &namespace {
            Some(ns) => Api::<DynamicObject>::namespaced_with(client.clone(), ns, &resource),
            None => Api::<DynamicObject>::all_with(client.clone(), &resource),
        };
        controller = controller.owns_with(api, resource, watcher::Config::default());
    }
    controller
}

/// State shared by every reconciliation of every controller.
pub struct Context {
    /// Client for reading and writing cluster objects.
    pub client: Client,
    /// Operator metrics, exposed on `/metrics`.
    pub metrics: Metrics,
    // TODO(user): add shared state here (configuration, caches, event recorders, ...).
}

/// Adds or updates the condition of the same type in `conditions`, keeping its
/// `lastTransitionTime` unless its status changes (like `meta.SetStatusCondition` in Go).
pub fn set_condition(conditions: &mut Vec<Condition>, condition: Condition) {
    match conditions.iter_mut().find(|c| c.type_ == condition.type_) {
        Some(existing) if existing.status == condition.status => {
            *existing = Condition {
                last_transition_time: existing.last_transition_time.clone(),
                ..condition
            };
        }
        Some(existing) => *existing = condition,
        None => conditions.push(condition),
    }
}

/// Formats an error with its causes, `outer: cause: root cause`, skipping causes
/// whose message is already part of the text (many errors print their source).
pub fn error_chain(err: &dyn std::error::Error) -> String {
    let mut message = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let cause_message = cause.to_string();
        if !message.contains(&cause_message) {
            message.push_str(": ");
            message.push_str(&cause_message);
        }
        source = cause.source();
    }
    message
}

#[cfg(test)]
mod tests {
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
    use k8s_openapi::jiff::Timestamp;

    use super::*;

    fn condition(status: &str, reason: &str, time: i64) -> Condition {
        Condition {
            type_: "Available".into(),
            status: status.into(),
            reason: reason.into(),
            message: String::new(),
            observed_generation: None,
            last_transition_time: Time(Timestamp::from_second(time).unwrap()),
        }
    }

    #[test]
    fn set_condition_keeps_transition_time_while_status_holds() {
        let mut conditions = vec![condition("True", "Old", 1)];

        set_condition(&mut conditions, condition("True", "New", 2));
        assert_eq!(conditions, [condition("True", "New", 1)]);

        set_condition(&mut conditions, condition("False", "Down", 3));
        assert_eq!(conditions, [condition("False", "Down", 3)]);
    }

    #[test]
    fn error_chain_lists_causes_once() {
        #[derive(Debug, thiserror::Error)]
        #[error("outer: {0}")]
        struct Outer(#[source] std::io::Error);
        #[derive(Debug, thiserror::Error)]
        #[error("top")]
        struct Top(#[source] Outer);

        let err = Top(Outer(std::io::Error::other("disk full")));

        assert_eq!(error_chain(&err), "top: outer: disk full");
    }
}
