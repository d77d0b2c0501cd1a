//! What the runtime needs of a kind, and APIs for it whatever its scope.

use std::fmt::Debug;

use k8s_openapi::{ClusterResourceScope, NamespaceResourceScope};
use kube::{Api, Client, Resource};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::ControllerTarget;

/// A kind a [`super::Reconciler`] can reconcile: every `#[derive(CustomResource)]` root type,
/// and every `#[derive(rop::BuiltinKind)]` marker type with `#[rop(controller)]` (a kind
/// Kubernetes serves, such as v1 ServiceAccount). Its objects are a [`KindObject`].
pub trait Kind: ControllerTarget<Object: KindObject> + Send + Sync + 'static {}

impl<K> Kind for K where K: ControllerTarget<Object: KindObject> + Send + Sync + 'static {}

/// The objects of a [`Kind`]: a kube `Resource` with static type information (a custom kind's
/// root type, or a k8s-openapi type), serde-able and shareable between tasks.
pub trait KindObject:
    Resource<DynamicType = (), Scope: KindScope> + Clone + Debug + Serialize + DeserializeOwned + Send + Sync + 'static
{
}

impl<O> KindObject for O where
    O: Resource<DynamicType = (), Scope: KindScope>
        + Clone
        + Debug
        + Serialize
        + DeserializeOwned
        + Send
        + Sync
        + 'static
{
}

/// What the cleanup of kind `K` returns ([`super::Reconciler::cleanup`]): [`super::Cleanup`]
/// when the kind declares a finalizer, [`super::NoFinalizer`] when it does not.
pub type CleanupOf<K> = <K as ControllerTarget>::Cleanup;

/// The scope of a kind with static type information: k8s-openapi's `NamespaceResourceScope` or
/// `ClusterResourceScope`, the `Resource::Scope` of every k8s-openapi type and every
/// `#[derive(CustomResource)]` root type. It builds the `Api` for objects of that scope, so
/// generic code such as [`super::Context::apply`] works with either. Sealed: those two scopes
/// are all there is (k8s-openapi's `SubResourceScope` and `DynamicResourceScope` have no
/// static `Api` of their own).
pub trait KindScope: sealed::Sealed {
    /// `true` for namespaced kinds.
    #[doc(hidden)]
    const NAMESPACED: bool;

    /// The API for objects of `K` in `namespace`; for a cluster-scoped kind, or with no
    /// namespace, the API over all of them.
    #[doc(hidden)]
    fn api<K>(client: Client, namespace: Option<&str>) -> Api<K>
    where
        K: Resource<DynamicType = (), Scope = Self>;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for k8s_openapi::NamespaceResourceScope {}
    impl Sealed for k8s_openapi::ClusterResourceScope {}
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
