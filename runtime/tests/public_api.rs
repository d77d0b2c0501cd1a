//! The public API of the crates a generated project depends on, as rustdoc sees it, against the
//! snapshots in `public-api/` at the root of the repository: a change to what users can name
//! changes a snapshot in the same commit, where a reviewer sees it (and CHANGELOG.md says it).
//! `ROP_BLESS=1 cargo test -p rop --test public_api` rewrites the snapshots.
//!
//! rustdoc's JSON output is unstable: it is built here with the stable toolchain and
//! `RUSTC_BOOTSTRAP=1` (as cargo-semver-checks does), into `target/public-api/`, and read with
//! the `public-api` crate, which reads the format of this toolchain's rustdoc. A toolchain whose
//! rustdoc writes another format fails here, saying which. Blanket impls are left out (they
//! come from the dependencies); every other item, impl and auto trait is listed.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// The public API of `package` built with `features`, one item a line, sorted.
fn public_api(package: &str, features: &str) -> String {
    let target = root().join("target/public-api");
    let mut cargo = Command::new(env!("CARGO"));
    cargo.current_dir(root()).args(["rustdoc", "--quiet", "--lib", "-p", package]);
    if !features.is_empty() {
        cargo.args(["--features", features]);
    }
    let out = cargo
        .args(["--", "-Z", "unstable-options", "--output-format", "json", "--cap-lints", "allow"])
        .env("RUSTC_BOOTSTRAP", "1")
        .env("CARGO_TARGET_DIR", &target)
        .env_remove("RUSTDOCFLAGS")
        .output()
        .expect("cargo runs");
    assert!(out.status.success(), "cargo rustdoc -p {package}: {}", String::from_utf8_lossy(&out.stderr));
    let json = target.join("doc").join(format!("{}.json", package.replace('-', "_")));
    // Blanket impls come from the dependencies (`impl<T> Instrument for T`): a dependency's
    // new one is no change of ours. Auto traits (`Send`, `Sync`) stay: losing one breaks users.
    let api = public_api::Builder::from_rustdoc_json(&json).omit_blanket_impls(true).build().unwrap_or_else(|err| {
        panic!("{}: {err} (the public-api crate reads rustdoc's JSON format 57, of Rust 1.95)", json.display())
    });
    format!("{api}\n")
}

/// Compares `package`'s public API with `public-api/<package>.txt`.
fn check(package: &str, features: &str) {
    let actual = public_api(package, features);
    let path = root().join("public-api").join(format!("{package}.txt"));
    if std::env::var_os("ROP_BLESS").is_some() {
        std::fs::write(&path, &actual).unwrap();
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    if expected != actual {
        let removed: Vec<&str> = expected.lines().filter(|l| !actual.lines().any(|a| a == *l)).collect();
        let added: Vec<&str> = actual.lines().filter(|l| !expected.lines().any(|e| e == *l)).collect();
        panic!(
            "the public API of {package} is not {}: say so in CHANGELOG.md and run \
             `ROP_BLESS=1 cargo test -p rop --test public_api`\nremoved:\n  {}\nadded:\n  {}",
            path.display(),
            removed.join("\n  "),
            added.join("\n  ")
        );
    }
}

#[test]
fn the_public_apis_are_their_snapshots() {
    // One test, so that the crates are documented one after another in one target folder.
    check("rop", "manager,v1_37");
    check("rop-core", "k8s-openapi/v1_37");
    check("rop-names", "");
    check("rop-macros", "");
    check("rop-testenv", "rop/v1_37");
}
