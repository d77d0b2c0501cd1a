//! `rop create webhook` with each combination of webhook types changes exactly the files in
//! the golden trees `testdata/golden/create-webhook-*` (each holds the files the command
//! created or changed, as they are after it); adding types one command at a time gives the
//! same tree as adding them at once; running a command again with `--force` changes nothing.

mod common;

use std::path::Path;

use common::{assert_golden_tree, changes, rop_ok, tree};

const KIND: [&str; 6] = ["--group", "cache", "--version", "v1", "--kind", "Memcached"];

/// A project with Memcached v1 (storage version, with a controller) and v1beta1 (types only).
fn project() -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("memcached-operator");
    std::fs::create_dir(&dir).unwrap();
    rop_ok(
        &dir,
        &[
            "init",
            "--domain",
            "example.com",
            "--repo",
            "github.com/example/memcached-operator",
            "--rop-version",
            "0.1.0",
        ],
    );
    rop_ok(&dir, &["create", "api", "--group", "cache", "--version", "v1", "--kind", "Memcached"]);
    rop_ok(
        &dir,
        &["create", "api", "--group", "cache", "--version", "v1beta1", "--kind", "Memcached", "--controller=false"],
    );
    (tmp, dir)
}

fn webhook(dir: &Path, flags: &[&str]) -> String {
    let args: Vec<&str> = ["create", "webhook"].iter().chain(&KIND).chain(flags).copied().collect();
    rop_ok(dir, &args)
}

#[test]
fn defaulting() {
    let (_tmp, dir) = project();
    let before = tree(&dir);
    webhook(&dir, &["--defaulting"]);
    assert_golden_tree("create-webhook-defaulting", &changes(&before, &tree(&dir)));
}

#[test]
fn validation_with_a_custom_path() {
    let (_tmp, dir) = project();
    let before = tree(&dir);
    webhook(&dir, &["--programmatic-validation", "--validation-path", "/validate-memcached"]);
    assert_golden_tree("create-webhook-validation", &changes(&before, &tree(&dir)));
}

#[test]
fn conversion() {
    let (_tmp, dir) = project();
    let before = tree(&dir);
    webhook(&dir, &["--conversion", "--spoke", "v1beta1"]);
    assert_golden_tree("create-webhook-conversion", &changes(&before, &tree(&dir)));
}

#[test]
fn all_types_at_once_equal_one_at_a_time() {
    let (_tmp, dir) = project();
    let before = tree(&dir);
    webhook(&dir, &["--defaulting", "--programmatic-validation", "--conversion", "--spoke", "v1beta1"]);
    let at_once = tree(&dir);
    assert_golden_tree("create-webhook-all", &changes(&before, &at_once));

    let (_tmp2, dir2) = project();
    webhook(&dir2, &["--conversion", "--spoke", "v1beta1"]);
    webhook(&dir2, &["--programmatic-validation"]);
    let out = webhook(&dir2, &["--defaulting"]);
    assert!(out.contains("update    src/webhook/memcached_v1.rs"), "{out}");
    pretty_assertions::assert_eq!(tree(&dir2).keys().collect::<Vec<_>>(), at_once.keys().collect::<Vec<_>>());
    // The module, the registrations and the tests on the API server get the validator before
    // the defaulter this way round; everything else is byte for byte the same.
    let in_command_order = ["src/webhook/memcached_v1.rs", "src/webhook/mod.rs", "tests/webhooks.rs"];
    for (path, content) in &at_once {
        if !in_command_order.contains(&path.as_str()) {
            pretty_assertions::assert_eq!(content, &tree(&dir2)[path], "{path}");
        }
    }
}

#[test]
fn again_with_force_changes_nothing() {
    let (_tmp, dir) = project();
    let flags = ["--defaulting", "--programmatic-validation", "--conversion", "--spoke", "v1beta1"];
    webhook(&dir, &flags);
    let once = tree(&dir);
    let forced: Vec<&str> = flags.iter().copied().chain(["--force"]).collect();
    webhook(&dir, &forced);
    pretty_assertions::assert_eq!(tree(&dir), once);
}

#[test]
fn built_in_kinds() {
    let (_tmp, dir) = project();
    let before = tree(&dir);
    let deployment =
        ["create", "webhook", "--group", "apps", "--version", "v1", "--kind", "Deployment", "--defaulting"];
    let out = common::rop(&dir, &deployment);
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim_end(),
        "warning: a webhook for Deployment applies to every Deployment in the cluster, the manager's own too: with failure_policy \"Fail\" a stopped manager blocks them; narrow it with namespace_selector or object_selector in api/src/builtin.rs"
    );
    rop_ok(
        &dir,
        &["create", "webhook", "--group", "core", "--version", "v1", "--kind", "Pod", "--programmatic-validation"],
    );
    assert_golden_tree("create-webhook-builtin", &changes(&before, &tree(&dir)));
}

