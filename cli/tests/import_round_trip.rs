//! `rop import crd` then `rop generate` gives each real-world CRD back: the 14 CRDs of
//! `../shared/testdata/crds-in-the-wild`, controller-gen's CronJob and `testdata/import/widgets.yaml`
//! are imported into one project, regenerated, and compared with the originals value by value
//! after the normalisation docs/import.md states. What still differs is listed in
//! [`EXPECTED`] with its reason (each a warning `rop import` gave): a new difference, or one
//! that went away, fails the test. Then the project passes clippy (no warning of rustc's or
//! clippy's) and fmt, and its own test (written here) reads every sample object of
//! `testdata/import/samples` into the imported types, writes it back to the same JSON, and
//! creates the regenerated CRDs and the samples on a real API server (rop-testenv).
//!
//! The project builds into the shared `target/e2e-projects`, as the other end-to-end tests.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// The CRDs imported, relative to `../shared/testdata` (or, with `repo:`, to `testdata/`).
const SOURCES: &[&str] = &[
    "crds-in-the-wild/argo-cd_Application.yaml",
    "crds-in-the-wild/cert-manager_Certificate.yaml",
    "crds-in-the-wild/cert-manager_Issuer.yaml",
    "crds-in-the-wild/cluster-api_MachineDeployment.yaml",
    "crds-in-the-wild/crossplane_Composition.yaml",
    "crds-in-the-wild/external-secrets_ExternalSecret.yaml",
    "crds-in-the-wild/gateway-api_HTTPRoute.yaml",
    "crds-in-the-wild/istio_VirtualService.yaml",
    "crds-in-the-wild/keda_ScaledObject.yaml",
    "crds-in-the-wild/prometheus-operator_Alertmanager.yaml",
    "crds-in-the-wild/prometheus-operator_PrometheusRule.yaml",
    "crds-in-the-wild/prometheus-operator_ServiceMonitor.yaml",
    "crds-in-the-wild/strimzi_Kafka.yaml",
    "crds-in-the-wild/velero_Backup.yaml",
    "controller-gen/testdata.kubebuilder.io_cronjobs.yaml",
    "repo:import/widgets.yaml",
];

