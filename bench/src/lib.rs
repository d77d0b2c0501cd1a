//! The operator benchmark: runs one operator's manager, as a process, against a fresh
//! rop-testenv API server and times the work an operator exists for (docs/benchmarks.md):
//!
//! 1. **create**: `objects` custom objects with `spec.size = 1`; converged when each has its
//!    owned Deployment (same name) with `spec.replicas = 1` and an `Available` condition in its
//!    status (no kubelet runs, so readiness cannot be the criterion: an operator reports
//!    `Available`, true or false, once it has looked at the object and its Deployment);
//! 2. **resize**: `spec.size = 2` on every object; converged when every Deployment has 2
//!    replicas;
//! 3. **heal**: every Deployment deleted; converged when each is back (a new uid) with 2
//!    replicas;
//! 4. **idle**: nothing changes for `idle`;
//! 5. **restart**: the manager stopped (SIGTERM), `spec.size = 3` on every object, a new
//!    manager started; timed until the first Deployment, and every one, has 3 replicas: the
//!    cost of a start with the objects present (the initial list, then a pass for each).
//!
//! It sees convergence through its own watches of the Deployments and the objects (a list
//! every 100 ms would load the shared API server more than the work measured, past a few
//! thousand objects), checked every 20 ms; the fault runs list instead (`faults`).
//!
//! It measures the manager's CPU seconds (all phases, and the idle phase alone), peak and idle
//! resident memory (`VmHWM`, `VmRSS` at the end) and the API requests it issued: the manager
//! runs as the ServiceAccount `default/controller-manager` (bound to `cluster-admin`), and its
//! requests are counted in the API server's audit log.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::rbac::v1::{ClusterRoleBinding, RoleRef, Subject};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::api::{Api, ApiResource, DeleteParams, DynamicObject, ListParams, Patch, PatchParams, PostParams};
use rop_testenv::Options;
use serde_json::{Value, json};

mod faults;
mod view;
mod writes;

pub use faults::{Downtimes, FaultReport, Recovery, run_faults};
use view::View;
pub use writes::{WriteCost, run_writes};

/// The namespace the objects live in.
const NAMESPACE: &str = "default";
/// The ServiceAccount the manager acts as.
const MANAGER: (&str, &str) = ("default", "controller-manager");
/// How many requests the benchmark itself has in flight when it creates or changes objects.
const CONCURRENCY: usize = 16;
/// How often the fault runs list the Deployments while they wait for convergence.
const POLL: Duration = Duration::from_millis(100);
/// How often the other phases look at what the watches have seen (in memory, see [`View`]).
const WATCHED: Duration = Duration::from_millis(20);

/// One operator to measure: its manager binary and the custom kind it reconciles.
#[derive(Clone, Debug)]
pub struct Operator {
    /// Its name in the report, e.g. `rop` or `kubebuilder`.
    pub name: String,
    /// The manager binary.
    pub manager: PathBuf,
    /// Extra arguments of the manager, after the probe and metrics addresses the benchmark sets.
    pub args: Vec<String>,
    /// Extra environment of the manager (kubebuilder's deploy-image reads its image from
    /// `MEMCACHED_IMAGE`).
    pub env: Vec<(String, String)>,
    /// The folder of its CRDs (`config/crd/bases`), installed before it starts.
    pub crds: PathBuf,
    /// Where to keep the manager's output (it goes with the API server's folder otherwise).
    pub log: Option<PathBuf>,
    /// Run the manager where `/var/run/secrets/kubernetes.io/serviceaccount/namespace` says
    /// `default` (a private mount namespace, with `unshare`, as root): controller-runtime's
    /// leader election reads its Lease's namespace from that file outside a cluster, and a
    /// kubebuilder manager has no flag for it.
    pub namespace_file: bool,
    pub group: String,
    pub version: String,
    pub kind: String,
    pub plural: String,
}

impl Operator {
    /// The custom kind it reconciles.
    fn resource(&self) -> ApiResource {
        ApiResource {
            group: self.group.clone(),
            version: self.version.clone(),
            api_version: format!("{}/{}", self.group, self.version),
            kind: self.kind.clone(),
            plural: self.plural.clone(),
        }
    }
}

