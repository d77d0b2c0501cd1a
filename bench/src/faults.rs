//! The fault benchmark: what an operator's manager does when the control plane fails under it
//! (docs/benchmarks.md, `scripts/bench.sh operator-faults`). With `objects` objects converged:
//!
//! 1. **API server restart mid-wave**: every object resized, and kube-apiserver stopped at
//!    once, while the manager works through them; timed from the server's return.
//! 2. **API server restart**: kube-apiserver down (20 s in the benchmark), then every object
//!    resized as soon as `/readyz` answers; timed from then to the first and to the last
//!    Deployment that follows.
//! 3. **etcd restart**: etcd down (10 s) under the API server, then the same.
//! 4. **kill -9 of the leader**: two managers with `--leader-elect`, the leader killed, every
//!    object resized at once; timed from the kill.
//! 5. **SIGTERM of the leader**: a new standby started, the leader stopped with SIGTERM (a
//!    rolling update), every object resized at once; timed from the signal.
//!
//! Every phase ends when every Deployment has the size last asked: no update is lost. Phases
//! 1 to 3 run one manager without leader election: a leader cut off for longer than its renew
//! deadline stops (both operators exit), and the harness restarts nothing.

use std::time::{Duration, Instant};

use k8s_openapi::api::apps::v1::Deployment;
use kube::api::{Api, ApiResource, DynamicObject, Patch, PatchParams, PostParams};
use rop_testenv::{Options, TestEnv};
use serde_json::{Value, json};

use super::{Manager, NAMESPACE, Operator, Scenario, concurrently, followed, object_names, prepare};

/// How long each fault lasts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Downtimes {
    /// kube-apiserver stopped, in phases 1 and 2.
    pub api_server: Duration,
    /// etcd stopped.
    pub etcd: Duration,
    /// How long a standby runs before the leader goes: time to start and fill its caches.
    pub standby_warmup: Duration,
}

impl Downtimes {
    /// The benchmark's: the API server down 20 s (long enough for a 30 s backoff cap to
    /// matter), etcd 10 s, standbys warm for 5 s.
    pub const BENCH: Self = Self {
        api_server: Duration::from_secs(20),
        etcd: Duration::from_secs(10),
        standby_warmup: Duration::from_secs(5),
    };
}

/// How long one phase took: until the first object's Deployment followed, and the last.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Recovery {
    pub first: Duration,
    pub all: Duration,
}

/// What one fault run measured.
#[derive(Clone, Debug, PartialEq)]
pub struct FaultReport {
    pub operator: String,
    pub objects: usize,
    pub api_server_restart_mid_wave: Recovery,
    pub api_server_restart: Recovery,
    pub etcd_restart: Recovery,
    pub leader_killed: Recovery,
    pub leader_terminated: Recovery,
}

impl FaultReport {
    /// The report as one JSON object (durations in seconds).
    pub fn to_json(&self) -> Value {
        let phases = [
            ("wave", self.api_server_restart_mid_wave),
            ("restart", self.api_server_restart),
            ("etcd", self.etcd_restart),
            ("kill", self.leader_killed),
            ("term", self.leader_terminated),
        ];
        let mut report = json!({ "operator": self.operator, "objects": self.objects });
        for (phase, recovery) in phases {
            report[format!("{phase}_first_s")] = json!(recovery.first.as_secs_f64());
            report[format!("{phase}_all_s")] = json!(recovery.all.as_secs_f64());
        }
        report
    }
}

