//! A real Kubernetes API server for tests: `envtest` for Rust.
//!
//! [`TestEnv::start`] runs `etcd` and `kube-apiserver` (Kubernetes 1.37, the version of the
//! k8s-openapi 0.29 / kube 5 stack rop uses) on free loopback ports with a temporary data
//! folder, generates the certificates they need in Rust (a CA, the serving certificate, an
//! admin client certificate in `system:masters`, the service-account key), writes a
//! kubeconfig, waits until the server is ready and hands out a [`kube::Client`]. Dropping the
//! [`TestEnv`] stops both processes (the API server first, then etcd), also when a test
//! panics; if the test process dies without unwinding, the kernel kills them (Linux).
//!
//! There are no controllers: no kube-controller-manager, no scheduler, no nodes. Objects are
//! stored and validated, watches and server-side apply work, but nothing reconciles them (a
//! Deployment never gets Pods). CRDs are established by the API server itself.
//!
//! The binaries are found, in this order, in `$ROP_TESTENV_DIR`, in `$KUBEBUILDER_ASSETS`
//! (the layout of controller-runtime's `setup-envtest`: `etcd` and `kube-apiserver` in one
//! folder), in `~/.cache/rop-testenv/bin` (where `scripts/install-testenv.sh` puts them) and
//! on `PATH`. When they are missing, [`TestEnv::start`] returns [`Error::NotInstalled`], so a
//! test can skip itself; [`TestEnv::start_or_skip`] does exactly that.
//!
//! ```no_run
//! use k8s_openapi::api::core::v1::ConfigMap;
//! use kube::Api;
//!
//! let Some(env) = rop_testenv::TestEnv::start_or_skip() else { return };
//! let names = env.block_on(async {
//!     let cms: Api<ConfigMap> = Api::namespaced(env.client(), "default");
//!     cms.list(&Default::default()).await.unwrap().items.len()
//! });
//! println!("{names} config maps");
//! ```
//!
//! Environment variables:
//!
//! | variable | effect |
//! |---|---|
//! | `ROP_TESTENV_DIR` | folder with `etcd` and `kube-apiserver` (searched first) |
//! | `KUBEBUILDER_ASSETS` | the same, as `setup-envtest use -p path` prints it |
//! | `ROP_TESTENV_REQUIRE=1` | [`TestEnv::start_or_skip`] panics instead of skipping (for CI) |
//! | `ROP_TESTENV_KEEP=1` | keep the temporary folder (logs, certificates, etcd data) |
//! | `ROP_TESTENV_READY_TIMEOUT` | seconds to wait for `/readyz` (default 60) |

#![warn(missing_docs)]

mod controller;
mod kubelet;
mod manifests;
mod rbac;
mod wait;
mod webhooks;

pub use controller::{ControllerTest, TEST_NAMESPACE};
pub use kubelet::Kubelet;
pub use manifests::{ManifestError, install_crd, install_crds, object_from_file};
pub use rbac::{MANAGER_NAMESPACE, MANAGER_SERVICE_ACCOUNT, install_manager_rbac};
pub use wait::{WAIT, wait_for, wait_until, wait_until_gone};
pub use webhooks::Webhooks;

use std::ffi::OsString;
use std::fs::File;
use std::future::Future;
use std::io::{self, Read, Seek, SeekFrom};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex, Once, mpsc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair,
    KeyUsagePurpose,
};

/// The name of the etcd binary.
pub const ETCD: &str = "etcd";
/// The name of the API server binary.
pub const KUBE_APISERVER: &str = "kube-apiserver";
/// The Kubernetes version the environment is meant for (what `scripts/install-testenv.sh`
/// installs; k8s-openapi's `v1_37`).
pub const KUBERNETES_VERSION: &str = "v1.37.2";

