//! The operator benchmark's scenario (`scripts/bench.sh operator-runtime`, docs/benchmarks.md)
//! at a small size, as a check of the operator `rop create api --image` generates: its manager,
//! run as a process against a real API server, brings 20 Memcached objects to their Deployments
//! and an `Available` condition, follows a resize, and puts back every deleted Deployment. No
//! timing is asserted; the request count is, loosely, because a controller that answers its
//! own writes with more writes is a defect that only shows in it. Then the fault benchmark
//! (`scripts/bench.sh operator-faults`) with short outages: the API server restarted mid-wave
//! and after convergence, etcd restarted, the leader of two managers killed, then stopped
//! with SIGTERM; after each every object's Deployment ends at the object's last size.
//!
//! The project builds into the shared folder of the other end-to-end tests
//! (`target/e2e-projects`); this file holds one test, so no other test rebuilds the `manager`
//! binary there while this one copies it.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use rop_operator_bench::{Downtimes, Operator, Scenario};

fn run(dir: &Path, program: &str, args: &[&str]) {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", shared_target_dir())
        .env("CARGO_INCREMENTAL", "0")
        .env_remove("RUSTFLAGS")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"));
    assert!(
        out.status.success(),
        "{program} {args:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn shared_target_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/e2e-projects")
}

#[test]
fn memcached_operator_converges_follows_the_spec_heals_and_survives_faults() {
    match rop_testenv::Binaries::find() {
        Err(e) if e.is_not_installed() && std::env::var_os("ROP_TESTENV_REQUIRE").is_none_or(|v| v != "1") => {
            eprintln!("skipped: no test API server ({e})");
            return;
        }
        found => drop(found.expect("rop-testenv's binaries")),
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("memcached-operator");
    std::fs::create_dir(&dir).unwrap();
    let rop = env!("CARGO_BIN_EXE_rop");
    run(&dir, rop, &["init", "--domain", "example.com", "--repo", "github.com/example/memcached-operator"]);
    let image = ["--image", "memcached:1.6.26-alpine", "--image-container-port", "11211", "--run-as-user", "1001"];
    let api = ["create", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"];
    run(&dir, rop, &[&api[..], &image].concat());
    run(&dir, rop, &["generate"]);
    run(&dir, "cargo", &["build", "--bin", "manager"]);
    let manager = tmp.path().join("manager");
    std::fs::copy(shared_target_dir().join("debug/manager"), &manager).unwrap();

    let operator = Operator {
        name: "rop".into(),
        manager,
        args: Vec::new(),
        env: Vec::new(),
        crds: dir.join("config/crd/bases"),
        log: None,
        namespace_file: false,
        group: "cache.example.com".into(),
        version: "v1alpha1".into(),
        kind: "Memcached".into(),
        plural: "memcacheds".into(),
    };
    let scenario = Scenario { objects: 20, idle: Duration::from_secs(2), timeout: Duration::from_secs(120) };
    let report = rop_operator_bench::run(&operator, &scenario).unwrap_or_else(|e| panic!("{e:#}"));
    let per_object = report.total_requests() as f64 / report.objects as f64;
    assert!(per_object <= 10.0, "{per_object} requests per object: {}", report.to_json());

    // Short leases, so a killed leader's lease expires in seconds.
    let lease =
        ["--leader-elect-lease-duration=4s", "--leader-elect-renew-deadline=3s", "--leader-elect-retry-period=1s"];
    let operator = Operator { args: lease.map(String::from).to_vec(), ..operator };
    let downtimes = Downtimes {
        api_server: Duration::from_secs(5),
        etcd: Duration::from_secs(3),
        standby_warmup: Duration::from_secs(2),
    };
    let faults = rop_operator_bench::run_faults(&operator, &scenario, downtimes).unwrap_or_else(|e| panic!("{e:#}"));
    eprintln!("{}", faults.to_json());
}
