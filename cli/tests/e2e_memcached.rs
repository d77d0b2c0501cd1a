//! End to end: scaffold the Memcached operator with the built `rop`, generate its manifests,
//! build it with no warnings, run its tests, clippy and fmt, and check every manifest with
//! `kubectl kustomize` and `kubernetes-validate --strict`.
//!
//! Generated projects build into one shared target folder, `target/e2e-projects`, so only
//! the first run pays for compiling kube and its dependencies.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::rop_ok;

fn shared_target_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/e2e-projects")
}

/// Runs `program args` in `dir` with the shared target folder; panics with its output on
/// failure; returns stdout (test results) followed by stderr (where cargo writes warnings).
fn run(dir: &Path, program: &str, args: &[&str]) -> String {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", shared_target_dir())
        .env_remove("RUSTFLAGS")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"));
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "{program} {args:?} failed in {}:\n{}\n{stderr}",
        dir.display(),
        String::from_utf8_lossy(&out.stdout)
    );
    format!("{}{stderr}", String::from_utf8_lossy(&out.stdout))
}

fn tool_available(program: &str, arg: &str) -> bool {
    Command::new(program).arg(arg).output().map(|o| o.status.success()).unwrap_or(false)
}

/// Validates YAML `documents` (a file path or `-` with stdin) with kubernetes-validate
/// --strict. Custom resources and kustomizations it has no schema for are reported as WARN
/// and pass; anything it knows must validate exactly.
fn kubernetes_validate(dir: &Path, paths: &[String], stdin: Option<&str>) {
    use std::io::Write;
    let mut cmd = Command::new("kubernetes-validate");
    cmd.arg("--strict").args(paths).current_dir(dir);
    if stdin.is_some() {
        cmd.stdin(std::process::Stdio::piped());
    }
    let mut child = cmd.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).spawn().unwrap();
    if let Some(text) = stdin {
        child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let report = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success() && !report.contains("ERROR"), "kubernetes-validate --strict failed:\n{report}");
}

fn yaml_files(dir: &Path, under: &str) -> Vec<String> {
    let mut files = Vec::new();
    let mut stack = vec![dir.join(under)];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "yaml")
                // kustomize's transformer configurations are not Kubernetes objects.
                && path.file_name().is_some_and(|n| n != "kustomizeconfig.yaml")
            {
                files.push(path.strip_prefix(dir).unwrap().to_string_lossy().into_owned());
            }
        }
    }
    files.sort();
    files
}

/// Every kube crate the project builds with, its tests included, is of one kube 5 release, and
/// no test double of the API server is among them.
fn assert_one_kube(dir: &Path) {
    let tree = run(dir, "cargo", &["tree", "--workspace", "--edges", "normal,dev,build", "--prefix", "none"]);
    let kube_crates = ["kube", "kube-client", "kube-core", "kube-derive", "kube-runtime"];
    let mut kube: Vec<&str> = tree
        .lines()
        .filter_map(|line| line.split_once(' '))
        .filter(|(name, _)| kube_crates.contains(name))
        .filter_map(|(_, rest)| rest.split(' ').next())
        .collect();
    kube.sort_unstable();
    kube.dedup();
    assert!(!kube.is_empty() && kube.iter().all(|v| v.starts_with("v5.")), "kube versions {kube:?} in:\n{tree}");
    assert!(!tree.contains("kube-fake-client"), "{tree}");
}