/// How much work, and how long to wait.
#[derive(Clone, Copy, Debug)]
pub struct Scenario {
    /// How many objects.
    pub objects: usize,
    /// How long the idle phase lasts.
    pub idle: Duration,
    /// How long a phase may take before the run fails.
    pub timeout: Duration,
}

/// What one run measured.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    pub operator: String,
    pub objects: usize,
    pub create: Duration,
    pub resize: Duration,
    pub heal: Duration,
    /// User and system CPU time of the API server and etcd in the create, resize and heal
    /// phases, in seconds: what each phase cost the server, the harness's requests included.
    pub server_cpu_seconds: [f64; 3],
    /// User and system CPU time of the manager over the whole run, in seconds.
    pub cpu_seconds: f64,
    /// The part of it spent in the idle phase.
    pub idle_cpu_seconds: f64,
    /// How long the idle phase lasted.
    pub idle: Duration,
    /// Peak resident memory (`VmHWM`), KiB.
    pub peak_rss_kib: u64,
    /// Resident memory at the end of the idle phase (`VmRSS`), KiB.
    pub idle_rss_kib: u64,
    /// Requests the manager issued in phases 1 to 4, by verb (`list`, `watch`, `create`,
    /// `patch`, ...).
    pub requests: BTreeMap<String, usize>,
    /// The restart: from the new manager's start until the first and the last Deployment follow.
    pub restart: Recovery,
    /// Peak resident memory of the restarted manager when every object has been reconciled, KiB.
    pub restart_peak_rss_kib: u64,
}

impl Report {
    /// All requests the manager issued.
    pub fn total_requests(&self) -> usize {
        self.requests.values().sum()
    }

    /// The report as one JSON object (durations in seconds).
    pub fn to_json(&self) -> Value {
        json!({
            "operator": self.operator,
            "objects": self.objects,
            "create_s": self.create.as_secs_f64(),
            "resize_s": self.resize.as_secs_f64(),
            "heal_s": self.heal.as_secs_f64(),
            "server_cpu_create_s": self.server_cpu_seconds[0],
            "server_cpu_resize_s": self.server_cpu_seconds[1],
            "server_cpu_heal_s": self.server_cpu_seconds[2],
            "cpu_s": self.cpu_seconds,
            "idle_cpu_s": self.idle_cpu_seconds,
            "idle_s": self.idle.as_secs_f64(),
            "idle_cpu_per_hour_s": self.idle_cpu_seconds * 3600.0 / self.idle.as_secs_f64().max(1.0),
            "peak_rss_kib": self.peak_rss_kib,
            "idle_rss_kib": self.idle_rss_kib,
            "requests": self.total_requests(),
            "requests_per_object": self.total_requests() as f64 / self.objects as f64,
            "requests_by_verb": self.requests,
            "start_first_s": self.restart.first.as_secs_f64(),
            "start_all_s": self.restart.all.as_secs_f64(),
            "start_peak_rss_kib": self.restart_peak_rss_kib,
        })
    }
}

/// Runs `operator` through `scenario` on a fresh API server (rop-testenv's binaries must be
/// installed).
///
/// # Errors
/// The API server or the manager does not start, the manager exits, or a phase does not
/// converge within the timeout (the error says how many objects had).
pub fn run(operator: &Operator, scenario: &Scenario) -> anyhow::Result<Report> {
    let mut options = Options::default();
    options.audit_log = true;
    let (env, kubeconfig) = prepare(operator, scenario, options)?;
    let client = env.client();
    let mut manager = Manager::start(operator, &kubeconfig, env.dir())?;
    let result = env.block_on(async {
        manager.wait_ready(scenario.timeout).await?;
        phases(operator, scenario, &client, &mut manager, env.dir()).await
    });
    let measured = manager.stop();
    if let Some(keep) = &operator.log {
        std::fs::copy(&manager.log, keep)
            .with_context(|| format!("keeping the manager's output in {}", keep.display()))?;
    }
    let Phases { create, resize, heal, idle_cpu_seconds, server_cpu_seconds } =
        result.with_context(|| manager.log_tail())?;
    let (cpu_seconds, peak_rss_kib, idle_rss_kib) = measured?;
    let user = format!("system:serviceaccount:{}:{}", MANAGER.0, MANAGER.1);
    let mut requests = BTreeMap::new();
    for ((verb, _), count) in env.requests_of(&user)? {
        *requests.entry(verb).or_insert(0) += count;
    }
    let (restart, restart_peak_rss_kib) = env.block_on(restart(operator, scenario, &client, &kubeconfig, env.dir()))?;
    Ok(Report {
        operator: operator.name.clone(),
        objects: scenario.objects,
        create,
        resize,
        heal,
        server_cpu_seconds,
        cpu_seconds,
        idle_cpu_seconds,
        idle: scenario.idle,
        peak_rss_kib,
        idle_rss_kib,
        requests,
        restart,
        restart_peak_rss_kib,
    })
}

