//! What one write of an owned Deployment costs the API server, by the way it is written: the
//! server-side apply a rop controller sends (`Context::apply`), the update a controller-runtime
//! reconciler sends (`r.Update` of the object from its cache), a JSON merge patch of the one
//! field, and an apply that changes nothing. The resize and heal phases are bound by the API
//! server on the machine's two cores, so this is where their time goes (docs/benchmarks.md §6).
//!
//! Each method writes `objects` Deployments (the shape of the deploy-image Memcached one),
//! `concurrency` requests at a time, on a fresh API server; the CPU seconds of kube-apiserver
//! and etcd are read from `/proc` before and after.

use std::collections::HashMap;
use std::path::Path;
use std::time::Instant;

use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::apps::v1::Deployment;
use kube::api::{Api, ListParams, Patch, PatchParams, PostParams};
use serde_json::{Value, json};

use super::{NAMESPACE, object_names, process_cpu_seconds};

/// The field manager of the applies.
const FIELD_MANAGER: &str = "bench";

/// One method's cost.
#[derive(Clone, Debug, PartialEq)]
pub struct WriteCost {
    /// `apply`, `update`, `merge-patch` or `apply-unchanged`.
    pub method: &'static str,
    pub writes: usize,
    /// Wall time of all writes, seconds.
    pub wall_s: f64,
    /// CPU seconds (user + system) of kube-apiserver over the writes.
    pub api_server_cpu_s: f64,
    /// CPU seconds of etcd over the writes.
    pub etcd_cpu_s: f64,
}

impl WriteCost {
    /// The cost as one JSON object, with per-write milliseconds.
    pub fn to_json(&self) -> Value {
        let per_write = |seconds: f64| 1000.0 * seconds / self.writes as f64;
        json!({
            "method": self.method,
            "writes": self.writes,
            "wall_s": self.wall_s,
            "api_server_cpu_s": self.api_server_cpu_s,
            "etcd_cpu_s": self.etcd_cpu_s,
            "api_server_cpu_ms_per_write": per_write(self.api_server_cpu_s),
            "etcd_cpu_ms_per_write": per_write(self.etcd_cpu_s),
        })
    }
}

/// Creates `objects` Deployments, then writes each once per method (every write changes
/// `spec.replicas`, except `apply-unchanged`), `concurrency` at a time.
///
/// # Errors
/// The API server does not start, or refuses a write.
pub fn run_writes(objects: usize, concurrency: usize) -> anyhow::Result<Vec<WriteCost>> {
    let env = rop_testenv::Options::default().start()?;
    let api: Api<Deployment> = Api::namespaced(env.client(), NAMESPACE);
    let names = object_names(objects);
    let dir = env.dir();
    env.block_on(async {
        let apply = PatchParams::apply(FIELD_MANAGER).force();
        for name in &names {
            api.patch(name, &apply, &Patch::Apply(desired(name, 1))).await?;
        }
        let timed = Timed { names: &names, concurrency, dir };
        let applied = timed
            .write("apply", |name| {
                let (api, apply) = (api.clone(), apply.clone());
                async move { api.patch(&name, &apply, &Patch::Apply(desired(&name, 2))).await.map(drop) }
            })
            .await?;
        let ignoring = apply.clone().validation_ignore();
        let applied_ignoring = timed
            .write("apply-ignore", |name| {
                let (api, apply) = (api.clone(), ignoring.clone());
                async move { api.patch(&name, &apply, &Patch::Apply(desired(&name, 3))).await.map(drop) }
            })
            .await?;
        let stored: HashMap<String, Deployment> = api
            .list(&ListParams::default())
            .await?
            .items
            .into_iter()
            .map(|d| (d.metadata.name.clone().unwrap_or_default(), d))
            .collect();
        let updated = timed
            .write("update", |name| {
                let (api, mut deployment) = (api.clone(), stored[&name].clone());
                deployment.spec.replicas = Some(4);
                async move { api.replace(&name, &PostParams::default(), &deployment).await.map(drop) }
            })
            .await?;
        let patched = timed
            .write("merge-patch", |name| {
                let api = api.clone();
                async move {
                    let patch = json!({ "spec": { "replicas": 5 } });
                    api.patch(&name, &PatchParams::default(), &Patch::Merge(&patch)).await.map(drop)
                }
            })
            .await?;
        let unchanged = timed
            .write("apply-unchanged", |name| {
                let (api, apply) = (api.clone(), apply.clone());
                async move { api.patch(&name, &apply, &Patch::Apply(desired(&name, 5))).await.map(drop) }
            })
            .await?;
        Ok(vec![applied, applied_ignoring, updated, patched, unchanged])
    })
}

