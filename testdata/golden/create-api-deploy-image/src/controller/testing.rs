// Copyright 2026 The Memcached Authors.
// SPDX-License-Identifier: Apache-2.0

//! Test support: an in-memory API server (kube-fake-client) for reconciler tests.

use std::sync::{Arc, Mutex};

use k8s_openapi::api::apps::v1::Deployment;
use kube::Resource;
use kube::api::PostParams;
use kube_fake_client::interceptor::{Funcs, PatchContext, ReplaceContext};
use kube_fake_client::{ClientBuilder, PatchType};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// A client backed by an empty in-memory API server that serves the custom
/// resource `K` (with a status subresource).
pub async fn fake_client<K>() -> kube::Client
where
    K: Resource<DynamicType = ()> + Clone + Serialize + DeserializeOwned + Default + 'static,
{
    FakeApi::start::<K>(Vec::new(), None).await.client
}

/// Runs before the fake applies a PUT (`Api::replace`): a test makes another writer win a
/// race here, so the PUT carries a stale `resourceVersion`.
pub type BeforeReplace = Box<dyn Fn(&ReplaceContext) + Send + Sync>;

/// An in-memory API server (kube-fake-client) that serves the custom resource `K` and every
/// built-in kind, and logs each write it receives: tests count them to prove a converged
/// object is left alone.
pub struct FakeApi {
    /// Client for the fake.
    pub client: kube::Client,
    writes: Arc<Mutex<Vec<String>>>,
}

impl FakeApi {
    /// Starts the fake holding `objects` (JSON of any registered kind), calling `before_replace`
    /// on each PUT.
    pub async fn start<K>(objects: Vec<Value>, before_replace: Option<BeforeReplace>) -> Self
    where
        K: Resource<DynamicType = ()> + Clone + Serialize + DeserializeOwned + Default + 'static,
    {
        let writes = Arc::new(Mutex::new(Vec::new()));
        let log = |writes: &Arc<Mutex<Vec<String>>>, entry: String| {
            writes.lock().expect("write log").push(entry);
        };
        let (w1, w2, w3, w4, w5, w6) = (
            writes.clone(),
            writes.clone(),
            writes.clone(),
            writes.clone(),
            writes.clone(),
            writes.clone(),
        );
        let funcs = Funcs::new()
            .create(move |ctx| {
                log(
                    &w1,
                    format!(
                        "create {} {}",
                        kind_of(ctx.object),
                        name_of(ctx.namespace, ctx.object)
                    ),
                );
                Ok(None)
            })
            .replace(move |ctx| {
                log(
                    &w2,
                    format!(
                        "replace {} {}/{}",
                        kind_of(ctx.object),
                        ctx.namespace,
                        ctx.name
                    ),
                );
                if let Some(hook) = &before_replace {
                    hook(&ctx);
                }
                Ok(None)
            })
            .update(move |ctx| {
                log(
                    &w3,
                    format!(
                        "update {} {}",
                        kind_of(ctx.object),
                        name_of(ctx.namespace, ctx.object)
                    ),
                );
                Ok(None)
            })
            .patch(move |ctx| {
                log(&w4, format!("patch {}/{}", ctx.namespace, ctx.name));
                json_patch_as_api_server::<K>(ctx)
            })
            .patch_status(move |ctx| {
                log(&w5, format!("patch status {}/{}", ctx.namespace, ctx.name));
                Ok(None)
            })
            .delete(move |ctx| {
                log(&w6, format!("delete {}/{}", ctx.namespace, ctx.name));
                Ok(None)
            });
        let client = ClientBuilder::new()
            .with_resource::<K>()
            .with_status_subresource::<K>()
            // The API server serves Deployments with a status subresource: a PUT of the
            // object keeps the status the Deployment controller wrote.
            .with_status_subresource::<Deployment>()
            .with_runtime_objects(objects)
            .with_interceptor_funcs(funcs)
            .build()
            .await
            .expect("failed to build the fake client");
        Self { client, writes }
    }

    /// The writes received since the last call, oldest first, e.g. `create Deployment default/x`
    /// or `patch status default/x`.
    pub fn take_writes(&self) -> Vec<String> {
        std::mem::take(&mut *self.writes.lock().expect("write log"))
    }
}

fn kind_of(object: &Value) -> &str {
    object["kind"].as_str().unwrap_or("?")
}

/// `namespace/name` of `object`; for an Event, without the unique suffix the recorder adds
/// to the name of the object it is about (`test.18a3f...` → `test`).
fn name_of(namespace: &str, object: &Value) -> String {
    let name = object["metadata"]["name"].as_str().unwrap_or("?");
    let name = match name.rsplit_once('.') {
        Some((about, _suffix)) if kind_of(object) == "Event" => about,
        _ => name,
    };
    format!("{namespace}/{name}")
}

/// Applies JSON patches the way the API server does.
///
/// kube-runtime's `finalizer()` adds the first finalizer with
/// `[test /metadata/finalizers == null, add /metadata/finalizers]`. The API server
/// treats the missing field as `null` and accepts it; the fake answers 422. This
/// drops such `test` operations and applies the rest; every other patch goes to
/// the fake unchanged.
fn json_patch_as_api_server<K>(ctx: PatchContext) -> kube_fake_client::Result<Option<Value>>
where
    K: Resource<DynamicType = ()> + Clone + Serialize + DeserializeOwned + Default,
{
    if ctx.patch_type != PatchType::JsonPatch {
        return Ok(None);
    }
    // The context does not say which kind is patched: this only handles `K`.
    let Ok(current) = ctx.client.get::<K>(ctx.namespace, ctx.name) else {
        return Ok(None);
    };
    let mut object = serde_json::to_value(current)?;
    let patch: json_patch::Patch = serde_json::from_value(ctx.patch.clone())?;
    let (null_tests_on_missing, operations): (Vec<_>, Vec<_>) =
        patch.0.into_iter().partition(|operation| {
            matches!(operation, json_patch::PatchOperation::Test(test)
                if test.value.is_null() && object.pointer(test.path.as_str()).is_none())
        });
    if null_tests_on_missing.is_empty() {
        return Ok(None);
    }
    json_patch::patch(&mut object, &operations)?;
    let patched: K = serde_json::from_value(object)?;
    let updated = ctx
        .client
        .update(ctx.namespace, &patched, &PostParams::default())?;
    Ok(Some(serde_json::to_value(updated)?))
}
