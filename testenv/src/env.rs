//! A running etcd and kube-apiserver: starting, clients, stopping.

use std::ffi::OsString;
use std::future::Future;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex, mpsc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::audit::{AUDIT_LOG, AUDIT_POLICY, Write, requests, writes};
use crate::binaries::{Binaries, ETCD, KUBE_APISERVER};
use crate::error::{Error, io_err};
use crate::pki::{admission_configuration, generate_pki, kubeconfig_yaml, webhook_client_pki};
use crate::process::{Processes, free_port, install_crypto_provider, log_tail, spawn};

/// How often [`Options::start`] picks new ports when one was taken before a server bound it.
const LAUNCH_ATTEMPTS: u32 = 3;

/// How a test environment starts: the one value both entry points, [`Options::start`] and
/// [`Options::start_or_skip`], take (`TestEnv::start()` and `TestEnv::start_or_skip()` are
/// those with `Options::default()`). It is `#[non_exhaustive]`, so a new setting is not a
/// breaking change: start from the default and set fields,
/// `let mut options = Options::default(); options.audit_log = true;`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Options {
    /// The `etcd` and `kube-apiserver` to run; `None` (the default) uses what
    /// [`Binaries::find`] finds.
    pub binaries: Option<Binaries>,
    /// Record every request in an audit log, `audit.log` in [`TestEnv::dir`]: one JSON event
    /// per line at level `Metadata` (who, verb, resource; no bodies), from the stage
    /// `ResponseStarted` (watches) or `ResponseComplete` on. Counting a manager's requests
    /// reads it (see [`TestEnv::kubeconfig_as_service_account`]).
    pub audit_log: bool,
    /// kube-apiserver presents a client certificate to admission webhooks, as a cluster whose
    /// webhooks authenticate their caller is set up: its admission configuration
    /// (`--admission-control-config-file`) names a kubeconfig whose default user (`*`) holds a
    /// certificate signed by a CA of its own, [`TestEnv::webhook_client_ca`]. (kube-apiserver
    /// presents none to CRD conversion webhooks.)
    pub webhook_client_certificate: bool,
    /// kube-apiserver's feature gates to set, each `Name=true` or `Name=false`
    /// (`--feature-gates`): to run against the features of an older or differently set up
    /// cluster, `WatchList=false` as on Kubernetes 1.33. Empty (the default): none set.
    pub feature_gates: Vec<String>,
}

/// A running etcd and kube-apiserver, and a client for them. Dropping it stops both
/// processes (kube-apiserver first, then etcd) and removes the temporary folder.
pub struct TestEnv {
    client: kube::Client,
    server_url: String,
    kubeconfig: PathBuf,
    webhook_client_ca: Option<PathBuf>,
    startup: Duration,
    // Last, so the client is gone before the runtime and the processes.
    guard: Guard,
}

/// What the supervisor thread is asked to do; it stops both processes once its sender is gone.
enum Supervise {
    /// Start kube-apiserver again, as it was first started; answer whether it did.
    StartApiServer(tokio::sync::oneshot::Sender<Result<(), Error>>),
    /// Start etcd again, as it was first started (same data folder and ports).
    StartEtcd(tokio::sync::oneshot::Sender<Result<(), Error>>),
}

/// Owns what must be cleaned up, from the moment the processes are spawned; its `Drop` stops
/// them even when [`TestEnv::start`] fails half-way.
pub(crate) struct Guard {
    runtime: Option<tokio::runtime::Runtime>,
    processes: Arc<Mutex<Processes>>,
    supervisor: Option<(mpsc::Sender<Supervise>, JoinHandle<()>)>,
    dir: Option<tempfile::TempDir>,
}

impl std::fmt::Debug for TestEnv {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestEnv")
            .field("server_url", &self.server_url)
            .field("kubeconfig", &self.kubeconfig)
            .finish_non_exhaustive()
    }
}

