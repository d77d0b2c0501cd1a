//! Shutdown on SIGTERM (what the kubelet sends) or SIGINT (Ctrl-C).

use tokio::signal::unix::{SignalKind, signal};
use tokio_util::sync::CancellationToken;
use tracing::{error, info, warn};

/// Cancels `shutdown` on the first signal; a second one exits at once.
pub(super) async fn cancel_on_signal(shutdown: CancellationToken) {
    if let Err(err) = termination_signal().await {
        error!(error = %err, "cannot listen for shutdown signals");
        return;
    }
    info!("shutting down; send the signal again to force");
    shutdown.cancel();
    if termination_signal().await.is_ok() {
        warn!("forced shutdown");
        std::process::exit(130);
    }
}

/// Waits for SIGTERM or SIGINT.
async fn termination_signal() -> std::io::Result<()> {
    let mut sigterm = signal(SignalKind::terminate())?;
    tokio::select! {
        result = tokio::signal::ctrl_c() => result,
        _ = sigterm.recv() => Ok(()),
    }
}
