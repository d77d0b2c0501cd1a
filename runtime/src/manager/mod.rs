//! The operator's manager: runs every controller and the webhook server, serves the probes and
//! the metrics, elects a leader and shuts down cleanly (feature `manager`), as
//! controller-runtime's `Manager` does for a Go operator.
//!
//! A generated `src/main.rs` parses [`Options`] (flattened into the project's own flags), adds
//! the project's controllers and webhooks, and runs:
//!
//! ```no_run
//! # use std::sync::Arc;
//! # use rop::controller::{Action, Context, Reconciler};
//! # #[derive(rop::CustomResource, serde::Serialize, serde::Deserialize, Clone, Debug, rop::JsonSchema)]
//! # #[rop(group = "cache.example.com", version = "v1alpha1", kind = "Memcached", namespaced)]
//! # pub struct MemcachedSpec {}
//! # pub struct MemcachedReconciler;
//! # impl Reconciler for MemcachedReconciler {
//! #     type Kind = Memcached;
//! #     type Error = rop::kube::Error;
//! #     async fn reconcile(&self, _: Arc<Memcached>, _: &Context<Memcached>) -> Result<Action, Self::Error> {
//! #         Ok(Action::await_change())
//! #     }
//! # }
//! # mod webhook { pub fn server() -> Result<rop::webhook::Server, rop::webhook::SetupError> { rop::webhook::Server::build([]) } }
//! use clap::Parser;
//! use rop::manager::{Manager, Options};
//!
//! #[derive(Parser)]
//! struct Args {
//!     #[command(flatten)]
//!     manager: Options,
//! }
//!
//! #[tokio::main]
//! async fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     let args = Args::parse();
//!     let mut manager = Manager::new(env!("CARGO_PKG_NAME"), args.manager);
//!     manager.add_controller(MemcachedReconciler);
//!     manager.add_webhooks(webhook::server()?);
//!     manager.run().await?;
//!     Ok(())
//! }
//! ```
//!
//! [`Manager::run`] then:
//!
//! - installs the `tracing` subscriber (`RUST_LOG`, plain logs off a
//!   terminal, OTLP traces with the `otel` feature);
//! - connects with the in-cluster service account or the kubeconfig (`KUBECONFIG`);
//! - serves `/metrics` on `--metrics-bind-address` (controller-runtime's reconcile metrics, and
//!   whatever the project registers in [`Manager::metrics_registry`]): over HTTPS, and only to
//!   callers whose bearer token the API server authenticates (TokenReview) and authorizes for
//!   `get` on `/metrics` (SubjectAccessReview), unless `--metrics-secure=false`, as
//!   kubebuilder's manager; and `/healthz` and `/readyz` on `--health-probe-bind-address`;
//! - serves the webhooks over HTTPS on `--webhook-bind-address` with the certificate in
//!   `--webhook-cert-dir`, on every replica, unless `--enable-webhooks=false`;
//! - with `--leader-elect`, competes for the Lease `--leader-election-id` as client-go does
//!   (`--leader-elect-lease-duration`, `--leader-elect-renew-deadline`,
//!   `--leader-elect-retry-period`: 15 s, 10 s, 2 s); the controllers watch at once and
//!   reconcile while it holds the Lease; losing it stops them and fails, so the Pod restarts;
//! - runs the controllers, in `--watch-namespace` (`WATCH_NAMESPACE`) when set;
//! - on SIGTERM or Ctrl-C, stops the controllers, lets running passes finish (8 s at most,
//!   below the Pod's 10 s grace period), releases the lease and stops the servers; a second
//!   signal exits at once.

mod certs;
mod client;
mod leader;
mod metrics_access;
mod metrics_server;
mod options;
mod probes;
mod signal;
mod telemetry;

use std::future::Future;
use std::net::SocketAddr;
use std::time::Duration;

use futures::future::BoxFuture;
use kube::Client;
use prometheus_client::registry::Registry;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tracing::{error, info, warn};

