// Copyright 2026 The Memcached Authors.
// SPDX-License-Identifier: Apache-2.0

//! The ServiceAccount controller: acts on each `ServiceAccount`,
//! a kind Kubernetes serves. The runtime watches the objects the manager may see (cluster-wide,
//! or in `WATCH_NAMESPACE`), calls `reconcile` with each one that changed, and counts, logs and
//! retries what fails (see rop's docs/runtime.md). What the controller owns and watches besides
//! is `#[rop(...)]` on `ServiceAccountV1` in api/src/builtin.rs.

use std::sync::Arc;

use rop::controller::{Action, Context, Reconciler};
use rop::k8s_openapi::api::core::v1::ServiceAccount;
use rop::kube::ResourceExt;

use memcached_operator_api::builtin::ServiceAccountV1;

/// Reconciles `ServiceAccount` objects.
// TODO(user): add what the reconciler needs (configuration, clients of outside systems).
pub struct ServiceAccountReconciler;

impl Reconciler for ServiceAccountReconciler {
    type Kind = ServiceAccountV1;
    type Error = rop::kube::Error;

    async fn reconcile(
        &self,
        object: Arc<ServiceAccount>,
        _ctx: &Context<ServiceAccountV1>,
    ) -> Result<Action, rop::kube::Error> {
        tracing::debug!(name = %object.name_any(), "reconciling ServiceAccount");
        // TODO(user): build the objects `object` calls for and apply them, e.g.
        // `ctx.apply(&object, desired_config_map(&object)).await?`: the object becomes their
        // owner. Name their kind in `#[rop(owns(...))]` on ServiceAccountV1, so that a change to
        // them reconciles the object and the manager's RBAC rules allow managing them.
        Ok(Action::await_change())
    }

    // TODO(user): to release what an object holds outside the cluster before it goes, name the
    // finalizer on ServiceAccountV1, `#[rop(controller(finalizer = "example.com/finalizer"))]`,
    // and implement `async fn cleanup` returning `Ok(Cleanup::Done)` once done
    // (`Cleanup::RequeueAfter` waits).
}
