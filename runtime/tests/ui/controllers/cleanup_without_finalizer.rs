// Only a kind that declares a finalizer may have a cleanup: the custom kind `Cache` lacks
// `#[rop(finalizer)]`, the built-in kind's marker `ServiceAccountV1` lacks
// `controller(finalizer = "...")`, so neither reconciler's `cleanup` compiles.
use std::sync::Arc;

use rop::CustomResource;
use rop::controller::{Action, Cleanup, Context, Reconciler};
use rop::k8s_openapi::api::core::v1::ServiceAccount;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, rop::JsonSchema)]
#[rop(group = "cache.example.com", version = "v1", kind = "Cache")]
pub struct CacheSpec {
    pub size: i32,
}

struct CacheReconciler;

impl Reconciler for CacheReconciler {
    type Kind = Cache;
    type Error = rop::kube::Error;

    async fn reconcile(&self, _cache: Arc<Cache>, _ctx: &Context<Cache>) -> Result<Action, rop::kube::Error> {
        Ok(Action::await_change())
    }

    async fn cleanup(&self, _cache: Arc<Cache>, _ctx: &Context<Cache>) -> Result<Cleanup, rop::kube::Error> {
        Ok(Cleanup::Done)
    }
}

#[derive(rop::BuiltinKind)]
#[rop(group = "", version = "v1", kind = "ServiceAccount", plural = "serviceaccounts")]
#[rop(object = "rop::k8s_openapi::api::core::v1::ServiceAccount", controller)]
pub struct ServiceAccountV1;

struct AccountReconciler;

impl Reconciler for AccountReconciler {
    type Kind = ServiceAccountV1;
    type Error = rop::kube::Error;

    async fn reconcile(
        &self,
        _account: Arc<ServiceAccount>,
        _ctx: &Context<ServiceAccountV1>,
    ) -> Result<Action, rop::kube::Error> {
        Ok(Action::await_change())
    }

    async fn cleanup(
        &self,
        _account: Arc<ServiceAccount>,
        _ctx: &Context<ServiceAccountV1>,
    ) -> Result<Cleanup, rop::kube::Error> {
        Ok(Cleanup::Done)
    }
}

fn main() {}
