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
    let cases: &[(&[&str], &str)] = &[
        (
            &["verify", "--against", "missing.yaml", "new.yaml"],
            "error: cannot read OLD missing.yaml: No such file or directory (os error 2)\n",
        ),
        (
            &["verify", "--against", "empty", "new.yaml"],
            "error: OLD empty holds no CustomResourceDefinition (fix: name the file or folder of the CRDs as they were)\n",
        ),
        (
            &["verify", "--against", "git:", "new.yaml"],
            "error: --against git: needs a revision, e.g. --against git:HEAD\n",
        ),
        (
            &["verify", "--against", "old.yaml", "new.yaml", "new.yaml"],
            "error: NEW has two CRDs named \"widgets.example.com\" (new.yaml and new.yaml): pass one revision of each CRD\n",
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

    let (_, stderr, code) = run(dir.path(), &["verify", "old.yaml", "--allow-alpha-breaks"]);
    assert!(stderr.contains("--against <OLD>"), "{stderr}");
    assert_eq!(code, 2);
}
