// Copyright 2026 The Memcached Authors.
// SPDX-License-Identifier: Apache-2.0

//! The memcached-operator manager: runs the controllers, the health probes and
//! the metrics endpoint, optionally behind leader election.

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use clap::Parser;
use kube::Client;
use prometheus_client::registry::Registry;
use tokio::signal::unix::{SignalKind, signal};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tracing::{error, info, warn};

use memcached_operator::controller::{self, Context};
use memcached_operator::leader::Leader;
use memcached_operator::metrics::Metrics;
use memcached_operator::probes::{self, BindAddress, Readiness};
use memcached_operator::telemetry;
use memcached_operator::webhook;
// +rop:scaffold:imports

/// How long running reconciliations get to finish once shutdown starts; keep it below
/// `terminationGracePeriodSeconds` in config/manager/manager.yaml (10s).
const SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(8);

/// Command-line flags.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Args {
    /// Address of the `/metrics` endpoint; `0` disables it.
    #[arg(long, default_value = "0.0.0.0:8080")]
    metrics_bind_address: BindAddress,

    /// Address of the `/healthz` and `/readyz` endpoints; `0` disables them.
    #[arg(long, default_value = "0.0.0.0:8081")]
    health_probe_bind_address: BindAddress,

    /// Run the controllers only while holding the leader Lease, so that only
    /// one of several replicas is active.
    #[arg(long)]
    leader_elect: bool,

    /// Namespace of the leader Lease.
    #[arg(long, env = "POD_NAMESPACE", default_value = "default")]
    leader_election_namespace: String,

    /// Name of the leader Lease.
    #[arg(long, default_value = concat!(env!("CARGO_PKG_NAME"), "-leader"))]
    leader_election_id: String,

    /// Address of the HTTPS webhook server, started when the project has webhooks.
    #[arg(long, default_value = "0.0.0.0:9443")]
    webhook_bind_address: std::net::SocketAddr,

    /// Folder holding the webhook server's certificate, `tls.crt` and `tls.key`.
    #[arg(long, default_value = rop::webhook::DEFAULT_CERT_DIR)]
    webhook_cert_dir: std::path::PathBuf,

    /// Serve the webhooks; `false` (or ENABLE_WEBHOOKS=false) runs the controllers without them,
    /// as `make run` does on a machine without the serving certificate.
    #[arg(long, env = "ENABLE_WEBHOOKS", default_value = "true", action = clap::ArgAction::Set)]
    enable_webhooks: bool,
    // TODO(user): add your own flags.
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    // Held to the end: dropping it flushes the traces (`otel` feature).
    let _telemetry = telemetry::init();
    info!(version = env!("CARGO_PKG_VERSION"), "starting manager");

    let shutdown = CancellationToken::new();
    tokio::spawn(cancel_on_signal(shutdown.clone()));

    let mut registry = Registry::default();
    let metrics = Metrics::register(&mut registry);
    let readiness = Readiness::default();
    let mut servers = start_servers(&args, registry, readiness.clone(), &shutdown).await?;
    servers.extend(start_webhook_server(&args, &shutdown)?);

    // kube uses rustls with ring. rustls refuses to choose when a second provider
    // is compiled in (test builds: kube-fake-client enables aws-lc-rs), so pick one.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = Client::try_default()
        .await
        .context("failed to create the Kubernetes client")?;
    let ctx = Arc::new(Context {
        client: client.clone(),
        metrics,
    });

    // A standby replica waiting for the lease is ready too: otherwise a rolling
    // update never gets past the new Pod while the old one holds the lease.
    readiness.set_ready();
    let result = if args.leader_elect {
        run_as_leader(&args, client, ctx, &shutdown).await
    } else {
        run_controllers(client, ctx, shutdown.clone()).await;
        Ok(())
    };

    // Controllers are done: stop the HTTP servers too.
    shutdown.cancel();
    for server in servers {
        server
            .await
            .context("HTTP server task failed")?
            .context("HTTP server failed")?;
    }
    info!("manager stopped");
    result
}

/// Starts every controller and waits until they have all stopped.
async fn run_controllers(client: Client, ctx: Arc<Context>, shutdown: CancellationToken) {
    let controllers = async {
        let controllers: &[controller::Start] = &[
            controller::memcached::run,
            controller::redis_cluster::run,
            // +rop:scaffold:controllers
        ];
        futures::future::join_all(
            controllers
                .iter()
                .map(|start| start(client.clone(), ctx.clone(), shutdown.clone())),
        )
        .await;
    };
    // A controller whose first list never succeeded (API server unreachable, CRD
    // not installed) does not stop by itself: give up on it after a while.
    let deadline = async {
        shutdown.cancelled().await;
        tokio::time::sleep(SHUTDOWN_TIMEOUT).await;
    };
    tokio::select! {
        () = controllers => {}
        () = deadline => warn!(timeout = ?SHUTDOWN_TIMEOUT, "controllers did not stop in time"),
    }
}