impl Options {
    /// Starts etcd and kube-apiserver with these options, and waits until the API server
    /// answers `/readyz` and the `default` namespace exists.
    ///
    /// Takes about 3 seconds. Can be called from any thread, also inside an async runtime.
    ///
    /// # Errors
    /// [`Error::NotInstalled`] when a binary is missing; the others when a process cannot start
    /// or the server is not ready in time.
    pub fn start(&self) -> Result<TestEnv, Error> {
        let binaries = match &self.binaries {
            Some(binaries) => binaries.clone(),
            None => Binaries::find()?,
        };
        // Free ports are picked, then released for etcd and kube-apiserver to bind: another
        // process (a test beside this one) can take one in between. Pick again then.
        let mut attempt = 1;
        loop {
            match TestEnv::launch(&binaries, self) {
                Err(err) if attempt < LAUNCH_ATTEMPTS && err.to_string().contains("address already in use") => {
                    attempt += 1;
                }
                launched => return launched,
            }
        }
    }

    /// [`Options::start`], except that missing binaries make the test skip: it writes one line,
    /// `skipped: <test>: no test API server (...)`, to the terminal (past the test harness's
    /// output capture, so a plain `cargo test` shows it) and returns `None`, so the calling test
    /// passes without a server. With `ROP_TESTENV_REQUIRE=1` missing binaries panic too.
    ///
    /// # Panics
    /// On any error but missing binaries.
    pub fn start_or_skip(&self) -> Option<TestEnv> {
        match self.start() {
            Ok(env) => Some(env),
            Err(e) if e.is_not_installed() && std::env::var_os("ROP_TESTENV_REQUIRE").is_none_or(|v| v != "1") => {
                let test = std::thread::current().name().unwrap_or("a test").to_string();
                // Written to the file descriptor, not through `eprintln!`, which the test harness
                // captures and shows only for failed tests.
                let line = format!("skipped: {test}: no test API server ({e})\n");
                let _ = io::Write::write_all(&mut io::stderr(), line.as_bytes());
                None
            }
            Err(e) => panic!("rop-testenv: {e}"),
        }
    }
}

impl TestEnv {
    /// [`Options::start`] with the default options.
    ///
    /// # Errors
    /// As [`Options::start`].
    pub fn start() -> Result<TestEnv, Error> {
        Options::default().start()
    }

    /// [`Options::start_or_skip`] with the default options: what a test calls first.
    pub fn start_or_skip() -> Option<TestEnv> {
        Options::default().start_or_skip()
    }