use crate::controller::{self, Metrics, Reconciler, RunOptions};
use crate::webhook;

pub use certs::CertMode;
use certs::CertOptionError;
use options::TimingError;
pub use options::{BindAddress, Options};
pub use probes::Readiness;

/// How long running reconciliations get to finish once shutdown starts; below the
/// `terminationGracePeriodSeconds` of `config/manager/manager.yaml` (10 s).
pub(crate) const SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(8);

/// Why the manager could not start or stopped with an error: no client, a server's address in
/// use, a flag that cannot be used (webhook certificates, leader election), a controller's
/// [`controller::Config`] or webhook servers that cannot be used, or the leader lease lost
/// (the Pod then restarts). Its message says which and what to change; its
/// [`source`](std::error::Error::source) chain holds the underlying error.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct Error(#[from] Problem);

impl From<webhook::ServeError> for Error {
    fn from(err: webhook::ServeError) -> Self {
        Problem::Webhooks(err).into()
    }
}

impl From<CertOptionError> for Error {
    fn from(err: CertOptionError) -> Self {
        Problem::WebhookCertificates(err).into()
    }
}

impl From<TimingError> for Error {
    fn from(err: TimingError) -> Self {
        Problem::LeaderElectionTiming(err).into()
    }
}

/// What [`Error`] says.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Problem {
    /// No client: neither in a cluster nor with a kubeconfig.
    #[error(
        "failed to create the Kubernetes client: run in a cluster (with the manager's ServiceAccount) or set KUBECONFIG"
    )]
    Client(#[source] kube::Error),
    /// No client from the kubeconfig `KUBECONFIG` names.
    #[error(
        "failed to create the Kubernetes client from KUBECONFIG={path}: fix that file, or unset KUBECONFIG to use ~/.kube/config"
    )]
    Kubeconfig {
        /// `KUBECONFIG`'s value.
        path: String,
        /// kube's error, which says what is wrong with the file.
        #[source]
        source: kube::Error,
    },
    /// A server's address could not be bound (in use, or not this machine's).
    #[error("failed to start the {server} server on {addr}: is another process serving there? (`0` disables it)")]
    Bind {
        /// `metrics` or `health`.
        server: &'static str,
        /// The address of its flag.
        addr: SocketAddr,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The secure metrics server's certificate cannot be read or made.
    #[error(transparent)]
    MetricsCertificate(metrics_server::CertificateError),
    /// A server stopped with an error.
    #[error("the {server} server failed")]
    Serve {
        /// `metrics` or `health`.
        server: &'static str,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The webhook server could not start or failed.
    #[error(transparent)]
    Webhooks(webhook::ServeError),
    /// A flag of the self-managed webhook certificates cannot be used.
    #[error(transparent)]
    WebhookCertificates(CertOptionError),
    /// The leader election flags do not fit together.
    #[error(transparent)]
    LeaderElectionTiming(TimingError),
    /// The leader Lease's namespace or name cannot be used.
    #[error("{0}")]
    LeaderElectionLease(String),
    /// Another replica took the lease: the manager stops so that the Pod restarts.
    #[error("lost the leader lease")]
    LeaseLost,
    /// Two servers given to [`Manager::add_webhooks`] cannot be served together; the manager
    /// starts nothing.
    #[error(transparent)]
    WebhookSetup(webhook::SetupError),
    /// A controller's [`controller::Config`] cannot be used; the manager starts nothing.
    #[error("controller {controller}: {message}")]
    Controller {
        /// The controller's name, its kind in lower case.
        controller: String,
        /// What is wrong, and how to fix it.
        message: String,
    },
}

/// Starts one controller with the manager's client, metrics, options and shutdown signal.
type StartController = Box<dyn FnOnce(Client, Metrics, RunOptions, CancellationToken) -> BoxFuture<'static, ()> + Send>;

/// The manager of one operator: its controllers, its webhooks and its servers.
pub struct Manager {
    name: String,
    options: Options,
    client: Option<Client>,
    registry: Registry,
    metrics: Metrics,
    controllers: Vec<StartController>,
    /// The first controller whose config cannot be used: [`Manager::run_until`] returns it.
    invalid: Option<Error>,
    webhooks: Option<webhook::Server>,
    readiness: Readiness,
}

impl Manager {
    /// A manager named `name` (the project's package name: the default leader Lease is
    /// `<name>-leader`, and traces carry it as their service name) with `options`.
    pub fn new(name: &str, options: Options) -> Self {
        let mut registry = Registry::default();
        let metrics = Metrics::register(&mut registry);
        Self {
            name: name.into(),
            options,
            client: None,
            registry,
            metrics,
            controllers: Vec::new(),
            invalid: None,
            webhooks: None,
            readiness: Readiness::default(),
        }
    }

    /// A manager that uses `client` instead of connecting by itself (tests hand it the client of
    /// their API server).
    pub fn with_client(name: &str, options: Options, client: Client) -> Self {
        Self { client: Some(client), ..Self::new(name, options) }
    }

    /// Adds the controller of `reconciler`'s kind, run as its [`Reconciler::config`] says. A
    /// config that cannot be used (a watch of a kind the controller does not own or watch, an
    /// invalid label selector) makes [`Manager::run`] fail at once with an [`Error`] naming the controller.
    pub fn add_controller<R: Reconciler>(&mut self, reconciler: R) -> &mut Self {
        let config = reconciler.config();
        if let Err(message) = config.check() {
            let controller = <R::Kind as crate::ControllerTarget>::CONTROLLER.kind.to_lowercase();
            self.invalid.get_or_insert(Problem::Controller { controller, message }.into());
            return self;
        }
        self.controllers.push(Box::new(move |client, metrics, options, shutdown| {
            Box::pin(controller::start(reconciler, config, client, metrics, options, shutdown.cancelled_owned()))
        }));
        self
    }

    /// Serves `webhooks` (`webhook::server()` of the project) beside those added before; an
    /// empty server adds nothing. Two webhooks at one path, or two hubs of one kind's
    /// conversion, make [`Manager::run`] fail at once with an [`Error`] that says why.
    pub fn add_webhooks(&mut self, webhooks: webhook::Server) -> &mut Self {
        match self.webhooks.take() {
            None => self.webhooks = Some(webhooks),
            Some(earlier) => match earlier.merge(webhooks) {
                Ok(merged) => self.webhooks = Some(merged),
                Err(err) => {
                    self.invalid.get_or_insert(Problem::WebhookSetup(err).into());
                }
            },
        }
        self
    }

    /// The registry `/metrics` serves: register the project's own metrics here, with the types
    /// of [`crate::prometheus_client`] (controller-runtime's `metrics.Registry`).
    ///
    /// ```
    /// use rop::manager::{Manager, Options};
    /// use rop::prometheus_client::metrics::counter::Counter;
    ///
    /// let mut manager = Manager::new("memcached-operator", Options::default());
    /// // Cloned into the reconciler, which counts with `backups.inc()`.
    /// let backups = Counter::<u64>::default();
    /// manager.metrics_registry().register("memcached_backups", "Backups taken", backups.clone());
    /// ```
    pub fn metrics_registry(&mut self) -> &mut Registry {
        &mut self.registry
    }

    /// The manager's readiness, as `/readyz` answers it: a test reads why it is not ready.
    pub fn readiness(&self) -> Readiness {
        self.readiness.clone()
    }

    /// The reconcile metrics of the manager's controllers.
    pub fn metrics(&self) -> &Metrics {
        &self.metrics
    }

    /// Installs logging, then runs until SIGTERM or Ctrl-C (see the module docs).
    ///
    /// # Errors
    /// See [`Manager::run_until`].
    pub async fn run(self) -> Result<(), Error> {
        let _telemetry = telemetry::init(&self.name);
        info!(manager = %self.name, "starting manager");
        let signalled = CancellationToken::new();
        tokio::spawn(signal::cancel_on_signal(signalled.clone()));
        let result = self.run_until(signalled.cancelled_owned()).await;
        match &result {
            Ok(()) => info!("manager stopped"),
            Err(err) => error!(error = controller::error_chain(err), "manager failed"),
        }
        result
    }

    /// Runs the servers and the controllers until `stop` completes, then stops them. Without a
    /// `tracing` subscriber (a test), it installs one that logs through the test harness.
    ///
    /// # Errors
    /// No client, a port that cannot be bound, a webhook certificate that cannot be read,
    /// leader election that cannot start, or a lost lease.
    pub async fn run_until(self, stop: impl Future<Output = ()> + Send + 'static) -> Result<(), Error> {
        let Self { name, options, client, mut registry, metrics, controllers, invalid, webhooks, readiness } = self;
        if let Some(invalid) = invalid {
            return Err(invalid);
        }
        let timing = options.leader_election_timing()?;
        let lease = options.leader_election_id.clone().unwrap_or_else(|| format!("{name}-leader"));
        if options.leader_elect {
            leader::Leader::check_lease(&options.leader_election_namespace, &lease)
                .map_err(Problem::LeaderElectionLease)?;
        }
        let self_managed = options.webhook_cert_mode == CertMode::SelfManaged || options.webhook_url.is_some();
        if options.enable_webhooks && self_managed {
            certs::check_options(&options)?;
        }
        let webhooks = webhooks.map(|server| server.with_metrics(webhook::Metrics::register(&mut registry)));
        telemetry::init_unless_set();
        let shutdown = CancellationToken::new();
        let cancel = shutdown.clone();
        tokio::spawn(async move {
            stop.await;
            cancel.cancel();
        });

        // kube speaks TLS through rustls with ring; rustls refuses to choose when a second
        // provider is compiled in, so choose.
        let _ = crate::webhook::tls::ring_provider().install_default();
        // The metrics certificate is checked before connecting: a bad flag is said first.
        let metrics_tls = if options.metrics_secure && options.metrics_bind_address.0.is_some() {
            Some(metrics_server::Tls::new(options.metrics_cert_dir.as_deref()).map_err(Problem::MetricsCertificate)?)
        } else {
            if let Some(dir) = &options.metrics_cert_dir {
                warn!(dir = %dir.display(), "--metrics-cert-dir is not used: the metrics are not served over HTTPS (--metrics-secure=false or --metrics-bind-address=0)");
            }
            None
        };
        let client = match client {
            Some(client) => client,
            None => client::connect().await?,
        };
        let servers = start_servers(&options, registry, readiness.clone(), metrics_tls, &client, &shutdown).await?;
        let leader = options.leader_elect.then(|| {
            let identity = options.leader_election_identity.clone();
            leader::Leader::start(client.clone(), &options.leader_election_namespace, &lease, identity, timing)
        });
        // Without leader election this replica always leads: the sender's end is dropped, so
        // the value stays `true`.
        let leading = leader.as_ref().map_or_else(|| tokio::sync::watch::channel(true).1, leader::Leader::leading);
        let webhooks = webhooks.map(|server| server.with_client(client.clone()));
        let started = Webhooks { name: &name, client: &client, leading, readiness: &readiness };
        let servers = servers.into_iter().chain(started.start(&options, webhooks, &shutdown)?);
        // A server that fails (its port taken, its certificate gone) stops the manager now,
        // not when something else stops it.
        let servers: Vec<Server> = servers.map(|server| stop_on_failure(server, shutdown.clone())).collect();

        // A standby replica waiting for the lease is ready too: otherwise a rolling update never
        // gets past the new Pod while the old one holds the lease.
        readiness.set_ready();
        let run = Controllers { controllers, client: client.clone(), metrics, options: &options };
        let result = if let Some(leader) = leader {
            run.run_as_leader(leader, &shutdown).await
        } else {
            run.run(shutdown.clone(), None).await;
            Ok(())
        };

        shutdown.cancel();
        for server in servers {
            match server.await {
                Ok(served) => served?,
                Err(err) => warn!(error = %err, "a server task failed"),
            }
        }
        result
    }
}

/// The manager's controllers, ready to start.
struct Controllers<'a> {
    controllers: Vec<StartController>,
    client: Client,
    metrics: Metrics,
    options: &'a Options,
}