/// Why a [`TestEnv`] could not start.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `etcd` or `kube-apiserver` is not installed. Tests treat this as "skip", not "fail".
    #[error(
        "{binary} not found (looked in {}); install both with `rop testenv install` (`make testenv`), or point ROP_TESTENV_DIR or KUBEBUILDER_ASSETS at a folder holding etcd and kube-apiserver",
        searched.join(", ")
    )]
    NotInstalled {
        /// The binary that is missing: [`ETCD`] or [`KUBE_APISERVER`].
        binary: &'static str,
        /// Where it was looked for, in order.
        searched: Vec<String>,
    },
    /// The folder a variable names does not hold a binary: it is refused, not passed over.
    #[error(
        "{variable}={} holds no executable {binary}: point it at a folder holding etcd and kube-apiserver, or unset it to use ~/.cache/rop-testenv/bin",
        dir.display()
    )]
    NotInFolder {
        /// `ROP_TESTENV_DIR` or `KUBEBUILDER_ASSETS`.
        variable: &'static str,
        /// The folder it names.
        dir: PathBuf,
        /// The binary missing there.
        binary: &'static str,
    },
    /// A file or process operation failed.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// Why it failed.
        source: io::Error,
    },
    /// Generating a key or certificate failed.
    #[error("generating certificates: {0}")]
    Certificates(#[from] rcgen::Error),
    /// The kubeconfig written for the server could not be loaded.
    #[error("loading the kubeconfig: {0}")]
    Kubeconfig(#[from] kube::config::KubeconfigError),
    /// The client could not be built.
    #[error("building the client: {0}")]
    Client(#[from] kube::Error),
    /// `etcd` or `kube-apiserver` exited before the server was ready.
    #[error("{process} exited with {status} before the server was ready; the end of its log:\n{log_tail}")]
    Exited {
        /// [`ETCD`] or [`KUBE_APISERVER`].
        process: &'static str,
        /// Its exit status.
        status: ExitStatus,
        /// The last lines of its output.
        log_tail: String,
    },
    /// The server did not become ready in time.
    #[error("the API server was not ready after {waited:?} (last answer: {last}); the end of its log:\n{log_tail}")]
    NotReady {
        /// How long [`TestEnv::start`] waited.
        waited: Duration,
        /// The last `/readyz` answer or error.
        last: String,
        /// The last lines of the API server's output.
        log_tail: String,
    },
}

impl Error {
    /// Whether the binaries are missing (the only error a test should turn into a skip).
    pub fn is_not_installed(&self) -> bool {
        matches!(self, Error::NotInstalled { .. })
    }
}

fn io_err(what: impl Into<String>) -> impl FnOnce(io::Error) -> Error {
    let what = what.into();
    move |source| Error::Io { what, source }
}

/// Where the two binaries are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binaries {
    /// The `etcd` binary.
    pub etcd: PathBuf,
    /// The `kube-apiserver` binary.
    pub kube_apiserver: PathBuf,
}

impl Binaries {
    /// Finds `etcd` and `kube-apiserver`. A folder named by `$ROP_TESTENV_DIR` (else by
    /// `$KUBEBUILDER_ASSETS`) is the only place looked in: it holds both or the search fails
    /// ([`Error::NotInFolder`]), it is never passed over. Without either variable:
    /// `~/.cache/rop-testenv/bin` when it holds both, else each on `PATH`.
    pub fn find() -> Result<Binaries, Error> {
        for variable in ["ROP_TESTENV_DIR", "KUBEBUILDER_ASSETS"] {
            if let Some(dir) = std::env::var_os(variable).filter(|v| !v.is_empty()) {
                let dir = PathBuf::from(dir);
                let found = |binary: &'static str| {
                    let path = dir.join(binary);
                    if is_executable(&path) {
                        Ok(path)
                    } else {
                        Err(Error::NotInFolder { variable, dir: dir.clone(), binary })
                    }
                };
                return Ok(Binaries { etcd: found(ETCD)?, kube_apiserver: found(KUBE_APISERVER)? });
            }
        }
        let mut searched = Vec::new();
        if let Some(home) = std::env::var_os("HOME").filter(|v| !v.is_empty()) {
            let dir = Path::new(&home).join(".cache/rop-testenv/bin");
            searched.push(dir.display().to_string());
            let (etcd, kube_apiserver) = (dir.join(ETCD), dir.join(KUBE_APISERVER));
            if is_executable(&etcd) && is_executable(&kube_apiserver) {
                return Ok(Binaries { etcd, kube_apiserver });
            }
        }
        searched.push("PATH".to_string());
        let on_path = |binary: &'static str| {
            which(binary).ok_or_else(|| Error::NotInstalled { binary, searched: searched.clone() })
        };
        Ok(Binaries { etcd: on_path(ETCD)?, kube_apiserver: on_path(KUBE_APISERVER)? })
    }
}

fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        path.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

fn which(binary: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(binary)).find(|p| is_executable(p))
}

/// A free TCP port on 127.0.0.1, chosen by the kernel.
fn free_port() -> Result<u16, Error> {
    let listener = TcpListener::bind(("127.0.0.1", 0)).map_err(io_err("finding a free port"))?;
    Ok(listener.local_addr().map_err(io_err("finding a free port"))?.port())
}

