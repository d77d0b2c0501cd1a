//! `rop verify --against OLD NEW...` end to end: OLD as a file, a folder and a git revision,
//! acknowledgements, alpha versions, and the usage errors (exit 2).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::rop;

fn compat(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/verify/compat").join(rel)
}

/// A folder holding `old.yaml` and `new.yaml` (a copy of case `case`).
fn pair(case: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(compat("old.yaml"), dir.path().join("old.yaml")).unwrap();
    std::fs::copy(compat(&format!("cases/{case}.yaml")), dir.path().join("new.yaml")).unwrap();
    dir
}

/// `(stdout, stderr, exit code)`.
fn run(dir: &Path, args: &[&str]) -> (String, String, i32) {
    let out = rop(dir, args);
    (String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap(), out.status.code().unwrap())
}

const FIELD_REMOVED: &str = "new.yaml: error[compat.field-removed] spec.versions[2].schema.openAPIV3Schema.properties[spec].properties[name]: field \"name\" removed: the API server prunes it from stored objects when it reads them (and for good on their next write), so clients that set or read it lose it (fix: keep the field (say it is deprecated in its description), or add a new version without it and convert between the two)\n";

#[test]
fn a_breaking_change_fails_with_one_line_per_finding() {
    let dir = pair("field-removed");
    let (stdout, stderr, code) = run(dir.path(), &["verify", "--against", "old.yaml", "new.yaml"]);
    assert_eq!(stdout, format!("{FIELD_REMOVED}1 CRD compared, 0 new: 1 error, 0 warnings\n"));
    assert_eq!(stderr, "error: the new CRDs break objects or clients of the old ones (see the errors above)\n");
    assert_eq!(code, 1);
}

#[test]
fn a_safe_change_passes_and_a_warning_does_not_fail() {
    let dir = pair("enum.safe");
    let (stdout, _, code) = run(dir.path(), &["verify", "--against", "old.yaml", "new.yaml"]);
    assert_eq!(
        stdout,
        "new.yaml: warning[compat.enum] spec.versions[2].schema.openAPIV3Schema.properties[spec].properties[mode]: allowed enum values added: \"Paused\": clients that handle every known value meet new ones (fix: say in the field's description how clients should treat values they do not know)\n1 CRD compared, 0 new: 0 errors, 1 warning\n"
    );
    assert_eq!(code, 0);
}

#[test]
fn old_may_be_a_folder_and_a_crd_without_counterpart_is_new() {
    let dir = pair("field-removed");
    std::fs::create_dir(dir.path().join("before")).unwrap();
    std::fs::rename(dir.path().join("old.yaml"), dir.path().join("before/widgets.yaml")).unwrap();
    let other = std::fs::read_to_string(compat("old.yaml")).unwrap().replace("widgets", "gadgets");
    std::fs::write(dir.path().join("gadgets.yaml"), other).unwrap();
    let (stdout, _, code) = run(dir.path(), &["verify", "--against", "before", "new.yaml", "gadgets.yaml"]);
    assert_eq!(
        stdout,
        format!(
            "{FIELD_REMOVED}gadgets.yaml: note: gadgets.example.com is new (no CRD of that name in OLD, nothing to compare)\n1 CRD compared, 1 new: 1 error, 0 warnings\n"
        )
    );
    assert_eq!(code, 1);
}

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn old_may_be_a_git_revision_of_the_same_files() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("crds")).unwrap();
    let crd = dir.path().join("crds/new.yaml");
    std::fs::copy(compat("old.yaml"), &crd).unwrap();
    git(dir.path(), &["init", "-q"]);
    git(dir.path(), &["add", "."]);
    git(dir.path(), &["commit", "-q", "-m", "first"]);
    std::fs::copy(compat("cases/field-removed.yaml"), &crd).unwrap();
    let (stdout, _, code) = run(&dir.path().join("crds"), &["verify", "--against", "git:HEAD", "new.yaml"]);
    assert_eq!(stdout, format!("{FIELD_REMOVED}1 CRD compared, 0 new: 1 error, 0 warnings\n"));
    assert_eq!(code, 1);

    let (_, stderr, code) = run(dir.path(), &["verify", "--against", "git:no-such-branch", "crds/new.yaml"]);
    let top = dir.path().canonicalize().unwrap();
    assert_eq!(
        stderr,
        format!(
            "error: no git revision \"no-such-branch\" in {} (fix: name a commit, branch or tag that exists there, e.g. HEAD or main)\n",
            top.display()
        )
    );
    assert_eq!(code, 2);
}

