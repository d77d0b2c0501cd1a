//! Adding and removing the kind's finalizer with JSON patches that fail, rather than clobber,
//! when the list changed since the object was read (the way kube-runtime's `finalizer` helper
//! and controller-runtime's `controllerutil` users do it).

use json_patch::{AddOperation, Patch as JsonPatch, PatchOperation, RemoveOperation, TestOperation};
use kube::api::{Patch, PatchParams};
use kube::{Api, Resource, ResourceExt};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Adds `finalizer` to `object`; returns the object as the API server stored it.
pub(crate) async fn add<K>(api: &Api<K>, object: &K, finalizer: &str) -> Result<K, kube::Error>
where
    K: Resource + Clone + DeserializeOwned + Serialize + std::fmt::Debug,
{
    let operations = if object.finalizers().is_empty() {
        vec![
            PatchOperation::Test(TestOperation { path: pointer(&["metadata", "finalizers"]), value: Value::Null }),
            PatchOperation::Add(AddOperation {
                path: pointer(&["metadata", "finalizers"]),
                value: vec![finalizer].into(),
            }),
        ]
    } else {
        vec![
            PatchOperation::Test(TestOperation {
                path: pointer(&["metadata", "finalizers"]),
                value: object.finalizers().into(),
            }),
            PatchOperation::Add(AddOperation {
                path: pointer(&["metadata", "finalizers", "-"]),
                value: finalizer.into(),
            }),
        ]
    };
    api.patch(&object.name_any(), &PatchParams::default(), &Patch::Json::<()>(JsonPatch(operations))).await
}

/// Removes `finalizer` from `object` (a no-op when it is not there).
pub(crate) async fn remove<K>(api: &Api<K>, object: &K, finalizer: &str) -> Result<(), kube::Error>
where
    K: Resource + Clone + DeserializeOwned + Serialize + std::fmt::Debug,
{
    let Some(index) = object.finalizers().iter().position(|f| f == finalizer) else {
        return Ok(());
    };
    let index = index.to_string();
    let path = pointer(&["metadata", "finalizers", &index]);
    let operations = vec![
        PatchOperation::Test(TestOperation { path: path.clone(), value: finalizer.into() }),
        PatchOperation::Remove(RemoveOperation { path }),
    ];
    match api.patch(&object.name_any(), &PatchParams::default(), &Patch::Json::<()>(JsonPatch(operations))).await {
        Ok(_) => Ok(()),
        // The object went as soon as its last finalizer did.
        Err(kube::Error::Api(status)) if status.code == 404 => Ok(()),
        Err(err) => Err(err),
    }
}

fn pointer(tokens: &[&str]) -> json_patch::jsonptr::PointerBuf {
    json_patch::jsonptr::PointerBuf::from_tokens(tokens.iter().copied())
}
