//! The project lifecycle and the CLI's manners: re-scaffolding with `alpha generate`,
//! template overrides, completion, version, `--quiet`, and `--dry-run` writing nothing.

mod common;

use std::path::PathBuf;

use common::{rop, rop_ok, tree};

fn project() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("op");
    std::fs::create_dir(&dir).unwrap();
    rop_ok(
        &dir,
        &[
            "init",
            "--domain",
            "example.com",
            "--repo",
            "github.com/example/op",
            "--owner",
            "Op Authors",
            "--rop-version",
            "0.1.0",
        ],
    );
    rop_ok(&dir, &["create", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"]);
    rop_ok(&dir, &["create", "api", "--group", "cache", "--version", "v1", "--kind", "Tenant", "--namespaced=false"]);
    rop_ok(
        &dir,
        &["create", "api", "--group", "cache", "--version", "v1beta1", "--kind", "Memcached", "--controller=false"],
    );
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
            "--conversion",
            "--spoke",
            "v1beta1",
        ],
    );
    rop_ok(&dir, &["create", "webhook", "--group", "apps", "--version", "v1", "--kind", "Deployment", "--defaulting"]);
    (tmp, dir)
}

#[test]
fn alpha_generate_replays_the_project_into_an_identical_tree() {
    let (tmp, dir) = project();
    let out = rop_ok(&dir, &["alpha", "generate", "--output-dir", "../next"]);
    assert!(out.ends_with("Re-scaffolded op with 4 resource(s) into ../next.\nNext: compare with `diff -r --exclude=.git . ../next` and move your code over\n"), "{out}");
    pretty_assertions::assert_eq!(tree(&tmp.path().join("next")), tree(&dir));
}