    /// Starts the environment with `binaries` and `options`.
    fn launch(binaries: &Binaries, options: &Options) -> Result<TestEnv, Error> {
        let started = Instant::now();
        install_crypto_provider();
        let dir =
            tempfile::Builder::new().prefix("rop-testenv.").tempdir().map_err(io_err("creating a temporary folder"))?;
        let work = dir.path().to_path_buf();
        let pki = generate_pki(&work.join("pki"))?;

        let (etcd_client, etcd_peer, api_port) = (free_port()?, free_port()?, free_port()?);
        let server_url = format!("https://127.0.0.1:{api_port}");
        let kubeconfig = work.join("kubeconfig");
        std::fs::write(&kubeconfig, kubeconfig_yaml(&server_url, &pki))
            .map_err(io_err(format!("writing {}", kubeconfig.display())))?;

        let etcd_url = format!("http://127.0.0.1:{etcd_client}");
        let peer_url = format!("http://127.0.0.1:{etcd_peer}");
        let mut etcd = Command::new(&binaries.etcd);
        etcd.arg("--name=rop-testenv")
            .arg(arg("--data-dir=", &work.join("etcd")))
            .arg(format!("--listen-client-urls={etcd_url}"))
            .arg(format!("--advertise-client-urls={etcd_url}"))
            .arg(format!("--listen-peer-urls={peer_url}"))
            .arg(format!("--initial-advertise-peer-urls={peer_url}"))
            .arg(format!("--initial-cluster=rop-testenv={peer_url}"))
            // Test data need not survive a power cut; fsync makes every write ~10x slower.
            .arg("--unsafe-no-fsync")
            .arg("--log-level=warn");

        let mut apiserver = Command::new(&binaries.kube_apiserver);
        apiserver
            .arg(format!("--etcd-servers={etcd_url}"))
            .arg("--bind-address=127.0.0.1")
            .arg("--advertise-address=127.0.0.1")
            .arg(format!("--secure-port={api_port}"))
            .arg(arg("--tls-cert-file=", &pki.server_cert))
            .arg(arg("--tls-private-key-file=", &pki.server_key))
            .arg(arg("--client-ca-file=", &pki.ca))
            .arg(arg("--cert-dir=", &work.join("certs")))
            // No kubernetes Service endpoints to reconcile: there is one server, and no nodes.
            .arg("--endpoint-reconciler-type=none")
            .arg("--service-cluster-ip-range=10.0.0.0/24")
            .arg("--authorization-mode=RBAC")
            .arg(format!("--service-account-issuer={server_url}"))
            .arg(arg("--service-account-key-file=", &pki.sa_public))
            .arg(arg("--service-account-signing-key-file=", &pki.sa_private))
            // Without a controller manager no ServiceAccount `default` is ever created, and
            // this plug-in would refuse every Pod for lack of it.
            .arg("--disable-admission-plugins=ServiceAccount");
        if options.audit_log {
            let policy = work.join("audit-policy.yaml");
            std::fs::write(&policy, AUDIT_POLICY).map_err(io_err(format!("writing {}", policy.display())))?;
            apiserver
                .arg(arg("--audit-policy-file=", &policy))
                .arg(arg("--audit-log-path=", &work.join(AUDIT_LOG)))
                .arg("--audit-log-format=json")
                // Never rotated: its size limit (in MB) is 100 when left at 0, the log of a
                // benchmark run at 10,000 objects is larger, and the readers below read one file.
                .arg("--audit-log-maxsize=1000000");
        }
        if !options.feature_gates.is_empty() {
            apiserver.arg(format!("--feature-gates={}", options.feature_gates.join(",")));
        }
        let mut webhook_client_ca = None;
        if options.webhook_client_certificate {
            let (ca, kubeconfig) = webhook_client_pki(&work.join("pki"))?;
            let admission = work.join("admission.yaml");
            std::fs::write(&admission, admission_configuration(&kubeconfig))
                .map_err(io_err(format!("writing {}", admission.display())))?;
            apiserver.arg(arg("--admission-control-config-file=", &admission));
            webhook_client_ca = Some(ca);
        }

        // The supervisor thread spawns both processes (so that, on Linux, they die with it)
        // and then waits until the TestEnv is dropped, or the process exits, starting
        // kube-apiserver again when asked (`TestEnv::restart_api_server`).
        let command_line = |command: &Command| -> (OsString, Vec<OsString>) {
            (command.get_program().to_owned(), command.get_args().map(ToOwned::to_owned).collect())
        };
        let (api_program, api_args) = command_line(&apiserver);
        let (etcd_program, etcd_args) = command_line(&etcd);
        let processes = Arc::new(Mutex::new(Processes::default()));
        let (spawned_tx, spawned_rx) = mpsc::channel::<Result<(), Error>>();
        let (supervise, requests) = mpsc::channel::<Supervise>();
        let shared = Arc::clone(&processes);
        let (etcd_log, api_log) = (work.join("etcd.log"), work.join("kube-apiserver.log"));
        let (etcd_log2, api_log2) = (etcd_log.clone(), api_log.clone());
        let thread = std::thread::Builder::new()
            .name("rop-testenv-supervisor".into())
            .spawn(move || {
                let result = (|| {
                    let etcd = spawn(etcd, &etcd_log2)?;
                    shared.lock().unwrap_or_else(|e| e.into_inner()).etcd = Some(etcd);
                    let apiserver = spawn(apiserver, &api_log2)?;
                    shared.lock().unwrap_or_else(|e| e.into_inner()).kube_apiserver = Some(apiserver);
                    Ok(())
                })();
                let _ = spawned_tx.send(result);
                // Ends when the TestEnv (the sender) is gone.
                while let Ok(request) = requests.recv() {
                    let (reply, program, args, log) = match request {
                        Supervise::StartApiServer(reply) => (reply, &api_program, &api_args, &api_log2),
                        Supervise::StartEtcd(reply) => (reply, &etcd_program, &etcd_args, &etcd_log2),
                    };
                    let mut again = Command::new(program);
                    again.args(args);
                    let started = spawn(again, log).map(|child| {
                        let mut processes = shared.lock().unwrap_or_else(|e| e.into_inner());
                        if program == &api_program {
                            processes.kube_apiserver = Some(child);
                        } else {
                            processes.etcd = Some(child);
                        }
                    });
                    let _ = reply.send(started);
                }
                shared.lock().unwrap_or_else(|e| e.into_inner()).stop_all();
            })
            .map_err(io_err("starting the supervisor thread"))?;

        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("rop-testenv")
            .enable_all()
            .build()
            .map_err(io_err("starting a Tokio runtime"))?;

        // From here on, dropping `guard` stops everything.
        let guard = Guard { runtime: Some(runtime), processes, supervisor: Some((supervise, thread)), dir: Some(dir) };
        spawned_rx.recv().unwrap_or_else(|_| Err(io_err("starting etcd")(io::Error::other("supervisor died"))))?;

        let timeout = ready_timeout();
        let processes = Arc::clone(&guard.processes);
        let path = kubeconfig.clone();
        let client = guard.block_on_any_thread(async move {
            let config = kube::Config::from_custom_kubeconfig(
                kube::config::Kubeconfig::read_from(&path)?,
                &kube::config::KubeConfigOptions::default(),
            )
            .await?;
            let client = kube::Client::try_from(config)?;
            wait_ready(&client, &processes, timeout, started, &etcd_log, &api_log).await?;
            Ok::<_, Error>(client)
        })?;
        Ok(TestEnv { client, server_url, kubeconfig, webhook_client_ca, startup: started.elapsed(), guard })
    }

