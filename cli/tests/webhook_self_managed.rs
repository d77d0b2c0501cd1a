//! Webhooks without cert-manager: `rop generate` writes config/webhook-self-managed/role.yaml
//! from the project's webhooks, and uncommenting `- ../webhook-self-managed` in
//! config/default/kustomization.yaml builds the manager with `--webhook-cert-mode=self-managed`,
//! its empty Secret and the RBAC for it, by prefixed name, and nothing of cert-manager's.
//! `make run` serves the webhooks only with WEBHOOK_URL; `make undo-run-webhooks` takes back
//! what such a run registered, so that `make deploy` applies again.
//!
//! The kustomize builds need kubectl, and the last test rop-testenv's API server: without them
//! they say so and pass.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_yaml::Value;

/// A project with Memcached v1 (the hub) and v1beta1, and v1's defaulting, validating and
/// conversion webhooks, generated.
fn project() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("memcached-operator");
    std::fs::create_dir(&dir).unwrap();
    let kind = ["--group", "cache", "--kind", "Memcached"];
    let steps: Vec<Vec<&str>> = vec![
        vec!["init", "--domain", "example.com", "--repo", "github.com/example/memcached-operator"],
        [&["create", "api", "--version", "v1"][..], &kind].concat(),
        [&["create", "api", "--version", "v1beta1", "--controller=false"][..], &kind].concat(),
        [
            &["create", "webhook", "--version", "v1", "--defaulting", "--programmatic-validation"][..],
            &["--conversion", "--spoke", "v1beta1"],
            &kind,
        ]
        .concat(),
        vec!["generate"],
    ];
    for args in steps {
        common::rop_in_shared_target(&dir, &args);
    }
    (tmp, dir)
}

#[test]
fn generate_writes_the_roles_of_the_projects_webhooks() {
    let (_tmp, dir) = project();
    let roles = std::fs::read_to_string(dir.join("config/webhook-self-managed/role.yaml")).unwrap();
    pretty_assertions::assert_eq!(
        roles,
        r#"---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: webhook-cert-injection-role
rules:
- apiGroups:
  - admissionregistration.k8s.io
  resourceNames:
  - mutating-webhook-configuration
  resources:
  - mutatingwebhookconfigurations
  verbs:
  - get
  - update
- apiGroups:
  - admissionregistration.k8s.io
  resourceNames:
  - validating-webhook-configuration
  resources:
  - validatingwebhookconfigurations
  verbs:
  - get
  - update
- apiGroups:
  - apiextensions.k8s.io
  resourceNames:
  - memcacheds.cache.example.com
  resources:
  - customresourcedefinitions
  verbs:
  - get
  - patch
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: webhook-cert-role
  namespace: system
rules:
- apiGroups:
  - ""
  resourceNames:
  - webhook-server-cert
  resources:
  - secrets
  verbs:
  - get
  - update
"#
    );
    let check = common::rop(&dir, &["generate", "--check"]);
    assert!(check.status.success(), "{}", String::from_utf8_lossy(&check.stderr));
}

/// `kubectl kustomize config/default`'s objects, by kind and name; `None` (after saying why)
/// without kubectl.
fn build(dir: &Path) -> Option<Vec<Value>> {
    use serde::Deserialize;
    let Ok(out) = Command::new("kubectl").args(["kustomize", "config/default"]).current_dir(dir).output() else {
        eprintln!("skipped: kubectl is not installed (its kustomize builds config/)");
        return None;
    };
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let documents = serde_yaml::Deserializer::from_slice(&out.stdout);
    Some(documents.map(|d| Value::deserialize(d).unwrap()).filter(|o| !o.is_null()).collect())
}

fn find<'a>(objects: &'a [Value], kind: &str, name: &str) -> &'a Value {
    objects
        .iter()
        .find(|o| o["kind"] == kind && o["metadata"]["name"] == name)
        .unwrap_or_else(|| panic!("no {kind} {name}"))
}

fn yaml(text: &str) -> Value {
    serde_yaml::from_str(text).unwrap()
}