/// Waits for the leader Lease, then runs the controllers while holding it.
/// Losing the lease stops the controllers and fails, so the Pod restarts.
async fn run_as_leader(
    args: &Args,
    client: Client,
    ctx: Arc<Context>,
    shutdown: &CancellationToken,
) -> anyhow::Result<()> {
    // Set POD_NAME from the downward API to see the Pod in the Lease's holderIdentity.
    let identity = std::env::var("POD_NAME").ok();
    let mut leader = Leader::start(
        client.clone(),
        &args.leader_election_namespace,
        &args.leader_election_id,
        identity,
    )
    .await
    .context("failed to start leader election")?;

    info!(
        lease = %format!("{}/{}", args.leader_election_namespace, args.leader_election_id),
        "waiting to become the leader"
    );
    let acquired = tokio::select! {
        acquired = leader.acquired() => acquired,
        () = shutdown.cancelled() => {
            leader.release().await;
            return Ok(());
        }
    };
    if !acquired {
        leader.release().await;
        anyhow::bail!("leader election stopped before the lease was acquired");
    }

    info!("became the leader");
    let controllers = run_controllers(client, ctx, shutdown.clone());
    tokio::pin!(controllers);
    let lost = tokio::select! {
        () = &mut controllers => false,
        () = leader.lost() => {
            error!("lost the leader lease, stopping the controllers");
            shutdown.cancel();
            controllers.await;
            true
        }
    };
    leader.release().await;
    anyhow::ensure!(!lost, "lost the leader lease");
    Ok(())
}

/// Starts the metrics and health servers that are enabled.
async fn start_servers(
    args: &Args,
    registry: Registry,
    readiness: Readiness,
    shutdown: &CancellationToken,
) -> anyhow::Result<Vec<JoinHandle<std::io::Result<()>>>> {
    let mut servers = Vec::new();
    if let BindAddress(Some(addr)) = args.metrics_bind_address {
        let router = probes::metrics_router(Arc::new(registry));
        let server = probes::spawn("metrics", addr, router, shutdown.clone());
        servers.push(server.await.context("failed to start the metrics server")?);
    }
    if let BindAddress(Some(addr)) = args.health_probe_bind_address {
        let router = probes::health_router(readiness);
        let server = probes::spawn("health", addr, router, shutdown.clone());
        servers.push(server.await.context("failed to start the health server")?);
    }
    Ok(servers)
}

/// Starts the webhook server when the project has webhooks and they are enabled. Every
/// replica serves them, leader or not: the API server calls any of them.
fn start_webhook_server(
    args: &Args,
    shutdown: &CancellationToken,
) -> anyhow::Result<Option<JoinHandle<std::io::Result<()>>>> {
    let server = webhook::server().context("the webhooks are not set up right")?;
    if server.is_empty() {
        return Ok(None);
    }
    if !args.enable_webhooks {
        warn!("webhooks are disabled (ENABLE_WEBHOOKS=false): objects are admitted without them");
        return Ok(None);
    }
    // Fail now, not at shutdown, when the certificate is not there.
    rop::webhook::check_certificate(&args.webhook_cert_dir)?;
    info!(address = %args.webhook_bind_address, paths = ?server.paths(), "starting the webhook server");
    let (addr, dir, stop) = (
        args.webhook_bind_address,
        args.webhook_cert_dir.clone(),
        shutdown.clone(),
    );
    Ok(Some(tokio::spawn(async move {
        server
            .serve(addr, &dir, stop.cancelled_owned())
            .await
            .map_err(std::io::Error::other)
    })))
}

/// Cancels `shutdown` on SIGTERM or Ctrl-C; a second signal exits at once.
async fn cancel_on_signal(shutdown: CancellationToken) {
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

/// Waits for SIGTERM (what Kubernetes sends) or SIGINT (Ctrl-C).
async fn termination_signal() -> std::io::Result<()> {
    let mut sigterm = signal(SignalKind::terminate())?;
    tokio::select! {
        result = tokio::signal::ctrl_c() => result,
        _ = sigterm.recv() => Ok(()),
    }
}
