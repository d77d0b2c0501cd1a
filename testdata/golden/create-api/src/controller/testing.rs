// Copyright 2026 The Memcached Authors.
// SPDX-License-Identifier: Apache-2.0

//! Test support: an in-memory API server (kube-fake-client) for reconciler tests.

use kube::Resource;
use kube::api::PostParams;
use kube_fake_client::interceptor::{Funcs, PatchContext};
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
    ClientBuilder::new()
        .with_resource::<K>()
        .with_status_subresource::<K>()
        .with_interceptor_funcs(Funcs::new().patch(json_patch_as_api_server::<K>))
        .build()
        .await
        .expect("failed to build the fake client")
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