#[test]
fn the_self_managed_component_replaces_cert_manager() {
    let (_tmp, dir) = project();
    let Some(cert_manager) = build(&dir) else { return };
    let kustomization = dir.join("config/default/kustomization.yaml");
    let text = std::fs::read_to_string(&kustomization).unwrap();
    assert!(text.contains("\ncomponents:\n#- ../webhook-self-managed\n"), "{text}");
    std::fs::write(&kustomization, text.replace("#- ../webhook-self-managed\n", "- ../webhook-self-managed\n"))
        .unwrap();
    let self_managed = build(&dir).unwrap();

    // cert-manager's objects and annotations are gone; nothing else is.
    let names = |objects: &[Value]| -> Vec<String> {
        objects
            .iter()
            .map(|o| format!("{} {}", o["kind"].as_str().unwrap(), o["metadata"]["name"].as_str().unwrap()))
            .collect()
    };
    let gone: Vec<String> = names(&cert_manager).into_iter().filter(|n| !names(&self_managed).contains(n)).collect();
    assert_eq!(gone, ["Certificate memcached-operator-serving-cert", "Issuer memcached-operator-selfsigned-issuer"]);
    let built = serde_yaml::to_string(&self_managed).unwrap();
    assert!(!built.contains("cert-manager") && !built.contains("local-config"), "{built}");

    // The manager issues its own certificate into the Secret it mounts.
    let manager = find(&self_managed, "Deployment", "memcached-operator-controller-manager");
    let pod = &manager["spec"]["template"]["spec"];
    assert_eq!(
        pod["containers"][0]["args"],
        yaml(
            "[--leader-elect, --health-probe-bind-address=:8081, --metrics-bind-address=:8443, --webhook-cert-mode=self-managed]"
        )
    );
    assert_eq!(
        pod["volumes"],
        yaml("[{name: webhook-certs, secret: {secretName: memcached-operator-webhook-server-cert}}]")
    );
    assert_eq!(
        find(&self_managed, "Secret", "memcached-operator-webhook-server-cert"),
        &yaml(
            "{apiVersion: v1, kind: Secret, metadata: {labels: {app.kubernetes.io/managed-by: kustomize, app.kubernetes.io/name: memcached-operator}, name: memcached-operator-webhook-server-cert, namespace: memcached-operator-system}, type: Opaque}"
        )
    );

    // Its RBAC names each object by its prefixed name, and binds to the manager's account.
    assert_eq!(
        find(&self_managed, "Role", "memcached-operator-webhook-cert-role")["rules"],
        yaml(
            "[{apiGroups: [''], resourceNames: [memcached-operator-webhook-server-cert], resources: [secrets], verbs: [get, update]}]"
        )
    );
    assert_eq!(
        find(&self_managed, "Role", "memcached-operator-webhook-cert-role")["metadata"]["namespace"],
        "memcached-operator-system"
    );
    assert_eq!(
        find(&self_managed, "ClusterRole", "memcached-operator-webhook-cert-injection-role")["rules"],
        yaml(
            "[{apiGroups: [admissionregistration.k8s.io], resourceNames: [memcached-operator-mutating-webhook-configuration], resources: [mutatingwebhookconfigurations], verbs: [get, update]},
              {apiGroups: [admissionregistration.k8s.io], resourceNames: [memcached-operator-validating-webhook-configuration], resources: [validatingwebhookconfigurations], verbs: [get, update]},
              {apiGroups: [apiextensions.k8s.io], resourceNames: [memcacheds.cache.example.com], resources: [customresourcedefinitions], verbs: [get, patch]}]"
        )
    );
    let account = yaml(
        "[{kind: ServiceAccount, name: memcached-operator-controller-manager, namespace: memcached-operator-system}]",
    );
    for (kind, name, role) in [
        ("RoleBinding", "memcached-operator-webhook-cert-rolebinding", "Role memcached-operator-webhook-cert-role"),
        (
            "ClusterRoleBinding",
            "memcached-operator-webhook-cert-injection-rolebinding",
            "ClusterRole memcached-operator-webhook-cert-injection-role",
        ),
    ] {
        let binding = find(&self_managed, kind, name);
        assert_eq!(binding["subjects"], account, "{name}");
        let role_ref = &binding["roleRef"];
        assert_eq!(format!("{} {}", role_ref["kind"].as_str().unwrap(), role_ref["name"].as_str().unwrap()), role);
    }

    // The objects the manager injects its CA into are the ones the rules name.
    find(&self_managed, "MutatingWebhookConfiguration", "memcached-operator-mutating-webhook-configuration");
    find(&self_managed, "ValidatingWebhookConfiguration", "memcached-operator-validating-webhook-configuration");
    let crd = find(&self_managed, "CustomResourceDefinition", "memcacheds.cache.example.com");
    assert_eq!(crd["spec"]["conversion"]["strategy"], "Webhook");
    assert!(crd["metadata"].get("annotations").is_none(), "{crd:?}");
}

/// `make run` serves the webhooks only with WEBHOOK_URL, and then hands it to the manager.
#[test]
fn make_run_serves_the_webhooks_only_with_a_url() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("op");
    std::fs::create_dir(&dir).unwrap();
    common::rop_ok(
        &dir,
        &["init", "--domain", "example.com", "--repo", "github.com/example/op", "--rop-version", "0.1.0"],
    );
    let run = |extra: &[&str]| {
        let out =
            Command::new("make").args(["-n", "run", "CARGO=cargo"]).args(extra).current_dir(&dir).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        stdout.lines().skip_while(|l| !l.starts_with("POD_NAMESPACE=")).collect::<Vec<_>>().join("\n")
    };
    let flags = "cargo run --bin manager -- \\\n\t--metrics-bind-address=:8080 --metrics-secure=false --health-probe-bind-address=:8081";
    assert_eq!(run(&[]), format!("POD_NAMESPACE=default ENABLE_WEBHOOKS=false {flags}"));
    assert_eq!(
        run(&["WEBHOOK_URL=https://192.168.1.20:9443"]),
        format!("POD_NAMESPACE=default WEBHOOK_URL='https://192.168.1.20:9443' WEBHOOK_NAME_PREFIX='op-' {flags}")
    );
    // The objects' names follow config/default's namePrefix, as `make undo-run-webhooks` reads it.
    assert_eq!(
        run(&["WEBHOOK_URL=https://192.168.1.20:9443", "NAME_PREFIX=acme-"]),
        format!("POD_NAMESPACE=default WEBHOOK_URL='https://192.168.1.20:9443' WEBHOOK_NAME_PREFIX='acme-' {flags}")
    );
}

