//! `rop helm`: the Helm chart of a project with webhooks, conversion and two kinds. Its exact
//! files; `helm lint`; with the default values `helm template` renders the objects `kubectl
//! kustomize config/default` builds, object by object, except Helm's own labels and
//! annotations and the Namespace; every value switch renders objects that pass
//! `kubernetes-validate --strict`; a second run keeps the user's files and follows config/.
//!
//! The helm tests need helm (scripts/install-helm.sh puts it in ~/.cache/rop-testenv/bin; or
//! set ROP_HELM): without it they say so and pass, unless ROP_TESTENV_REQUIRE=1.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use common::{assert_golden_tree, copy_tree, rop, rop_ok, tree};
use serde_yaml::Value;

/// A project generated once (`rop generate` builds its manifests generator) and copied into
/// each test's own folder.
fn project() -> (tempfile::TempDir, PathBuf) {
    static TEMPLATE: OnceLock<tempfile::TempDir> = OnceLock::new();
    let template = TEMPLATE.get_or_init(|| {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("shop");
        std::fs::create_dir(&dir).unwrap();
        let kind =
            |version: &str, kind: &str| ["--group", "cache", "--version", version, "--kind", kind].map(String::from);
        let steps: Vec<Vec<String>> = vec![
            ["init", "--domain", "example.com", "--repo", "github.com/example/shop"].map(String::from).to_vec(),
            [
                &["create", "api"].map(String::from)[..],
                &kind("v1", "Memcached"),
                &["--image".into(), "memcached:1.6".into()],
            ]
            .concat(),
            [&["create", "api"].map(String::from)[..], &kind("v1alpha1", "Memcached"), &["--controller=false".into()]]
                .concat(),
            [&["create", "api"].map(String::from)[..], &kind("v1", "Site")].concat(),
            [
                &["create", "webhook"].map(String::from)[..],
                &kind("v1", "Memcached"),
                &["--conversion".into(), "--spoke".into(), "v1alpha1".into()],
            ]
            .concat(),
            [
                &["create", "webhook"].map(String::from)[..],
                &kind("v1", "Site"),
                &["--defaulting".into(), "--programmatic-validation".into()],
            ]
            .concat(),
            vec!["generate".into()],
        ];
        for step in steps {
            let args: Vec<&str> = step.iter().map(String::as_str).collect();
            common::rop_in_shared_target(&dir, &args);
        }
        tmp
    });
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("shop");
    copy_tree(&template.path().join("shop"), &dir);
    (tmp, dir)
}

fn chart(dir: &Path) -> BTreeMap<String, String> {
    tree(&dir.join("dist/chart"))
}

#[test]
fn the_chart_of_a_project_with_webhooks_conversion_and_two_kinds() {
    let (_tmp, dir) = project();
    let out = rop_ok(&dir, &["helm"]);
    assert_golden_tree("helm-chart", &chart(&dir));
    let files: Vec<String> = chart(&dir).keys().map(|path| format!("  create    dist/chart/{path}\n")).collect();
    assert_eq!(
        out,
        format!(
            "{}Next: `helm lint dist/chart`, then `helm install shop dist/chart --namespace shop-system --create-namespace`\n",
            files.concat()
        )
    );
    // Nothing changes on a second run.
    let again = rop_ok(&dir, &["helm"]);
    assert_eq!(
        again,
        "Next: `helm lint dist/chart`, then `helm install shop dist/chart --namespace shop-system --create-namespace`\n"
    );
}