/// The files [`generate_pki`] writes.
struct Pki {
    ca: PathBuf,
    server_cert: PathBuf,
    server_key: PathBuf,
    admin_cert: PathBuf,
    admin_key: PathBuf,
    sa_public: PathBuf,
    sa_private: PathBuf,
}

/// One CA signs the serving certificate (localhost, 127.0.0.1) and the admin client
/// certificate (CN=admin, O=system:masters: RBAC lets that group do anything). The
/// service-account key pair signs and verifies service-account tokens. All keys are ECDSA
/// P-256.
fn generate_pki(dir: &Path) -> Result<Pki, Error> {
    std::fs::create_dir_all(dir).map_err(io_err(format!("creating {}", dir.display())))?;
    let write = |name: &str, contents: &str| write_file(dir, name, contents);
    let ca = new_ca("rop-testenv-ca")?;

    let server_key = KeyPair::generate()?;
    let mut server = CertificateParams::new(vec!["localhost".to_string(), "127.0.0.1".to_string()])?;
    server.distinguished_name.push(DnType::CommonName, "localhost");
    server.key_usages = vec![KeyUsagePurpose::DigitalSignature, KeyUsagePurpose::KeyEncipherment];
    server.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    let server_cert = server.signed_by(&server_key, &ca)?;

    let (admin_cert, admin_key) = client_certificate("admin", Some("system:masters"), &ca)?;

    let sa_key = KeyPair::generate()?;

    Ok(Pki {
        ca: write("ca.crt", &ca.pem())?,
        server_cert: write("server.crt", &server_cert.pem())?,
        server_key: write("server.key", &server_key.serialize_pem())?,
        admin_cert: write("admin.crt", &admin_cert.pem())?,
        admin_key: write("admin.key", &admin_key.serialize_pem())?,
        sa_public: write("sa.pub", &sa_key.public_key_pem())?,
        sa_private: write("sa.key", &sa_key.serialize_pem())?,
    })
}

/// A self-signed CA named `common_name`, with a new ECDSA P-256 key.
fn new_ca(common_name: &str) -> Result<CertifiedIssuer<'static, KeyPair>, Error> {
    let mut params = CertificateParams::new(Vec::<String>::new())?;
    params.distinguished_name.push(DnType::CommonName, common_name);
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign, KeyUsagePurpose::DigitalSignature];
    Ok(CertifiedIssuer::self_signed(params, KeyPair::generate()?)?)
}

/// A client certificate (CN `common_name`, O `organization`: a user and a group to the API
/// server) signed by `ca`, and its new key.
fn client_certificate(
    common_name: &str,
    organization: Option<&str>,
    ca: &CertifiedIssuer<'static, KeyPair>,
) -> Result<(rcgen::Certificate, KeyPair), Error> {
    let key = KeyPair::generate()?;
    let mut params = CertificateParams::new(Vec::<String>::new())?;
    params.distinguished_name.push(DnType::CommonName, common_name);
    if let Some(organization) = organization {
        params.distinguished_name.push(DnType::OrganizationName, organization);
    }
    params.key_usages = vec![KeyUsagePurpose::DigitalSignature, KeyUsagePurpose::KeyEncipherment];
    params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
    let cert = params.signed_by(&key, ca)?;
    Ok((cert, key))
}

/// Writes `contents` to `dir/name`; returns the path.
fn write_file(dir: &Path, name: &str, contents: &str) -> Result<PathBuf, Error> {
    let path = dir.join(name);
    std::fs::write(&path, contents).map_err(io_err(format!("writing {}", path.display())))?;
    Ok(path)
}

fn kubeconfig_yaml(server_url: &str, pki: &Pki) -> String {
    // Paths are written as YAML double-quoted strings (JSON escaping is valid YAML).
    let q = |p: &Path| format!("{:?}", p.display().to_string());
    format!(
        "apiVersion: v1
kind: Config
clusters:
- name: rop-testenv
  cluster:
    server: {server_url}
    certificate-authority: {ca}
users:
- name: admin
  user:
    client-certificate: {cert}
    client-key: {key}
contexts:
- name: rop-testenv
  context:
    cluster: rop-testenv
    user: admin
    namespace: default
current-context: rop-testenv
",
        ca = q(&pki.ca),
        cert = q(&pki.admin_cert),
        key = q(&pki.admin_key),
    )
}

