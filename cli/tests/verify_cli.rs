//! `rop verify` end to end: output lines and exit codes.

use std::path::Path;
use std::process::Command;

fn corpus(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/verify").join(rel).display().to_string()
}

fn run(args: &[&str]) -> (String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_rop")).arg("verify").args(args).output().expect("run rop");
    (String::from_utf8(out.stdout).unwrap(), out.status.code().unwrap())
}

#[test]
fn valid_file_passes() {
    let file = corpus("valid/045-structural.missing-type.yaml");
    let (stdout, code) = run(&[&file]);
    assert_eq!(stdout, "1 file, 1 CRD: 0 errors, 0 warnings\n");
    assert_eq!(code, 0);
}

#[test]
fn invalid_file_fails_with_one_line_per_finding() {
    let file = corpus("invalid/045-structural.missing-type.yaml");
    let (stdout, code) = run(&[&file]);
    assert_eq!(
        stdout,
        format!(
            "{file}: error[structural.missing-type] spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[size].type: \
Required value: must not be empty for specified object fields (fix: set type (object, array, string, integer, number or boolean), \
or x-kubernetes-preserve-unknown-fields: true for free-form data)\n1 file, 1 CRD: 1 error, 0 warnings\n"
        )
    );
    assert_eq!(code, 1);
}

#[test]
fn warnings_alone_exit_zero_and_other_kinds_are_noted() {
    let dir = tempfile::tempdir().unwrap();
    let warn = std::fs::read_to_string(corpus("invalid/018-versions.non-kube-like.yaml")).unwrap();
    let file = dir.path().join("two.yaml");
    std::fs::write(&file, format!("apiVersion: v1\nkind: Namespace\nmetadata: {{name: x}}\n---\n{warn}")).unwrap();
    let file = file.display().to_string();
    let (stdout, code) = run(&[&file]);
    assert_eq!(
        stdout,
        format!(
            "{file}#1: note: skipped a v1 Namespace (not a CustomResourceDefinition)\n\
{file}#2: warning[versions.non-kube-like] spec.versions[0].name: \"stable\" is not a Kube-like version name, so it sorts after every v<N>[alpha|beta<M>] version in discovery (fix: use a name such as v1, v1beta1 or v2alpha1)\n\
1 file, 1 CRD: 0 errors, 1 warning\n"
        )
    );
    assert_eq!(code, 0);
}

#[test]
fn missing_file_fails() {
    let (stdout, code) = run(&["/nonexistent/crd.yaml"]);
    assert!(stdout.starts_with("/nonexistent/crd.yaml: error: cannot read /nonexistent/crd.yaml"), "{stdout}");
    assert!(stdout.ends_with("1 file (1 unreadable), 0 CRDs: 0 errors, 0 warnings\n"), "{stdout}");
    assert_eq!(code, 2, "unusable input, as for --against and import");
}