/// Phase 5 with the manager stopped: resizes every object to 3, starts a new manager and
/// times it until every Deployment follows; returns the times and its peak RSS then.
async fn restart(
    operator: &Operator,
    scenario: &Scenario,
    client: &kube::Client,
    kubeconfig: &Path,
    dir: &Path,
) -> anyhow::Result<(Recovery, u64)> {
    let resource = operator.resource();
    let view = View::watch(client, &resource).await?;
    let objects: Api<DynamicObject> = Api::namespaced_with(client.clone(), NAMESPACE, &resource);
    let names = object_names(scenario.objects);
    concurrently(&names, |name| {
        let objects = objects.clone();
        let patch = json!({ "spec": { "size": 3 } });
        async move { objects.patch(&name, &PatchParams::default(), &Patch::Merge(&patch)).await.map(drop) }
    })
    .await?;
    let started = Instant::now();
    let mut manager = Manager::start_as(operator, kubeconfig, dir, "restarted", &[])?;
    let wanted = scenario.objects;
    let recovery = converge("restart", started, scenario.timeout, WATCHED, &mut [&mut manager], || async {
        Ok((view.deployed(3, &BTreeSet::new()).len(), wanted))
    })
    .await
    .with_context(|| manager.log_tail())?;
    let (_, peak, _) = manager.stop()?;
    Ok((recovery, peak))
}

/// Lists the Deployments every [`POLL`] until `wanted` of them have `replicas`: when the first
/// had, and the last, counted from `started`. `managers` must keep running. (The fault runs
/// poll rather than watch: a watch would wait out its own backoff after each outage.)
async fn followed(
    deployments: &Api<Deployment>,
    replicas: i32,
    wanted: usize,
    started: Instant,
    timeout: Duration,
    managers: &mut [&mut Manager],
) -> anyhow::Result<Recovery> {
    converge("resize", started, timeout, POLL, managers, || async {
        Ok((deployed(deployments, replicas).await?.len(), wanted))
    })
    .await
}

/// Starts an API server with `options`, installs the operator's CRDs, grants the manager's
/// ServiceAccount `cluster-admin`, and returns the server and a kubeconfig acting as it.
fn prepare(
    operator: &Operator,
    scenario: &Scenario,
    options: Options,
) -> anyhow::Result<(rop_testenv::TestEnv, PathBuf)> {
    if scenario.objects == 0 {
        bail!("the scenario needs at least one object");
    }
    let env = options.start()?;
    let client = env.client();
    env.block_on(async {
        rop_testenv::install_crds(&client, &operator.crds).await?;
        grant_cluster_admin(&client).await?;
        anyhow::Ok(())
    })?;
    let kubeconfig = env.kubeconfig_as_service_account(MANAGER.0, MANAGER.1)?;
    Ok((env, kubeconfig))
}

/// What [`phases`] measured.
struct Phases {
    create: Duration,
    resize: Duration,
    heal: Duration,
    /// The manager's CPU seconds in the idle phase.
    idle_cpu_seconds: f64,
    /// The API server's and etcd's CPU seconds in the create, resize and heal phases.
    server_cpu_seconds: [f64; 3],
}