#[test]
fn acknowledged_breaks_are_notes_and_stale_acknowledgements_warn() {
    let dir = pair("field-removed");
    std::fs::write(
        dir.path().join("acks.yaml"),
        "acknowledged:
- crd: widgets.example.com
  rule: compat.field-removed
  path: spec.versions[2].schema.openAPIV3Schema.properties[spec].properties[name]
  reason: deprecated in 1.2, removed in 2.0
- crd: widgets.example.com
  rule: compat.type
  path: spec.versions[2].schema.openAPIV3Schema.properties[spec].properties[size]
  reason: an old decision
",
    )
    .unwrap();
    let (stdout, _, code) =
        run(dir.path(), &["verify", "--against", "old.yaml", "new.yaml", "--acknowledged", "acks.yaml"]);
    assert_eq!(
        stdout,
        format!(
            "new.yaml: note: acknowledged compat.field-removed spec.versions[2].schema.openAPIV3Schema.properties[spec].properties[name]: deprecated in 1.2, removed in 2.0\n\
{}: warning: acknowledgement of compat.type at spec.versions[2].schema.openAPIV3Schema.properties[spec].properties[size] in widgets.example.com matches no finding (fix: remove it)\n\
1 CRD compared, 0 new: 0 errors, 1 warning\n",
            dir.path().join("acks.yaml").display()
        )
    );
    assert_eq!(code, 0);
}

