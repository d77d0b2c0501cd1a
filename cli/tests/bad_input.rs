//! Bad input: a one-line error saying what is wrong and what to do, a non-zero exit, and the
//! tree left exactly as it was.

mod common;

use std::path::Path;

use common::{rop, rop_ok, tree};

fn project(dir: &Path) {
    rop_ok(dir, &["init", "--domain", "example.com", "--repo", "github.com/example/op", "--rop-version", "0.1.0"]);
    rop_ok(dir, &["create", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"]);
}

/// Runs `args` in a fresh project (or an empty folder when `in_project` is false) and checks
/// the exit code, the exact error and that no file changed.
fn refused(in_project: bool, args: &[&str], code: i32, message: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("op");
    std::fs::create_dir(&dir).unwrap();
    if in_project {
        project(&dir);
    }
    let before = tree(&dir);
    let out = rop(&dir, args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "rop {args:?}: {stderr}");
    if code == 1 {
        assert_eq!(stderr.trim_end(), format!("error: {message}"), "rop {args:?}");
    } else {
        assert!(stderr.contains(message), "rop {args:?}: {stderr}");
    }
    assert_eq!(tree(&dir), before, "rop {args:?} changed files");
}

#[test]
fn init_in_a_project_names_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("op");
    std::fs::create_dir(&dir).unwrap();
    project(&dir);
    let before = tree(&dir);
    let out = rop(&dir, &["init", "--domain", "example.com"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim_end(),
        format!(
            "error: {} already holds a project (PROJECT exists): run `rop init` in an empty directory, or use `rop create api` to extend this one",
            dir.display()
        )
    );
    assert_eq!(tree(&dir), before);
}

#[test]
fn init_refusals() {
    refused(
        false,
        &["init", "--domain", "Example.com"],
        1,
        "domain \"Example.com\" is not a DNS-1123 subdomain (lower-case labels separated by '.'), e.g. --domain example.com",
    );
    refused(
        false,
        &["init", "--project-name", "My_Operator"],
        1,
        "project name \"My_Operator\" is not a DNS-1123 label (lower-case letters, digits and '-', at most 63 characters): use --project-name my-operator",
    );
    refused(false, &["init", "--license", "gpl"], 2, "invalid value 'gpl' for '--license <LICENSE>'");
}

#[test]
fn create_api_refusals() {
    let api = ["create", "api", "--group", "cache", "--version", "v1alpha1", "--kind"];
    refused(
        true,
        &[&api[..], &["Memcached"]].concat(),
        1,
        "API cache/v1alpha1 Memcached already exists in PROJECT: pass --force to scaffold its types and controller again (their edits are lost)",
    );
    refused(
        true,
        &[&api[..], &["memcached"]].concat(),
        1,
        "kind \"memcached\" is not UpperCamelCase (letters and digits): use --kind Memcached",
    );
    refused(
        true,
        &["create", "api", "--group", "cache.example.com", "--version", "v1", "--kind", "Foo"],
        1,
        "group \"cache.example.com\" repeats the project domain \"example.com\", which rop appends itself: use --group cache",
    );
    refused(
        true,
        &["create", "api", "--group", "cache", "--version", "1beta", "--kind", "Foo"],
        1,
        "version \"1beta\" is not a DNS-1035 label (a lower-case letter, then letters, digits, '-'), e.g. --version v1alpha1",
    );
    refused(
        true,
        &["create", "api", "--group", "apps", "--version", "v1", "--kind", "Foo"],
        1,
        "this project already has group \"cache\" and is not multigroup: use --group cache, or a separate project for group \"apps\"",
    );
    refused(
        true,
        &["create", "api", "--group", "cache", "--version", "v1", "--kind", "Other", "--plural", "memcacheds"],
        1,
        "plural \"memcacheds\" is already the plural of kind Memcached in group cache.example.com: pass another --plural",
    );
    refused(
        true,
        &["create", "api", "--group", "cache", "--version", "v1", "--kind", "Memcached"],
        1,
        "kind Memcached already has a controller (scaffolded with version v1alpha1): one controller reconciles every version, pass --controller=false",
    );
    refused(
        true,
        &[&api[..], &["Foo", "--resource=false", "--controller=false"]].concat(),
        1,
        "--resource=false and --controller=false leave nothing to scaffold: drop one of them",
    );
}

#[test]
fn commands_outside_a_project() {
    let tmp = tempfile::tempdir().unwrap();
    let out = rop(tmp.path(), &["create", "api", "--group", "cache", "--version", "v1", "--kind", "Foo"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim_end(),
        format!(
            "error: no PROJECT file in {}: run this inside a project created by `rop init`, or create one with `rop init --domain example.com --repo github.com/you/your-operator`",
            tmp.path().display()
        )
    );
}

#[test]
fn missing_marker_is_reported_and_nothing_written() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("op");
    std::fs::create_dir(&dir).unwrap();
    project(&dir);
    let main = dir.join("src/main.rs");
    let text = std::fs::read_to_string(&main).unwrap().replace("// +rop:scaffold:controllers", "");
    std::fs::write(&main, text).unwrap();
    let before = tree(&dir);
    let out = rop(&dir, &["create", "api", "--group", "cache", "--version", "v1", "--kind", "Redis"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim_end(),
        "error: src/main.rs has no `+rop:scaffold:controllers` marker line, where rop adds code: put the line back where it was (see a freshly scaffolded project), then run the command again"
    );
    assert_eq!(tree(&dir), before);
}