/// Create, resize, heal and idle, against the test environment in `dir`.
async fn phases(
    operator: &Operator,
    scenario: &Scenario,
    client: &kube::Client,
    manager: &mut Manager,
    dir: &Path,
) -> anyhow::Result<Phases> {
    let resource = operator.resource();
    let view = View::watch(client, &resource).await?;
    let objects: Api<DynamicObject> = Api::namespaced_with(client.clone(), NAMESPACE, &resource);
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), NAMESPACE);
    let names = object_names(scenario.objects);
    let wanted = scenario.objects;
    let timeout = scenario.timeout;

    let server_at_start = server_cpu_seconds(dir)?;
    let started = Instant::now();
    concurrently(&names, |name| {
        let object = DynamicObject::new(&name, &resource)
            .within(NAMESPACE)
            .data(json!({ "spec": { "size": 1, "containerPort": 11211 } }));
        let objects = objects.clone();
        async move { objects.create(&PostParams::default(), &object).await.map(drop) }
    })
    .await?;
    let create = converge("create", started, timeout, WATCHED, &mut [&mut *manager], || async {
        let available = view.with_condition("Available");
        Ok((view.deployed(1, &BTreeSet::new()).intersection(&available).count(), wanted))
    })
    .await?
    .all;
    let server_after_create = server_cpu_seconds(dir)?;

    let started = Instant::now();
    concurrently(&names, |name| {
        let objects = objects.clone();
        let patch = json!({ "spec": { "size": 2 } });
        async move { objects.patch(&name, &PatchParams::default(), &Patch::Merge(&patch)).await.map(drop) }
    })
    .await?;
    let resize = converge("resize", started, timeout, WATCHED, &mut [&mut *manager], || async {
        Ok((view.deployed(2, &BTreeSet::new()).len(), wanted))
    })
    .await?
    .all;
    let server_after_resize = server_cpu_seconds(dir)?;

    let before = view.deployment_uids();
    let started = Instant::now();
    deployments.delete_collection(&DeleteParams::background(), &ListParams::default()).await?;
    let heal = converge("heal", started, timeout, WATCHED, &mut [&mut *manager], || async {
        Ok((view.deployed(2, &before).len(), wanted))
    })
    .await?
    .all;
    let server_after_heal = server_cpu_seconds(dir)?;

    let busy = manager.cpu_seconds()?;
    tokio::time::sleep(scenario.idle).await;
    manager.check_running()?;
    Ok(Phases {
        create,
        resize,
        heal,
        idle_cpu_seconds: manager.cpu_seconds()? - busy,
        server_cpu_seconds: [
            server_after_create - server_at_start,
            server_after_resize - server_after_create,
            server_after_heal - server_after_resize,
        ],
    })
}

/// User and system CPU seconds so far of the API server and etcd of the test environment in
/// `dir`.
fn server_cpu_seconds(dir: &Path) -> anyhow::Result<f64> {
    Ok(writes::cpu_seconds(dir, "kube-apiserver")? + writes::cpu_seconds(dir, "etcd")?)
}

/// The names of the benchmark's `count` objects (and of their Deployments).
fn object_names(count: usize) -> Vec<String> {
    (0..count).map(|i| format!("bench-{i:04}")).collect()
}

/// Runs `request` for every name, `CONCURRENCY` at a time.
async fn concurrently<F, Fut>(names: &[String], request: F) -> anyhow::Result<()>
where
    F: Fn(String) -> Fut,
    Fut: Future<Output = Result<(), kube::Error>>,
{
    futures::stream::iter(names.iter().cloned().map(request)).buffer_unordered(CONCURRENCY).try_collect::<()>().await?;
    Ok(())
}

