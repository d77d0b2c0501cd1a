//! `rop delete webhook` takes back exactly what `rop create webhook` added, keeps what other
//! webhooks need, and refuses to throw away code the user wrote unless `--force`.

mod common;

use std::path::{Path, PathBuf};

use common::{rop, rop_ok, tree};

const KIND: [&str; 6] = ["--group", "cache", "--version", "v1", "--kind", "Memcached"];

fn project() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("op");
    std::fs::create_dir(&dir).unwrap();
    rop_ok(&dir, &["init", "--domain", "example.com", "--repo", "github.com/example/op", "--rop-version", "0.1.0"]);
    rop_ok(&dir, &["create", "api", "--group", "cache", "--version", "v1", "--kind", "Memcached"]);
    rop_ok(
        &dir,
        &["create", "api", "--group", "cache", "--version", "v1beta1", "--kind", "Memcached", "--controller=false"],
    );
    (tmp, dir)
}

fn run(dir: &Path, command: &str, flags: &[&str]) -> std::process::Output {
    let args: Vec<&str> = [command, "webhook"].iter().chain(&KIND).chain(flags).copied().collect();
    rop(dir, &args)
}

fn ok(dir: &Path, command: &str, flags: &[&str]) {
    let out = run(dir, command, flags);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

fn error(out: &std::process::Output) -> String {
    assert_eq!(out.status.code(), Some(1));
    String::from_utf8_lossy(&out.stderr).trim_end().to_string()
}

#[test]
fn deleting_every_webhook_gives_back_the_project_before() {
    let (_tmp, dir) = project();
    let before = tree(&dir);
    ok(&dir, "create", &["--defaulting", "--programmatic-validation", "--conversion", "--spoke", "v1beta1"]);
    // What `rop generate` writes for the webhooks goes with them.
    std::fs::write(dir.join("config/webhook-self-managed/role.yaml"), "---\n").unwrap();
    let out = run(&dir, "delete", &[]);
    let listed = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(listed.contains("delete    src/webhook/memcached_v1.rs"), "{listed}");
    assert!(listed.contains("delete    config/webhook-self-managed/role.yaml"), "{listed}");
    assert!(listed.contains("delete    api/src/v1beta1/memcached_conversion.rs"), "{listed}");
    pretty_assertions::assert_eq!(tree(&dir), before);
}

#[test]
fn deleting_one_type_leaves_the_others_as_if_only_they_were_created() {
    let (_tmp, dir) = project();
    ok(&dir, "create", &["--defaulting", "--programmatic-validation"]);
    ok(&dir, "delete", &["--defaulting"]);
    let (_tmp2, only) = project();
    ok(&only, "create", &["--programmatic-validation"]);
    pretty_assertions::assert_eq!(tree(&dir), tree(&only));

    ok(&dir, "create", &["--conversion", "--spoke", "v1beta1"]);
    ok(&dir, "delete", &["--conversion"]);
    pretty_assertions::assert_eq!(tree(&dir), tree(&only));
}

/// One spoke of three goes with `--spoke`: the project is as if the webhook had been created
/// with the other two; a spoke the webhook does not convert is refused; the last spoke takes
/// the webhook with it.
#[test]
fn one_spoke_goes_alone() {
    let (_tmp, dir) = project();
    let api = |dir: &Path, version: &str| {
        let args =
            ["create", "api", "--group", "cache", "--version", version, "--kind", "Memcached", "--controller=false"];
        rop_ok(dir, &args);
    };
    api(&dir, "v2");
    let with_v2 = tree(&dir);
    ok(&dir, "create", &["--conversion", "--spoke", "v1beta1,v2"]);
    assert_eq!(
        error(&run(&dir, "delete", &["--conversion", "--spoke", "v3"])),
        "error: --spoke v3: the conversion webhook of cache/v1 Memcached converts v1beta1, v2, not v3"
    );
    assert_eq!(
        error(&run(&dir, "delete", &["--conversion", "--spoke", "v1"])),
        "error: --spoke v1: that is the hub of the conversion webhook, not a spoke; the spokes are v1beta1, v2 (without --spoke the whole webhook goes)"
    );
    ok(&dir, "delete", &["--conversion", "--spoke", "v1beta1"]);
    let (_tmp2, only) = project();
    api(&only, "v2");
    ok(&only, "create", &["--conversion", "--spoke", "v2"]);
    pretty_assertions::assert_eq!(tree(&dir), tree(&only));
    ok(&dir, "delete", &["--conversion", "--spoke", "v2"]);
    pretty_assertions::assert_eq!(tree(&dir), with_v2);
}

#[test]
fn edited_code_is_not_thrown_away_without_force() {
    let (_tmp, dir) = project();
    ok(&dir, "create", &["--defaulting", "--programmatic-validation"]);
    let module = dir.join("src/webhook/memcached_v1.rs");
    let text = std::fs::read_to_string(&module).unwrap();
    std::fs::write(&module, text.replace("Ok(())\n", "object.spec.size.get_or_insert(1);\n        Ok(())\n")).unwrap();
    let edited = tree(&dir);

    assert_eq!(
        error(&run(&dir, "delete", &["--defaulting"])),
        "error: rop delete webhook would lose code you wrote, so nothing was changed:
  src/webhook/memcached_v1.rs: the code rop wrote as `pub struct MemcachedDefaulter;` was edited (--force leaves it in place)
Move that code elsewhere or undo the edits, then run the command again; or pass --force"
    );
    assert_eq!(
        error(&run(&dir, "delete", &[])),
        "error: rop delete webhook would lose code you wrote, so nothing was changed:
  src/webhook/memcached_v1.rs: line 30 differs from what rop wrote (--force deletes the file)
Move that code elsewhere or undo the edits, then run the command again; or pass --force"
    );
    assert_eq!(tree(&dir), edited);

    // --force for the edited type alone: its code stays (unregistered), the rest goes.
    let out = run(&dir, "delete", &["--defaulting", "--force"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim_end(),
        "warning: src/webhook/memcached_v1.rs keeps the code you edited, `pub struct MemcachedDefaulter;`; it is no longer registered: remove it when you no longer need it"
    );
    let registrations = std::fs::read_to_string(dir.join("src/webhook/mod.rs")).unwrap();
    assert!(
        !registrations.contains("MemcachedDefaulter") && registrations.contains("MemcachedValidator"),
        "{registrations}"
    );
    let kept = std::fs::read_to_string(&module).unwrap();
    assert!(kept.contains("object.spec.size.get_or_insert(1);"), "{kept}");
    assert!(kept.contains("use rop::webhook::{Defaulter, Denied};\n"), "the kept code's names stay imported: {kept}");

    let out = run(&dir, "delete", &["--force"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim_end(),
        "warning: src/webhook/memcached_v1.rs held edits of yours and is deleted (--force)"
    );
    assert!(!module.exists());
}

/// A registration edited by hand names the module `--force` deletes: it is commented out and
/// named, so the project still compiles.
#[test]
fn an_edited_registration_of_a_deleted_module_is_commented_out() {
    let (_tmp, dir) = project();
    ok(&dir, "create", &["--programmatic-validation"]);
    let registrations = dir.join("src/webhook/mod.rs");
    let rop_wrote = "Registration::validator(memcached_v1::MemcachedValidator),";
    let edited = "Registration::validator(memcached_v1::MemcachedValidator::strict()),";
    let text = std::fs::read_to_string(&registrations).unwrap();
    assert!(text.contains(rop_wrote), "{text}");
    std::fs::write(&registrations, text.replace(rop_wrote, edited)).unwrap();

    assert_eq!(
        error(&run(&dir, "delete", &[])),
        format!(
            "error: rop delete webhook would lose code you wrote, so nothing was changed:
  src/webhook/mod.rs: the code rop wrote as `{rop_wrote}` was edited (--force comments out its lines that name the deleted module)
Move that code elsewhere or undo the edits, then run the command again; or pass --force"
        )
    );
    let out = run(&dir, "delete", &["--force"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&registrations).unwrap();
    assert!(!text.contains("pub mod memcached_v1;"), "{text}");
    let line = text.lines().position(|l| l.trim_start() == format!("// {edited}")).expect(&text) + 1;
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim_end(),
        format!(
            "warning: src/webhook/mod.rs:{line}: `{edited}`, which you edited, names the deleted module memcached_v1; it is commented out: remove it, or register a webhook of your own there"
        )
    );
    assert!(!dir.join("src/webhook/memcached_v1.rs").exists());
}

/// Every edited place is named in one refusal, the user's hand-written conversion included,
/// and the tree stays byte for byte as it was.
#[test]
fn every_edit_is_named_before_anything_is_deleted() {
    let (_tmp, dir) = project();
    ok(&dir, "create", &["--defaulting", "--conversion", "--spoke", "v1beta1"]);
    let edit = |path: &str, from: &str, to: &str| {
        let file = dir.join(path);
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.contains(from), "{path}: {text}");
        std::fs::write(&file, text.replacen(from, to, 1)).unwrap();
    };
    edit("src/webhook/mod.rs", "testing::sample(sample);", "testing::sample(sample); // and mine");
    edit(
        "api/src/v1beta1/memcached_conversion.rs",
        "        by_field_names(self)\n",
        "        let hub: HubMemcached = by_field_names(self)?;\n        Ok(hub)\n",
    );
    let edited = tree(&dir);

    let refusal = "error: rop delete webhook would lose code you wrote, so nothing was changed:
  src/webhook/mod.rs: the code rop wrote as `async fn memcached_v1beta1_round_trips_through_the_hub()` was edited (--force leaves it in place)
  api/src/v1beta1/memcached_conversion.rs: lines 16-17 differ from what rop wrote (--force deletes the file)
Move that code elsewhere or undo the edits, then run the command again; or pass --force";
    assert_eq!(error(&run(&dir, "delete", &["--conversion"])), refusal);
    assert_eq!(error(&run(&dir, "delete", &["--conversion", "--dry-run"])), refusal);
    assert_eq!(tree(&dir), edited);

    let out = run(&dir, "delete", &["--conversion", "--force"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim_end(),
        "warning: api/src/v1beta1/memcached_conversion.rs held edits of yours and is deleted (--force)
warning: src/webhook/mod.rs keeps the test you edited, `async fn memcached_v1beta1_round_trips_through_the_hub()`: it tests the webhook just deleted and will fail; remove it"
    );
    assert!(!dir.join("api/src/v1beta1/memcached_conversion.rs").exists());
}

#[test]
fn refusals_name_what_is_missing_and_change_nothing() {
    let (_tmp, dir) = project();
    let before = tree(&dir);
    assert_eq!(
        error(&run(&dir, "delete", &[])),
        "error: cache/v1 Memcached has no webhooks in PROJECT: nothing to delete"
    );
    ok(&dir, "create", &["--programmatic-validation", "--conversion", "--spoke", "v1beta1"]);
    let with_webhooks = tree(&dir);
    assert_eq!(
        error(&run(&dir, "delete", &["--defaulting"])),
        "error: cache/v1 Memcached has no defaulting webhook to delete"
    );
    assert_eq!(
        error(&rop(&dir, &["delete", "api", "--group", "cache", "--version", "v1", "--kind", "Memcached"])),
        "error: cache/v1 Memcached has webhooks: delete them first with `rop delete webhook --group cache --version v1 --kind Memcached`"
    );
    assert_eq!(
        error(&rop(
            &dir,
            &["delete", "webhook", "--group", "cache", "--version", "v1beta1", "--kind", "Memcached", "--conversion"]
        )),
        "error: cache/v1beta1 Memcached has no webhooks of its own: its conversion is part of the conversion webhook of the hub, v1; delete it with `rop delete webhook --group cache --version v1 --kind Memcached --conversion --spoke v1beta1`"
    );
    assert_eq!(
        error(&rop(&dir, &["delete", "api", "--group", "cache", "--version", "v1beta1", "--kind", "Memcached"])),
        "error: cache/v1beta1 Memcached is a spoke of the conversion webhook of v1: delete its conversion first with `rop delete webhook --group cache --version v1 --kind Memcached --conversion --spoke v1beta1`"
    );
    assert_eq!(tree(&dir), with_webhooks);
    ok(&dir, "delete", &[]);
    assert_eq!(tree(&dir), before);
}

#[test]
fn built_in_kinds_leave_nothing_behind() {
    let (_tmp, dir) = project();
    let before = tree(&dir);
    for (group, kind, flag) in [("apps", "Deployment", "--defaulting"), ("core", "Pod", "--programmatic-validation")] {
        rop_ok(&dir, &["create", "webhook", "--group", group, "--version", "v1", "--kind", kind, flag]);
    }
    ok(&dir, "create", &["--defaulting"]);
    rop_ok(&dir, &["delete", "webhook", "--group", "apps", "--version", "v1", "--kind", "Deployment"]);
    let project_file = std::fs::read_to_string(dir.join("PROJECT")).unwrap();
    assert!(!project_file.contains("Deployment") && project_file.contains("kind: Pod"), "{project_file}");
    rop_ok(&dir, &["delete", "webhook", "--group", "core", "--version", "v1", "--kind", "Pod"]);
    ok(&dir, "delete", &[]);
    pretty_assertions::assert_eq!(tree(&dir), before);
}