/// helm, or `None` (after saying why) when it is not installed and not required.
fn helm() -> Option<PathBuf> {
    let installed = std::env::var_os("ROP_HELM").map(PathBuf::from).or_else(|| {
        let dir = std::env::var_os("ROP_TESTENV_DIR")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".cache/rop-testenv/bin")))?;
        Some(dir.join("helm")).filter(|p| p.is_file())
    });
    let found = installed.or_else(|| {
        let on_path = Command::new("helm").arg("version").output().is_ok_and(|o| o.status.success());
        on_path.then(|| PathBuf::from("helm"))
    });
    if found.is_none() {
        assert!(
            std::env::var("ROP_TESTENV_REQUIRE").as_deref() != Ok("1"),
            "helm is not installed and ROP_TESTENV_REQUIRE=1: run scripts/install-helm.sh"
        );
        eprintln!("skipped: helm is not installed (scripts/install-helm.sh installs it)");
    }
    found
}

fn run(program: &Path, dir: &Path, args: &[&str]) -> Output {
    let out = Command::new(program).args(args).current_dir(dir).output().unwrap();
    assert!(
        out.status.success(),
        "{} {args:?} failed:\n{}{}",
        program.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The objects of a multi-document YAML stream, by kind and name, without Helm's labels and
/// annotations, and without the Namespace (a chart installs into one).
fn objects(yaml: &[u8]) -> BTreeMap<(String, String), Value> {
    use serde::Deserialize;
    let mut objects = BTreeMap::new();
    for document in serde_yaml::Deserializer::from_slice(yaml) {
        let mut object = Value::deserialize(document).unwrap();
        if object.is_null() || object["kind"] == "Namespace" {
            continue;
        }
        let metadata = object["metadata"].as_mapping_mut().unwrap();
        for (field, helm) in [
            ("labels", &["app.kubernetes.io/managed-by", "app.kubernetes.io/instance", "helm.sh/chart"][..]),
            ("annotations", &["helm.sh/resource-policy"]),
        ] {
            if let Some(map) = metadata.get_mut(field).and_then(Value::as_mapping_mut) {
                for key in helm {
                    map.remove(*key);
                }
                if map.is_empty() {
                    metadata.remove(field);
                }
            }
        }
        let key =
            (object["kind"].as_str().unwrap().to_string(), object["metadata"]["name"].as_str().unwrap().to_string());
        assert!(objects.insert(key.clone(), object).is_none(), "{key:?} twice");
    }
    objects
}

#[test]
fn default_values_render_what_kustomize_builds() {
    let Some(helm) = helm() else { return };
    let (_tmp, dir) = project();
    // An object of the user's whose text holds Go-template actions, which Helm must print as
    // they are, not run.
    let settings = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  pod-name: '{{ .Name }}-{{ .Index }}'\n  block: '{{ end }}'\n  '{{ key }}': value\n";
    std::fs::write(dir.join("config/default/settings.yaml"), settings).unwrap();
    let kustomization = dir.join("config/default/kustomization.yaml");
    let text = std::fs::read_to_string(&kustomization).unwrap().replace("- ../rbac\n", "- ../rbac\n- settings.yaml\n");
    std::fs::write(&kustomization, text).unwrap();
    rop_ok(&dir, &["helm"]);
    run(&helm, &dir, &["lint", "--strict", "dist/chart"]);
    let rendered = run(&helm, &dir, &["template", "shop", "dist/chart", "--namespace", "shop-system"]).stdout;
    let built = run(Path::new("kubectl"), &dir, &["kustomize", "config/default"]).stdout;
    let (rendered, built) = (objects(&rendered), objects(&built));
    assert_eq!(rendered.keys().collect::<Vec<_>>(), built.keys().collect::<Vec<_>>());
    for (key, object) in &built {
        pretty_assertions::assert_eq!(&rendered[key], object, "{key:?}");
    }
    assert_eq!(rendered.len(), 24, "{:?}", rendered.keys());
    let settings = &rendered[&("ConfigMap".to_string(), "shop-settings".to_string())];
    assert_eq!(settings["data"]["pod-name"], "{{ .Name }}-{{ .Index }}");
    assert_eq!(settings["data"]["{{ key }}"], "value");
}

/// Renders the chart with `sets` and checks the objects with kubernetes-validate --strict
/// (cert-manager's and Prometheus' kinds, which it has no schema for, pass as warnings).
fn render_valid(helm: &Path, dir: &Path, sets: &[&str]) -> BTreeMap<(String, String), Value> {
    let mut args = vec!["template", "other-release", "dist/chart", "--namespace", "elsewhere"];
    for set in sets {
        args.extend(["--set", set]);
    }
    let rendered = run(helm, dir, &args).stdout;
    std::fs::write(dir.join("rendered.yaml"), &rendered).unwrap();
    let out =
        Command::new("kubernetes-validate").args(["--strict", "rendered.yaml"]).current_dir(dir).output().unwrap();
    let report = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(
        out.status.success() && !report.contains("ERROR"),
        "{sets:?}: kubernetes-validate --strict failed:\n{report}"
    );
    objects(&rendered)
}

fn kinds(objects: &BTreeMap<(String, String), Value>) -> Vec<String> {
    objects.keys().map(|(kind, name)| format!("{kind} {name}")).collect()
}

#[test]
fn every_switch_renders_valid_objects() {
    let Some(helm) = helm() else { return };
    let (_tmp, dir) = project();
    rop_ok(&dir, &["helm"]);

    // Another release name and namespace: names start with both, references follow.
    let all = render_valid(&helm, &dir, &["prometheus.enabled=true", "networkPolicy.enabled=true"]);
    let binding = &all[&("ClusterRoleBinding".to_string(), "other-release-shop-manager-rolebinding".to_string())];
    assert_eq!(binding["subjects"][0]["name"], "other-release-shop-controller-manager");
    assert_eq!(binding["subjects"][0]["namespace"], "elsewhere");
    let certificate = &all[&("Certificate".to_string(), "other-release-shop-serving-cert".to_string())];
    assert_eq!(
        certificate["spec"]["dnsNames"],
        serde_yaml::from_str::<Value>("[other-release-shop-webhook-service.elsewhere.svc, other-release-shop-webhook-service.elsewhere.svc.cluster.local]").unwrap()
    );
    let crd = &all[&("CustomResourceDefinition".to_string(), "memcacheds.cache.example.com".to_string())];
    assert_eq!(
        crd["metadata"]["annotations"]["cert-manager.io/inject-ca-from"],
        "elsewhere/other-release-shop-serving-cert"
    );
    assert_eq!(
        crd["spec"]["conversion"]["webhook"]["clientConfig"]["service"]["name"],
        "other-release-shop-webhook-service"
    );
    assert!(kinds(&all).contains(&"ServiceMonitor other-release-shop-controller-manager-metrics-monitor".to_string()));
    assert!(kinds(&all).contains(&"NetworkPolicy other-release-shop-allow-metrics-traffic".to_string()));

    // Without webhooks: no webhook objects, no conversion, and the manager is told.
    let plain = render_valid(&helm, &dir, &["webhook.enabled=false"]);
    let gone = ["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration", "Certificate", "Issuer"];
    assert!(plain.keys().all(|(kind, _)| !gone.contains(&kind.as_str())), "{:?}", kinds(&plain));
    let crd = &plain[&("CustomResourceDefinition".to_string(), "memcacheds.cache.example.com".to_string())];
    assert!(crd["spec"].get("conversion").is_none() && crd["metadata"].get("annotations").is_none(), "{crd:?}");
    let manager = &plain[&("Deployment".to_string(), "other-release-shop-controller-manager".to_string())];
    let container = &manager["spec"]["template"]["spec"]["containers"][0];
    assert_eq!(container["env"][2], serde_yaml::from_str::<Value>("{name: ENABLE_WEBHOOKS, value: 'false'}").unwrap());
    assert_eq!(container["ports"].as_sequence().unwrap().len(), 2);
    assert!(container["volumeMounts"].is_null() && manager["spec"]["template"]["spec"]["volumes"].is_null());

    // Without cert-manager, CRDs, helper roles and metrics; with the manager's settings changed.
    let bare = render_valid(
        &helm,
        &dir,
        &[
            "certManager.enabled=false",
            "crd.enabled=false",
            "rbac.helpers.enabled=false",
            "metrics.enabled=false",
            "manager.replicas=2",
            "manager.image.repository=registry.example.com/shop",
            "manager.image.tag=v1.2.3",
            "manager.image.pullPolicy=Always",
            "manager.nodeSelector.disk=ssd",
            "manager.priorityClassName=system-cluster-critical",
        ],
    );
    assert_eq!(
        kinds(&bare),
        [
            "ClusterRole other-release-shop-manager-role",
            "ClusterRole other-release-shop-metrics-auth-role",
            "ClusterRole other-release-shop-metrics-reader",
            "ClusterRoleBinding other-release-shop-manager-rolebinding",
            "ClusterRoleBinding other-release-shop-metrics-auth-rolebinding",
            "Deployment other-release-shop-controller-manager",
            "MutatingWebhookConfiguration other-release-shop-mutating-webhook-configuration",
            "Role other-release-shop-leader-election-role",
            "RoleBinding other-release-shop-leader-election-rolebinding",
            "Service other-release-shop-webhook-service",
            "ServiceAccount other-release-shop-controller-manager",
            "ValidatingWebhookConfiguration other-release-shop-validating-webhook-configuration",
        ]
    );
    let manager = &bare[&("Deployment".to_string(), "other-release-shop-controller-manager".to_string())];
    let pod = &manager["spec"]["template"]["spec"];
    assert_eq!(manager["spec"]["replicas"], 2);
    assert_eq!(pod["containers"][0]["image"], "registry.example.com/shop:v1.2.3");
    assert_eq!(pod["containers"][0]["imagePullPolicy"], "Always");
    assert_eq!(pod["nodeSelector"]["disk"], "ssd");
    assert_eq!(pod["priorityClassName"], "system-cluster-critical");
    let webhooks = &bare[&(
        "MutatingWebhookConfiguration".to_string(),
        "other-release-shop-mutating-webhook-configuration".to_string(),
    )];
    assert!(webhooks["metadata"].get("annotations").is_none(), "{webhooks:?}");
}

/// `webhook.certificates=self-managed`: the manager's flags, its empty Secret and the RBAC on
/// its objects by their release names, and nothing of cert-manager's.
#[test]
fn self_managed_certificates_render_the_managers_secret_and_rbac() {
    let Some(helm) = helm() else { return };
    let (_tmp, dir) = project();
    rop_ok(&dir, &["helm"]);
    let rendered = render_valid(&helm, &dir, &["webhook.certificates=self-managed"]);
    let key = |kind: &str, name: &str| (kind.to_string(), format!("other-release-shop-{name}"));
    let yaml = |text: &str| serde_yaml::from_str::<Value>(text).unwrap();
    let kinds = kinds(&rendered);
    let added = [
        "ClusterRole other-release-shop-webhook-cert-injection-role",
        "ClusterRoleBinding other-release-shop-webhook-cert-injection-rolebinding",
        "Role other-release-shop-webhook-cert-role",
        "RoleBinding other-release-shop-webhook-cert-rolebinding",
        "Secret other-release-shop-webhook-server-cert",
    ];
    for kind in added {
        assert!(kinds.contains(&kind.to_string()), "{kind}: {kinds:?}");
    }
    assert!(kinds.iter().all(|k| !k.starts_with("Certificate ") && !k.starts_with("Issuer ")), "{kinds:?}");
    let text = serde_yaml::to_string(&rendered.values().collect::<Vec<_>>()).unwrap();
    assert!(!text.contains("cert-manager"), "{text}");

    let manager = &rendered[&key("Deployment", "controller-manager")];
    let pod = &manager["spec"]["template"]["spec"];
    assert_eq!(
        pod["containers"][0]["args"],
        yaml(
            "[--leader-elect, --health-probe-bind-address=:8081, --metrics-bind-address=:8443, --webhook-cert-mode=self-managed, --webhook-name-prefix=other-release-shop-]"
        )
    );
    assert_eq!(
        pod["volumes"],
        yaml("[{name: webhook-certs, secret: {secretName: other-release-shop-webhook-server-cert}}]")
    );
    assert_eq!(
        rendered[&key("Secret", "webhook-server-cert")],
        yaml(
            "{apiVersion: v1, kind: Secret, metadata: {labels: {app.kubernetes.io/name: shop}, name: other-release-shop-webhook-server-cert, namespace: elsewhere}, type: Opaque}"
        )
    );
    assert_eq!(
        rendered[&key("Role", "webhook-cert-role")]["rules"],
        yaml(
            "[{apiGroups: [''], resourceNames: [other-release-shop-webhook-server-cert], resources: [secrets], verbs: [get, update]}]"
        )
    );
    assert_eq!(
        rendered[&key("ClusterRole", "webhook-cert-injection-role")]["rules"],
        yaml(
            "[{apiGroups: [admissionregistration.k8s.io], resourceNames: [other-release-shop-mutating-webhook-configuration], resources: [mutatingwebhookconfigurations], verbs: [get, update]},
              {apiGroups: [admissionregistration.k8s.io], resourceNames: [other-release-shop-validating-webhook-configuration], resources: [validatingwebhookconfigurations], verbs: [get, update]},
              {apiGroups: [apiextensions.k8s.io], resourceNames: [memcacheds.cache.example.com], resources: [customresourcedefinitions], verbs: [get, patch]}]"
        )
    );
    let binding = &rendered[&key("ClusterRoleBinding", "webhook-cert-injection-rolebinding")];
    assert_eq!(
        binding["subjects"],
        yaml("[{kind: ServiceAccount, name: other-release-shop-controller-manager, namespace: elsewhere}]")
    );

    // The release named as config/default names the objects needs no prefix flag; one whose
    // full name leaves no room for the manager's names, and a value the chart does not know,
    // are refused.
    let args =
        ["template", "shop", "dist/chart", "--namespace", "shop-system", "--set", "webhook.certificates=self-managed"];
    let shop = objects(&run(&helm, &dir, &args).stdout);
    let manager = &shop[&("Deployment".to_string(), "shop-controller-manager".to_string())];
    let args = manager["spec"]["template"]["spec"]["containers"][0]["args"].as_sequence().unwrap();
    assert_eq!(args.last().unwrap(), "--webhook-cert-mode=self-managed");
    for (release, value, error) in [
        (
            "a-release-with-a-long-name",
            "self-managed",
            "webhook.certificates self-managed: the manager finds its objects by the release's full name, a-release-with-a-long-name-shop, which is longer than 30 characters: set a shorter fullnameOverride",
        ),
        ("shop", "selfmanaged", "webhook.certificates \"selfmanaged\": write cert-manager or self-managed"),
    ] {
        let set = format!("webhook.certificates={value}");
        let out = Command::new(&helm)
            .args(["template", release, "dist/chart", "--set", &set])
            .current_dir(&dir)
            .output()
            .unwrap();
        assert!(!out.status.success());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(error), "{stderr}");
    }
}