/// Calls `count`, which gives (done, wanted), every `every` until done reaches wanted: when
/// done was first above zero, and when it reached wanted, counted from `started`. `managers`
/// must keep running.
///
/// # Errors
/// `count`'s, a manager that exited, or `timeout` passed (saying how many of `phase`'s objects
/// converged).
async fn converge<F, Fut>(
    phase: &str,
    started: Instant,
    timeout: Duration,
    every: Duration,
    managers: &mut [&mut Manager],
    count: F,
) -> anyhow::Result<Recovery>
where
    F: Fn() -> Fut,
    Fut: Future<Output = anyhow::Result<(usize, usize)>>,
{
    let deadline = started + timeout;
    let mut first = None;
    loop {
        let (done, wanted) = count().await?;
        if done > 0 && first.is_none() {
            first = Some(started.elapsed());
        }
        if done >= wanted {
            let all = started.elapsed();
            return Ok(Recovery { first: first.unwrap_or(all), all });
        }
        for manager in managers.iter_mut() {
            manager.check_running()?;
        }
        if Instant::now() > deadline {
            bail!("{phase}: {done} of {wanted} objects converged in {timeout:?}");
        }
        tokio::time::sleep(every).await;
    }
}

/// The names of the Deployments with `replicas`, listed (an object's Deployment has the
/// object's name, in both operators).
async fn deployed(deployments: &Api<Deployment>, replicas: i32) -> anyhow::Result<BTreeSet<String>> {
    let list = deployments.list(&ListParams::default()).await?;
    Ok(list
        .items
        .into_iter()
        .filter(|d| d.spec.replicas == Some(replicas))
        .filter_map(|d| d.metadata.name)
        .filter(|name| name.starts_with("bench-"))
        .collect())
}

/// Binds the manager's ServiceAccount to `cluster-admin`: both operators get every permission,
/// so RBAC is not what is measured.
async fn grant_cluster_admin(client: &kube::Client) -> anyhow::Result<()> {
    let binding = ClusterRoleBinding {
        metadata: ObjectMeta { name: Some("bench-manager".into()), ..ObjectMeta::default() },
        role_ref: RoleRef {
            api_group: Some("rbac.authorization.k8s.io".into()),
            kind: "ClusterRole".into(),
            name: "cluster-admin".into(),
        },
        subjects: Some(vec![Subject {
            kind: "ServiceAccount".into(),
            name: MANAGER.1.into(),
            namespace: Some(MANAGER.0.into()),
            ..Subject::default()
        }]),
    };
    Api::<ClusterRoleBinding>::all(client.clone()).create(&PostParams::default(), &binding).await?;
    Ok(())
}

/// The manager process and where its output goes.
struct Manager {
    child: Child,
    probe: u16,
    log: PathBuf,
}

impl Manager {
    fn start(operator: &Operator, kubeconfig: &Path, dir: &Path) -> anyhow::Result<Manager> {
        Self::start_as(operator, kubeconfig, dir, "manager", &[])
    }

    /// Starts the manager, its output in `<operator>-<name>.log`, with `args` after the
    /// operator's own.
    fn start_as(
        operator: &Operator,
        kubeconfig: &Path,
        dir: &Path,
        name: &str,
        args: &[&str],
    ) -> anyhow::Result<Manager> {
        let probe = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        let log = dir.join(format!("{}-{name}.log", operator.name));
        let out = std::fs::File::create(&log)?;
        let mut command = if operator.namespace_file {
            let mut unshare = Command::new("unshare");
            let script = "mount -t tmpfs tmpfs /run && mkdir -p /run/secrets/kubernetes.io/serviceaccount && \
                printf default > /run/secrets/kubernetes.io/serviceaccount/namespace && exec \"$0\" \"$@\"";
            unshare.args(["--mount", "--propagation", "private", "sh", "-c", script]).arg(&operator.manager);
            unshare
        } else {
            Command::new(&operator.manager)
        };
        let child = command
            .arg(format!("--health-probe-bind-address=127.0.0.1:{probe}"))
            .arg("--metrics-bind-address=0")
            .args(&operator.args)
            .args(args)
            .envs(operator.env.iter().map(|(k, v)| (k, v)))
            .env("KUBECONFIG", kubeconfig)
            .env("ENABLE_WEBHOOKS", "false")
            // Both managers watch the objects' namespace only (the kubebuilder anchor is a
            // namespace-scoped project and refuses to start without it).
            .env("WATCH_NAMESPACE", NAMESPACE)
            .stdin(Stdio::null())
            .stdout(out.try_clone()?)
            .stderr(out)
            .spawn()
            .with_context(|| format!("starting {}", operator.manager.display()))?;
        Ok(Manager { child, probe, log })
    }