#[test]
fn alpha_versions_may_break_when_allowed() {
    let dir = pair("field-removed");
    let new = std::fs::read_to_string(dir.path().join("old.yaml")).unwrap();
    let mut doc: serde_json::Value = serde_yaml::from_str(&new).unwrap();
    doc["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
        .as_object_mut()
        .unwrap()
        .remove("color");
    std::fs::write(dir.path().join("new.yaml"), serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    let (stdout, _, code) = run(dir.path(), &["verify", "--against", "old.yaml", "new.yaml", "--allow-alpha-breaks"]);
    assert!(stdout.starts_with("new.yaml: warning[compat.field-removed] spec.versions[0]."), "{stdout}");
    assert!(stdout.ends_with("1 CRD compared, 0 new: 0 errors, 1 warning\n"), "{stdout}");
    assert_eq!(code, 0);
    let (_, _, code) = run(dir.path(), &["verify", "--against", "old.yaml", "new.yaml"]);
    assert_eq!(code, 1);
}

#[test]
fn unusable_input_exits_two_with_what_to_fix() {
    let dir = pair("field-removed");
    std::fs::create_dir(dir.path().join("empty")).unwrap();
    std::fs::copy(dir.path().join("new.yaml"), dir.path().join("new2.yaml")).unwrap();
    let cases: &[(&[&str], &str)] = &[
        (
            &["verify", "--against", "missing.yaml", "new.yaml"],
            "error: cannot read OLD missing.yaml: No such file or directory (os error 2) (fix: check the path)\n",
        ),
        (
            &["verify", "--against", "empty", "new.yaml"],
            "error: OLD empty holds no CustomResourceDefinition (fix: name the file or folder of the CRDs as they were)\n",
        ),
        (
            &["verify", "--against", "", "new.yaml"],
            "error: --against is empty (fix: name a CRD file, a folder of them, or git:REF)\n",
        ),
        (
            &["verify", "--against", "git:", "new.yaml"],
            "error: --against git: needs a revision, e.g. --against git:HEAD\n",
        ),
        (
            &["verify", "--against", "old.yaml", "new.yaml", "new2.yaml"],
            "error: NEW has two CRDs named \"widgets.example.com\" (new.yaml and new2.yaml): pass one revision of each CRD\n",
        ),
    ];
    for (args, expected) in cases {
        let (stdout, stderr, code) = run(dir.path(), args);
        let stderr = stderr.replace(&format!("{}/", dir.path().display()), "");
        assert_eq!((stdout.as_str(), stderr.as_str(), code), ("", *expected, 2), "{args:?}");
    }

    std::fs::write(dir.path().join("acks.yaml"), "acknowledged:\n- {crd: x, rule: compat.nope, path: p, reason: r}\n")
        .unwrap();
    let (_, stderr, code) =
        run(dir.path(), &["verify", "--against", "old.yaml", "new.yaml", "--acknowledged", "acks.yaml"]);
    assert_eq!(
        stderr.replace(&format!("{}/", dir.path().display()), ""),
        "error: acks.yaml: acknowledged[0].rule: \"compat.nope\" is not a compatibility rule (fix: use a compat.* id from `rop verify --against`'s output)\n"
    );
    assert_eq!(code, 2);

    let v1beta1 = std::fs::read_to_string(dir.path().join("old.yaml"))
        .unwrap()
        .replace("apiextensions.k8s.io/v1\"", "apiextensions.k8s.io/v1beta1\"");
    std::fs::write(dir.path().join("beta.yaml"), v1beta1).unwrap();
    let (_, stderr, code) = run(dir.path(), &["verify", "--against", "beta.yaml", "new.yaml"]);
    assert_eq!(
        stderr.replace(&format!("{}/", dir.path().display()), ""),
        "error: beta.yaml: a CustomResourceDefinition of apiextensions.k8s.io/v1beta1; only apiextensions.k8s.io/v1 CRDs are compared (fix: convert it to v1, e.g. read it back from a cluster with kubectl get crd NAME -o yaml)\n"
    );
    assert_eq!(code, 2);

    std::fs::write(
        dir.path().join("acks.yaml"),
        "acknowledged:\n- {crd: x, rule: compat.type, path: p, reason: r}\n- {crd: x, rule: compat.type, path: p, reason: again}\n",
    )
    .unwrap();
    let (_, stderr, code) =
        run(dir.path(), &["verify", "--against", "old.yaml", "new.yaml", "--acknowledged", "acks.yaml"]);
    assert_eq!(
        stderr.replace(&format!("{}/", dir.path().display()), ""),
        "error: acks.yaml: acknowledged[1] repeats acknowledged[0] (fix: remove one of them)\n"
    );
    assert_eq!(code, 2);

    std::fs::write(dir.path().join("acks.yaml"), "- {crd: x}\n").unwrap();
    let (_, stderr, code) =
        run(dir.path(), &["verify", "--against", "old.yaml", "new.yaml", "--acknowledged", "acks.yaml"]);
    assert_eq!(
        stderr.replace(&format!("{}/", dir.path().display()), ""),
        "error: acks.yaml: invalid type: sequence, expected a mapping (fix: write `acknowledged:` and under it a list of entries with crd, rule, path and reason, as docs/compat.md shows)\n"
    );
    assert_eq!(code, 2);

    let (_, stderr, code) = run(dir.path(), &["verify", "old.yaml", "--allow-alpha-breaks"]);
    assert!(stderr.contains("--against <OLD>"), "{stderr}");
    assert_eq!(code, 2);
}

#[test]
fn old_may_be_a_list_read_from_a_cluster_and_new_a_folder() {
    let dir = pair("field-removed");
    let old: serde_json::Value =
        serde_yaml::from_str(&std::fs::read_to_string(dir.path().join("old.yaml")).unwrap()).unwrap();
    let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": [old]});
    std::fs::write(dir.path().join("cluster.yaml"), serde_json::to_string(&list).unwrap()).unwrap();
    std::fs::create_dir(dir.path().join("crds")).unwrap();
    std::fs::rename(dir.path().join("new.yaml"), dir.path().join("crds/new.yaml")).unwrap();
    let (stdout, _, code) = run(dir.path(), &["verify", "--against", "cluster.yaml", "crds"]);
    assert_eq!(stdout, format!("crds/{FIELD_REMOVED}1 CRD compared, 0 new: 1 error, 0 warnings\n"));
    assert_eq!(code, 1);
}

#[test]
fn a_new_crd_the_server_would_refuse_is_reported_with_its_errors() {
    let dir = pair("enum.safe");
    let text = std::fs::read_to_string(dir.path().join("new.yaml")).unwrap().replace("\"Namespaced\"", "\"Global\"");
    std::fs::write(dir.path().join("new.yaml"), text).unwrap();
    let (stdout, _, code) = run(dir.path(), &["verify", "--against", "old.yaml", "new.yaml"]);
    assert!(stdout.starts_with("new.yaml: error[names.scope] spec.scope: Unsupported value: \"Global\""), "{stdout}");
    assert!(
        stdout.contains("new.yaml: error[compat.scope] spec.scope: scope changed: \"Namespaced\" -> \"Global\""),
        "{stdout}"
    );
    assert_eq!(code, 1);
}

#[test]
fn with_git_a_removed_crd_is_an_error_and_a_moved_one_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let crds = dir.path().join("crds");
    std::fs::create_dir(&crds).unwrap();
    std::fs::copy(compat("old.yaml"), crds.join("widgets.yaml")).unwrap();
    let gadgets = std::fs::read_to_string(compat("old.yaml")).unwrap().replace("widgets", "gadgets");
    std::fs::write(crds.join("all.yaml"), &gadgets).unwrap();
    git(dir.path(), &["init", "-q"]);
    git(dir.path(), &["add", "."]);
    git(dir.path(), &["commit", "-q", "-m", "first"]);
    std::fs::create_dir(crds.join("extra")).unwrap();
    let sprockets = std::fs::read_to_string(compat("old.yaml")).unwrap().replace("widgets", "sprockets");
    std::fs::write(crds.join("extra/sprockets.yaml"), sprockets).unwrap();
    git(dir.path(), &["add", "."]);
    git(dir.path(), &["commit", "-q", "-m", "second"]);
    // widgets moves to another file and loses a field; gadgets is deleted from its file, and
    // sprockets' whole file is deleted.
    std::fs::remove_file(crds.join("widgets.yaml")).unwrap();
    std::fs::remove_file(crds.join("extra/sprockets.yaml")).unwrap();
    std::fs::copy(compat("cases/field-removed.yaml"), crds.join("renamed.yaml")).unwrap();
    std::fs::write(crds.join("all.yaml"), "").unwrap();
    std::fs::write(
        dir.path().join("acks.yaml"),
        "acknowledged:\n- {crd: other.example.com, rule: compat.type, path: p, reason: not compared and so not stale}\n",
    )
    .unwrap();
    let (stdout, stderr, code) = run(
        dir.path(),
        &[
            "verify",
            "--against",
            "git:HEAD",
            "crds/renamed.yaml",
            "crds/all.yaml",
            "crds/extra",
            "--acknowledged",
            "acks.yaml",
        ],
    );
    assert_eq!(stderr, "error: the new CRDs break objects or clients of the old ones (see the errors above)\n");
    assert_eq!(
        stdout,
        format!(
            "crds/renamed.yaml: {}git:HEAD:crds/all.yaml: error[compat.crd-removed] metadata.name: CRD gadgets.example.com removed: deleting it from a cluster deletes every object of it, and its clients fail with 404 Not Found (fix: keep the CRD (stop serving its versions first, if it is to go), or acknowledge the removal)\ngit:HEAD:crds/extra/sprockets.yaml: error[compat.crd-removed] metadata.name: CRD sprockets.example.com removed: deleting it from a cluster deletes every object of it, and its clients fail with 404 Not Found (fix: keep the CRD (stop serving its versions first, if it is to go), or acknowledge the removal)\n1 CRD compared, 0 new: 3 errors, 0 warnings\n",
            FIELD_REMOVED.strip_prefix("new.yaml: ").unwrap()
        )
    );
    assert_eq!(code, 1);
}

#[test]
fn quiet_prints_the_findings_only() {
    let dir = pair("field-removed");
    let other = std::fs::read_to_string(compat("old.yaml")).unwrap().replace("widgets", "gadgets");
    std::fs::write(dir.path().join("gadgets.yaml"), other).unwrap();
    let (stdout, _, code) = run(dir.path(), &["-q", "verify", "--against", "old.yaml", "new.yaml", "gadgets.yaml"]);
    assert_eq!(stdout, FIELD_REMOVED);
    assert_eq!(code, 1);
}

#[test]
fn with_git_files_broken_at_the_revision_are_noted_and_other_repositories_refused() {
    let dir = tempfile::tempdir().unwrap();
    let crds = dir.path().join("crds");
    std::fs::create_dir(&crds).unwrap();
    std::fs::copy(compat("old.yaml"), crds.join("widgets.yaml")).unwrap();
    std::fs::write(crds.join("broken.yaml"), "a: [\n").unwrap();
    git(dir.path(), &["init", "-q"]);
    git(dir.path(), &["add", "."]);
    git(dir.path(), &["commit", "-q", "-m", "first"]);
    std::fs::remove_file(crds.join("broken.yaml")).unwrap();
    let (stdout, _, code) = run(dir.path(), &["verify", "--against", "git:HEAD", "crds"]);
    assert!(
        stdout.starts_with("git:HEAD:crds/broken.yaml: note: not compared, it could not be read at the revision: "),
        "{stdout}"
    );
    assert!(stdout.ends_with("1 CRD compared, 0 new: 0 errors, 0 warnings\n"), "{stdout}");
    assert_eq!(code, 0);

    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::copy(compat("old.yaml"), elsewhere.path().join("other.yaml")).unwrap();
    let other = elsewhere.path().join("other.yaml").display().to_string();
    let (_, stderr, code) = run(dir.path(), &["verify", "--against", "git:HEAD", "crds/widgets.yaml", &other]);
    assert_eq!(
        stderr,
        format!(
            "error: {other} is not in the git repository of crds/widgets.yaml (fix: run rop verify --against git:REF once per repository)\n"
        )
    );
    assert_eq!(code, 2);
}