/// Runs `operator` through the five faults with `scenario.objects` objects, each lasting as
/// `downtimes` says, on a fresh API server (rop-testenv's binaries must be installed).
///
/// # Errors
/// The API server or a manager does not start, a manager exits when it should not, or a
/// phase does not converge within `scenario.timeout`.
pub fn run_faults(operator: &Operator, scenario: &Scenario, downtimes: Downtimes) -> anyhow::Result<FaultReport> {
    let (env, kubeconfig) = prepare(operator, scenario, Options::default())?;
    let client = env.client();
    let resource = operator.resource();
    let objects = Objects {
        api: Api::namespaced_with(client.clone(), NAMESPACE, &resource),
        resource,
        deployments: Api::namespaced(client.clone(), NAMESPACE),
        names: object_names(scenario.objects),
        timeout: scenario.timeout,
        downtimes,
    };
    let start = |name: &str, args: &[&str]| Manager::start_as(operator, &kubeconfig, env.dir(), name, args);

    let mut single = start("single", &[])?;
    let (api_server_restart_mid_wave, api_server_restart, etcd_restart) = env.block_on(async {
        single.wait_ready(scenario.timeout).await?;
        objects.create(&mut single).await?;
        objects.patch_size(2).await?;
        env.restart_api_server(downtimes.api_server).await?;
        let mid_wave = objects.converged(2, Instant::now(), &mut [&mut single]).await?;
        let api_server_restart = objects.after(&env, Fault::ApiServer, 3, &mut [&mut single]).await?;
        let etcd_restart = objects.after(&env, Fault::Etcd, 4, &mut [&mut single]).await?;
        anyhow::Ok((mid_wave, api_server_restart, etcd_restart))
    })?;
    single.stop()?;

    let elect = ["--leader-elect"];
    // The standby starts once the leader has reconciled: it cannot win the Lease first.
    let mut leader = start("leader", &elect)?;
    env.block_on(async {
        leader.wait_ready(scenario.timeout).await?;
        objects.resize(5, &mut [&mut leader]).await
    })?;
    let mut standby = start("standby", &elect)?;
    let leader_killed = env.block_on(async {
        standby.wait_ready(scenario.timeout).await?;
        tokio::time::sleep(downtimes.standby_warmup).await;
        objects.after(&env, Fault::Kill(&mut leader), 6, &mut [&mut standby]).await
    })?;
    let mut next = start("next", &elect)?;
    let leader_terminated = env.block_on(async {
        next.wait_ready(scenario.timeout).await?;
        tokio::time::sleep(downtimes.standby_warmup).await;
        objects.after(&env, Fault::Terminate(&mut standby), 7, &mut [&mut next]).await
    })?;
    Ok(FaultReport {
        operator: operator.name.clone(),
        objects: scenario.objects,
        api_server_restart_mid_wave,
        api_server_restart,
        etcd_restart,
        leader_killed,
        leader_terminated,
    })
}

/// What fails.
enum Fault<'m> {
    ApiServer,
    Etcd,
    Kill(&'m mut Manager),
    Terminate(&'m mut Manager),
}

/// The benchmark's objects and their Deployments.
struct Objects {
    resource: ApiResource,
    api: Api<DynamicObject>,
    deployments: Api<Deployment>,
    names: Vec<String>,
    timeout: Duration,
    downtimes: Downtimes,
}

impl Objects {
    /// Creates every object with `spec.size = 1` and waits until each has its Deployment.
    async fn create(&self, manager: &mut Manager) -> anyhow::Result<()> {
        concurrently(&self.names, |name| {
            let object = DynamicObject::new(&name, &self.resource)
                .within(NAMESPACE)
                .data(json!({ "spec": { "size": 1, "containerPort": 11211 } }));
            let api = self.api.clone();
            async move { api.create(&PostParams::default(), &object).await.map(drop) }
        })
        .await?;
        self.converged(1, Instant::now(), &mut [manager]).await.map(drop)
    }

    /// Sets `spec.size = size` on every object and waits until every Deployment follows. The
    /// Deployments are polled while the objects are patched: a manager may follow the first
    /// objects before the last is patched (1000 patches take seconds).
    async fn resize(&self, size: i64, managers: &mut [&mut Manager]) -> anyhow::Result<Recovery> {
        let started = Instant::now();
        let (_, recovery) = tokio::try_join!(self.patch_size(size), self.converged(size, started, managers))?;
        Ok(recovery)
    }

    async fn patch_size(&self, size: i64) -> anyhow::Result<()> {
        concurrently(&self.names, |name| {
            let api = self.api.clone();
            let patch = json!({ "spec": { "size": size } });
            async move { api.patch(&name, &PatchParams::default(), &Patch::Merge(&patch)).await.map(drop) }
        })
        .await
    }

    /// Makes `fault` happen, then resizes every object to `size` as soon as the API server
    /// answers, and times the recovery from the fault's end (the server ready again, or the
    /// signal sent). `managers` must keep running.
    async fn after(
        &self,
        env: &TestEnv,
        fault: Fault<'_>,
        size: i64,
        managers: &mut [&mut Manager],
    ) -> anyhow::Result<Recovery> {
        match fault {
            Fault::ApiServer => env.restart_api_server(self.downtimes.api_server).await?,
            Fault::Etcd => env.restart_etcd(self.downtimes.etcd).await?,
            Fault::Kill(leader) => leader.kill()?,
            Fault::Terminate(leader) => leader.terminate(),
        }
        self.resize(size, managers).await
    }

    /// Polls the Deployments until every one has `size` replicas: when the first had, and
    /// the last, counted from `started`.
    async fn converged(&self, size: i64, started: Instant, managers: &mut [&mut Manager]) -> anyhow::Result<Recovery> {
        followed(&self.deployments, i32::try_from(size)?, self.names.len(), started, self.timeout, managers).await
    }
}