/// The last `lines` lines of a log file.
fn log_tail(path: &Path, lines: usize) -> String {
    let Ok(mut file) = File::open(path) else { return format!("({} is missing)", path.display()) };
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    let _ = file.seek(SeekFrom::Start(len.saturating_sub(64 * 1024)));
    let mut bytes = Vec::new();
    let _ = file.read_to_end(&mut bytes);
    let text = String::from_utf8_lossy(&bytes);
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// The two running processes. Shared with the supervisor thread that spawned them.
#[derive(Default)]
struct Processes {
    etcd: Option<Child>,
    kube_apiserver: Option<Child>,
}

/// Sends SIGTERM (SIGKILL where there are no signals), waits up to `grace`, then kills.
fn stop(child: &mut Child, grace: Duration) {
    if let Ok(Some(_)) = child.try_wait() {
        return;
    }
    #[cfg(unix)]
    {
        if let Ok(pid) = libc::pid_t::try_from(child.id()) {
            // SAFETY: kill(2) with a pid we spawned and have not reaped yet.
            unsafe { libc::kill(pid, libc::SIGTERM) };
        }
        let deadline = Instant::now() + grace;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    #[cfg(not(unix))]
    let _ = grace;
    let _ = child.kill();
    let _ = child.wait();
}

impl Processes {
    /// The API server first: with etcd gone it hangs in its shutdown (lease cleanup).
    fn stop_all(&mut self) {
        if let Some(mut child) = self.kube_apiserver.take() {
            stop(&mut child, Duration::from_secs(5));
        }
        if let Some(mut child) = self.etcd.take() {
            stop(&mut child, Duration::from_secs(5));
        }
    }
}

/// Spawns `command` so that it dies with the thread that spawned it (Linux: the parent-death
/// signal), which is the supervisor thread, which lives as long as the [`TestEnv`] or the
/// test process.
fn spawn(mut command: Command, log: &Path) -> Result<Child, Error> {
    let out = File::create(log).map_err(io_err(format!("creating {}", log.display())))?;
    let err = out.try_clone().map_err(io_err(format!("opening {}", log.display())))?;
    command.stdin(Stdio::null()).stdout(out).stderr(err);
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: prctl is async-signal-safe; nothing else runs between fork and exec.
        unsafe {
            command.pre_exec(|| {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    let program = command.get_program().to_owned();
    command.spawn().map_err(io_err(format!("starting {}", Path::new(&program).display())))
}

/// Installs rustls' ring crypto provider as the process default, once.
fn install_crypto_provider() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // Err means another provider was installed first, which serves as well.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// What [`TestEnv::start_with_options`] can change.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
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
}

/// The admission configuration that gives both webhook admission plug-ins the kubeconfig
/// `{kubeconfig}` (apiserver.config.k8s.io/v1 AdmissionConfiguration).
fn admission_configuration(kubeconfig: &Path) -> String {
    let kubeconfig = format!("{:?}", kubeconfig.display().to_string());
    ["ValidatingAdmissionWebhook", "MutatingAdmissionWebhook"].iter().fold(
        "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n".to_string(),
        |text, plugin| {
            text + &format!(
                "- name: {plugin}\n  configuration:\n    apiVersion: apiserver.config.k8s.io/v1\n    kind: WebhookAdmissionConfiguration\n    kubeConfigFile: {kubeconfig}\n"
            )
        },
    )
}

/// A CA of its own and a client certificate it signs (CN=kube-apiserver-webhook-client) in
/// `dir`, and the kubeconfig that makes kube-apiserver present that certificate to every
/// webhook (user `*`). Returns the CA's and the kubeconfig's paths.
fn webhook_client_pki(dir: &Path) -> Result<(PathBuf, PathBuf), Error> {
    let write = |name: &str, contents: &str| write_file(dir, name, contents);
    let ca = new_ca("rop-testenv-webhook-client-ca")?;
    let (cert, key) = client_certificate("kube-apiserver-webhook-client", None, &ca)?;
    let ca = write("webhook-client-ca.crt", &ca.pem())?;
    let q = |p: &Path| format!("{:?}", p.display().to_string());
    let (cert, key) = (write("webhook-client.crt", &cert.pem())?, write("webhook-client.key", &key.serialize_pem())?);
    let kubeconfig = format!(
        "apiVersion: v1\nkind: Config\nusers:\n- name: '*'\n  user:\n    client-certificate: {}\n    client-key: {}\n",
        q(&cert),
        q(&key)
    );
    Ok((ca, write("webhook-client.kubeconfig", &kubeconfig)?))
}

/// The audit log's file name in the environment's folder.
const AUDIT_LOG: &str = "audit.log";

/// Metadata of every request, from the response on (kube-apiserver's audit policy format).
const AUDIT_POLICY: &str = "apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Metadata
";

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

/// Owns what must be cleaned up, from the moment the processes are spawned; its `Drop` stops
/// them even when [`TestEnv::start`] fails half-way.
struct Guard {
    runtime: Option<tokio::runtime::Runtime>,
    processes: Arc<Mutex<Processes>>,
    supervisor: Option<(mpsc::Sender<()>, JoinHandle<()>)>,
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

impl TestEnv {
    /// Starts etcd and kube-apiserver with the binaries [`Binaries::find`] finds, and waits
    /// until the API server answers `/readyz` and the `default` namespace exists.
    ///
    /// Takes about 3 seconds. Can be called from any thread, also inside an async runtime.
    /// Returns [`Error::NotInstalled`] when a binary is missing.
    pub fn start() -> Result<TestEnv, Error> {
        TestEnv::start_with(&Binaries::find()?)
    }

    /// [`TestEnv::start`], except that missing binaries make the test skip: it writes one line,
    /// `skipped: <test>: no test API server (...)`, to the terminal (past the test harness's
    /// output capture, so a plain `cargo test` shows it) and returns `None`, so the calling test
    /// passes without a server. Any other error panics; with `ROP_TESTENV_REQUIRE=1` missing
    /// binaries panic too.
    pub fn start_or_skip() -> Option<TestEnv> {
        TestEnv::start_or_skip_with(&Options::default())
    }

    /// [`TestEnv::start_or_skip`] with `options`.
    pub fn start_or_skip_with(options: &Options) -> Option<TestEnv> {
        match Binaries::find().and_then(|binaries| TestEnv::start_with_options(&binaries, options)) {
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

    /// Starts the environment with the given binaries.
    pub fn start_with(binaries: &Binaries) -> Result<TestEnv, Error> {
        TestEnv::start_with_options(binaries, &Options::default())
    }

    /// Starts the environment with the given binaries and `options`.
    pub fn start_with_options(binaries: &Binaries, options: &Options) -> Result<TestEnv, Error> {
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
                .arg("--audit-log-format=json");
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
        // and then waits until the TestEnv is dropped, or the process exits.
        let processes = Arc::new(Mutex::new(Processes::default()));
        let (spawned_tx, spawned_rx) = mpsc::channel::<Result<(), Error>>();
        let (stop_tx, stop_rx) = mpsc::channel::<()>();
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
                // Returns on a stop message or when the TestEnv (the sender) is gone.
                let _ = stop_rx.recv();
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
        let guard = Guard { runtime: Some(runtime), processes, supervisor: Some((stop_tx, thread)), dir: Some(dir) };
        spawned_rx.recv().unwrap_or_else(|_| Err(io_err("starting etcd")(io::Error::other("supervisor died"))))?;

        let timeout = std::env::var("ROP_TESTENV_READY_TIMEOUT")
            .ok()
            .and_then(|s| s.parse().ok())
            .map_or(Duration::from_secs(60), Duration::from_secs);
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
    /// [`install_manager_rbac`], a controller under test has the permissions of a deployed
    /// manager, and a rule missing from `config/rbac/role.yaml` fails the test as it would fail
    /// in a cluster.
    ///
    /// # Errors
    /// The kubeconfig cannot be read or the client built.
    pub fn client_as_service_account(&self, namespace: &str, name: &str) -> Result<kube::Client, Error> {
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
            Ok(kube::Client::try_from(config)?)
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
        let mut seen = std::collections::BTreeSet::new();
        let mut requests = std::collections::BTreeMap::new();
        for event in text.lines().filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok()) {
            if event["impersonatedUser"]["username"] != user || !seen.insert(event["auditID"].to_string()) {
                continue;
            }
            let reference = &event["objectRef"];
            let mut resource = reference["resource"].as_str().unwrap_or_default().to_string();
            if let Some(sub) = reference["subresource"].as_str() {
                resource = format!("{resource}/{sub}");
            }
            let verb = event["verb"].as_str().unwrap_or_default().to_string();
            *requests.entry((verb, resource)).or_insert(0) += 1;
        }
        Ok(requests)
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

fn arg(flag: &str, path: &Path) -> OsString {
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
        if let Some((stop, thread)) = self.supervisor.take() {
            let _ = stop.send(());
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