/// With config/webhook-self-managed switched on in config/default, the default values render
/// what kustomize builds, and `webhook.certificates=cert-manager` what it built before.
#[test]
fn the_chart_follows_config_default_to_self_managed_certificates() {
    let Some(helm) = helm() else { return };
    let (_tmp, dir) = project();
    let kubectl = Path::new("kubectl");
    let cert_manager = objects(&run(kubectl, &dir, &["kustomize", "config/default"]).stdout);
    let kustomization = dir.join("config/default/kustomization.yaml");
    let text = std::fs::read_to_string(&kustomization).unwrap();
    std::fs::write(&kustomization, text.replace("#- ../webhook-self-managed\n", "- ../webhook-self-managed\n"))
        .unwrap();
    let self_managed = objects(&run(kubectl, &dir, &["kustomize", "config/default"]).stdout);
    rop_ok(&dir, &["helm"]);
    let values = std::fs::read_to_string(dir.join("dist/chart/values.yaml")).unwrap();
    assert!(values.contains("  certificates: self-managed\n"), "{values}");
    let args = values.split("  args:\n").nth(1).unwrap().split("  env:").next().unwrap();
    assert!(!args.contains("--webhook-cert-mode"), "the chart adds the flag: {args}");
    run(&helm, &dir, &["lint", "--strict", "dist/chart"]);
    let release = ["template", "shop", "dist/chart", "--namespace", "shop-system"];
    for (sets, built) in [(&[][..], &self_managed), (&["--set", "webhook.certificates=cert-manager"], &cert_manager)] {
        let rendered = objects(&run(&helm, &dir, &[&release[..], sets].concat()).stdout);
        assert_eq!(rendered.keys().collect::<Vec<_>>(), built.keys().collect::<Vec<_>>(), "{sets:?}");
        for (key, object) in built {
            pretty_assertions::assert_eq!(&rendered[key], object, "{sets:?} {key:?}");
        }
    }
}

