//! What the runtime needs of a kind, and APIs for it whatever its scope.

use std::fmt::Debug;

use k8s_openapi::{ClusterResourceScope, NamespaceResourceScope};
use kube::{Api, Client, Resource};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::CustomResource;

/// A kind a [`super::Reconciler`] can reconcile: every `#[derive(CustomResource)]` root type is
/// one (it is a kube `Resource` with static type information, serde-able and `CustomResource`).
pub trait Kind:
    CustomResource
    + Resource<DynamicType = (), Scope: KindScope>
    + Clone
    + Debug
    + Serialize
    + DeserializeOwned
    + Send
    + Sync
    + 'static
{
}

impl<K> Kind for K where
    K: CustomResource
        + Resource<DynamicType = (), Scope: KindScope>
        + Clone
        + Debug
        + Serialize
        + DeserializeOwned
        + Send
        + Sync
        + 'static
{
}

/// The scope of a kind with static type information (`Namespaced` or `Cluster`): builds the
/// `Api` for objects of that scope, so the runtime can work with either.
pub trait KindScope {
    /// `true` for namespaced kinds.
    const NAMESPACED: bool;

    /// The API for objects of `K` in `namespace`; for a cluster-scoped kind, or with no
    /// namespace, the API over all of them.
    fn api<K>(client: Client, namespace: Option<&str>) -> Api<K>
    where
        K: Resource<DynamicType = (), Scope = Self>;
}

impl KindScope for NamespaceResourceScope {
    const NAMESPACED: bool = true;

    fn api<K>(client: Client, namespace: Option<&str>) -> Api<K>
    where
        K: Resource<DynamicType = (), Scope = Self>,
    {
        match namespace {
            Some(namespace) => Api::namespaced(client, namespace),
            None => Api::all(client),
        }
    }
}

impl KindScope for ClusterResourceScope {
    const NAMESPACED: bool = false;

    fn api<K>(client: Client, _namespace: Option<&str>) -> Api<K>
    where
        K: Resource<DynamicType = (), Scope = Self>,
    {
        Api::all(client)
    }
}

/// The API for objects of `K` in `namespace` (ignored for a cluster-scoped `K`).
pub(crate) fn api<K>(client: Client, namespace: Option<&str>) -> Api<K>
where
    K: Resource<DynamicType = (), Scope: KindScope>,
{
    <K::Scope as KindScope>::api(client, namespace)
}