/// Builds the project at `dir` with no warnings, runs its tests, clippy (`-D warnings`) and
/// rustfmt, and returns `kubectl kustomize config/default`.
fn build_test_lint(dir: &Path) -> String {
    let build = run(dir, "cargo", &["build", "--workspace", "--all-targets"]);
    assert!(!build.contains("warning"), "the generated project builds with warnings:\n{build}");
    run(dir, "cargo", &["test", "--workspace"]);
    run(dir, "cargo", &["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"]);
    run(dir, "cargo", &["fmt", "--package", "memcached-operator", "--package", "memcached-operator-api", "--check"]);
    let out = Command::new("kubectl").args(["kustomize", "config/default"]).current_dir(dir).output().unwrap();
    assert!(out.status.success(), "kubectl kustomize config/default:\n{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// What a user writes into the scaffolded webhook module: a default for `spec.size`, a warning
/// above 5 and a refusal above 10, and a test of each through the webhook server.
fn write_webhook_rules(module: &Path) {
    let text = std::fs::read_to_string(module).unwrap();
    let edits = [
        (
            "tracing::debug!(name = ?object.metadata.name, \"defaulting Memcached\");",
            "tracing::debug!(name = ?object.metadata.name, \"defaulting Memcached\");\nobject.spec.size.get_or_insert(1);",
        ),
        (
            "tracing::debug!(name = ?object.metadata.name, \"validating the creation of Memcached\");",
            "tracing::debug!(name = ?object.metadata.name, \"validating the creation of Memcached\");
        match object.spec.size {
            Some(size) if size > 10 => {
                return Err(rop::webhook::Denied::new(format!(\"spec.size {size} is above 10\")));
            }
            Some(size) if size > 5 => return Ok(vec![format!(\"spec.size {size} needs much memory\")]),
            _ => {}
        }",
        ),
        (
            "// +rop:scaffold:webhook-tests",
            "#[tokio::test]
    async fn sizes_are_defaulted_warned_and_refused() {
        let validate = Memcached::TARGET.validating_webhook().unwrap().path;
        let mut big = object();
        big.spec.size = Some(11);
        let answer = server().handle(validate, testing::admission_review(\"CREATE\", Some(&big), None)).await;
        let refused = rop::webhook::Denied::new(\"spec.size 11 is above 10\");
        assert_eq!(testing::verdict(&answer.unwrap()), Err(refused));
        big.spec.size = Some(6);
        let answer = server().handle(validate, testing::admission_review(\"CREATE\", Some(&big), None)).await;
        assert_eq!(testing::verdict(&answer.unwrap()), Ok(vec![\"spec.size 6 needs much memory\".to_string()]));

        let default = Memcached::TARGET.mutating_webhook().unwrap().path;
        let answer = server().handle(default, testing::admission_review(\"CREATE\", Some(&object()), None)).await;
        assert_eq!(testing::patched(&answer.unwrap(), &object()).spec.size, Some(1));
    }
    // +rop:scaffold:webhook-tests",
        ),
    ];
    let mut text = text;
    for (from, to) in edits {
        assert!(text.contains(from), "the webhook module lacks {from:?}:\n{text}");
        text = text.replacen(from, to, 1);
    }
    std::fs::write(module, text).unwrap();
}

#[test]
fn memcached_operator_builds_tests_and_validates() {
    for (tool, arg) in [("kubectl", "version"), ("kubernetes-validate", "--version")] {
        let arg = if tool == "kubectl" { "--help" } else { arg };
        assert!(
            tool_available(tool, arg),
            "{tool} is not installed: `pip install kubernetes-validate` (and install kubectl) before running the tests"
        );
    }
    let tmp = tempfile::tempdir().unwrap();
    // A path with a space and non-ASCII characters must work like any other.
    let dir = tmp.path().join("my projects é").join("memcached-operator");
    std::fs::create_dir_all(&dir).unwrap();

    rop_ok(&dir, &["init", "--domain", "example.com", "--repo", "github.com/example/memcached-operator"]);
    // A project with no kind yet already builds clean, and its manifests build.
    rop_ok(&dir, &["generate"]);
    let role = std::fs::read_to_string(dir.join("config/rbac/role.yaml")).unwrap();
    assert_eq!(
        role,
        "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: manager-role\nrules: []\n"
    );
    let built = build_test_lint(&dir);
    kubernetes_validate(&dir, &["-".into()], Some(&built));
    assert_one_kube(&dir);
    rop_ok(&dir, &["create", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"]);
    let out = common::rop(&dir, &["generate"]);
    let generated = String::from_utf8_lossy(&out.stdout);
    assert!(generated.contains("create    config/crd/bases/cache.example.com_memcacheds.yaml"), "{generated}");
    // Off a terminal the build says when it starts, that it is still running every half
    // minute, and how long it took.
    let stderr = String::from_utf8_lossy(&out.stderr);
    let step = "building and running the manifests generator (cargo run -p memcached-operator-api --bin manifests)";
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.first(), Some(&format!("{step} ...").as_str()), "{stderr}");
    let running = lines[1..].iter().take_while(|l| l.starts_with(&format!("{step}: still running ("))).count();
    assert!(lines.get(1 + running).is_some_and(|l| l.starts_with(&format!("{step}: done ("))), "{stderr}");
    let crd = std::fs::read_to_string(dir.join("config/crd/bases/cache.example.com_memcacheds.yaml")).unwrap();
    let golden_path = common::testdata().join("e2e/cache.example.com_memcacheds.yaml");
    if std::env::var_os("ROP_BLESS").is_some() {
        std::fs::write(&golden_path, &crd).unwrap();
    }
    let golden = std::fs::read_to_string(golden_path).unwrap();
    pretty_assertions::assert_eq!(crd, golden);

    // A type the API server would reject stops `rop generate` before it writes, naming the
    // Rust type; a float is only a warning. A CEL rule over the cost budget names the Rust
    // attributes that would bound it.
    let types = dir.join("api/src/v1alpha1/memcached.rs");
    let original = std::fs::read_to_string(&types).unwrap();
    let broken = original.replace(
        "    pub size: Option<i32>,\n",
        "    pub size: Option<i32>,\n    /// Lookahead is not RE2.\n    #[schemars(regex(pattern = \"(?=a)b\"))]\n    pub name: String,\n    /// A ratio.\n    pub ratio: f64,\n    /// Every target once.\n    #[schemars(extend(\"x-kubernetes-validations\" = [{\"rule\": \"self.all(x, self.exists_one(y, y == x))\", \"message\": \"targets must be unique\"}]))]\n    pub targets: Vec<String>,\n",
    );
    std::fs::write(&types, &broken).unwrap();
    let out = common::rop(&dir, &["generate"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("config/crd/bases/cache.example.com_memcacheds.yaml (v1alpha1::memcached::Memcached): error[schema.pattern] spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[name].pattern"), "{stderr}");
    assert!(
        stderr.contains(
            "\nconfig/crd/bases/cache.example.com_memcacheds.yaml (v1alpha1::memcached::Memcached): warning[lint.float]"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("(v1alpha1::memcached::Memcached): error[cel.cost] spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[targets].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x"), "{stderr}");
    assert!(
        stderr.contains(
            "  help: add #[schemars(length(max = …))] to the field for spec.targets (in v1alpha1::memcached::Memcached)\n  help: add #[schemars(inner(length(max = …)))] to the field for spec.targets (in v1alpha1::memcached::Memcached)\n"
        ),
        "{stderr}"
    );
    assert!(stderr.ends_with("error: 4 generated CRD problems the API server would reject (listed above); fix the Rust types and run `rop generate` again; nothing was written\n"), "{stderr}");
    assert_eq!(std::fs::read_to_string(dir.join("config/crd/bases/cache.example.com_memcacheds.yaml")).unwrap(), crd);
    // A default the API server would refuse names the Rust field and the attributes that set it.
    let bad_default = original.replace(
        "    pub size: Option<i32>,\n",
        "    pub size: Option<i32>,\n    /// Copies, one at least.\n    #[serde(default)]\n    #[schemars(range(min = 1))]\n    pub copies: i32,\n",
    );
    std::fs::write(&types, &bad_default).unwrap();
    let out = common::rop(&dir, &["generate"]);
    let stderr = common::without_progress(&out.stderr);
    assert_eq!(
        stderr,
        "config/crd/bases/cache.example.com_memcacheds.yaml (v1alpha1::memcached::Memcached): error[defaults.invalid] spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[copies].default: Invalid value: 0:  in body should be greater than or equal to 1 (fix: change the default so that it is valid for its node's schema and the schemas below it)\n  help: the default of spec.copies (in v1alpha1::memcached::Memcached) comes from #[rop(default = …)] or #[rop(default_json = …)] on that field, or from #[serde(default)] and its type's Default: change it so the check above holds\nerror: 1 generated CRD problem the API server would reject (listed above); fix the Rust types and run `rop generate` again; nothing was written\n"
    );
    // An enum serde writes as a string or an object has no structural schema: rop's
    // `JsonSchema` derive (the scaffolded types' derive) refuses it at compile time, pointing
    // at the variant with the ways out, and `rop generate` writes nothing.
    let mixed = original.replace(
        "    pub size: Option<i32>,\n",
        "    pub size: Option<i32>,\n    /// Which pods.\n    #[serde(default)]\n    pub selector: Selector,\n",
    ) + "\n/// Pods to select.\n#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]\npub enum Selector {\n    #[default]\n    All,\n    Named(Vec<String>),\n}\n";
    std::fs::write(&types, &mixed).unwrap();
    let out = common::rop(&dir, &["generate"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        common::without_progress(&out.stderr),
        "error: the manifests generator failed to build or run; cargo said:\nerror: enum `Selector` mixes unit variants (`All`) with data variants (`Named`): serde writes the first as a string and the second as an object, and a CRD schema node has one type, so the API server would keep any value here unvalidated. Make every value an object: tag the enum (`#[serde(tag = \"type\")]`), which keeps `All` as it is and needs every data variant to hold a struct (one that wraps a string, number or list takes a named field: `Variant { value: T }`); or give the unit variants a body (`All {}`). Or accept an unvalidated field: `#[rop(preserve_unknown_fields)]` on `Selector`\n  --> api/src/v1alpha1/memcached.rs:57:5\n   |\n57 |     All,\n   |     ^^^\n\nerror: could not compile `memcached-operator-api` (lib) due to 1 previous error\n"
    );
    assert_eq!(std::fs::read_to_string(dir.join("config/crd/bases/cache.example.com_memcacheds.yaml")).unwrap(), crd);
    // Owning Deployments gives the controller the watch and the RBAC it needs, from one line.
    let owning = original.replace(
        "#[serde(rename_all = \"camelCase\")]\npub struct MemcachedSpec",
        "#[rop(owns(rop::k8s_openapi::api::apps::v1::Deployment))]\n#[serde(rename_all = \"camelCase\")]\npub struct MemcachedSpec",
    );
    assert_ne!(owning, original);
    std::fs::write(&types, &owning).unwrap();

    rop_ok(&dir, &["generate"]);
    let role = std::fs::read_to_string(dir.join("config/rbac/role.yaml")).unwrap();
    assert!(role.contains("- apiGroups:\n  - apps\n  resources:\n  - deployments\n  verbs:\n  - create\n  - delete\n  - get\n  - list\n  - patch\n  - update\n  - watch\n"), "{role}");

    // A sample the API server would reject fails generate, with the server's message.
    let sample = dir.join("config/samples/cache_v1alpha1_memcached.yaml");
    let good_sample = std::fs::read_to_string(&sample).unwrap();
    std::fs::write(&sample, good_sample.replace("  size: 1\n", "  size: \"one\"\n")).unwrap();
    let out = common::rop(&dir, &["generate"]);
    assert_eq!(
        common::without_progress(&out.stderr),
        "config/samples/cache_v1alpha1_memcached.yaml: error[sample.schema] spec.size: Invalid value: \"string\": spec.size in body must be of type integer: \"string\" (fix: change the value to one the CRD's schema allows)\nerror: 1 sample problem the API server would reject (listed above); fix the samples or the types, then run `rop generate` again; nothing was written\n"
    );
    std::fs::write(&sample, &good_sample).unwrap();

    // Deterministic: a second run changes no byte, and --check agrees.
    let again = rop_ok(&dir, &["generate"]);
    assert!(again.contains("unchanged config/crd/bases/cache.example.com_memcacheds.yaml"), "{again}");
    assert!(again.contains("unchanged config/rbac/role.yaml"), "{again}");
    rop_ok(&dir, &["generate", "--check"]);

    let built = build_test_lint(&dir);
    assert!(built.contains("kind: CustomResourceDefinition"), "{built}");
    assert!(built.contains("name: memcached-operator-controller-manager"), "{built}");
    kubernetes_validate(&dir, &["-".into()], Some(&built));
    kubernetes_validate(&dir, &yaml_files(&dir, "config"), None);

    // A second, cluster-scoped kind and a second version of Memcached: the markers take them,
    // the versions merge into one CRD, and the project still builds, tests and lints clean.
    rop_ok(
        &dir,
        &["create", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "Tenant", "--namespaced=false"],
    );
    rop_ok(
        &dir,
        &["create", "api", "--group", "cache", "--version", "v1beta1", "--kind", "Memcached", "--controller=false"],
    );
    rop_ok(&dir, &["generate"]);
    let crd = std::fs::read_to_string(dir.join("config/crd/bases/cache.example.com_memcacheds.yaml")).unwrap();
    let crd: serde_yaml::Value = serde_yaml::from_str(&crd).unwrap();
    let versions: Vec<(String, bool)> = crd["spec"]["versions"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|v| (v["name"].as_str().unwrap().to_string(), v["storage"].as_bool().unwrap()))
        .collect();
    assert_eq!(versions, [("v1alpha1".to_string(), true), ("v1beta1".to_string(), false)]);
    let tenants = std::fs::read_to_string(dir.join("config/crd/bases/cache.example.com_tenants.yaml")).unwrap();
    assert!(tenants.contains("scope: Cluster"), "{tenants}");
    // A sample's kind the group lacks names the group's kinds; one of the project's kinds
    // under a group the project does not have is said too.
    let typo = good_sample.replace("kind: Memcached", "kind: Memcache");
    let other_group = good_sample.replace("cache.example.com/", "cache.example.org/");
    std::fs::write(&sample, format!("{typo}---\n{other_group}")).unwrap();
    let out = common::rop(&dir, &["generate"]);
    assert_eq!(
        common::without_progress(&out.stderr),
        "config/samples/cache_v1alpha1_memcached.yaml: error[sample.kind] kind: Invalid value: \"Memcache\": group cache.example.com has kinds Memcached, Tenant (fix: set kind to one of them)\n\
         config/samples/cache_v1alpha1_memcached.yaml: warning[sample.version] apiVersion: the project's kind Memcached is in group cache.example.com, not \"cache.example.org\" (fix: write apiVersion: cache.example.com/<version>, unless the sample is of another project's Memcached)\n\
         error: 1 sample problem the API server would reject (listed above); fix the samples or the types, then run `rop generate` again; nothing was written\n"
    );
    std::fs::write(&sample, &good_sample).unwrap();
    let built = build_test_lint(&dir);
    kubernetes_validate(&dir, &["-".into()], Some(&built));

    // A controller for a kind Kubernetes serves, as kubebuilder scaffolds one for core types:
    // no types, the kind's marker type says what the controller owns, and RBAC follows.
    let created = rop_ok(
        &dir,
        &["create", "api", "--group", "core", "--version", "v1", "--kind", "ServiceAccount", "--resource=false"],
    );
    assert!(created.contains("create    src/controller/service_account.rs"), "{created}");
    let marker = dir.join("api/src/builtin.rs");
    let text = std::fs::read_to_string(&marker).unwrap();
    let owns = "\n#[rop(controller)]\n#[rop(owns(rop::k8s_openapi::api::core::v1::Secret))]\n";
    std::fs::write(&marker, text.replace("\n#[rop(controller)]\n", owns)).unwrap();
    rop_ok(&dir, &["generate"]);
    let role = std::fs::read_to_string(dir.join("config/rbac/role.yaml")).unwrap();
    assert!(role.contains("  - secrets\n  - serviceaccounts\n  verbs:\n  - create\n"), "{role}");
    assert!(role.contains("  - serviceaccounts/finalizers\n"), "{role}");

    // Webhooks: defaulting and validation on Memcached v1alpha1, filled in with rules of the
    // user's own and tests of them, and a conversion webhook with v1beta1 as a spoke.
    rop_ok(
        &dir,
        &[
            "create",
            "webhook",
            "--group",
            "cache",
            "--version",
            "v1alpha1",
            "--kind",
            "Memcached",
            "--defaulting",
            "--programmatic-validation",
            "--conversion",
            "--spoke",
            "v1beta1",
        ],
    );
    write_webhook_rules(&dir.join("src/webhook/memcached_v1alpha1.rs"));
    run(&dir, "cargo", &["fmt", "--package", "memcached-operator"]);
    rop_ok(&dir, &["generate"]);
    // `storage` moved away from the hub: `rop generate` says how to move the webhook too.
    let (hub_types, spoke_types) =
        (dir.join("api/src/v1alpha1/memcached.rs"), dir.join("api/src/v1beta1/memcached.rs"));
    let (hub_text, spoke_text) =
        (std::fs::read_to_string(&hub_types).unwrap(), std::fs::read_to_string(&spoke_types).unwrap());
    // `#[rop(namespaced, storage, ...)]` on one line or, when long, one key per line.
    let move_storage = |text: &str, add: bool| {
        let (one_line, per_line) = if add {
            (("namespaced, ", "namespaced, storage, "), ("    namespaced,\n", "    namespaced,\n    storage,\n"))
        } else {
            (("namespaced, storage, ", "namespaced, "), ("    namespaced,\n    storage,\n", "    namespaced,\n"))
        };
        let (from, to) = if text.contains("#[rop(namespaced, ") { one_line } else { per_line };
        assert!(text.contains(from), "{text}");
        text.replacen(from, to, 1)
    };
    std::fs::write(&hub_types, move_storage(&hub_text, false)).unwrap();
    std::fs::write(&spoke_types, move_storage(&spoke_text, true)).unwrap();
    let out = common::rop(&dir, &["generate"]);
    assert_eq!(
        common::without_progress(&out.stderr),
        "error: the conversion hub of Memcached is v1alpha1 (PROJECT), but its storage version is v1beta1 (v1alpha1::memcached::Memcached's #[rop(...)] does not say `storage`): the hub must be the storage version. Either move `storage` back to v1alpha1, or move the conversion webhook: `rop delete webhook --group cache --version v1alpha1 --kind Memcached --conversion`, then `rop create webhook --group cache --version v1beta1 --kind Memcached --conversion --spoke v1alpha1` (with every other version as a --spoke too)\n"
    );
    std::fs::write(&hub_types, &hub_text).unwrap();
    std::fs::write(&spoke_types, &spoke_text).unwrap();
    let manifests = std::fs::read_to_string(dir.join("config/webhook/manifests.yaml")).unwrap();
    assert!(manifests.contains("  name: mmemcached-v1alpha1.cache.example.com\n"), "{manifests}");
    assert!(manifests.contains("      path: /validate-cache-example-com-v1alpha1-memcached\n"), "{manifests}");
    let tests = run(&dir, "cargo", &["test", "--package", "memcached-operator"]);
    assert!(tests.contains("sizes_are_defaulted_warned_and_refused ... ok"), "{tests}");
    assert!(tests.contains("memcached_v1beta1_round_trips_through_the_hub ... ok"), "{tests}");
    // The scaffolded integration tests run the controllers against a real API server. Without
    // rop-testenv's binaries they skip and pass, unless ROP_TESTENV_REQUIRE=1 (set by CI,
    // inherited by the project's tests) makes that a failure: so in CI "ok" means they ran.
    // tests/webhooks.rs sends the samples through the API server and its webhooks.
    for test in [
        "memcached_is_reconciled_and_goes ... ok",
        "tenant_is_reconciled_and_goes ... ok",
        "memcached_v1alpha1_is_defaulted_by_the_api_server ... ok",
        "memcached_v1alpha1_is_validated_by_the_api_server ... ok",
        "memcached_v1beta1_is_converted_by_the_api_server ... ok",
    ] {
        assert!(tests.contains(test), "{test}:\n{tests}");
    }
    let built = build_test_lint(&dir);
    for expected in [
        "kind: MutatingWebhookConfiguration",
        "kind: ValidatingWebhookConfiguration",
        "cert-manager.io/inject-ca-from: memcached-operator-system/memcached-operator-serving-cert",
        "strategy: Webhook",
        "- memcached-operator-webhook-service.memcached-operator-system.svc",
        "secretName: webhook-server-cert",
    ] {
        assert!(built.contains(expected), "config/default lacks {expected:?}:\n{built}");
    }
    kubernetes_validate(&dir, &["-".into()], Some(&built));

    // A namespace-scoped, multigroup project: a kind of a second group in its own folder, a
    // Role instead of the ClusterRole, and still a clean build. A Role cannot grant access to
    // a cluster-scoped kind (the controller tests run with the project's RBAC and would be
    // refused), so the cluster-scoped Tenant goes first.
    rop_ok(&dir, &["delete", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "Tenant", "--force"]);
    rop_ok(&dir, &["edit", "--multigroup", "--namespaced"]);
    rop_ok(&dir, &["create", "api", "--group", "apps", "--version", "v1", "--kind", "Backup"]);
    rop_ok(&dir, &["generate"]);
    let role = std::fs::read_to_string(dir.join("config/rbac/role.yaml")).unwrap();
    assert!(role.starts_with("---\napiVersion: rbac.authorization.k8s.io/v1\nkind: Role\n"), "{role}");
    assert!(role.contains("  - apps.example.com\n") && role.contains("  - backups\n"), "{role}");
    let built = build_test_lint(&dir);
    assert!(built.contains("kind: RoleBinding") && built.contains("name: WATCH_NAMESPACE"), "{built}");
    kubernetes_validate(&dir, &["-".into()], Some(&built));
}
