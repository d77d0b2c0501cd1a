//! rop starts no formatter: every Rust file it writes must already be what `rustfmt --edition
//! 2024` with default settings (generated projects have no rustfmt.toml) makes of it. These
//! tests scaffold projects with short and long names, every webhook type and built-in kinds,
//! and compare each `.rs` file (and those of `testdata/golden/`) with rustfmt's output.
//! They need rustfmt (`rustup component add rustfmt`) and fail, saying so, without it.
//!
//! Also: `create webhook` changes the user's types file only by the lines it inserts.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::{rop_ok, testdata, tree};

/// `source` as rustfmt with default settings formats it (read from stdin, so `mod x;` sends
/// it looking for nothing). `config` is a folder with an empty rustfmt.toml: without it,
/// rustfmt would take the rop repository's own rustfmt.toml for the golden trees.
fn rustfmt(config: &Path, source: &str) -> String {
    let mut child = Command::new(std::env::var_os("RUSTFMT").unwrap_or_else(|| "rustfmt".into()))
        .args(["--edition", "2024", "--emit", "stdout", "--config-path"])
        .arg(config)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("rustfmt runs: these tests need it, install it with `rustup component add rustfmt`");
    child.stdin.take().unwrap().write_all(source.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "rustfmt refused the file:\n{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// Panics with the name and a diff of every `.rs` file under `root` that rustfmt would change.
fn assert_formatted(root: &Path) {
    let config = tempfile::tempdir().unwrap();
    std::fs::write(config.path().join("rustfmt.toml"), "").unwrap();
    let mut unformatted = Vec::new();
    for (path, content) in tree(root).into_iter().filter(|(path, _)| path.ends_with(".rs")) {
        let formatted = rustfmt(config.path(), &content);
        if formatted != content {
            let diff = pretty_assertions::StrComparison::new(&content, &formatted).to_string();
            unformatted.push(format!("{}/{path}:\n{diff}", root.display()));
        }
    }
    assert!(unformatted.is_empty(), "not as rustfmt formats them:\n{}", unformatted.join("\n"));
}

/// A new project `name` in a temporary folder, initialised with `flags`.
fn project(name: &str, flags: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(name);
    std::fs::create_dir(&dir).unwrap();
    let repo = format!("github.com/example/{name}");
    let args: Vec<&str> =
        ["init", "--repo", &repo, "--rop-version", "0.1.0"].into_iter().chain(flags.iter().copied()).collect();
    rop_ok(&dir, &args);
    (tmp, dir)
}

/// `rop create api` (or `webhook`, ...) for `group`/`version` `kind` with `flags`.
fn create(dir: &Path, what: &str, group: &str, version: &str, kind: &str, flags: &[&str]) {
    let args: Vec<&str> = ["create", what, "--group", group, "--version", version, "--kind", kind]
        .into_iter()
        .chain(flags.iter().copied())
        .collect();
    rop_ok(dir, &args);
}

/// Two versions of a kind with every webhook type, a second kind, a kind with an image, and the
/// webhooks and controllers of built-in kinds, in a project initialised with `init`.
fn every_command(name: &str, init: &[&str], group: &str, kind: &str, other: &str) {
    let (_tmp, dir) = project(name, init);
    create(&dir, "api", group, "v1", kind, &[]);
    create(&dir, "api", group, "v1beta1", kind, &["--controller=false"]);
    // A namespace-scoped manager has no controller for a cluster-scoped kind.
    let scope: &[&str] = if init.contains(&"--namespaced") {
        &["--namespaced=false", "--controller=false"]
    } else {
        &["--namespaced=false"]
    };
    create(&dir, "api", group, "v1", other, scope);
    create(
        &dir,
        "api",
        group,
        "v1alpha1",
        &format!("{other}Image"),
        &["--image", "memcached:1.6", "--run-as-user", "1001"],
    );
    let statefulset = ["--image", "redis:7.2", "--image-container-port", "6379", "--workload", "statefulset"];
    create(&dir, "api", group, "v1alpha2", &format!("{other}Set"), &statefulset);
    let all = ["--defaulting", "--programmatic-validation", "--conversion", "--spoke", "v1beta1"];
    create(&dir, "webhook", group, "v1", kind, &all);
    create(&dir, "webhook", group, "v1", other, &["--defaulting", "--programmatic-validation"]);
    create(&dir, "webhook", "apps", "v1", "Deployment", &["--defaulting"]);
    create(&dir, "webhook", "core", "v1", "Pod", &["--programmatic-validation"]);
    create(&dir, "api", "apps", "v1", "Deployment", &["--resource=false"]);
    create(&dir, "api", "autoscaling", "v2", "HorizontalPodAutoscaler", &["--resource=false"]);
    assert_formatted(&dir);
}

#[test]
fn short_names() {
    every_command("op", &["--domain", "a.io"], "g", "K", "Db");
}

#[test]
fn usual_names() {
    every_command("memcached-operator", &["--domain", "example.com"], "cache", "Memcached", "RedisCluster");
}

#[test]
fn long_names() {
    every_command(
        "a-very-long-project-name-operator",
        &["--domain", "averyveryverylongdomainname.example.com", "--owner", "The Very Long Owner Name Authors"],
        "averylonggroupname",
        "VeryLongKindNameForTestingTheFormatterLimits",
        "AnotherVeryLongKindName",
    );
}

#[test]
fn multigroup_and_namespaced_manager() {
    every_command(
        "memcached-operator",
        &["--domain", "example.com", "--multigroup", "--namespaced"],
        "cache",
        "Memcached",
        "RedisCluster",
    );
}

#[test]
fn golden_trees() {
    let golden = testdata().join("golden");
    let mut names: Vec<_> = std::fs::read_dir(&golden).unwrap().map(|e| e.unwrap().path()).collect();
    names.sort();
    for dir in names {
        assert_formatted(&dir);
    }
}

/// A types file formatted in a way of its own: odd but valid Rust that rustfmt would change.
const ODD_TYPES: &str = "use rop::CustomResource;   // trailing comment\r\nuse schemars::JsonSchema;\r\n\r\n#[derive(CustomResource,Clone,Debug,serde::Serialize,serde::Deserialize,JsonSchema)]\r\n#[rop(group = \"cache.example.com\", version = \"v1\", kind = \"Memcached\", plural = \"memcacheds\", namespaced)]\r\npub struct MemcachedSpec {\r\n    pub size : Option<i32>,   pub image: String,\r\n}\r\n";

#[test]
fn create_webhook_changes_the_types_file_only_by_its_attribute_lines() {
    let (_tmp, dir) = project("memcached-operator", &["--domain", "example.com"]);
    create(&dir, "api", "cache", "v1", "Memcached", &[]);
    let types = dir.join("api/src/v1/memcached.rs");
    std::fs::write(&types, ODD_TYPES).unwrap();
    create(&dir, "webhook", "cache", "v1", "Memcached", &["--programmatic-validation"]);
    create(&dir, "webhook", "cache", "v1", "Memcached", &["--defaulting"]);
    let expected = ODD_TYPES.replace(
        "pub struct MemcachedSpec",
        "#[rop(webhook(mutating))]\r\n#[rop(webhook(validating))]\r\npub struct MemcachedSpec",
    );
    assert_eq!(std::fs::read_to_string(&types).unwrap(), expected);
}