/// Runs one method over every object and measures it.
struct Timed<'a> {
    names: &'a [String],
    concurrency: usize,
    /// The test environment's folder, to find its processes by.
    dir: &'a Path,
}

impl Timed<'_> {
    async fn write<F, Fut>(&self, method: &'static str, write: F) -> anyhow::Result<WriteCost>
    where
        F: Fn(String) -> Fut,
        Fut: Future<Output = kube::Result<()>>,
    {
        let (api_server, etcd) = (cpu_seconds(self.dir, "kube-apiserver")?, cpu_seconds(self.dir, "etcd")?);
        let started = Instant::now();
        futures::stream::iter(self.names.iter().cloned().map(write))
            .buffer_unordered(self.concurrency)
            .try_collect::<()>()
            .await?;
        Ok(WriteCost {
            method,
            writes: self.names.len(),
            wall_s: started.elapsed().as_secs_f64(),
            api_server_cpu_s: cpu_seconds(self.dir, "kube-apiserver")? - api_server,
            etcd_cpu_s: cpu_seconds(self.dir, "etcd")? - etcd,
        })
    }
}

/// The Deployment a deploy-image Memcached controller applies (rop's `workload::deployment`
/// with `workload::restricted_pod`), with `replicas`.
fn desired(name: &str, replicas: i32) -> Value {
    let labels = json!({
        "app.kubernetes.io/name": "memcached-operator",
        "app.kubernetes.io/instance": name,
        "app.kubernetes.io/managed-by": "memcached-operator",
    });
    let container = json!({
        "name": "memcached",
        "image": "memcached:1.6.26-alpine",
        "imagePullPolicy": "IfNotPresent",
        "command": ["memcached", "--memory-limit=64", "-o", "modern", "-v"],
        "ports": [{ "containerPort": 11211, "name": "memcached" }],
        "securityContext": {
            "runAsNonRoot": true,
            "runAsUser": 1001,
            "allowPrivilegeEscalation": false,
            "capabilities": { "drop": ["ALL"] },
        },
    });
    json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": { "name": name, "namespace": NAMESPACE, "labels": labels },
        "spec": {
            "replicas": replicas,
            "selector": { "matchLabels": labels },
            "template": {
                "metadata": { "labels": labels },
                "spec": {
                    "securityContext": {
                        "runAsNonRoot": true,
                        "fsGroup": 1001,
                        "seccompProfile": { "type": "RuntimeDefault" },
                    },
                    "containers": [container],
                },
            },
        },
    })
}

/// User and system CPU seconds of the processes named `command` whose command line mentions
/// `dir` (the test environment's folder, in their flags), from `/proc/<pid>/stat`.
pub(crate) fn cpu_seconds(dir: &Path, command: &str) -> anyhow::Result<f64> {
    let dir = dir.to_string_lossy();
    let mut seconds = 0.0;
    for entry in std::fs::read_dir("/proc")?.flatten() {
        let Ok(comm) = std::fs::read_to_string(entry.path().join("comm")) else { continue };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else { continue };
        if comm.trim() != command || !String::from_utf8_lossy(&cmdline).contains(dir.as_ref()) {
            continue;
        }
        let Some(pid) = entry.file_name().to_str().and_then(|pid| pid.parse().ok()) else { continue };
        seconds += process_cpu_seconds(pid)?;
    }
    Ok(seconds)
}