/// What the manager of `make run WEBHOOK_URL=...` leaves in the cluster (the webhook
/// configurations and the CRD's conversion at a URL, written by another field manager) makes
/// `make deploy`'s server-side apply fail; `make undo-run-webhooks` takes it back, and the
/// deploy applies. The self-managed build applies on a real API server, and its RBAC grants
/// what the manager needs and nothing more.
#[test]
fn undo_run_webhooks_lets_make_deploy_apply_again() {
    let Some(env) = rop_testenv::TestEnv::start_or_skip() else { return };
    let (_tmp, dir) = project();
    let kustomization = dir.join("config/default/kustomization.yaml");
    let text = std::fs::read_to_string(&kustomization).unwrap();
    std::fs::write(&kustomization, text.replace("#- ../webhook-self-managed\n", "- ../webhook-self-managed\n"))
        .unwrap();
    let kubeconfig = env.kubeconfig().to_str().unwrap().to_string();
    let kubectl = |args: &[&str], stdin: Option<&[u8]>| {
        use std::io::Write;
        let mut child = Command::new("kubectl")
            .arg("--kubeconfig")
            .arg(&kubeconfig)
            .args(args)
            .current_dir(&dir)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(stdin.unwrap_or_default()).unwrap();
        child.wait_with_output().unwrap()
    };
    let built = kubectl(&["kustomize", "config/default"], None).stdout;
    let deploy = || kubectl(&["apply", "--server-side", "-f", "-"], Some(&built));
    let out = deploy();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

    let account = "system:serviceaccount:memcached-operator-system:memcached-operator-controller-manager";
    for (verb, object, allowed) in [
        ("get", "secrets/memcached-operator-webhook-server-cert", "yes"),
        ("update", "secrets/memcached-operator-webhook-server-cert", "yes"),
        ("create", "secrets", "no"),
        ("get", "secrets/other", "no"),
        ("update", "mutatingwebhookconfigurations/memcached-operator-mutating-webhook-configuration", "yes"),
        ("update", "validatingwebhookconfigurations/memcached-operator-validating-webhook-configuration", "yes"),
        ("update", "validatingwebhookconfigurations/other", "no"),
        ("patch", "customresourcedefinitions/memcacheds.cache.example.com", "yes"),
        ("update", "customresourcedefinitions/memcacheds.cache.example.com", "no"),
    ] {
        let args = ["auth", "can-i", verb, object, "--namespace", "memcached-operator-system", "--as", account];
        let out = kubectl(&args, None);
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), allowed, "{verb} {object}");
    }

    // As the manager registers them at a URL: the webhooks' `service` becomes `url`.
    for kind in ["mutating", "validating"] {
        let name = format!("{kind}webhookconfiguration/memcached-operator-{kind}-webhook-configuration");
        let out = kubectl(&["get", &name, "-o", "json"], None);
        let mut object: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        for webhook in object["webhooks"].as_array_mut().unwrap() {
            let config = webhook["clientConfig"].as_object_mut().unwrap();
            let path = config.remove("service").unwrap()["path"].as_str().unwrap().to_string();
            config.insert("url".into(), format!("https://192.168.1.20:9443{path}").into());
        }
        let out = kubectl(
            &["replace", "--field-manager", "rop-webhook-certificates", "-f", "-"],
            Some(object.to_string().as_bytes()),
        );
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let conversion = r#"{"spec":{"conversion":{"webhook":{"clientConfig":{"url":"https://192.168.1.20:9443/convert","service":null}}}}}"#;
    let crd = "crd/memcacheds.cache.example.com";
    let patch = ["patch", crd, "--type=merge", "--field-manager", "rop-webhook-certificates", "-p", conversion];
    assert!(kubectl(&patch, None).status.success());
    let out = deploy();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("exactly one of url or service is required"));

    let undo = Command::new("make")
        .args(["undo-run-webhooks", &format!("KUBECTL=kubectl --kubeconfig {kubeconfig}")])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(undo.status.success(), "{}", String::from_utf8_lossy(&undo.stderr));
    let out = deploy();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let service = kubectl(&["get", crd, "-o", "jsonpath={.spec.conversion.webhook.clientConfig}"], None).stdout;
    assert_eq!(
        String::from_utf8_lossy(&service),
        r#"{"service":{"name":"memcached-operator-webhook-service","namespace":"memcached-operator-system","path":"/convert","port":443}}"#
    );
}