    /// Waits until `/readyz` answers 200.
    async fn wait_ready(&mut self, timeout: Duration) -> anyhow::Result<()> {
        let deadline = Instant::now() + timeout;
        while !self.ready() {
            self.check_running()?;
            if Instant::now() > deadline {
                bail!("the manager was not ready within {timeout:?}");
            }
            tokio::time::sleep(POLL).await;
        }
        Ok(())
    }

    fn ready(&self) -> bool {
        let Ok(mut stream) = std::net::TcpStream::connect(("127.0.0.1", self.probe)) else { return false };
        let request = format!("GET /readyz HTTP/1.0\r\nHost: 127.0.0.1:{}\r\n\r\n", self.probe);
        let mut answer = String::new();
        stream.write_all(request.as_bytes()).is_ok()
            && stream.read_to_string(&mut answer).is_ok()
            && answer.split_whitespace().nth(1) == Some("200")
    }

    fn check_running(&mut self) -> anyhow::Result<()> {
        match self.child.try_wait()? {
            Some(status) => bail!("the manager exited ({status})"),
            None => Ok(()),
        }
    }

    /// User and system CPU seconds so far (`/proc/<pid>/stat`).
    fn cpu_seconds(&self) -> anyhow::Result<f64> {
        process_cpu_seconds(self.child.id())
    }

    /// `VmHWM` and `VmRSS` of `/proc/<pid>/status`, KiB.
    fn memory_kib(&self) -> anyhow::Result<(u64, u64)> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))?;
        let fields: HashMap<&str, u64> = status
            .lines()
            .filter_map(|l| l.split_once(':'))
            .filter_map(|(k, v)| Some((k, v.trim().trim_end_matches(" kB").parse().ok()?)))
            .collect();
        Ok((fields.get("VmHWM").copied().unwrap_or(0), fields.get("VmRSS").copied().unwrap_or(0)))
    }

    /// Measures the process one last time, then stops it (SIGTERM, SIGKILL after 10 s):
    /// CPU seconds, peak and current RSS.
    fn stop(&mut self) -> anyhow::Result<(f64, u64, u64)> {
        let measured = self.cpu_seconds().and_then(|cpu| Ok((cpu, self.memory_kib()?)));
        // SAFETY: kill has no memory preconditions; the pid is our child's, not yet reaped.
        unsafe { libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM) };
        let deadline = Instant::now() + Duration::from_secs(10);
        while self.child.try_wait()?.is_none() {
            if Instant::now() > deadline {
                self.child.kill()?;
                self.child.wait()?;
                break;
            }
            std::thread::sleep(POLL);
        }
        let (cpu, (peak, idle)) = measured?;
        Ok((cpu, peak, idle))
    }

    /// Kills the manager as kill -9 does.
    fn kill(&mut self) -> anyhow::Result<()> {
        self.child.kill()?;
        self.child.wait()?;
        Ok(())
    }

    /// Sends SIGTERM, as a rolling update does, and returns without waiting.
    fn terminate(&mut self) {
        // SAFETY: kill has no memory preconditions; the pid is our child's, not yet reaped.
        unsafe { libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM) };
    }

    /// The last lines of the manager's output, for an error.
    fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        format!("the manager's last output:\n{}", lines[lines.len().saturating_sub(30)..].join("\n"))
    }
}

/// User and system CPU seconds of process `pid` so far (`/proc/<pid>/stat`).
fn process_cpu_seconds(pid: u32) -> anyhow::Result<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    // The fields after the command name, which is in parentheses and may hold spaces.
    let fields: Vec<&str> =
        stat.rsplit_once(')').map(|(_, rest)| rest).unwrap_or_default().split_whitespace().collect();
    let ticks: u64 = fields[11].parse::<u64>()? + fields[12].parse::<u64>()?;
    // SAFETY: sysconf has no preconditions.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    Ok(ticks as f64 / per_second)
}

impl Drop for Manager {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