#[test]
fn alpha_generate_refuses_a_folder_with_files() {
    let (tmp, dir) = project();
    std::fs::create_dir(tmp.path().join("next")).unwrap();
    std::fs::write(tmp.path().join("next/keep.txt"), "mine").unwrap();
    let out = rop(&dir, &["alpha", "generate", "--output-dir", "../next"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: ../next is not empty: give --output-dir a new or empty folder\n"
    );
    assert_eq!(std::fs::read_dir(tmp.path().join("next")).unwrap().count(), 1);
}

#[test]
fn project_templates_override_built_in_ones() {
    let (_tmp, dir) = project();
    let overrides = dir.join(".rop/templates/api/config/samples");
    std::fs::create_dir_all(&overrides).unwrap();
    std::fs::write(
        overrides.join("sample.yaml"),
        "apiVersion: {{ group }}/{{ version }}\nkind: {{ kind }}\nmetadata:\n  name: custom\nspec: {}\n",
    )
    .unwrap();
    rop_ok(&dir, &["create", "api", "--group", "cache", "--version", "v1", "--kind", "Redis"]);
    assert_eq!(
        std::fs::read_to_string(dir.join("config/samples/cache_v1_redis.yaml")).unwrap(),
        "apiVersion: cache.example.com/v1\nkind: Redis\nmetadata:\n  name: custom\nspec: {}\n"
    );

    std::fs::write(dir.join(".rop/templates/api/config/samples/typo.yaml"), "x").unwrap();
    let before = tree(&dir);
    let out = rop(&dir, &["create", "api", "--group", "cache", "--version", "v1", "--kind", "Other"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: .rop/templates/api/config/samples/typo.yaml overrides no built-in template: its path under .rop/templates/ must be a built-in template's, such as api/src/controller/kind.rs.tera\n"
    );
    assert_eq!(tree(&dir), before);
}

#[test]
fn dry_run_writes_nothing_and_shows_the_diff() {
    let (_tmp, dir) = project();
    let before = tree(&dir);
    let out = rop_ok(&dir, &["create", "api", "--group", "cache", "--version", "v1", "--kind", "Redis", "--dry-run"]);
    assert!(out.starts_with("rop create api would write:\n  update    PROJECT\n"), "{out}");
    assert!(out.contains("  create    api/src/v1/redis.rs\n"), "{out}");
    assert!(out.contains("--- a/src/main.rs\n+++ b/src/main.rs\n"), "{out}");
    assert!(out.contains("+use op::controller::redis::RedisReconciler;\n"), "{out}");
    assert!(out.contains("+    manager.add_controller(RedisReconciler);\n"), "{out}");
    assert_eq!(tree(&dir), before);
}

#[test]
fn dry_run_of_a_refused_plan_fails_like_the_real_run() {
    let (_tmp, dir) = project();
    std::fs::write(dir.join("config/samples/cache_v1_redis.yaml"), "mine\n").unwrap();
    let before = tree(&dir);
    let out = rop(&dir, &["create", "api", "--group", "cache", "--version", "v1", "--kind", "Redis", "--dry-run"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("  refused   config/samples/cache_v1_redis.yaml\n"));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: refusing to overwrite config/samples/cache_v1_redis.yaml (already exists and differs): pass --force to replace it, losing its edits\n"
    );
    assert_eq!(tree(&dir), before);
}

#[test]
fn quiet_prints_nothing_on_success() {
    let (_tmp, dir) = project();
    let out = rop(&dir, &["--quiet", "create", "api", "--group", "cache", "--version", "v1", "--kind", "Redis"]);
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), "");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

#[test]
fn version_and_completion() {
    let tmp = tempfile::tempdir().unwrap();
    assert_eq!(
        rop_ok(tmp.path(), &["version"]),
        format!("rop {}\ngenerated projects: kube 5, k8s-openapi 0.29 (Kubernetes 1.37)\n", env!("CARGO_PKG_VERSION"))
    );
    for (shell, needle) in [
        ("bash", "_rop()"),
        ("zsh", "#compdef rop"),
        ("fish", "complete -c rop"),
        ("powershell", "Register-ArgumentCompleter"),
    ] {
        let script = rop_ok(tmp.path(), &["completion", shell]);
        assert!(script.contains(needle), "{shell}: {script:.200}");
        assert!(script.contains("delete"), "{shell} completes every command");
    }
}

#[test]
fn create_help_lists_what_it_creates_today() {
    let tmp = tempfile::tempdir().unwrap();
    let help = rop_ok(tmp.path(), &["create", "--help"]);
    let commands = help.split("Options:").next().unwrap();
    assert_eq!(
        commands,
        "Add a resource kind or webhooks\n\nUsage: rop create [OPTIONS] <COMMAND>\n\nCommands:\n  api      Add a kind (or a new version of one): types, controller, sample, roles\n  webhook  Add defaulting, validating or conversion webhooks to a kind: server code, tests,\n           manifests\n  help     Print this message or the help of the given subcommand(s)\n\n"
    );
}

#[test]
fn every_command_has_help_with_an_example() {
    let tmp = tempfile::tempdir().unwrap();
    for command in [
        &["init"][..],
        &["create", "api"],
        &["create", "webhook"],
        &["delete", "api"],
        &["delete", "webhook"],
        &["generate"],
        &["helm"],
        &["alpha", "generate"],
        &["completion"],
    ] {
        let help = rop_ok(tmp.path(), &[command, &["--help"]].concat());
        assert!(help.contains("Example:\n  rop "), "rop {command:?} --help:\n{help}");
    }
}

#[test]
fn edit_namespaced_switches_the_manager_and_back() {
    let (_tmp, dir) = project();
    // A namespace-scoped manager's Role grants nothing on cluster-scoped kinds: the project's
    // cluster-scoped Tenant keeps it watching every namespace while Tenant has a controller.
    let before = tree(&dir);
    let out = rop(&dir, &["edit", "--namespaced"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: the manager cannot watch only its namespace: the controller of Tenant (cache.example.com/v1) is cluster-scoped, and a namespace-scoped manager's Role grants nothing on cluster-scoped kinds; keep the manager watching every namespace, or remove that kind with `rop delete api` (its types, sample and roles go too: see `--dry-run`) and create a custom kind again with `--controller=false`\n"
    );
    assert_eq!(tree(&dir), before);
    let tenant = ["create", "api", "--group", "cache", "--version", "v1", "--kind", "Tenant", "--namespaced=false"];
    rop_ok(&dir, &["delete", "api", "--group", "cache", "--version", "v1", "--kind", "Tenant"]);

    let before = tree(&dir);
    let out = rop_ok(&dir, &["edit", "--namespaced"]);
    assert_eq!(
        out,
        "  update    PROJECT\n  update    config/manager/manager.yaml\n  update    config/rbac/role_binding.yaml\nThe manager now watches only its own namespace (WATCH_NAMESPACE), and `rop create api` refuses controllers for cluster-scoped kinds.\nNext: run `rop generate` to write config/rbac/role.yaml as a Role\n"
    );
    let manager = std::fs::read_to_string(dir.join("config/manager/manager.yaml")).unwrap();
    assert!(manager.contains("        - name: WATCH_NAMESPACE\n          valueFrom:\n            fieldRef:\n              fieldPath: metadata.namespace\n"), "{manager}");
    let binding = std::fs::read_to_string(dir.join("config/rbac/role_binding.yaml")).unwrap();
    assert!(binding.contains("kind: RoleBinding\n") && binding.contains("  kind: Role\n"), "{binding}");
    assert!(std::fs::read_to_string(dir.join("PROJECT")).unwrap().contains("namespaced: true\n"));

    // The other way round: a namespace-scoped manager gets no controller for such a kind.
    let namespaced = tree(&dir);
    let refused = "error: the manager watches only its own namespace (`rop edit --namespaced`), and its Role grants nothing on cluster-scoped kinds: KIND cannot have a controller here; ";
    let out = rop(&dir, &tenant);
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "{}pass --controller=false for its types alone, or run `rop edit --namespaced=false` first\n",
            refused.replace("KIND", "Tenant")
        )
    );
    let namespace = ["create", "api", "--group", "core", "--version", "v1", "--kind", "Namespace", "--resource=false"];
    let out = rop(&dir, &namespace);
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!("{}run `rop edit --namespaced=false` first\n", refused.replace("KIND", "Namespace"))
    );
    // A built-in kind's entry is its controller: without one there is nothing to scaffold.
    let out = rop(&dir, &[&namespace[..], &["--controller=false"]].concat());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: --resource=false and --controller=false leave nothing to scaffold: drop one of them\n"
    );
    assert_eq!(tree(&dir), namespaced);

    rop_ok(&dir, &["edit", "--namespaced=false"]);
    pretty_assertions::assert_eq!(tree(&dir), before);
}