/// A folder stands for the manifests directly in it; `-` is standard input with `--against` too.
#[test]
fn a_folder_is_read_and_against_reads_standard_input() {
    let dir = tempfile::tempdir().unwrap();
    let valid = std::fs::read_to_string(corpus("valid/045-structural.missing-type.yaml")).unwrap();
    std::fs::write(dir.path().join("a.yaml"), &valid).unwrap();
    std::fs::write(dir.path().join("notes.txt"), "not a manifest").unwrap();
    let folder = dir.path().display().to_string();
    let (stdout, code) = run(&[&folder]);
    assert_eq!((stdout.as_str(), code), ("1 file, 1 CRD: 0 errors, 0 warnings\n", 0));

    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_rop"))
        .args(["verify", "--against", &folder, "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(valid.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{out:?}");
}

/// Inside a project, a kind with a conversion webhook gets it from config/crd/patches/ when
/// kustomize builds config/: its base's `strategy: None` warning is a note that says so.
#[test]
fn a_projects_conversion_webhook_answers_the_strategy_none_warning() {
    let dir = tempfile::tempdir().unwrap();
    let rop = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_rop")).current_dir(dir.path()).args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    rop(&["init", "--domain", "com", "--repo", "github.com/example/widgets", "--project-name", "widgets"]);
    for version in ["v1", "v2"] {
        rop(&["create", "api", "--group", "example", "--version", version, "--kind", "Widget", "--controller=false"]);
    }
    let file = corpus("invalid/034-conversion.none-schemas-differ.yaml");
    let out = rop(&["verify", &file]);
    assert!(out.contains("warning[conversion.none-schemas-differ]"), "{out}");
    rop(&[
        "create",
        "webhook",
        "--group",
        "example",
        "--version",
        "v1",
        "--kind",
        "Widget",
        "--conversion",
        "--spoke",
        "v2",
    ]);
    assert_eq!(
        rop(&["verify", &file]),
        format!(
            "{file}: note: conversion.none-schemas-differ not reported: PROJECT gives widgets.example.com a conversion webhook, which config/crd/patches/ sets when kustomize builds config/\n1 file, 1 CRD: 0 errors, 0 warnings\n"
        )
    );
}

/// `-` is standard input.
#[test]
fn a_dash_reads_standard_input() {
    let text = std::fs::read_to_string(corpus("invalid/018-versions.non-kube-like.yaml")).unwrap();
    let (stdout, _, code) = run_stdin(&text);
    assert!(stdout.starts_with("-: warning[versions.non-kube-like] spec.versions[0].name:"), "{stdout}");
    assert!(stdout.ends_with("1 file, 1 CRD: 0 errors, 1 warning\n"), "{stdout}");
    assert_eq!(code, 0);
}

/// Runs `rop verify -` with `input` on standard input: stdout, stderr, exit code.
fn run_stdin(input: &str) -> (String, String, i32) {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_rop"))
        .args(["verify", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    (String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap(), out.status.code().unwrap())
}

/// Indents a YAML document to be an item of a `List`'s `items`.
fn as_item(yaml: &str) -> String {
    yaml.lines().enumerate().map(|(i, line)| format!("{}{line}\n", if i == 0 { "- " } else { "  " })).collect()
}

/// `kubectl get crd -o yaml` writes a `v1 List`: its items are checked, and an invalid one fails
/// the run; the API's own `CustomResourceDefinitionList` too.
#[test]
fn the_items_of_a_list_are_checked() {
    let valid = std::fs::read_to_string(corpus("valid/045-structural.missing-type.yaml")).unwrap();
    let invalid = std::fs::read_to_string(corpus("invalid/045-structural.missing-type.yaml")).unwrap();
    let list = format!("apiVersion: v1\nkind: List\nitems:\n{}{}", as_item(&valid), as_item(&invalid));
    let (stdout, _, code) = run_stdin(&list);
    assert_eq!(
        stdout,
        "- items[1]: error[structural.missing-type] spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[size].type: \
Required value: must not be empty for specified object fields (fix: set type (object, array, string, integer, number or boolean), \
or x-kubernetes-preserve-unknown-fields: true for free-form data)\n1 file, 2 CRDs: 1 error, 0 warnings\n"
    );
    assert_eq!(code, 1);

    let api_list =
        format!("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinitionList\nitems:\n{}", as_item(&valid));
    let (stdout, _, code) = run_stdin(&api_list);
    assert_eq!((stdout.as_str(), code), ("1 file, 1 CRD: 0 errors, 0 warnings\n", 0));
}

/// Input without a CRD checks nothing: it is an error (exit 2) saying what the input held,
/// so that a gate built on `rop verify` cannot pass by reading the wrong thing.
#[test]
fn input_without_a_crd_is_an_error_that_says_what_it_held() {
    let (stdout, stderr, code) = run_stdin("");
    assert_eq!(stdout, "-: note: no YAML documents\n1 file, 0 CRDs: 0 errors, 0 warnings\n");
    assert_eq!(
        stderr,
        "error: no CustomResourceDefinition to check in - (no YAML documents); rop verify reads CRDs (apiextensions.k8s.io) as YAML or JSON, one per document or as the items of a List, such as `kubectl get crd -o yaml` or `kubectl kustomize config/crd` writes\n"
    );
    assert_eq!(code, 2);

    let (stdout, stderr, code) = run_stdin("apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap}\n");
    assert_eq!(
        stdout,
        "- items[0]: note: skipped a v1 ConfigMap (not a CustomResourceDefinition)\n1 file, 0 CRDs: 0 errors, 0 warnings\n"
    );
    assert!(stderr.starts_with("error: no CustomResourceDefinition to check in - (a v1 ConfigMap); "), "{stderr}");
    assert_eq!(code, 2);
}

/// A new CRD the API server would reject is said to be that, not a compatibility break.
#[test]
fn against_names_an_invalid_new_crd_as_invalid() {
    let out = Command::new(env!("CARGO_BIN_EXE_rop"))
        .args(["verify", "--against", &corpus("valid/045-structural.missing-type.yaml")])
        .arg(corpus("invalid/045-structural.missing-type.yaml"))
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: the API server would reject the new CRDs (see the errors above; `rop verify` checks them alone)\n"
    );
    assert_eq!(out.status.code(), Some(1));
}

/// Standard input has no git revision and can be read once; a folder without manifests is
/// named in the error.
#[test]
fn inputs_that_cannot_be_compared_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().display().to_string();
    let stderr = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_rop")).arg("verify").args(args).output().unwrap();
        (String::from_utf8_lossy(&out.stderr).into_owned(), out.status.code().unwrap())
    };
    assert_eq!(
        stderr(&[&folder]),
        (
            format!(
                "error: {folder} holds no manifest (.yaml, .yml or .json files directly in it; folders below are not read): name the folder of the CRDs, e.g. config/crd/bases\n"
            ),
            2
        )
    );
    let (message, code) = stderr(&["--against", "git:HEAD", "-"]);
    assert!(
        message.starts_with(
            "error: --against git:HEAD compares files with their revision in git, and standard input has none"
        ),
        "{message}"
    );
    assert_eq!(code, 2);
    let (message, code) = stderr(&["--against", "-", "-"]);
    assert!(
        message.starts_with("error: --against - and - both name standard input, which can be read once"),
        "{message}"
    );
    assert_eq!(code, 2);
}
