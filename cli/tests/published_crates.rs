//! rop's crates as a project gets them once they are published: `rop init --rop-version V`
//! writes a project that depends on `rop` and `rop-testenv` by version, and that project
//! compiles (`cargo check --workspace --all-targets`) against what `cargo package` makes of
//! rop-names, rop-macros, rop-core, rop and rop-testenv.
//!
//! The test packages the five from the work tree, unpacks the packages and puts them in place
//! of crates.io's with `[patch.crates-io]`. A package's manifest names its siblings by version
//! only (cargo drops the `path`), so every dependency among the five resolves through the
//! registry's rules, as it will from crates.io, and nothing comes from this checkout's sources.
//! `scripts/package-check.sh` builds each package on its own; this test checks what a generated
//! project asks of them. The project is checked in the shared target folder of the other
//! end-to-end tests, offline (every crate it needs is one the workspace has downloaded).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::rop_ok;

/// The crates a generated project depends on, directly or through `rop`.
const CRATES: [&str; 5] = ["rop-names", "rop-macros", "rop-core", "rop", "rop-testenv"];

fn checkout() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn shared_target_dir() -> PathBuf {
    checkout().join("target/e2e-projects")
}

/// Runs `program args` in `dir` with `target_dir` as cargo's target folder; panics with its
/// output on failure; returns stdout.
fn run(dir: &Path, program: &str, args: &[&str], target_dir: &Path) -> String {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target_dir)
        .env("CARGO_INCREMENTAL", "0")
        .env_remove("RUSTFLAGS")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"));
    assert!(
        out.status.success(),
        "{program} {args:?} failed in {}:\n{}{}",
        dir.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The version of the five crates (scripts/package-check.sh keeps them equal), from the
/// runtime's manifest, which spells it out rather than inheriting it.
fn crates_version() -> String {
    let manifest = std::fs::read_to_string(checkout().join("runtime/Cargo.toml")).unwrap();
    let line = manifest.lines().find(|l| l.starts_with("version = ")).expect("runtime/Cargo.toml has a version");
    line.trim_start_matches("version = ").trim_matches('"').to_string()
}

/// The `[[package]]` entry named `name` in a Cargo.lock, without its dependency list.
fn lock_entry(lock: &str, name: &str) -> String {
    let entry = lock
        .split("\n[[package]]\n")
        .find(|entry| entry.starts_with(&format!("name = \"{name}\"\n")))
        .unwrap_or_else(|| panic!("Cargo.lock has no {name}:\n{lock}"));
    entry.split("dependencies = [").next().unwrap().trim_end().to_string()
}

#[test]
fn a_project_on_rop_by_version_builds_against_the_packaged_crates() {
    let tmp = tempfile::tempdir().unwrap();
    let version = crates_version();

    // Packaged afresh, so the packages are the work tree's; into a target folder of their own,
    // which leaves target/package (scripts/package-check.sh's) alone. `--no-verify`: building
    // each package is the script's job, and the project's build below compiles them anyway.
    let package_target = tmp.path().join("package-target");
    let mut package = vec!["package", "--no-verify", "--allow-dirty", "--offline"];
    for name in CRATES {
        package.extend(["--package", name]);
    }
    run(&checkout(), "cargo", &package, &package_target);
    let mut files: Vec<String> = std::fs::read_dir(package_target.join("package"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".crate"))
        .collect();
    files.sort();
    let expected: Vec<String> = ["rop", "rop-core", "rop-macros", "rop-names", "rop-testenv"]
        .iter()
        .map(|name| format!("{name}-{version}.crate"))
        .collect();
    assert_eq!(files, expected);

    let packages = tmp.path().join("packages");
    std::fs::create_dir(&packages).unwrap();
    for file in &files {
        let archive = package_target.join("package").join(file);
        run(&packages, "tar", &["-xzf", archive.to_str().unwrap()], &package_target);
    }
    // What crates.io will serve: the siblings by exact version, no path.
    let manifest = |name: &str| std::fs::read_to_string(packages.join(format!("{name}-{version}/Cargo.toml"))).unwrap();
    let pin = |name: &str| format!("\n[dependencies.{name}]\nversion = \"={version}\"\n\n");
    assert!(manifest("rop-macros").contains(&pin("rop-names")), "{}", manifest("rop-macros"));
    assert!(manifest("rop").contains(&pin("rop-macros")), "{}", manifest("rop"));
    assert!(manifest("rop").contains(&pin("rop-core")), "{}", manifest("rop"));
    assert!(manifest("rop-core").contains(&pin("rop-names")), "{}", manifest("rop-core"));
    assert!(!manifest("rop").contains("path = \"../"), "{}", manifest("rop"));

    let dir = tmp.path().join("published-operator");
    std::fs::create_dir(&dir).unwrap();
    rop_ok(&dir, &["init", "--domain", "example.com", "--rop-version", &version]);
    // A kind, so that the check compiles the derive's expansion and a controller test on
    // rop-testenv.
    rop_ok(&dir, &["create", "api", "--group", "cache", "--version", "v1", "--kind", "Memcached"]);
    let cargo_toml = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
    let rop_lines: Vec<&str> = cargo_toml.lines().filter(|l| l.starts_with("rop")).collect();
    assert_eq!(
        rop_lines,
        [
            format!("rop = {{ version = \"{version}\" }}"),
            format!("rop-testenv = {{ version = \"{version}\" }}"),
            "rop = { workspace = true, features = [\"manager\"] }".to_string(),
            "rop-testenv.workspace = true".to_string(),
        ]
    );

    let mut patch = String::from("\n[patch.crates-io]\n");
    for name in CRATES {
        let path = packages.join(format!("{name}-{version}"));
        patch.push_str(&format!("{name} = {{ path = \"{}\" }}\n", path.display()));
    }
    std::fs::write(dir.join("Cargo.toml"), format!("{cargo_toml}{patch}")).unwrap();
    run(&dir, "cargo", &["check", "--workspace", "--all-targets", "--offline"], &shared_target_dir());

    // Each of the five is the unpacked package, not a crate of this checkout.
    for name in CRATES {
        let id = run(&dir, "cargo", &["pkgid", "--offline", name], &shared_target_dir());
        let path = packages.join(format!("{name}-{version}"));
        assert_eq!(id.trim_end(), format!("path+file://{}#{name}@{version}", path.display()));
    }
    // The lock file records a path source by leaving out `source`: none of the five comes from
    // a registry.
    let lock = std::fs::read_to_string(dir.join("Cargo.lock")).unwrap();
    for name in CRATES {
        assert_eq!(lock_entry(&lock, name), format!("name = \"{name}\"\nversion = \"{version}\""));
    }
}
