//! Webhooks without cert-manager: `rop generate` writes config/webhook-self-managed/role.yaml
//! from the project's webhooks, and uncommenting `- ../webhook-self-managed` in
//! config/default/kustomization.yaml builds the manager with `--webhook-cert-mode=self-managed`,
//! its empty Secret and the RBAC for it, by prefixed name, and nothing of cert-manager's.
//!
//! The kustomize builds need kubectl: without it they say so and pass.

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
            "[--leader-elect, --health-probe-bind-address=:8081, --metrics-bind-address=:8080, --webhook-cert-mode=self-managed]"
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
