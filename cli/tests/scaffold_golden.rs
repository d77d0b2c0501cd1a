//! `rop init` and `rop create api` with fixed input give exactly the golden trees in
//! `testdata/golden/`.

mod common;

use common::{assert_golden_tree, rop_ok, tree};

fn init(dir: &std::path::Path) {
    rop_ok(
        dir,
        &[
            "init",
            "--domain",
            "example.com",
            "--repo",
            "github.com/example/memcached-operator",
            "--owner",
            "The Memcached Authors",
            "--rop-version",
            "0.1.0",
        ],
    );
}

#[test]
fn init_tree() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("memcached-operator");
    std::fs::create_dir(&dir).unwrap();
    init(&dir);
    assert_golden_tree("init", &tree(&dir));
}

#[test]
fn create_api_tree() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("memcached-operator");
    std::fs::create_dir(&dir).unwrap();
    init(&dir);
    let out = rop_ok(&dir, &["create", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"]);
    assert!(out.ends_with("Next: edit api/src/v1alpha1/memcached.rs, then run `make manifests`\n"), "{out}");
    assert_golden_tree("create-api", &tree(&dir));
}

/// Controllers for kinds Kubernetes serves, as kubebuilder scaffolds them for core types: no
/// types, a marker type per kind in api/src/builtin.rs, a controller watching the kind.
#[test]
fn create_api_for_built_in_kinds_tree() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("memcached-operator");
    std::fs::create_dir(&dir).unwrap();
    init(&dir);
    let out = rop_ok(
        &dir,
        &["create", "api", "--group", "core", "--version", "v1", "--kind", "ServiceAccount", "--resource=false"],
    );
    assert!(
        out.ends_with("Next: fill in src/controller/service_account.rs, name what it owns or watches in #[rop(...)] on ServiceAccountV1 in api/src/builtin.rs, then run `make manifests`\n"),
        "{out}"
    );
    rop_ok(&dir, &["create", "api", "--group", "apps", "--version", "v1", "--kind", "Deployment", "--resource=false"]);
    assert_golden_tree("create-api-builtin", &tree(&dir));
}

#[test]
fn second_kind_and_second_version_extend_markers() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("memcached-operator");
    std::fs::create_dir(&dir).unwrap();
    init(&dir);
    rop_ok(&dir, &["create", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"]);
    rop_ok(&dir, &["create", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "RedisCluster"]);
    rop_ok(
        &dir,
        &["create", "api", "--group", "cache", "--version", "v1beta1", "--kind", "Memcached", "--controller=false"],
    );
    assert_golden_tree("create-api-two-kinds-two-versions", &tree(&dir));
}

#[test]
fn create_api_twice_with_force_equals_once() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("memcached-operator");
    std::fs::create_dir(&dir).unwrap();
    init(&dir);
    let args = ["create", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"];
    rop_ok(&dir, &args);
    let once = tree(&dir);
    rop_ok(&dir, &[&args[..], &["--force"]].concat());
    assert_eq!(tree(&dir), once);
}