    /// A client for the server, authenticated as `admin` in `system:masters` (allowed
    /// everything). Cheap to clone; usable from any Tokio runtime.
    pub fn client(&self) -> kube::Client {
        self.client.clone()
    }

    /// A client that acts as the ServiceAccount `namespace/name` (Kubernetes impersonation: the
    /// admin client asks as `system:serviceaccount:<namespace>:<name>` in its groups), so the
    /// server allows it exactly what RBAC gives that ServiceAccount. With
    /// [`install_manager_rbac`](crate::install_manager_rbac), a controller under test has the permissions of a deployed
    /// manager, and a rule missing from `config/rbac/role.yaml` fails the test as it would fail
    /// in a cluster.
    ///
    /// # Errors
    /// The kubeconfig cannot be read or the client built.
    pub fn client_as_service_account(&self, namespace: &str, name: &str) -> Result<kube::Client, Error> {
        let config = self.config_as_service_account(namespace, name)?;
        Ok(kube::Client::try_from(config)?)
    }

    /// As [`TestEnv::client_as_service_account`], noting `METHOD path` of every request that
    /// writes (any method but `GET`) in `writes`.
    pub(crate) fn client_as_service_account_noting_writes(
        &self,
        namespace: &str,
        name: &str,
        writes: Arc<Mutex<Vec<String>>>,
        denials: crate::denials::Denials,
    ) -> Result<kube::Client, Error> {
        let config = self.config_as_service_account(namespace, name)?;
        let note = tower::util::MapRequestLayer::new(move |request: http::Request<kube::client::Body>| {
            if request.method() != http::Method::GET {
                let write = format!("{} {}", request.method(), request.uri());
                let write = write.trim_end_matches('?').to_string();
                writes.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(write);
            }
            request
        });
        let builder = kube::client::ClientBuilder::try_from(config)?.with_layer(&note);
        Ok(builder.with_layer(&crate::denials::NoteDenials(denials)).build())
    }