#[test]
fn a_second_run_keeps_the_users_files_and_follows_config() {
    let (_tmp, dir) = project();
    rop_ok(&dir, &["helm"]);
    let values = dir.join("dist/chart/values.yaml");
    let edited = std::fs::read_to_string(&values).unwrap().replace("  replicas: 1\n", "  replicas: 3\n");
    std::fs::write(&values, &edited).unwrap();
    std::fs::write(dir.join("dist/chart/templates/extra.yaml"), "# mine\n").unwrap();
    // config/ changes: the Prometheus monitor is switched on, the manager gains a variable, a
    // kind's viewer role goes. The first two live in values.yaml, which is the user's now:
    // rop says what it lacks.
    let kustomization = dir.join("config/default/kustomization.yaml");
    let text = std::fs::read_to_string(&kustomization).unwrap().replace("#- ../prometheus\n", "- ../prometheus\n");
    std::fs::write(&kustomization, text).unwrap();
    let manager = dir.join("config/manager/manager.yaml");
    let text = std::fs::read_to_string(&manager).unwrap();
    let text = text.replacen("        env:\n", "        env:\n        - name: LOG_LEVEL\n          value: debug\n", 1);
    std::fs::write(&manager, text).unwrap();
    let rbac = dir.join("config/rbac/kustomization.yaml");
    let text = std::fs::read_to_string(&rbac).unwrap().replace("- site_viewer_role.yaml\n", "");
    std::fs::write(&rbac, text).unwrap();

    let out = rop(&dir, &["helm"]);
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "  delete    dist/chart/templates/rbac/site-viewer-role.yaml\n  keep      dist/chart/values.yaml\ndist/chart/values.yaml is yours and was kept: add what it lacks, or run `rop helm --force` to write it again\nNext: `helm lint dist/chart`, then `helm install shop dist/chart --namespace shop-system --create-namespace`\n"
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "warning: dist/chart/values.yaml: manager.env has no LOG_LEVEL\nwarning: dist/chart/values.yaml: prometheus.enabled is false, but config/default has it\n"
    );
    assert_eq!(std::fs::read_to_string(&values).unwrap(), edited);
    assert_eq!(std::fs::read_to_string(dir.join("dist/chart/templates/extra.yaml")).unwrap(), "# mine\n");

    // --force writes values.yaml again, from config/ as it is now.
    let out = rop_ok(&dir, &["helm", "--force"]);
    assert_eq!(
        out,
        "  update    dist/chart/values.yaml\nNext: `helm lint dist/chart`, then `helm install shop dist/chart --namespace shop-system --create-namespace`\n"
    );
    let values = std::fs::read_to_string(&values).unwrap();
    assert!(values.contains("    - name: LOG_LEVEL\n      value: debug\n") && values.contains("prometheus:\n  # A ServiceMonitor for the metrics (the Prometheus Operator must be in the cluster).\n  enabled: true\n"), "{values}");
}

