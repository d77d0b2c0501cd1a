//! A generated project holds no copy of rop's manager: a change to the runtime crate reaches an
//! existing project when it rebuilds, with no `rop` command run again.
//!
//! The project vendors the runtime (the README's `vendor/` layout), the test changes the
//! vendored runtime's manager flags, rebuilds the project's manager and finds the change in its
//! `--help`. It builds into the shared target folder of the other end-to-end tests.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{rop_ok, tree};

fn shared_target_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/e2e-projects")
}

/// Runs cargo with `args` in `dir`; panics with its output on failure; returns stdout.
fn cargo(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("cargo")
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", shared_target_dir())
        .env("CARGO_INCREMENTAL", "0")
        .env_remove("RUSTFLAGS")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "cargo {args:?} failed in {}:\n{stderr}", dir.display());
    String::from_utf8(out.stdout).unwrap()
}

/// Copies the folder `from` into `to`, leaving out build output.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap();
        if name == "target" {
            continue;
        }
        if path.is_dir() {
            copy_dir(&path, &to.join(name));
        } else {
            std::fs::copy(&path, to.join(name)).unwrap();
        }
    }
}

#[test]
fn a_runtime_change_reaches_a_project_by_rebuilding() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("upgrade-operator");
    let checkout = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for krate in ["runtime", "core", "macros", "names", "testenv"] {
        copy_dir(&checkout.join(krate), &dir.join("vendor").join(krate));
    }
    rop_ok(&dir, &["init", "--domain", "example.com", "--rop-path", "vendor/runtime"]);
    rop_ok(&dir, &["create", "api", "--group", "cache", "--version", "v1", "--kind", "Memcached"]);
    let manager = shared_target_dir().join("debug/manager");
    cargo(&dir, &["build", "--bin", "manager"]);
    let help = |dir: &Path| {
        let out = Command::new(&manager).arg("--help").current_dir(dir).output().unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    assert!(help(&dir).contains("--leader-elect"), "{}", help(&dir));
    assert!(!help(&dir).contains("--graceful-shutdown-timeout"));
    let scaffolded = tree(&dir);

    // The runtime gains a flag; the project is rebuilt, not scaffolded again.
    let options = dir.join("vendor/runtime/src/manager/options.rs");
    let text = std::fs::read_to_string(&options).unwrap();
    let changed = text.replacen(
        "    /// Run the controllers only while holding the leader Lease",
        "    /// How long running reconciliations get to finish at shutdown.\n    \
         #[arg(long, default_value = \"8s\")]\n    \
         pub graceful_shutdown_timeout: Option<String>,\n\n    \
         /// Run the controllers only while holding the leader Lease",
        1,
    );
    assert_ne!(changed, text, "the anchor in options.rs moved: update this test");
    let changed = changed.replacen(
        "leader_elect: false,\n",
        "leader_elect: false,\n            graceful_shutdown_timeout: None,\n",
        1,
    );
    std::fs::write(&options, changed).unwrap();
    cargo(&dir, &["build", "--bin", "manager"]);

    assert!(help(&dir).contains("--graceful-shutdown-timeout"), "{}", help(&dir));
    let mut after = tree(&dir);
    after.remove("vendor/runtime/src/manager/options.rs");
    let mut before = scaffolded;
    before.remove("vendor/runtime/src/manager/options.rs");
    assert_eq!(after, before, "only the runtime changed; no project file did");
}