    /// The client configuration of [`TestEnv::client_as_service_account`].
    fn config_as_service_account(&self, namespace: &str, name: &str) -> Result<kube::Config, Error> {
        let path = self.kubeconfig.clone();
        let user = format!("system:serviceaccount:{namespace}:{name}");
        let groups = vec![
            "system:serviceaccounts".to_string(),
            format!("system:serviceaccounts:{namespace}"),
            "system:authenticated".to_string(),
        ];
        self.guard.block_on_any_thread(async move {
            let mut config = kube::Config::from_custom_kubeconfig(
                kube::config::Kubeconfig::read_from(&path)?,
                &kube::config::KubeConfigOptions::default(),
            )
            .await?;
            config.auth_info.impersonate = Some(user);
            config.auth_info.impersonate_groups = Some(groups);
            Ok(config)
        })
    }

    /// A kubeconfig file that acts as the ServiceAccount `namespace/name`, as
    /// [`TestEnv::client_as_service_account`] does (its `as` and `as-groups` fields), for a
    /// manager run as a process: `KUBECONFIG=<path> manager`. Its requests carry the
    /// ServiceAccount as `impersonatedUser` in the audit log. Removed on drop.
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn kubeconfig_as_service_account(&self, namespace: &str, name: &str) -> Result<PathBuf, Error> {
        let admin = std::fs::read_to_string(&self.kubeconfig).map_err(io_err("reading the kubeconfig"))?;
        let user = format!("system:serviceaccount:{namespace}:{name}");
        let groups = format!("[system:serviceaccounts, \"system:serviceaccounts:{namespace}\", system:authenticated]");
        let impersonating = admin
            .replace("    client-key: ", &format!("    as: \"{user}\"\n    as-groups: {groups}\n    client-key: "));
        let path = self.dir().join(format!("kubeconfig-{namespace}-{name}"));
        std::fs::write(&path, impersonating).map_err(io_err(format!("writing {}", path.display())))?;
        Ok(path)
    }

    /// The audit log, when the environment was started with [`Options::audit_log`].
    pub fn audit_log(&self) -> Option<PathBuf> {
        let path = self.dir().join(AUDIT_LOG);
        path.exists().then_some(path)
    }

    /// The requests `user` made so far, as impersonated user (see
    /// [`TestEnv::kubeconfig_as_service_account`] and [`TestEnv::client_as_service_account`]),
    /// each once, from the audit log: `(verb, resource)` with the subresource after a `/`
    /// (`patch`, `memcacheds/status`), and how many.
    ///
    /// # Errors
    /// The environment has no audit log ([`Options::audit_log`]), or it cannot be read.
    pub fn requests_of(&self, user: &str) -> Result<std::collections::BTreeMap<(String, String), usize>, Error> {
        let path = self.audit_log().ok_or_else(|| {
            io_err("reading the audit log")(io::Error::other("the environment was started without Options::audit_log"))
        })?;
        let text = std::fs::read_to_string(&path).map_err(io_err(format!("reading {}", path.display())))?;
        Ok(requests(&text, user))
    }

    /// The writes `user` made so far as impersonated user, in the order the server received
    /// them, from the audit log: to check that two managers never wrote at the same time.
    ///
    /// # Errors
    /// The environment has no audit log ([`Options::audit_log`]), or it cannot be read.
    pub fn writes_of(&self, user: &str) -> Result<Vec<Write>, Error> {
        let path = self.audit_log().ok_or_else(|| {
            io_err("reading the audit log")(io::Error::other("the environment was started without Options::audit_log"))
        })?;
        let text = std::fs::read_to_string(&path).map_err(io_err(format!("reading {}", path.display())))?;
        Ok(writes(&text, user))
    }

    /// The CA (PEM) that signed the client certificate kube-apiserver presents to admission
    /// webhooks, with [`Options::webhook_client_certificate`]: the file to pass to a webhook
    /// server that admits only the API server (`--webhook-client-ca-file`).
    pub fn webhook_client_ca(&self) -> Option<&Path> {
        self.webhook_client_ca.as_deref()
    }

    /// The kubeconfig file for the server (`kubectl --kubeconfig <path>` works), with the
    /// `default` namespace selected. Removed on drop.
    pub fn kubeconfig(&self) -> &Path {
        &self.kubeconfig
    }

