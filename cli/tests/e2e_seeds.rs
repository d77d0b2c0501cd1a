//! End to end: the seeds' example operators (`testdata/seeds/`, and the book's tutorial project in
//! `docs/tutorial/tenant-operator`). Each seed's `scaffold.sh`
//! runs the built `rop` and lays the user's code over the scaffold; the test then generates
//! the manifests, builds the project with no warnings, runs its tests (which must include the
//! seed's own), clippy (`-D warnings`) and rustfmt, and checks what the seed is about.
//!
//! Generated projects build into the same shared target folder as `e2e_memcached`
//! (`target/e2e-projects`), so kube and its dependencies are compiled once for all of them.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, MutexGuard, PoisonError};

fn shared_target_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/e2e-projects")
}

/// `program` to run in `dir` with the shared target folder (also for the manifests generator
/// `rop generate` builds), no incremental compilation (its caches would only fill the disk),
/// the fixed `SOURCE_DATE_EPOCH` of the other CLI tests, and the built `rop` first on PATH.
fn command(dir: &Path, program: &str) -> Command {
    let rop_dir = Path::new(env!("CARGO_BIN_EXE_rop")).parent().unwrap();
    let path = std::env::join_paths(
        std::iter::once(rop_dir.to_path_buf()).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    let mut cmd = Command::new(program);
    cmd.current_dir(dir)
        .env("PATH", path)
        .env("CARGO_TARGET_DIR", shared_target_dir())
        .env("CARGO_INCREMENTAL", "0")
        .env("SOURCE_DATE_EPOCH", "1795910400")
        .env("NO_COLOR", "1")
        .env_remove("RUSTFLAGS");
    cmd
}

/// Runs `program args` in `dir` (see [`command`]); panics with its output on failure;
/// returns stdout and stderr.
fn run(dir: &Path, program: &str, args: &[&str]) -> (String, String) {
    let out = command(dir, program).args(args).output().unwrap_or_else(|e| panic!("cannot run {program}: {e}"));
    let (stdout, stderr) =
        (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned());
    assert!(out.status.success(), "{program} {args:?} failed in {}:\n{stdout}\n{stderr}", dir.display());
    (stdout, stderr)
}

/// Runs the built `rop` with `args` in `dir`, expecting success.
fn rop_ok(dir: &Path, args: &[&str]) {
    run(dir, env!("CARGO_BIN_EXE_rop"), args);
}

/// Runs the built `rop` with `args` in `dir`, for a run that must fail.
fn rop(dir: &Path, args: &[&str]) -> std::process::Output {
    command(dir, env!("CARGO_BIN_EXE_rop")).args(args).output().unwrap()
}

/// A seed scaffolded into a fresh folder named `project`, with its manifests generated.
struct Seed {
    _serial: MutexGuard<'static, ()>,
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    seed: PathBuf,
    project: &'static str,
}

/// The seeds run one at a time: their projects share a target folder, and with it the paths
/// of their binaries (`manifests`, which `rop generate` builds and runs, and `manager`).
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn scaffold(seed: &str, project: &'static str) -> Seed {
    // A failed seed poisons the lock; the others still run.
    let serial = ONE_AT_A_TIME.lock().unwrap_or_else(PoisonError::into_inner);
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(project);
    std::fs::create_dir(&dir).unwrap();
    // The tenant operator is the book's tutorial project, kept with its chapters.
    let seed = match seed {
        "tenant" => Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/tutorial/tenant-operator"),
        seed => common::testdata().join("seeds").join(seed),
    };
    run(&dir, "sh", &[seed.join("scaffold.sh").to_str().unwrap()]);
    rop_ok(&dir, &["generate"]);
    Seed { _serial: serial, _tmp: tmp, dir, seed, project }
}

impl Seed {
    fn read(&self, path: &str) -> String {
        std::fs::read_to_string(self.dir.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    /// Builds with no warnings, tests, lints and checks the formatting of the project with
    /// the cargo `features` given; returns the test output, in which every test in `tests`
    /// (paths below the crate) must have passed.
    fn build_test_lint(&self, features: &[&str], tests: &[&str]) {
        let features = features.join(",");
        let with = |args: &[&'static str]| {
            let mut args: Vec<&str> = args.to_vec();
            if !features.is_empty() {
                args.extend(["--features", features.as_str()]);
            }
            args
        };
        let (_, build) = run(&self.dir, "cargo", &with(&["build", "--workspace", "--all-targets"]));
        assert!(!build.contains("warning"), "{} builds with warnings:\n{build}", self.project);
        let (stdout, _) = run(&self.dir, "cargo", &with(&["test", "--workspace"]));
        for test in tests {
            assert!(
                stdout.contains(&format!("test {test} ... ok\n")),
                "{} ran no passing {test}:\n{stdout}",
                self.project
            );
        }
        let mut clippy = with(&["clippy", "--workspace", "--all-targets"]);
        clippy.extend(["--", "-D", "warnings"]);
        run(&self.dir, "cargo", &clippy);
        let api = format!("{}-api", self.project);
        run(&self.dir, "cargo", &["fmt", "--package", self.project, "--package", &api, "--check"]);
    }
}

#[test]
fn memcached_deploys_its_image_with_and_without_otel() {
    let s = scaffold("memcached", "memcached-operator");
    let role = s.read("config/rbac/role.yaml");
    // The controller reads no Pods (the Deployment's status says how many are available).
    assert!(!role.contains("  - pods\n"), "{role}");
    for rule in [
        "- apiGroups:\n  - apps\n  resources:\n  - deployments\n  verbs:\n  - create\n  - delete\n  - get\n  - list\n  - patch\n  - update\n  - watch\n",
        "- apiGroups:\n  - events.k8s.io\n  resources:\n  - events\n  verbs:\n  - create\n  - patch\n",
    ] {
        assert!(role.contains(rule), "{rule} not in\n{role}");
    }
    let crd = s.read("config/crd/bases/cache.example.com_memcacheds.yaml");
    assert!(crd.contains("              size:\n                description: Number of replicas of the Memcached Deployment.\n                format: int32\n                maximum: 10\n                minimum: 1\n                type: integer\n"), "{crd}");
    // A second kind with `--image` alone: no port, command or user, and still a clean build.
    rop_ok(
        &s.dir,
        &[
            "create",
            "api",
            "--group",
            "cache",
            "--version",
            "v1alpha1",
            "--kind",
            "Redis",
            "--image",
            "redis:7.2-alpine",
        ],
    );
    rop_ok(&s.dir, &["generate"]);
    let tests = [
        "controller::memcached::tests::the_deployment_runs_the_image_restricted_with_the_spec_replicas",
        "controller::memcached::tests::a_rolling_deployment_is_progressing_and_not_yet_available",
        "controller::memcached::tests::a_rolled_out_deployment_is_available_and_its_status_is_stable",
        "controller::redis::tests::the_deployment_runs_the_image_restricted_with_the_spec_replicas",
        "controller::redis::tests::a_rolling_deployment_is_progressing_and_not_yet_available",
        "controller::redis::tests::a_rolled_out_deployment_is_available_and_its_status_is_stable",
        // The scaffolded integration tests, on a real API server (see the README).
        "memcached_is_reconciled_heals_and_goes",
        "redis_is_reconciled_heals_and_goes",
    ];
    s.build_test_lint(&[], &tests);
    s.build_test_lint(&["otel"], &tests);
}

#[test]
fn load_balancer_port_is_enforced_by_the_schema() {
    let s = scaffold("load-balancer", "loadbalancer-operator");
    let crd = s.read("config/crd/bases/network.example.com_loadbalancers.yaml");
    assert!(crd.contains("              port:\n                description: The port clients connect to.\n                format: int32\n                maximum: 65535\n                minimum: 1\n                type: integer\n"), "{crd}");

    // A sample the schema refuses stops `rop generate`, with the API server's messages.
    let bad = "config/samples/network_v1_loadbalancer_bad.yaml";
    std::fs::copy(s.seed.join("bad-samples/network_v1_loadbalancer_bad.yaml"), s.dir.join(bad)).unwrap();
    let out = rop(&s.dir, &["generate"]);
    assert_eq!(out.status.code(), Some(1));
    let fix = "(fix: change the value to one the CRD's schema allows)";
    assert_eq!(
        common::without_progress(&out.stderr),
        format!(
            "{bad}: error[sample.schema] spec.algorithm: Unsupported value: \"Random\": supported values: \"RoundRobin\", \"LeastConnections\" {fix}\n\
             {bad}: error[sample.schema] spec.backends: Invalid value: 0: spec.backends in body should have at least 1 items {fix}\n\
             {bad}: error[sample.schema] spec.port: Invalid value: 70000: spec.port in body should be less than or equal to 65535 {fix}\n\
             error: 3 sample problems the API server would reject (listed above); fix the samples or the types, then run `rop generate` again; nothing was written\n"
        )
    );
    // The lower bound too: port 0 is refused, and nothing else in a sample that is fine.
    let zero = s.read("config/samples/network_v1_loadbalancer.yaml").replace("port: 8080", "port: 0");
    std::fs::write(s.dir.join(bad), zero).unwrap();
    let out = rop(&s.dir, &["generate"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = common::without_progress(&out.stderr);
    assert_eq!(
        stderr.lines().next(),
        Some(format!("{bad}: error[sample.schema] spec.port: Invalid value: 0: spec.port in body should be greater than or equal to 1 {fix}").as_str()),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 2, "{stderr}");
    std::fs::remove_file(s.dir.join(bad)).unwrap();
    rop_ok(&s.dir, &["generate", "--check"]);

    s.build_test_lint(
        &[],
        &[
            "controller::load_balancer::tests::a_reconciled_object_is_available_at_its_generation",
            "controller::load_balancer::tests::a_converged_status_is_computed_again_unchanged",
            // The scaffolded integration test, on a real API server (see the README).
            "load_balancer_is_reconciled_and_goes",
        ],
    );
}

#[test]
fn redis_cluster_heals_lost_replicas() {
    let s = scaffold("redis-cluster", "redis-operator");
    let role = s.read("config/rbac/role.yaml");
    assert!(
        role.contains("- apiGroups:\n  - \"\"\n  resources:\n  - pods\n  verbs:\n  - create\n  - delete\n  - get\n  - list\n  - patch\n  - update\n  - watch\n"),
        "{role}"
    );
    s.build_test_lint(
        &[],
        &[
            "controller::redis_cluster::tests::plan_creates_the_missing_and_deletes_the_surplus",
            "controller::redis_cluster::tests::the_surplus_goes_highest_first",
            "controller::redis_cluster::tests::a_replica_is_a_redis_pod_labelled_with_its_cluster",
            "controller::redis_cluster::tests::only_a_pod_the_kubelet_reports_ready_counts",
            "controller::redis_cluster::tests::the_status_counts_the_ready_replicas",
            "controller::redis_cluster::tests::a_converged_status_is_computed_again_unchanged",
            // Creates, heals, scales down and counts ready replicas on a real API server.
            "replicas_are_created_and_a_lost_one_comes_back",
        ],
    );
}

#[test]
fn redis_statefulset_rolls_out_one_ordinal_at_a_time_within_its_budget() {
    let s = scaffold("redis-statefulset", "redis-ha-operator");
    let role = s.read("config/rbac/role.yaml");
    for rule in [
        // Pods are read to follow the rollout and deleted to update them; the rest is `owns`.
        "- apiGroups:\n  - \"\"\n  resources:\n  - pods\n  verbs:\n  - delete\n  - get\n  - list\n  - watch\n",
        "- apiGroups:\n  - apps\n  resources:\n  - statefulsets\n  verbs:\n  - create\n  - delete\n  - get\n  - list\n  - patch\n  - update\n  - watch\n",
        "- apiGroups:\n  - policy\n  resources:\n  - poddisruptionbudgets\n  verbs:\n  - create\n  - delete\n  - get\n  - list\n  - patch\n  - update\n  - watch\n",
    ] {
        assert!(role.contains(rule), "{rule} not in\n{role}");
    }
    let crd = s.read("config/crd/bases/cache.example.com_redises.yaml");
    assert!(crd.contains("              minAvailable:\n                anyOf:\n                - type: integer\n                - type: string\n                default: 1\n"), "{crd}");
    // A bad minAvailable is refused at admission, not read as 100 % (the test below creates one).
    assert!(crd.contains("        - fieldPath: .spec.minAvailable\n          message: minAvailable is a number of replicas from 0 to replicas, or a percentage from \"0%\" to \"100%\"\n"), "{crd}");
    s.build_test_lint(
        &[],
        &[
            "controller::redis::tests::the_stateful_set_is_restricted_spread_and_updated_on_delete",
            "controller::redis::tests::a_configuration_change_changes_the_template_hash",
            "controller::redis::tests::the_status_reports_the_rollout",
            // On a real API server, the test playing the StatefulSet controller and the kubelet:
            // the objects as the spec asks, a new configuration rolled ordinal by ordinal from
            // the highest, bad changes refused (rop-testenv's workload_rollout tests the halts).
            "redis_rolls_out_its_spec",
        ],
    );
}

#[test]
fn tenant_is_cluster_scoped_and_owns_namespaced_objects() {
    let s = scaffold("tenant", "tenant-operator");
    let crd = s.read("config/crd/bases/tenancy.example.com_tenants.yaml");
    assert!(crd.contains("\n  scope: Cluster\n"), "{crd}");
    // Both versions in one CRD, v1 the storage version (the hub of the conversion).
    for (version, storage) in [("v1", true), ("v1alpha1", false)] {
        let at = crd.find(&format!("\n  - name: {version}\n")).unwrap_or_else(|| panic!("no {version} in\n{crd}"));
        let served = &crd[at..];
        let end = served[1..].find("\n  - name: ").map_or(served.len(), |n| n + 1);
        assert!(served[..end].contains(&format!("\n    served: true\n    storage: {storage}\n")), "{version}: {crd}");
    }
    assert!(crd.contains("              admin:\n") && crd.contains("              admins:\n"), "{crd}");
    let conversion = s.read("config/crd/patches/webhook_in_tenants.yaml");
    assert!(conversion.contains("path: /convert"), "{conversion}");
    let webhooks = s.read("config/webhook/manifests.yaml");
    assert!(
        webhooks.contains("kind: ValidatingWebhookConfiguration\n")
            && webhooks.contains("      path: /validate-tenancy-example-com-v1-tenant\n")
            && webhooks.contains("  name: vtenant-v1.tenancy.example.com\n"),
        "{webhooks}"
    );
    assert!(!webhooks.contains("MutatingWebhookConfiguration"), "{webhooks}");
    let role = s.read("config/rbac/role.yaml");
    for rule in [
        "- apiGroups:\n  - \"\"\n  resources:\n  - resourcequotas\n  verbs:\n  - create\n  - delete\n  - get\n  - list\n  - patch\n  - update\n  - watch\n",
        "- apiGroups:\n  - rbac.authorization.k8s.io\n  resourceNames:\n  - admin\n  resources:\n  - clusterroles\n  verbs:\n  - bind\n",
        "- apiGroups:\n  - rbac.authorization.k8s.io\n  resources:\n  - rolebindings\n  verbs:\n  - create\n  - delete\n  - get\n  - list\n  - patch\n  - update\n  - watch\n",
        // The validator lists the Tenants as the manager: the controller's rule allows it.
        "- apiGroups:\n  - tenancy.example.com\n  resources:\n  - tenants\n  verbs:\n  - create\n  - delete\n  - get\n  - list\n  - patch\n  - update\n  - watch\n",
    ] {
        assert!(role.contains(rule), "{rule} not in\n{role}");
    }
    s.build_test_lint(
        &[],
        &[
            "controller::tenant::tests::every_namespace_gets_a_labelled_quota_from_the_spec",
            "controller::tenant::tests::the_admins_are_bound_to_the_admin_cluster_role",
            "controller::tenant::tests::a_namespace_the_tenant_gives_up_is_cleared",
            "controller::tenant::tests::a_provisioned_tenant_is_ready_at_its_generation",
            "controller::tenant::tests::a_converged_status_is_computed_again_unchanged",
            // The validator's rule and its answers through the webhook server.
            "webhook::tenant_v1::tests::a_namespace_of_another_tenant_is_refused_naming_both",
            "webhook::tenant_v1::tests::every_namespace_taken_is_named",
            "webhook::tenant_v1::tests::a_tenant_being_deleted_still_has_its_namespaces",
            "webhook::tenant_v1::tests::free_namespaces_and_the_tenants_own_are_allowed",
            "webhook::tenant_v1::tests::the_server_lists_through_the_client_only_for_new_claims",
            "webhook::tests::every_webhook_registers",
            "webhook::tests::tenant_v1alpha1_round_trips_through_the_hub",
            // The conversion, both ways, with the admins v1alpha1 cannot hold.
            "v1alpha1::tenant_conversion::tests::the_quota_is_flattened_and_the_first_admin_is_the_admin",
            "v1alpha1::tenant_conversion::tests::admins_after_the_first_travel_in_an_annotation_and_come_back",
            "v1alpha1::tenant_conversion::tests::a_tenant_without_admins_round_trips",
            "v1alpha1::tenant_conversion::tests::a_v1alpha1_tenant_with_more_admins_round_trips_through_the_hub",
            "v1alpha1::tenant_conversion::tests::without_its_admin_a_v1alpha1_tenant_has_no_admins",
            "v1alpha1::tenant_conversion::tests::an_annotation_that_is_no_list_is_refused_with_its_name",
            // On a real API server: provisions, is idempotent, repairs drift, clears a namespace
            // given up, and its cleanup keeps the Tenant until what it owns is gone.
            "a_tenant_provisions_its_namespaces_and_cleans_up",
            // The webhooks on a real API server, which calls them: the scaffolded checks, the
            // second Tenant's refusal (created as v1, as v1alpha1 and by an update), and every
            // admin kept through a v1alpha1 read and write.
            "tenant_v1_is_validated_by_the_api_server",
            "tenant_v1alpha1_is_converted_by_the_api_server",
            "a_tenant_claiming_a_namespace_of_another_is_refused_by_the_api_server",
            "a_v1_tenant_keeps_every_admin_through_v1alpha1",
        ],
    );
}

#[test]
fn phase_state_machine_reports_phases_as_conditions() {
    let s = scaffold("phase", "task-operator");
    let crd = s.read("config/crd/bases/ops.example.com_tasks.yaml");
    assert!(
        crd.contains("              phase:\n                default: Pending\n                description: The phase of the Task.\n                enum:\n                - Pending\n                - Running\n                - Succeeded\n                - Failed\n                type: string\n"),
        "{crd}"
    );
    s.build_test_lint(
        &[],
        &[
            "controller::task::tests::the_state_machine_moves_forward_only",
            "controller::task::tests::a_failed_pod_says_how_its_container_exited",
            "controller::task::tests::the_pod_runs_the_command_once",
            "controller::task::tests::each_phase_is_reported_as_conditions",
            "controller::task::tests::a_converged_status_is_computed_again_unchanged",
            // Succeeded, failed and lost Tasks, never back, on a real API server.
            "a_task_follows_its_pod_from_pending_to_succeeded",
        ],
    );
}
