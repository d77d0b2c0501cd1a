// Copyright 2026 The Memcached Authors.
// SPDX-License-Identifier: Apache-2.0

//! Leader election on a `coordination.k8s.io/v1` Lease (kube-lease-manager).

use kube::Client;
use kube_lease_manager::{LeaseManager, LeaseManagerBuilder, LeaseManagerError};
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tracing::{info, warn};

/// A running lease manager that keeps trying to hold (and renews) the lease.
pub struct Leader {
    is_leader: watch::Receiver<bool>,
    task: JoinHandle<Result<LeaseManager, LeaseManagerError>>,
}

impl Leader {
    /// Starts competing for the Lease `namespace/name`, creating it if needed.
    ///
    /// `identity` names this replica in the Lease's `holderIdentity`; it must be
    /// unique among replicas (use the Pod name), or `None` for a random one.
    pub async fn start(
        client: Client,
        namespace: &str,
        name: &str,
        identity: Option<String>,
    ) -> Result<Self, LeaseManagerError> {
        let mut builder = LeaseManagerBuilder::new(client, name).with_namespace(namespace);
        if let Some(identity) = identity {
            builder = builder.with_identity(identity);
        }
        // TODO(user): tune the lease with `.with_duration(..)` / `.with_grace(..)` (defaults 30s / 5s).
        let (is_leader, task) = builder.build().await?.watch().await;
        Ok(Self { is_leader, task })
    }

    /// Waits until this replica holds the lease. Returns `false` if the lease
    /// manager stopped before that.
    pub async fn acquired(&mut self) -> bool {
        self.is_leader.wait_for(|leader| *leader).await.is_ok()
    }

    /// Waits until this replica no longer holds the lease (or the lease manager stopped).
    pub async fn lost(&mut self) {
        // An error means the lease manager task ended: leadership is gone too.
        let _ = self.is_leader.wait_for(|leader| !*leader).await;
    }

    /// Stops competing and releases the lease if this replica holds it, so
    /// another replica can take over without waiting for it to expire.
    pub async fn release(self) {
        // Closing the channel makes the lease manager release the lease and stop.
        drop(self.is_leader);
        match self.task.await {
            Ok(Ok(_)) => info!("leader lease released"),
            Ok(Err(err)) => warn!(error = %err, "leader lease manager failed"),
            Err(err) => warn!(error = %err, "leader lease manager task failed"),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use k8s_openapi::api::coordination::v1::Lease;
    use kube::Api;

    use super::*;

    #[tokio::test]
    async fn acquires_and_releases_the_lease() {
        let client = kube_fake_client::ClientBuilder::new()
            .build()
            .await
            .unwrap();
        let leases = Api::<Lease>::namespaced(client.clone(), "default");

        let mut leader = Leader::start(client, "default", "test-leader", Some("replica-0".into()))
            .await
            .unwrap();
        let acquired = tokio::time::timeout(Duration::from_secs(10), leader.acquired()).await;
        assert_eq!(acquired, Ok(true));
        let lease = leases.get("test-leader").await.unwrap();
        let holder = lease.spec.and_then(|spec| spec.holder_identity);
        assert_eq!(holder.as_deref(), Some("replica-0"));

        leader.release().await;
        let lease = leases.get("test-leader").await.unwrap();
        assert_eq!(lease.spec.and_then(|spec| spec.holder_identity), None);
    }
}