impl Controllers<'_> {
    /// Runs every controller until `shutdown`, and waits for them to stop. With `leading`,
    /// they watch at once but reconcile only while it holds `true`.
    async fn run(self, shutdown: CancellationToken, leading: Option<tokio::sync::watch::Receiver<bool>>) {
        if self.controllers.is_empty() {
            // A manager of webhooks only: they serve until shutdown.
            shutdown.cancelled().await;
            return;
        }
        // One watch per owned or watched kind for all controllers: each controller subscribes
        // when started below, and the watches run with them once all have.
        let options = RunOptions {
            watch_namespace: self.options.watch_namespace().map(String::from),
            leading,
            related: controller::RelatedWatches::default(),
        };
        let controllers = futures::future::join_all(
            self.controllers
                .into_iter()
                .map(|start| start(self.client.clone(), self.metrics.clone(), options.clone(), shutdown.clone())),
        );
        let running = futures::future::join(controllers, options.related.run());
        // A controller whose first list never succeeded (API server unreachable, CRD not
        // installed) does not stop by itself: give up on it after a while.
        let deadline = async {
            shutdown.cancelled().await;
            tokio::time::sleep(SHUTDOWN_TIMEOUT).await;
        };
        tokio::select! {
            _ = running => {}
            () = deadline => warn!(timeout = ?SHUTDOWN_TIMEOUT, "controllers did not stop in time"),
        }
    }

    /// Competes for the leader Lease while the controllers watch (a warm standby: their caches
    /// are full when it leads), and lets them reconcile while it leads. On `shutdown` the
    /// passes finish, then the Lease is released so a standby takes over at once. A leader
    /// that loses the Lease drops its passes where they stand and fails, so the Pod restarts.
    async fn run_as_leader(self, mut leader: leader::Leader, shutdown: &CancellationToken) -> Result<(), Error> {
        let controllers = self.run(shutdown.clone(), Some(leader.leading()));
        tokio::pin!(controllers);
        let lost = tokio::select! {
            () = &mut controllers => false,
            () = leader.lost() => true,
        };
        if lost {
            // Not polled again: no pass writes after this.
            error!("lost the leader lease, stopping the controllers");
            shutdown.cancel();
        }
        leader.release().await;
        if lost { Err(Problem::LeaseLost.into()) } else { Ok(()) }
    }
}