#[test]
fn a_file_of_the_users_at_a_templates_path_is_replaced_only_with_force() {
    let (_tmp, dir) = project();
    rop_ok(&dir, &["helm"]);
    std::fs::write(dir.join("dist/chart/templates/rbac/manager-role.yaml"), "# my role\n").unwrap();
    let before = tree(&dir);
    let out = rop(&dir, &["helm"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: refusing to overwrite dist/chart/templates/rbac/manager-role.yaml (already exists and differs): pass --force to replace it, losing its edits\n"
    );
    assert_eq!(tree(&dir), before);
    rop_ok(&dir, &["helm", "--force"]);
    let role = std::fs::read_to_string(dir.join("dist/chart/templates/rbac/manager-role.yaml")).unwrap();
    assert!(role.starts_with("# Written by `rop helm`"), "{role}");
}

#[test]
fn bad_input_is_refused_with_one_line_and_no_change() {
    let (_tmp, dir) = project();
    let before = tree(&dir);
    for (args, error) in [
        (
            &["helm", "--output-dir", "/tmp/chart"][..],
            "error: --output-dir \"/tmp/chart\" is not a folder inside the project: give a relative path such as dist/chart\n",
        ),
        (
            &["helm", "--output-dir", "../chart"],
            "error: --output-dir \"../chart\" is not a folder inside the project: give a relative path such as dist/chart\n",
        ),
        (
            &["helm", "--output-dir", ""],
            "error: --output-dir \"\" is not a folder inside the project: give a relative path such as dist/chart\n",
        ),
        (
            &["helm", "--output-dir", "config"],
            "error: --output-dir config holds files but no Chart.yaml, so it is not a chart's folder: give a new or empty folder, such as dist/chart\n",
        ),
    ] {
        let out = rop(&dir, args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), error, "{args:?}");
    }
    // A kustomization that does not build: kubectl's own words, after the command that failed.
    let kustomization = dir.join("config/default/kustomization.yaml");
    let text = std::fs::read_to_string(&kustomization).unwrap().replace("- ../rbac\n", "- ../rbca\n");
    std::fs::write(&kustomization, &text).unwrap();
    let out = rop(&dir, &["helm"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("error: `kubectl kustomize config/default` failed: ") && stderr.contains("rbca"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    std::fs::write(&kustomization, text.replace("- ../rbca\n", "- ../rbac\n")).unwrap();
    assert_eq!(tree(&dir), before);

    // The self-managed certificate's RBAC comes from `rop generate`.
    let roles = dir.join("config/webhook-self-managed/role.yaml");
    let text = std::fs::read_to_string(&roles).unwrap();
    std::fs::remove_file(&roles).unwrap();
    let out = rop(&dir, &["helm"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: config/webhook-self-managed/role.yaml is missing: run `rop generate` (`make manifests`) first, which writes it; the chart offers config/webhook-self-managed with it\n"
    );
    std::fs::write(&roles, text).unwrap();
    assert_eq!(tree(&dir), before);

    let outside = tempfile::tempdir().unwrap();
    let out = rop(outside.path(), &["helm"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).starts_with("error: no PROJECT file"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn make_helm_chart_generates_the_manifests_then_writes_the_chart() {
    let (_tmp, dir) = project();
    let out = Command::new("make")
        .args(["helm-chart", concat!("ROP=", env!("CARGO_BIN_EXE_rop"))])
        .current_dir(&dir)
        .env("CARGO_TARGET_DIR", Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/e2e-projects"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    let generate = stdout.find(" generate\n").expect("make runs rop generate");
    let helm = stdout.find(" helm\n").expect("make runs rop helm");
    assert!(generate < helm, "{stdout}");
    assert!(stdout.contains("  create    dist/chart/values.yaml\n"), "{stdout}");
    assert_eq!(chart(&dir).len(), 35);
}
