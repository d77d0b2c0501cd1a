//! `rop delete api` undoes `rop create api`: the tree comes back byte-for-byte, edited files
//! are kept unless `--force`, and shared lines stay while another resource needs them.

mod common;

use std::path::{Path, PathBuf};

use common::{rop, rop_ok, tree};

/// A project with no kind yet.
fn empty_project() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("op");
    std::fs::create_dir(&dir).unwrap();
    rop_ok(&dir, &["init", "--domain", "example.com", "--repo", "github.com/example/op", "--rop-version", "0.1.0"]);
    (tmp, dir)
}

fn project() -> (tempfile::TempDir, PathBuf) {
    let (tmp, dir) = empty_project();
    rop_ok(&dir, &["create", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"]);
    (tmp, dir)
}

fn gvk(version: &'static str, kind: &'static str) -> [&'static str; 6] {
    ["--group", "cache", "--version", version, "--kind", kind]
}

fn create(dir: &Path, version: &'static str, kind: &'static str, extra: &[&str]) {
    rop_ok(dir, &[&["create", "api"][..], &gvk(version, kind), extra].concat());
}

fn delete(dir: &Path, version: &'static str, kind: &'static str, extra: &[&str]) -> std::process::Output {
    rop(dir, &[&["delete", "api"][..], &gvk(version, kind), extra].concat())
}

#[test]
fn deleting_what_was_created_restores_the_tree() {
    let (_tmp, dir) = project();
    let before = tree(&dir);
    for (version, kind, extra) in [
        ("v1alpha1", "RedisCluster", &[][..]),
        ("v1beta1", "Memcached", &["--controller=false"][..]),
        ("v1", "Tenant", &["--namespaced=false"][..]),
    ] {
        create(&dir, version, kind, extra);
        let out = delete(&dir, version, kind, &[]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        pretty_assertions::assert_eq!(tree(&dir), before, "create + delete of {version} {kind}");
    }
}

#[test]
fn the_last_kind_goes_back_to_the_init_tree() {
    let (_tmp, dir) = empty_project();
    let init = tree(&dir);
    create(&dir, "v1alpha1", "Memcached", &[]);
    let out = delete(&dir, "v1alpha1", "Memcached", &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "  update    PROJECT\n  update    api/src/bin/manifests.rs\n  update    api/src/lib.rs\n  delete    api/src/v1alpha1/memcached.rs\n  delete    api/src/v1alpha1/mod.rs\n  update    config/crd/kustomization.yaml\n  update    config/default/kustomization.yaml\n  update    config/rbac/kustomization.yaml\n  delete    config/rbac/memcached_admin_role.yaml\n  delete    config/rbac/memcached_editor_role.yaml\n  delete    config/rbac/memcached_viewer_role.yaml\n  delete    config/samples/cache_v1alpha1_memcached.yaml\n  update    config/samples/kustomization.yaml\n  delete    src/controller/memcached.rs\n  update    src/controller/mod.rs\n  update    src/main.rs\n  delete    tests/memcached_controller.rs\nNext: run `rop generate` to update config/crd and config/rbac/role.yaml\n"
    );
    pretty_assertions::assert_eq!(tree(&dir), init);
    assert!(!dir.join("api/src/v1alpha1").exists(), "the emptied version folder is removed");
}

#[test]
fn edited_files_are_kept_unless_force() {
    let (_tmp, dir) = project();
    let types = dir.join("api/src/v1alpha1/memcached.rs");
    let edited = std::fs::read_to_string(&types)
        .unwrap()
        .replace("pub size: Option<i32>,", "pub size: Option<i32>,\n    pub image: String,");
    std::fs::write(&types, &edited).unwrap();
    let before = tree(&dir);
    let out = delete(&dir, "v1alpha1", "Memcached", &[]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim_end(),
        "error: refusing to delete api/src/v1alpha1/memcached.rs (edited since rop wrote it): pass --force to delete it anyway, losing its edits"
    );
    assert_eq!(tree(&dir), before);
    let out = delete(&dir, "v1alpha1", "Memcached", &["--force"]);
    assert!(out.status.success());
    assert!(!types.exists());
}

#[test]
fn unknown_api_lists_the_known_ones() {
    let (_tmp, dir) = project();
    let before = tree(&dir);
    let out = delete(&dir, "v1", "Memcached", &[]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim_end(),
        "error: PROJECT has no API cache/v1 Memcached; it has: cache/v1alpha1 Memcached"
    );
    assert_eq!(tree(&dir), before);
}

/// A built-in kind's controller goes as it came: the marker file with its last marker type,
/// and a marker type the kind's webhooks still use stays without `#[rop(controller)]`.
#[test]
fn a_built_in_kind_controller_is_deleted_like_any_other() {
    let (_tmp, dir) = project();
    let before = tree(&dir);
    let core = ["--group", "core", "--version", "v1", "--kind", "ServiceAccount"];
    rop_ok(&dir, &[&["create", "api"][..], &core, &["--resource=false"]].concat());
    rop_ok(&dir, &[&["delete", "api"][..], &core].concat());
    pretty_assertions::assert_eq!(tree(&dir), before, "create + delete of a built-in kind's controller");

    let apps = ["--group", "apps", "--version", "v1", "--kind", "Deployment"];
    rop_ok(&dir, &[&["create", "webhook"][..], &apps, &["--defaulting"]].concat());
    // A second webhook type, then the controller, go onto the one marker type.
    rop_ok(&dir, &[&["create", "webhook"][..], &apps, &["--programmatic-validation"]].concat());
    rop_ok(&dir, &[&["create", "api"][..], &apps, &["--resource=false"]].concat());
    let marker = std::fs::read_to_string(dir.join("api/src/builtin.rs")).unwrap();
    assert_eq!(marker.matches("pub struct DeploymentV1;").count(), 1, "one marker type:\n{marker}");
    assert!(
        marker.contains(
            "#[rop(webhook(validating, name = \"vdeployment-v1.example.com\"))]\n#[rop(controller)]\npub struct"
        ),
        "{marker}"
    );
    rop_ok(&dir, &[&["delete", "webhook"][..], &apps].concat());
    rop_ok(&dir, &[&["create", "webhook"][..], &apps, &["--defaulting"]].concat());
    let out = rop(&dir, &[&["delete", "api"][..], &apps].concat());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: apps/v1 Deployment has webhooks: delete them first with `rop delete webhook --group apps --version v1 --kind Deployment`\n"
    );
    rop_ok(&dir, &[&["delete", "webhook"][..], &apps].concat());
    rop_ok(&dir, &[&["delete", "api"][..], &apps].concat());
    pretty_assertions::assert_eq!(tree(&dir), before, "webhook, controller, and both deleted");

    // A marker type the user added to goes only with --force, edits and all.
    rop_ok(&dir, &[&["create", "api"][..], &core, &["--resource=false"]].concat());
    let marker = dir.join("api/src/builtin.rs");
    let text = std::fs::read_to_string(&marker).unwrap();
    let owns = "\n#[rop(controller)]\n#[rop(owns(rop::k8s_openapi::api::core::v1::Secret))]\n";
    std::fs::write(&marker, text.replace("\n#[rop(controller)]\n", owns)).unwrap();
    let out = rop(&dir, &[&["delete", "api"][..], &core].concat());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: api/src/builtin.rs: the marker type ServiceAccountV1 was edited since rop wrote it: pass --force to delete it with its edits\n"
    );
    rop_ok(&dir, &[&["delete", "api"][..], &core, &["--force"]].concat());
    pretty_assertions::assert_eq!(tree(&dir), before, "an edited marker deleted with --force");
}

/// Deleting the version that carries the controller while the kind keeps another refuses, and
/// names `--move-controller-to`; with it the controller reconciles the other version, written
/// as `rop create api` would have written it there (so deleting that version later needs no
/// `--force`, and gives back the init tree).
#[test]
fn the_controllers_version_moves_the_controller_or_refuses() {
    let (_tmp, dir) = empty_project();
    let init = tree(&dir);
    create(&dir, "v1alpha1", "Memcached", &[]);
    create(&dir, "v1", "Memcached", &["--controller=false"]);
    let before = tree(&dir);
    let out = delete(&dir, "v1alpha1", "Memcached", &[]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: cache/v1alpha1 Memcached carries the kind's controller, and Memcached keeps v1: deleting the version would delete the controller too. Pass --move-controller-to v1 to keep it, reconciling that version (its `use` lines and its test's sample move; docs/api-versions.md, section 5)\n"
    );
    assert_eq!(tree(&dir), before);
    let out = delete(&dir, "v1", "Memcached", &["--move-controller-to", "v1alpha1"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: --move-controller-to: cache/v1 Memcached has no controller to move\n"
    );
    let out = delete(&dir, "v1alpha1", "Memcached", &["--move-controller-to", "v1alpha1"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: --move-controller-to v1alpha1: v1alpha1 is the version being deleted; name one that Memcached keeps: v1\n"
    );
    let out = delete(&dir, "v1alpha1", "Memcached", &["--move-controller-to", ""]);
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("a value is required for '--move-controller-to <VERSION>' but none was supplied"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = delete(&dir, "v1alpha1", "Memcached", &["--move-controller-to", "v2"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: --move-controller-to v2: Memcached has no version v2 in PROJECT (it keeps v1)\n"
    );

    let out = delete(&dir, "v1alpha1", "Memcached", &["--move-controller-to", "v1"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let controller = std::fs::read_to_string(dir.join("src/controller/memcached.rs")).unwrap();
    assert!(controller.contains("use op_api::v1::Memcached;\nuse op_api::v1::MemcachedStatus;\n"), "{controller}");
    let test = std::fs::read_to_string(dir.join("tests/memcached_controller.rs")).unwrap();
    assert!(test.contains("const SAMPLE: &str = \"cache_v1_memcached.yaml\";"), "{test}");
    let project = std::fs::read_to_string(dir.join("PROJECT")).unwrap();
    assert!(
        project.contains("  version: v1\n  kind: Memcached\n") && project.ends_with("  controller: true\n"),
        "{project}"
    );
    let out = delete(&dir, "v1", "Memcached", &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    pretty_assertions::assert_eq!(tree(&dir), init);
}