/// A server running in its own task.
type Server = JoinHandle<Result<(), Error>>;

/// `server`, cancelling `shutdown` when it fails.
fn stop_on_failure(server: Server, shutdown: CancellationToken) -> Server {
    tokio::spawn(async move {
        let result = match server.await {
            Ok(served) => served,
            // The metrics and health tasks turn their own panics into errors; the webhook
            // server's task is the one that reaches here.
            Err(join) => Err(Problem::Serve { server: "webhook", source: std::io::Error::other(join) }.into()),
        };
        if let Err(error) = &result {
            error!(error = %error, "a server failed, stopping the manager");
            shutdown.cancel();
        }
        result
    })
}

/// Starts the metrics and health servers that are enabled: the metrics over HTTPS with
/// `metrics_tls` to callers the API server authorizes, else (`--metrics-secure=false`) over
/// plain HTTP.
async fn start_servers(
    options: &Options,
    registry: Registry,
    readiness: Readiness,
    mut metrics_tls: Option<metrics_server::Tls>,
    client: &Client,
    shutdown: &CancellationToken,
) -> Result<Vec<Server>, Error> {
    let mut servers = Vec::new();
    let metrics = probes::metrics_router(std::sync::Arc::new(registry));
    let enabled = [
        ("metrics", options.metrics_bind_address, metrics),
        ("health", options.health_probe_bind_address, probes::health_router(readiness)),
    ];
    for (server, BindAddress(addr), router) in enabled {
        let Some(addr) = addr else { continue };
        let tls = if server == "metrics" { metrics_tls.take() } else { None };
        let bound = if let Some(tls) = tls {
            let router = metrics_server::secure(router, client.clone());
            metrics_server::spawn(addr, router, tls, options.http_versions(), shutdown.clone())
        } else {
            probes::spawn(server, addr, router, shutdown.clone()).await
        };
        let task = bound.map_err(|source| Problem::Bind { server, addr, source })?;
        servers.push(tokio::spawn(async move {
            match task.await {
                Ok(served) => served.map_err(|source| Problem::Serve { server, source }.into()),
                Err(join) => Err(Problem::Serve { server, source: std::io::Error::other(join) }.into()),
            }
        }));
    }
    Ok(servers)
}