/// What differs after the round trip, as `(file, path, reason)`; paths name versions by name.
/// docs/import.md lists the same.
const EXPECTED: &[(&str, &str, &str)] = &[
    (
        "argo-cd_Application.yaml",
        "/spec/versions/v1alpha1/schema/openAPIV3Schema/properties/operation",
        "a root property beside spec and status",
    ),
    (
        "argo-cd_Application.yaml",
        "/spec/versions/v1alpha1/schema/openAPIV3Schema/required",
        "rop's kinds require exactly spec",
    ),
    (
        "cert-manager_Certificate.yaml",
        "/spec/versions/v1/schema/openAPIV3Schema/required",
        "rop's kinds require exactly spec",
    ),
    (
        "cluster-api_MachineDeployment.yaml",
        "/spec/versions/v1beta1/schema/openAPIV3Schema/required",
        "rop's kinds require exactly spec",
    ),
    (
        "crossplane_Composition.yaml",
        "/spec/versions/v1/schema/openAPIV3Schema/required",
        "rop's kinds require exactly spec",
    ),
    (
        "external-secrets_ExternalSecret.yaml",
        "/spec/conversion",
        "a conversion webhook is scaffolded with rop create webhook",
    ),
    (
        "external-secrets_ExternalSecret.yaml",
        "/spec/versions/v1alpha1/schema/openAPIV3Schema/required",
        "rop's kinds require exactly spec",
    ),
    (
        "external-secrets_ExternalSecret.yaml",
        "/spec/versions/v1beta1/schema/openAPIV3Schema/required",
        "rop's kinds require exactly spec",
    ),
    (
        "istio_VirtualService.yaml",
        "/spec/versions/v1/schema/openAPIV3Schema/properties/apiVersion",
        "rop always writes apiVersion, kind and metadata",
    ),
    (
        "istio_VirtualService.yaml",
        "/spec/versions/v1/schema/openAPIV3Schema/properties/kind",
        "rop always writes apiVersion, kind and metadata",
    ),
    (
        "istio_VirtualService.yaml",
        "/spec/versions/v1/schema/openAPIV3Schema/properties/metadata",
        "rop always writes apiVersion, kind and metadata",
    ),
    (
        "istio_VirtualService.yaml",
        "/spec/versions/v1/schema/openAPIV3Schema/required",
        "rop's kinds require exactly spec",
    ),
    (
        "istio_VirtualService.yaml",
        "/spec/versions/v1alpha3/schema/openAPIV3Schema/properties/apiVersion",
        "rop always writes apiVersion, kind and metadata",
    ),
    (
        "istio_VirtualService.yaml",
        "/spec/versions/v1alpha3/schema/openAPIV3Schema/properties/kind",
        "rop always writes apiVersion, kind and metadata",
    ),
    (
        "istio_VirtualService.yaml",
        "/spec/versions/v1alpha3/schema/openAPIV3Schema/properties/metadata",
        "rop always writes apiVersion, kind and metadata",
    ),
    (
        "istio_VirtualService.yaml",
        "/spec/versions/v1alpha3/schema/openAPIV3Schema/required",
        "rop's kinds require exactly spec",
    ),
    (
        "istio_VirtualService.yaml",
        "/spec/versions/v1beta1/schema/openAPIV3Schema/properties/apiVersion",
        "rop always writes apiVersion, kind and metadata",
    ),
    (
        "istio_VirtualService.yaml",
        "/spec/versions/v1beta1/schema/openAPIV3Schema/properties/kind",
        "rop always writes apiVersion, kind and metadata",
    ),
    (
        "istio_VirtualService.yaml",
        "/spec/versions/v1beta1/schema/openAPIV3Schema/properties/metadata",
        "rop always writes apiVersion, kind and metadata",
    ),
    (
        "istio_VirtualService.yaml",
        "/spec/versions/v1beta1/schema/openAPIV3Schema/required",
        "rop's kinds require exactly spec",
    ),
    (
        "prometheus-operator_Alertmanager.yaml",
        "/spec/versions/v1/schema/openAPIV3Schema/properties/apiVersion/description",
        "the API conventions' current text",
    ),
    (
        "prometheus-operator_Alertmanager.yaml",
        "/spec/versions/v1/schema/openAPIV3Schema/properties/kind/description",
        "the API conventions' current text",
    ),
    (
        "strimzi_Kafka.yaml",
        "/spec/versions/v1/schema/openAPIV3Schema/properties/apiVersion/description",
        "the API conventions' current text",
    ),
    (
        "strimzi_Kafka.yaml",
        "/spec/versions/v1/schema/openAPIV3Schema/properties/kind/description",
        "the API conventions' current text",
    ),
    (
        "testdata.kubebuilder.io_cronjobs.yaml",
        "/spec/versions/v1/schema/openAPIV3Schema/required",
        "rop's kinds require exactly spec",
    ),
    (
        "testdata.kubebuilder.io_cronjobs.yaml",
        "/spec/versions/v1beta1/schema/openAPIV3Schema/required",
        "rop's kinds require exactly spec",
    ),
    (
        "testdata.kubebuilder.io_cronjobs.yaml",
        "/spec/versions/v1beta1/subresources",
        "a status subresource needs a status schema",
    ),
    (
        "testdata.kubebuilder.io_cronjobs.yaml",
        "/spec/versions/v1beta2/schema/openAPIV3Schema/properties/spec",
        "rop's kinds always have a spec",
    ),
    (
        "testdata.kubebuilder.io_cronjobs.yaml",
        "/spec/versions/v1beta2/schema/openAPIV3Schema/required",
        "rop's kinds require exactly spec",
    ),
    (
        "testdata.kubebuilder.io_cronjobs.yaml",
        "/spec/versions/v1beta2/subresources",
        "a status subresource needs a status schema",
    ),
    ("velero_Backup.yaml", "/spec/versions/v1/schema/openAPIV3Schema/required", "rop's kinds require exactly spec"),
    ("widgets.yaml", "/spec/versions/v1beta1/subresources", "a status subresource needs a status schema"),
];

fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/testdata")
}

fn source_path(source: &str) -> PathBuf {
    match source.strip_prefix("repo:") {
        Some(rest) => common::testdata().join(rest),
        None => shared().join(source),
    }
}

fn shared_target_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/e2e-projects")
}

/// Runs `program args` in `dir` with the shared target folder and the built `rop` first on
/// PATH; panics with the output on failure; returns stdout and stderr.
fn run(dir: &Path, program: &str, args: &[&str]) -> (String, String) {
    let rop_dir = Path::new(env!("CARGO_BIN_EXE_rop")).parent().unwrap();
    let path = std::env::join_paths(
        std::iter::once(rop_dir.to_path_buf()).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .env("PATH", path)
        .env("CARGO_TARGET_DIR", shared_target_dir())
        .env("CARGO_INCREMENTAL", "0")
        .env("SOURCE_DATE_EPOCH", "1795910400")
        .env("NO_COLOR", "1")
        .env_remove("RUSTFLAGS")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"));
    let (stdout, stderr) =
        (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned());
    assert!(out.status.success(), "{program} {args:?} failed in {}:\n{stdout}\n{stderr}", dir.display());
    (stdout, stderr)
}

fn yaml_documents(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    rop_verify::yaml_documents(&text).unwrap().into_iter().map(|(_, d)| d).collect()
}

/// The normalisation of docs/import.md: only `metadata.name`, labels and annotations (without
/// controller-gen's version annotation); `required` lists as sets; `conversion: {strategy:
/// None}`, empty `subresources` and `optionalOldSelf: false` as their absence.
fn normalise(crd: &Value) -> Value {
    let mut metadata = serde_json::Map::new();
    for key in ["name", "labels", "annotations"] {
        if let Some(v) = crd["metadata"].get(key) {
            metadata.insert(key.into(), v.clone());
        }
    }
    if let Some(Value::Object(a)) = metadata.get_mut("annotations") {
        a.remove("controller-gen.kubebuilder.io/version");
        if a.is_empty() {
            metadata.remove("annotations");
        }
    }
    let mut spec = crd["spec"].clone();
    if spec["conversion"] == serde_json::json!({"strategy": "None"}) {
        spec.as_object_mut().unwrap().remove("conversion");
    }
    for v in spec["versions"].as_array_mut().into_iter().flatten() {
        if v.get("subresources") == Some(&serde_json::json!({})) {
            v.as_object_mut().unwrap().remove("subresources");
        }
    }
    fn walk(node: &mut Value) {
        match node {
            Value::Object(map) => {
                if let Some(Value::Array(required)) = map.get_mut("required") {
                    required.sort_by_key(|r| r.to_string());
                }
                if let Some(Value::Array(rules)) = map.get_mut("x-kubernetes-validations") {
                    for rule in rules.iter_mut().filter_map(Value::as_object_mut) {
                        if rule.get("optionalOldSelf") == Some(&Value::Bool(false)) {
                            rule.remove("optionalOldSelf");
                        }
                    }
                }
                for (key, child) in map.iter_mut() {
                    if !matches!(key.as_str(), "default" | "example" | "enum") {
                        walk(child);
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(walk),
            _ => {}
        }
    }
    walk(&mut spec);
    serde_json::json!({ "metadata": metadata, "spec": spec })
}

/// Every path where `a` (regenerated) and `b` (original) differ; versions by name.
fn diff(path: &str, a: Option<&Value>, b: Option<&Value>, out: &mut BTreeSet<String>) {
    match (a, b) {
        (Some(Value::Object(x)), Some(Value::Object(y))) => {
            for key in x.keys().chain(y.keys()).collect::<BTreeSet<_>>() {
                diff(&format!("{path}/{key}"), x.get(key), y.get(key), out);
            }
        }
        (Some(Value::Array(x)), Some(Value::Array(y))) if path.ends_with("/versions") && x.len() == y.len() => {
            for (vx, vy) in x.iter().zip(y) {
                diff(&format!("{path}/{}", vx["name"].as_str().unwrap_or("?")), Some(vx), Some(vy), out);
            }
        }
        (Some(Value::Number(x)), Some(Value::Number(y))) if x.as_f64() == y.as_f64() => {}
        (x, y) if x == y => {}
        _ => {
            out.insert(path.to_string());
        }
    }
}

/// The kind of `object` in the imported api crate (its Rust path), its plural and whether it
/// is namespaced.
fn kind_of(crds: &[Value], object: &Value) -> (String, String, bool) {
    let api_version = object["apiVersion"].as_str().unwrap();
    let (group, version) = api_version.split_once('/').unwrap();
    let kind = object["kind"].as_str().unwrap();
    let crd = crds
        .iter()
        .find(|c| c["spec"]["group"] == group && c["spec"]["names"]["kind"] == kind)
        .unwrap_or_else(|| panic!("no imported CRD for sample {api_version} {kind}"));
    // A group in the project's domain is recorded without it, as `rop create api` does.
    let module = group.strip_suffix(".example.com").unwrap_or(group).replace(['.', '-'], "_");
    let plural = crd["spec"]["names"]["plural"].as_str().unwrap().to_string();
    (format!("wild_operator_api::{module}::{version}::{kind}"), plural, crd["spec"]["scope"] != "Cluster")
}

/// The project's test: each sample read into its type and written back unchanged, then the
/// CRDs installed and the samples created on the API server. Samples are created as they are
/// written (not from the types): a version that is not the storage version comes back through
/// the CRD's conversion, which for a CRD whose webhook was not imported loses fields.
fn samples_test(samples: &[Value], crds: &[Value]) -> String {
    let mut round_trips = String::new();
    let mut creates = String::new();
    for (i, sample) in samples.iter().enumerate() {
        let (ty, plural, namespaced) = kind_of(crds, sample);
        round_trips.push_str(&format!("    round_trip::<{ty}>(&samples[{i}]);\n"));
        creates.push_str(&format!("    create(&client, &samples[{i}], \"{plural}\", {namespaced}).await;\n"));
    }
    format!(
        r#"//! Written by rop's import round-trip test: every sample object goes through its imported
//! type unchanged, and the API server accepts the regenerated CRDs and the samples.

use rop::kube::Client;
use rop::kube::api::{{Api, ApiResource, DynamicObject, GroupVersionKind, PostParams}};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

fn round_trip<K: Serialize + DeserializeOwned>(sample: &Value) {{
    let object: K = serde_json::from_value(sample.clone()).unwrap_or_else(|e| panic!("{{sample}}: {{e}}"));
    assert_eq!(&serde_json::to_value(&object).unwrap(), sample, "the sample changed on its way through the type");
}}

async fn create(client: &Client, sample: &Value, plural: &str, namespaced: bool) {{
    let (group, version) = sample["apiVersion"].as_str().unwrap().split_once('/').unwrap();
    let gvk = GroupVersionKind::gvk(group, version, sample["kind"].as_str().unwrap());
    let resource = ApiResource::from_gvk_with_plural(&gvk, plural);
    let api: Api<DynamicObject> = if namespaced {{
        Api::namespaced_with(client.clone(), sample["metadata"]["namespace"].as_str().unwrap(), &resource)
    }} else {{
        Api::all_with(client.clone(), &resource)
    }};
    let object: DynamicObject = serde_json::from_value(sample.clone()).unwrap();
    api.create(&PostParams::default(), &object).await.unwrap_or_else(|e| panic!("the API server refused {{sample}}: {{e}}"));
}}

#[tokio::test]
async fn samples_round_trip_and_the_server_accepts_them() {{
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/samples.json")).unwrap();
    let samples: Vec<Value> = serde_json::from_str(&text).unwrap();
{round_trips}    let Some(env) = rop_testenv::TestEnv::start_or_skip() else {{ return }};
    let client = env.client();
    let crds = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/config/crd/bases"));
    rop_testenv::install_crds(&client, crds).await.expect("the API server accepts the regenerated CRDs");
{creates}}}
"#
    )
}

#[test]
fn imported_crds_regenerate_the_same_crds() {
    if !shared().join("crds-in-the-wild").is_dir() {
        eprintln!("skipped: ../shared/testdata is not beside the checkout");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("wild-operator");
    // To look into the project after a failure: ROP_KEEP_PROJECT=1 keeps it (its path is printed).
    let _tmp = if std::env::var_os("ROP_KEEP_PROJECT").is_some() {
        eprintln!("keeping {}", dir.display());
        Err(tmp.keep())
    } else {
        Ok(tmp)
    };
    std::fs::create_dir(&dir).unwrap();
    run(
        &dir,
        env!("CARGO_BIN_EXE_rop"),
        &["init", "--domain", "example.com", "--repo", "github.com/example/wild-operator", "--multigroup"],
    );
    std::fs::create_dir(dir.join("crds")).unwrap();
    let mut files = Vec::new();
    let mut originals = BTreeMap::new();
    for source in SOURCES {
        let path = source_path(source);
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        std::fs::copy(&path, dir.join("crds").join(&name)).unwrap();
        files.push(format!("crds/{name}"));
        let crd = yaml_documents(&path).into_iter().find(rop_verify::is_crd).unwrap();
        originals.insert(name, crd);
    }
    let mut args = vec!["import", "crd"];
    args.extend(files.iter().map(String::as_str));
    let (_, warnings) = run(&dir, env!("CARGO_BIN_EXE_rop"), &args);

    // The samples: rop generate checks them against the regenerated CRDs as the server would.
    let mut samples = Vec::new();
    let sample_dir = common::testdata().join("import/samples");
    for entry in std::fs::read_dir(&sample_dir).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dir.join("config/samples").join(path.file_name().unwrap())).unwrap();
        samples.extend(yaml_documents(&path));
    }
    run(&dir, env!("CARGO_BIN_EXE_rop"), &["generate"]);

    let mut found = BTreeSet::new();
    for (name, original) in &originals {
        let group = original["spec"]["group"].as_str().unwrap();
        let plural = original["spec"]["names"]["plural"].as_str().unwrap();
        let regenerated = yaml_documents(&dir.join(format!("config/crd/bases/{group}_{plural}.yaml"))).remove(0);
        let mut paths = BTreeSet::new();
        diff("", Some(&normalise(&regenerated)), Some(&normalise(original)), &mut paths);
        found.extend(paths.into_iter().map(|p| format!("{name} {p}")));
    }
    let expected: BTreeSet<String> = EXPECTED.iter().map(|(file, path, _)| format!("{file} {path}")).collect();
    pretty_assertions::assert_eq!(found, expected, "differences after the round trip (docs/import.md lists them)");
    // Each expected difference was announced by a warning of `rop import`.
    for (file, _, _) in EXPECTED {
        assert!(warnings.contains(&format!("crds/{file}: ")), "rop import gave no warning for {file}:\n{warnings}");
    }

    let crds: Vec<Value> = originals.values().cloned().collect();
    std::fs::write(dir.join("samples.json"), serde_json::to_string_pretty(&samples).unwrap()).unwrap();
    std::fs::create_dir_all(dir.join("tests")).unwrap();
    std::fs::write(dir.join("tests/imported_samples.rs"), samples_test(&samples, &crds)).unwrap();
    // Clippy with -D warnings also fails on any compiler warning.
    run(&dir, "cargo", &["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"]);
    run(&dir, "cargo", &["fmt", "--package", "wild-operator-api", "--check"]);
    let (stdout, _) = run(&dir, "cargo", &["test", "--test", "imported_samples"]);
    assert!(stdout.contains("test samples_round_trip_and_the_server_accepts_them ... ok"), "{stdout}");
    assert!(samples.len() >= SOURCES.len(), "every imported CRD has a sample: {} samples", samples.len());
}