#[test]
fn edit_refuses_to_clobber_an_edited_manager() {
    let (_tmp, dir) = project();
    // The cluster-scoped Tenant's controller would keep the manager cluster-wide.
    rop_ok(&dir, &["delete", "api", "--group", "cache", "--version", "v1", "--kind", "Tenant"]);
    let manager = dir.join("config/manager/manager.yaml");
    let edited = std::fs::read_to_string(&manager).unwrap().replace("memory: 128Mi", "memory: 256Mi");
    std::fs::write(&manager, edited).unwrap();
    let before = tree(&dir);
    let out = rop(&dir, &["edit", "--namespaced"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: refusing to overwrite config/manager/manager.yaml (already exists and differs): pass --force to replace it, losing its edits\n"
    );
    assert_eq!(tree(&dir), before);
    let out = rop(&dir, &["edit"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: nothing to edit: pass --multigroup[=false] and/or --namespaced[=false]\n"
    );
}

#[test]
fn multigroup_puts_new_groups_in_their_own_folders() {
    let (_tmp, dir) = project();
    let before = tree(&dir);
    rop_ok(&dir, &["edit", "--multigroup"]);
    let after_edit = tree(&dir);
    rop_ok(&dir, &["create", "api", "--group", "apps", "--version", "v1", "--kind", "Backup"]);
    for file in [
        "api/src/apps/mod.rs",
        "api/src/apps/v1/mod.rs",
        "api/src/apps/v1/backup.rs",
        "src/controller/apps_backup.rs",
        "config/rbac/apps_backup_admin_role.yaml",
        "config/samples/apps_v1_backup.yaml",
    ] {
        assert!(dir.join(file).is_file(), "{file}");
    }
    let manifests = std::fs::read_to_string(dir.join("api/src/bin/manifests.rs")).unwrap();
    assert!(manifests.contains("use op_api::apps::v1 as apps_v1;\n"), "{manifests}");
    assert!(manifests.contains("rop::manifests::kind::<apps_v1::Backup>(),\n"), "{manifests}");
    // A further kind in yet another group, then a re-scaffold that keeps every kind's layout.
    rop_ok(&dir, &["create", "api", "--group", "ship", "--version", "v1", "--kind", "Frigate"]);
    rop_ok(&dir, &["alpha", "generate", "--output-dir", "../copy"]);
    pretty_assertions::assert_eq!(tree(&dir.join("../copy")), tree(&dir));
    rop_ok(&dir, &["delete", "api", "--group", "ship", "--version", "v1", "--kind", "Frigate"]);
    let out = rop(&dir, &["edit", "--multigroup=false"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: the project has 2 groups (apps, cache): it stays multigroup; delete the APIs of all but one group first\n"
    );
    assert_eq!(rop_ok(&dir, &["edit", "--multigroup"]), "Nothing changed: the project already has these settings\n");
    rop_ok(&dir, &["delete", "api", "--group", "apps", "--version", "v1", "--kind", "Backup"]);
    pretty_assertions::assert_eq!(tree(&dir), after_edit);
    rop_ok(&dir, &["edit", "--multigroup=false"]);
    pretty_assertions::assert_eq!(tree(&dir), before);
}

#[test]
fn a_relative_rop_path_stays_relative_for_vendored_builds() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("op");
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for krate in ["runtime", "core", "macros", "names", "testenv"] {
        let to = dir.join("vendor").join(krate);
        std::fs::create_dir_all(&to).unwrap();
        std::fs::copy(repo.join(krate).join("Cargo.toml"), to.join("Cargo.toml")).unwrap();
    }
    let out = rop(&dir, &["init", "--domain", "example.com", "--rop-path", "vendor/rutime"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: vendor/rutime has no Cargo.toml: --rop-path must point at the rop runtime crate (<checkout>/runtime)\n"
    );
    rop_ok(&dir, &["init", "--domain", "example.com", "--rop-path", "vendor/runtime"]);
    let cargo = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
    assert!(cargo.contains("\nrop = { path = \"vendor/runtime\" }\n"), "{cargo}");
    assert!(cargo.contains("\nexclude = [\"vendor\"]\n"), "{cargo}");
}
