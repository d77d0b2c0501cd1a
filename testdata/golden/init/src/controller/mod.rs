// Copyright 2026 The Memcached Authors.
// SPDX-License-Identifier: Apache-2.0

//! Controllers, one module per kind, and what they share.

use std::fmt::Debug;
use std::future::Future;
use std::sync::Arc;
use std::time::Instant;

use futures::future::BoxFuture;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::api::{Api, ApiResource, DynamicObject};
use kube::runtime::controller::Action;
use kube::runtime::{Controller, watcher};
use kube::{Client, Resource, ResourceExt};
use serde::de::DeserializeOwned;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::metrics::Metrics;

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

/// Runs `reconcile`, one reconciliation of `obj` by `controller`, inside a `reconcile` span
/// that carries the controller and the object's name and namespace, and counts it in the
/// metrics with how long it took.
///
/// Every log line of the reconciliation is printed with the span's fields, so it names the
/// object; with the `otel` feature the span is exported as a trace (see `telemetry`).
pub async fn instrumented<K, E>(
    ctx: &Context,
    controller: &'static str,
    obj: &K,
    reconcile: impl Future<Output = Result<Action, E>>,
) -> Result<Action, E>
where
    K: Resource,
{
    let span = tracing::info_span!(
        "reconcile",
        controller,
        name = %obj.name_any(),
        namespace = obj.namespace().as_deref().unwrap_or_default(),
    );
    let start = Instant::now();
    let result = reconcile.instrument(span).await;
    ctx.metrics
        .reconciled(controller, result.is_ok(), start.elapsed());
    result
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
    use std::sync::Mutex;

    use k8s_openapi::api::core::v1::ConfigMap;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};
    use k8s_openapi::jiff::Timestamp;
    use tracing::field::{Field, Visit};
    use tracing::instrument::WithSubscriber;
    use tracing_subscriber::Layer;
    use tracing_subscriber::layer::{Context as LayerContext, SubscriberExt};

    use super::*;
    use prometheus_client::registry::Registry;

    use crate::metrics::Metrics;

    /// Records the name and fields of every span opened, as `name: field=value ...`.
    #[derive(Clone, Default)]
    struct SpanLog(Arc<Mutex<Vec<String>>>);

    impl<S: tracing::Subscriber> Layer<S> for SpanLog {
        fn on_new_span(
            &self,
            attrs: &tracing::span::Attributes<'_>,
            _: &tracing::Id,
            _: LayerContext<'_, S>,
        ) {
            struct Fields(Vec<String>);
            impl Visit for Fields {
                fn record_debug(&mut self, field: &Field, value: &dyn Debug) {
                    self.0.push(format!("{}={value:?}", field.name()));
                }
                fn record_str(&mut self, field: &Field, value: &str) {
                    self.0.push(format!("{}={value}", field.name()));
                }
            }
            let mut fields = Fields(Vec::new());
            attrs.record(&mut fields);
            let span = format!("{}: {}", attrs.metadata().name(), fields.0.join(" "));
            self.0.lock().unwrap().push(span);
        }
    }

    #[tokio::test]
    async fn instrumented_reconciles_in_a_span_naming_the_object_and_counts_it() {
        let mut registry = Registry::default();
        let ctx = Context {
            client: testing::fake_client::<ConfigMap>().await,
            metrics: Metrics::register(&mut registry),
        };
        let obj = ConfigMap {
            metadata: ObjectMeta {
                name: Some("cache".into()),
                namespace: Some("shop".into()),
                ..ObjectMeta::default()
            },
            ..ConfigMap::default()
        };
        let spans = SpanLog::default();
        let subscriber = tracing_subscriber::registry().with(spans.clone());

        let result = instrumented(&ctx, "example", &obj, async {
            Err::<Action, &str>("failed")
        })
        .with_subscriber(subscriber)
        .await;

        assert_eq!(result, Err("failed"));
        assert_eq!(
            *spans.0.lock().unwrap(),
            ["reconcile: controller=example name=cache namespace=shop"]
        );
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
        for line in [
            "controller_runtime_reconcile_total{controller=\"example\",result=\"error\"} 1",
            "controller_runtime_reconcile_time_seconds_count{controller=\"example\"} 1",
        ] {
            assert!(
                text.lines().any(|l| l == line),
                "no line {line} in:\n{text}"
            );
        }
    }

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