#[test]
fn a_new_spoke_joins_the_conversion_and_force_keeps_the_other_types_code() {
    let (_tmp, dir) = project();
    webhook(&dir, &["--defaulting", "--conversion", "--spoke", "v1beta1"]);
    let module = dir.join("src/webhook/memcached_v1.rs");
    let mine = std::fs::read_to_string(&module)
        .unwrap()
        .replace("Ok(())\n", "object.spec.size.get_or_insert(1);\n        Ok(())\n");
    std::fs::write(&module, &mine).unwrap();

    // A version added later joins the conversion without --force.
    rop_ok(
        &dir,
        &["create", "api", "--group", "cache", "--version", "v2", "--kind", "Memcached", "--controller=false"],
    );
    webhook(&dir, &["--conversion", "--spoke", "v2"]);
    let project = std::fs::read_to_string(dir.join("PROJECT")).unwrap();
    assert!(project.contains("    spoke:\n    - v1beta1\n    - v2\n"), "{project}");
    let registrations = std::fs::read_to_string(dir.join("src/webhook/mod.rs")).unwrap();
    assert!(registrations.contains("memcached_operator_api::v2::Memcached"), "{registrations}");
    assert!(dir.join("api/src/v2/memcached_conversion.rs").is_file());

    // --force for another type re-scaffolds that type only: the edited defaulter stays.
    webhook(&dir, &["--programmatic-validation"]);
    webhook(&dir, &["--programmatic-validation", "--force"]);
    let module_text = std::fs::read_to_string(&module).unwrap();
    assert!(module_text.contains("object.spec.size.get_or_insert(1);"), "{module_text}");
    assert!(module_text.contains("pub struct MemcachedValidator;"), "{module_text}");

    // --force for the edited type itself is refused: a second defaulter would not compile, and
    // replacing this one would lose the user's code.
    let args = ["create", "webhook", "--group", "cache", "--version", "v1", "--kind", "Memcached"];
    let out = common::rop(&dir, &[&args[..], &["--defaulting", "--force"]].concat());
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: src/webhook/memcached_v1.rs has `pub struct MemcachedDefaulter;` with code of yours: rop does not scaffold it again over your edits; remove that type and its `impl` (or rename them), then run the command again\n"
    );
    assert_eq!(std::fs::read_to_string(&module).unwrap(), module_text, "nothing written");
}

/// The client certificate check's patch, commented out in config/default, builds once switched
/// on: the manager gets the flag, the mount and the ConfigMap volume with the CA.
#[test]
fn the_client_ca_patch_builds_when_switched_on() {
    let (_tmp, dir) = project();
    webhook(&dir, &["--defaulting"]);
    // What `rop generate` would write; its webhooks do not matter here.
    let manifests = "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\nmetadata:\n  name: mutating-webhook-configuration\n";
    std::fs::write(dir.join("config/webhook/manifests.yaml"), manifests).unwrap();
    let kustomization = dir.join("config/default/kustomization.yaml");
    let text = std::fs::read_to_string(&kustomization).unwrap();
    let commented = "#- path: manager_webhook_client_ca_patch.yaml\n#  target:\n#    kind: Deployment\n#    name: controller-manager\n";
    assert!(text.contains(commented), "{text}");
    // The CRDs are left out: `rop generate` writes them, and they do not matter here either.
    let text = text.replace(commented, &commented.replace('#', "")).replace("- ../crd\n", "");
    std::fs::write(&kustomization, text).unwrap();

    let out =
        std::process::Command::new("kubectl").args(["kustomize", "config/default"]).current_dir(&dir).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let objects: Vec<serde_yaml::Value> = String::from_utf8_lossy(&out.stdout)
        .split("\n---\n")
        .map(|document| serde_yaml::from_str(document).unwrap())
        .collect();
    let manager = objects.iter().find(|o| o["kind"] == "Deployment").unwrap();
    let pod = &manager["spec"]["template"]["spec"];
    let container = &pod["containers"][0];
    let args: Vec<&str> = container["args"].as_sequence().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
    assert_eq!(args.last(), Some(&"--webhook-client-ca-file=/tmp/k8s-webhook-server/client-ca/ca.crt"));
    let yaml = |text: &str| serde_yaml::from_str::<serde_yaml::Value>(text).unwrap();
    assert_eq!(
        container["volumeMounts"],
        yaml(
            "[{mountPath: /tmp/k8s-webhook-server/serving-certs, name: webhook-certs, readOnly: true}, {mountPath: /tmp/k8s-webhook-server/client-ca, name: webhook-client-ca, readOnly: true}]"
        )
    );
    assert_eq!(
        pod["volumes"],
        yaml(
            "[{name: webhook-certs, secret: {secretName: webhook-server-cert}}, {name: webhook-client-ca, configMap: {name: webhook-client-ca}}]"
        )
    );
}

/// A cluster-scoped kind's test object has no namespace to set, so nothing changes it after
/// `new`: it is not `mut` (rustc would warn, and `make lint`, clippy with `-D warnings`, fail).
#[test]
fn a_cluster_scoped_kinds_test_object_is_not_mut() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("tenant-operator");
    std::fs::create_dir(&dir).unwrap();
    rop_ok(&dir, &["init", "--domain", "example.com", "--repo", "github.com/example/tenant-operator"]);
    let kind = ["--group", "tenancy", "--version", "v1", "--kind", "Tenant"];
    let create_api: Vec<&str> = ["create", "api"].iter().chain(&kind).chain(&["--namespaced=false"]).copied().collect();
    rop_ok(&dir, &create_api);
    let create_webhook: Vec<&str> =
        ["create", "webhook"].iter().chain(&kind).chain(&["--programmatic-validation"]).copied().collect();
    rop_ok(&dir, &create_webhook);
    let code = std::fs::read_to_string(dir.join("src/webhook/tenant_v1.rs")).unwrap();
    let expected =
        "        let spec = Default::default();\n        let object = Tenant::new(name, spec);\n        object\n";
    assert!(code.contains(expected), "{code}");
}