/// What the webhook server needs from the manager.
struct Webhooks<'a> {
    name: &'a str,
    client: &'a Client,
    leading: tokio::sync::watch::Receiver<bool>,
    readiness: &'a Readiness,
}

impl Webhooks<'_> {
    /// Starts the webhook server when the project has webhooks and they are enabled. Every
    /// replica serves them, leader or not: the API server calls any of them. With
    /// self-managed certificates it serves once the first certificate is there.
    fn start(
        self,
        options: &Options,
        webhooks: Option<webhook::Server>,
        shutdown: &CancellationToken,
    ) -> Result<Option<Server>, Error> {
        let Some(server) = webhooks.filter(|server| !server.is_empty()) else {
            return Ok(None);
        };
        if !options.enable_webhooks {
            warn!("webhooks are disabled (ENABLE_WEBHOOKS=false): objects are admitted without them");
            return Ok(None);
        }
        let self_managed = options.webhook_cert_mode == CertMode::SelfManaged || options.webhook_url.is_some();
        if !self_managed {
            // Fail now, not at the first request, when the certificate is not there.
            webhook::check_certificate(&options.webhook_cert_dir)?;
        }
        let server = match &options.webhook_client_ca_file {
            Some(ca) => {
                webhook::check_client_ca(ca)?;
                server.check_client_auth_without_conversion()?;
                info!(client_ca = %ca.display(), "the webhook server admits only callers with a certificate from this CA");
                server.client_ca_file(ca)
            }
            None => server,
        };
        let server = server.with_http(options.http_versions());
        info!(address = %options.webhook_bind_address, paths = ?server.paths(), "starting the webhook server");
        let (addr, stop) = (options.webhook_bind_address, shutdown.clone());
        if !self_managed {
            let dir = options.webhook_cert_dir.clone();
            return Ok(Some(tokio::spawn(async move { Ok(server.serve(addr, &dir, stop.cancelled_owned()).await?) })));
        }
        let certificates = certs::SelfManaged::new(options, self.name, &server)?;
        let (configs, receive) = tokio::sync::watch::channel(None);
        let run =
            certificates.run(self.client.clone(), self.leading, self.readiness.clone(), configs, shutdown.clone());
        let certificates = tokio::spawn(run);
        Ok(Some(tokio::spawn(async move {
            let served = server.serve_configs(addr, receive, stop).await;
            // It ends at shutdown too, after unregistering a `--webhook-url` registration.
            if let Err(error) = certificates.await {
                warn!(error = %error, "the webhook certificate task failed");
            }
            Ok(served?)
        })))
    }
}
