//! Helpers shared by the CLI tests: running the built `rop` in a folder, reading trees.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs the built `rop` with `args` in `dir`, with a fixed `SOURCE_DATE_EPOCH` (2026-11-29) so
/// generated headers are reproducible.
pub fn rop(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rop"))
        .args(args)
        .current_dir(dir)
        .env("SOURCE_DATE_EPOCH", "1795910400")
        .env("NO_COLOR", "1")
        .output()
        .expect("the rop binary runs")
}

/// Like [`rop`], with the projects' shared build folder (`target/e2e-projects`) as
/// `CARGO_TARGET_DIR`, so that `rop generate` in a fresh project reuses one build of their
/// dependencies; panics with its stderr unless it succeeded.
pub fn rop_in_shared_target(dir: &Path, args: &[&str]) {
    let out = Command::new(env!("CARGO_BIN_EXE_rop"))
        .args(args)
        .current_dir(dir)
        .env("SOURCE_DATE_EPOCH", "1795910400")
        .env("NO_COLOR", "1")
        .env("CARGO_TARGET_DIR", Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/e2e-projects"))
        .output()
        .expect("the rop binary runs");
    assert!(out.status.success(), "rop {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// Like [`rop`], and panics with its output unless it succeeded.
pub fn rop_ok(dir: &Path, args: &[&str]) -> String {
    let out = rop(dir, args);
    assert!(
        out.status.success(),
        "rop {args:?} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Every file under `root` (skipping `target/` and `Cargo.lock`), by relative path.
pub fn tree(root: &Path) -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    walk(root, root, &mut files);
    files
}

fn walk(root: &Path, dir: &Path, files: &mut BTreeMap<String, String>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        let rel = path.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
        if rel == "target" || rel == "Cargo.lock" {
            continue;
        }
        if path.is_dir() {
            walk(root, &path, files);
        } else {
            files.insert(rel, std::fs::read_to_string(&path).unwrap());
        }
    }
}

/// The files of `after` that are new or different from `before`, for golden trees of what a
/// command changes; panics if a file of `before` is gone.
pub fn changes(before: &BTreeMap<String, String>, after: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    let gone: Vec<&String> = before.keys().filter(|path| !after.contains_key(*path)).collect();
    assert!(gone.is_empty(), "the command removed {gone:?}");
    after
        .iter()
        .filter(|(path, content)| before.get(*path) != Some(content))
        .map(|(p, c)| (p.clone(), c.clone()))
        .collect()
}

/// Copies folder `from` to `to`, leaving out build output (`target/`).
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap();
        if path.is_dir() {
            if name != "target" {
                copy_tree(&path, &to.join(name));
            }
        } else {
            std::fs::copy(&path, to.join(name)).unwrap();
        }
    }
}

/// The repository's `testdata/` folder.
pub fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata")
}

/// Compares `actual` with the golden tree `testdata/golden/<name>`: the same file list and
/// the same bytes. With `ROP_BLESS=1` the golden tree is rewritten from `actual` instead.
pub fn assert_golden_tree(name: &str, actual: &BTreeMap<String, String>) {
    let golden = testdata().join("golden").join(name);
    if std::env::var_os("ROP_BLESS").is_some() {
        let _ = std::fs::remove_dir_all(&golden);
        for (path, content) in actual {
            let file = golden.join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, content).unwrap();
        }
        return;
    }
    assert!(golden.is_dir(), "no golden tree {}; run the tests with ROP_BLESS=1 to create it", golden.display());
    let expected = tree(&golden);
    let expected_paths: Vec<&String> = expected.keys().collect();
    let actual_paths: Vec<&String> = actual.keys().collect();
    pretty_assertions::assert_eq!(expected_paths, actual_paths, "file list of {name} (ROP_BLESS=1 regenerates)");
    for (path, content) in &expected {
        pretty_assertions::assert_eq!(content, &actual[path], "{name}/{path} (ROP_BLESS=1 regenerates)");
    }
}

/// `rop generate`'s stderr without its progress lines (off a terminal it says when the
/// manifests generator's build starts and how long it took), for tests that compare the rest.
pub fn without_progress(stderr: &[u8]) -> String {
    String::from_utf8_lossy(stderr)
        .lines()
        .filter(|line| !line.starts_with("building and running the manifests generator ("))
        .map(|line| format!("{line}\n"))
        .collect()
}
