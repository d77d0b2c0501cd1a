//! Leader election on a `coordination.k8s.io/v1` Lease (kube-lease-manager).

use kube::Client;
use kube_lease_manager::{LeaseManager, LeaseManagerBuilder, LeaseManagerError};
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tracing::{info, warn};

/// A running lease manager that keeps trying to hold (and renews) the lease.
pub(crate) struct Leader {
    is_leader: watch::Receiver<bool>,
    task: JoinHandle<Result<LeaseManager, LeaseManagerError>>,
}

impl Leader {
    /// Starts competing for the Lease `namespace/name`, creating it if needed. `identity` names
    /// this replica in the Lease's `holderIdentity` (the Pod name), `None` for a random one.
    pub(crate) async fn start(
        client: Client,
        namespace: &str,
        name: &str,
        identity: Option<String>,
    ) -> Result<Self, LeaseManagerError> {
        let mut builder = LeaseManagerBuilder::new(client, name).with_namespace(namespace);
        if let Some(identity) = identity {
            builder = builder.with_identity(identity);
        }
        let (is_leader, task) = builder.build().await?.watch().await;
        Ok(Self { is_leader, task })
    }

    /// Waits until this replica holds the lease; `false` if the lease manager stopped first.
    pub(crate) async fn acquired(&mut self) -> bool {
        self.is_leader.wait_for(|leader| *leader).await.is_ok()
    }

    /// Waits until this replica no longer holds the lease (or the lease manager stopped).
    pub(crate) async fn lost(&mut self) {
        // An error means the lease manager task ended: leadership is gone too.
        let _ = self.is_leader.wait_for(|leader| !*leader).await;
    }

    /// Stops competing and releases the lease if this replica holds it, so another replica
    /// takes over without waiting for it to expire.
    pub(crate) async fn release(self) {
        // Closing the channel makes the lease manager release the lease and stop.
        drop(self.is_leader);
        match self.task.await {
            Ok(Ok(_)) => info!("leader lease released"),
            Ok(Err(err)) => warn!(error = %err, "leader lease manager failed"),
            Err(err) => warn!(error = %err, "leader lease manager task failed"),
        }
    }
}