    /// The server's URL, `https://127.0.0.1:<port>`.
    pub fn server_url(&self) -> &str {
        &self.server_url
    }

    /// The temporary folder holding the certificates (`pki/`), the kubeconfig, etcd's data
    /// and both processes' logs (`etcd.log`, `kube-apiserver.log`). Removed on drop unless
    /// `ROP_TESTENV_KEEP=1`.
    pub fn dir(&self) -> &Path {
        self.guard.dir.as_ref().map(|d| d.path()).expect("the folder exists until drop")
    }

    /// How long [`TestEnv::start`] took, from finding a free port to a ready server.
    pub fn startup_time(&self) -> Duration {
        self.startup
    }

    /// Restarts kube-apiserver as a control-plane upgrade or a crash would: stops it (SIGTERM,
    /// SIGKILL after 5 s), leaves it down for `down`, starts it again with the same flags on
    /// the same port, and waits until it is ready. etcd keeps running, so every object stays,
    /// but each watch breaks, and comes back to a new watch cache that answers an old
    /// resource version with `410 Gone`: what a controller must survive. Clients keep working
    /// once it is back. Its log goes on in `kube-apiserver.log` in [`TestEnv::dir`].
    ///
    /// # Errors
    /// When kube-apiserver does not start again, exits, or is not ready within the start
    /// timeout (`ROP_TESTENV_READY_TIMEOUT`).
    pub async fn restart_api_server(&self, down: Duration) -> Result<(), Error> {
        self.restart(KUBE_APISERVER, down).await
    }

    /// Restarts etcd as a crash of the storage would: stops it (SIGTERM, SIGKILL after 5 s),
    /// leaves it down for `down`, starts it again on the same data and ports, and waits until
    /// the API server is ready again. kube-apiserver keeps running: requests fail while etcd is
    /// away (reads from its watch cache may still answer), its watches on etcd resume, and
    /// every object stays. etcd's log goes on in `etcd.log` in [`TestEnv::dir`].
    ///
    /// # Errors
    /// When etcd does not start again, a process exits, or the API server is not ready within
    /// the start timeout (`ROP_TESTENV_READY_TIMEOUT`).
    pub async fn restart_etcd(&self, down: Duration) -> Result<(), Error> {
        self.restart(ETCD, down).await
    }

    /// Stops `process` (etcd or kube-apiserver), waits `down`, starts it again and waits
    /// until the API server is ready.
    async fn restart(&self, process: &'static str, down: Duration) -> Result<(), Error> {
        let started = Instant::now();
        let processes = Arc::clone(&self.guard.processes);
        let stopped = tokio::task::spawn_blocking(move || {
            let mut processes = processes.lock().unwrap_or_else(|e| e.into_inner());
            let running = if process == ETCD { processes.etcd.take() } else { processes.kube_apiserver.take() };
            drop(processes);
            if let Some(mut child) = running {
                crate::process::stop(&mut child, Duration::from_secs(5));
            }
        });
        stopped.await.map_err(|err| io_err(format!("stopping {process}"))(io::Error::other(err)))?;
        tokio::time::sleep(down).await;
        let (reply, started_again) = tokio::sync::oneshot::channel();
        let request = if process == ETCD { Supervise::StartEtcd(reply) } else { Supervise::StartApiServer(reply) };
        let supervisor = self.guard.supervisor.as_ref().map(|(supervise, _)| supervise);
        let sent = supervisor.is_some_and(|supervise| supervise.send(request).is_ok());
        let supervisor_gone =
            || io_err(format!("starting {process} again"))(io::Error::other("the supervisor thread is gone"));
        if !sent {
            return Err(supervisor_gone());
        }
        started_again.await.map_err(|_| supervisor_gone())??;
        let (etcd_log, api_log) = (self.dir().join("etcd.log"), self.dir().join("kube-apiserver.log"));
        wait_ready(&self.client, &self.guard.processes, ready_timeout(), started, &etcd_log, &api_log).await
    }

