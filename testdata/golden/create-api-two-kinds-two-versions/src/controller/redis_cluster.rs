// Copyright 2026 The Memcached Authors.
// SPDX-License-Identifier: Apache-2.0

//! The RedisCluster controller: brings the cluster in line with each `RedisCluster`. The runtime
//! watches the objects, calls `reconcile` with each one that changed, and counts, logs and
//! retries what fails (see rop's docs/runtime.md).

use std::sync::Arc;
use std::time::Duration;

use rop::conditions::{self, HasConditions};
use rop::controller::{Action, Context, Reconciler};

use memcached_operator_api::v1alpha1::RedisCluster;
use memcached_operator_api::v1alpha1::RedisClusterStatus;

/// How long a reconciled `RedisCluster` waits before it is looked at again, to repair drift no
/// watch reported.
const RESYNC_AFTER: Duration = Duration::from_secs(5 * 60);

/// Reconciles `RedisCluster` objects.
// TODO(user): add what the reconciler needs (configuration, clients of outside systems).
pub struct RedisClusterReconciler;

impl Reconciler for RedisClusterReconciler {
    type Kind = RedisCluster;
    type Error = rop::kube::Error;

    async fn reconcile(
        &self,
        object: Arc<Self::Kind>,
        ctx: &Context<Self::Kind>,
    ) -> Result<Action, rop::kube::Error> {
        // TODO(user): build the objects `object.spec` asks for and apply them, e.g.
        // `ctx.apply(&object, desired_config_map(&object)).await?`: the object becomes their
        // owner. Name their kind in `#[rop(owns(...))]` on RedisClusterSpec, so that a change to
        // them reconciles the object and the manager's RBAC rules allow managing them.
        ctx.update_status(&object, desired_status(&object)).await?;
        Ok(Action::requeue(RESYNC_AFTER))
    }

    // TODO(user): to release what an object holds outside the cluster before it goes, add
    // `#[rop(finalizer)]` to RedisClusterSpec and implement `async fn cleanup` returning
    // `Ok(Cleanup::Done)` once done (`Cleanup::RequeueAfter` waits): the runtime then puts the
    // kind's finalizer on the objects and removes it when the cleanup is done.
}

/// The status `object` reports once reconciled.
fn desired_status(object: &RedisCluster) -> RedisClusterStatus {
    let generation = object.metadata.generation;
    let mut status = RedisClusterStatus {
        observed_generation: generation,
        ..object.status.clone().unwrap_or_default()
    };
    // TODO(user): report what you observed, e.g. "Available" only once the workload is ready.
    let message = "The spec is in effect";
    let available = conditions::new("Available", true, "Reconciled", message, generation);
    status.set_condition(available);
    status
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(generation: i64) -> RedisCluster {
        let spec = Default::default();
        let mut object = RedisCluster::new("test", spec);
        object.metadata.generation = Some(generation);
        object
    }

    #[test]
    fn a_reconciled_object_is_available_at_its_generation() {
        let status = desired_status(&object(3));

        assert_eq!(status.observed_generation, Some(3));
        let available = status.condition("Available").expect("Available is set");
        assert_eq!(
            (
                available.status.as_str(),
                available.reason.as_str(),
                available.observed_generation
            ),
            ("True", "Reconciled", Some(3))
        );
    }

    #[test]
    fn a_converged_status_is_computed_again_unchanged() {
        let mut reconciled = object(1);
        reconciled.status = Some(desired_status(&reconciled));

        assert_eq!(
            Some(desired_status(&reconciled)),
            reconciled.status,
            "no status write on the next pass"
        );
    }
}