    /// Runs a future to completion on the environment's own Tokio runtime (two worker
    /// threads), so plain `#[test]` functions can use the async client.
    ///
    /// # Panics
    ///
    /// When called from inside an async context (use `.await` there instead).
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        self.guard.runtime.as_ref().expect("the runtime lives until drop").block_on(future)
    }
}

impl Guard {
    /// Like [`TestEnv::block_on`], but also works when the caller is inside a runtime (runs
    /// the future from a scoped helper thread).
    fn block_on_any_thread<F>(&self, future: F) -> F::Output
    where
        F: Future + Send,
        F::Output: Send,
    {
        let handle = self.runtime.as_ref().expect("the runtime lives until drop").handle().clone();
        std::thread::scope(|s| s.spawn(move || handle.block_on(future)).join().expect("the future panicked"))
    }
}

/// How long the API server may take to be ready: `ROP_TESTENV_READY_TIMEOUT` seconds, else 60.
fn ready_timeout() -> Duration {
    std::env::var("ROP_TESTENV_READY_TIMEOUT")
        .ok()
        .and_then(|s| s.parse().ok())
        .map_or(Duration::from_secs(60), Duration::from_secs)
}

pub(crate) fn arg(flag: &str, path: &Path) -> OsString {
    let mut s = OsString::from(flag);
    s.push(path);
    s
}

/// Polls `/readyz` every 100 ms until it says `ok`, then waits for the `default` namespace
/// (the API server creates it shortly after it reports ready).
async fn wait_ready(
    client: &kube::Client,
    processes: &Mutex<Processes>,
    timeout: Duration,
    started: Instant,
    etcd_log: &Path,
    api_log: &Path,
) -> Result<(), Error> {
    let deadline = Instant::now() + timeout;
    let mut last = String::from("no answer yet");
    let mut ready = false;
    loop {
        {
            let mut procs = processes.lock().unwrap_or_else(|e| e.into_inner());
            let Processes { etcd, kube_apiserver } = &mut *procs;
            for (name, child, log) in
                [(ETCD, etcd.as_mut(), etcd_log), (KUBE_APISERVER, kube_apiserver.as_mut(), api_log)]
            {
                if let Some(Ok(Some(status))) = child.map(|c| c.try_wait()) {
                    return Err(Error::Exited { process: name, status, log_tail: log_tail(log, 30) });
                }
            }
        }
        let path = if ready { "/api/v1/namespaces/default" } else { "/readyz" };
        let request = http::Request::get(path).body(Vec::new()).expect("a valid request");
        match tokio::time::timeout(Duration::from_secs(5), client.request_text(request)).await {
            Ok(Ok(text)) if ready => {
                let _ = text;
                return Ok(());
            }
            Ok(Ok(text)) if text.trim() == "ok" => ready = true,
            Ok(Ok(text)) => last = text,
            Ok(Err(e)) => last = e.to_string(),
            Err(_) => last = "timed out after 5s".into(),
        }
        if Instant::now() >= deadline {
            return Err(Error::NotReady { waited: started.elapsed(), last, log_tail: log_tail(api_log, 30) });
        }
        if !ready {
            tokio::time::sleep(Duration::from_millis(100)).await;
        } else {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

impl Drop for Guard {
    /// Stops kube-apiserver (SIGTERM, SIGKILL after 5 s), then etcd, then removes the
    /// temporary folder (kept with `ROP_TESTENV_KEEP=1`).
    fn drop(&mut self) {
        self.processes.lock().unwrap_or_else(|e| e.into_inner()).stop_all();
        if let Some((supervise, thread)) = self.supervisor.take() {
            drop(supervise);
            let _ = thread.join();
        }
        // Not `drop(runtime)`: that panics when the TestEnv is dropped inside an async context.
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
        if let Some(dir) = self.dir.take()
            && std::env::var_os("ROP_TESTENV_KEEP").is_some_and(|v| v == "1")
        {
            eprintln!("rop-testenv: kept {}", dir.keep().display());
        }
    }
}
