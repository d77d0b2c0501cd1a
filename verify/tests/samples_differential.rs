//! `rop_verify::samples` (what `rop generate` checks `config/samples/` with) against a real API server:
//! every sample of `testdata/samples/` that rop refuses, the server refuses, and its message
//! holds each of rop's findings as `<path>: <message>`; every sample rop accepts (at most with
//! warnings, such as fields the server prunes), the server stores.

use std::path::Path;
use std::time::{Duration, Instant};

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, ApiResource, DeleteParams, DynamicObject, PostParams};
use kube::core::GroupVersionKind;
use rop_testenv::TestEnv;
use rop_verify::Severity;
use rop_verify::samples::validate_object;
use serde_json::Value;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../testdata/samples");

fn read(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_yaml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn samples(folder: &str) -> Vec<(String, Value)> {
    let mut files: Vec<_> = std::fs::read_dir(Path::new(DIR).join(folder))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    files.into_iter().map(|p| (format!("{folder}/{}", p.file_name().unwrap().to_string_lossy()), read(&p))).collect()
}

/// Creates `object`: the stored object's name, or the server's error message.
async fn create(api: &Api<DynamicObject>, object: &Value) -> Result<String, String> {
    let object: DynamicObject = serde_json::from_value(object.clone()).map_err(|e| e.to_string())?;
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        match api.create(&PostParams::default(), &object).await {
            Ok(created) => return Ok(created.metadata.name.unwrap_or_default()),
            // The resource is served a moment after the CRD is Established.
            Err(kube::Error::Api(s)) if s.code == 404 && Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(kube::Error::Api(s)) => return Err(s.message),
            Err(e) => return Err(e.to_string()),
        }
    }
}

#[test]
fn the_server_refuses_exactly_the_samples_rop_refuses_with_rops_messages() {
    let Some(env) = TestEnv::start_or_skip() else { return };
    let crd_json = read(&Path::new(DIR).join("widgets.example.com.yaml"));
    let crd: CustomResourceDefinition = serde_json::from_value(crd_json.clone()).unwrap();
    let client = env.client();
    let mut mismatches = Vec::new();
    let mut refused = 0;
    env.block_on(async {
        Api::<CustomResourceDefinition>::all(client.clone()).create(&PostParams::default(), &crd).await.unwrap();
        let version = crd.spec.versions.iter().find(|v| v.storage).unwrap().name.clone();
        let gvk = GroupVersionKind::gvk(&crd.spec.group, &version, &crd.spec.names.kind);
        let resource = ApiResource::from_gvk_with_plural(&gvk, &crd.spec.names.plural);
        let api: Api<DynamicObject> = Api::namespaced_with(client.clone(), "default", &resource);
        for (name, object) in samples("bad").into_iter().chain(samples("good")) {
            let errors: Vec<String> = validate_object(&crd_json, &object)
                .into_iter()
                .filter(|f| f.severity == Severity::Error)
                // The server writes the root as `<nil>`.
                .map(|f| format!("{}: {}", if f.path == "(root)" { "<nil>" } else { &f.path }, f.message))
                .collect();
            let verdict = create(&api, &object).await;
            match (&verdict, errors.is_empty()) {
                (Ok(_), true) => {}
                (Ok(_), false) => mismatches.push(format!("{name}: rop refuses ({errors:?}), the server stores it")),
                (Err(message), true) => mismatches.push(format!("{name}: rop accepts, the server refuses: {message}")),
                (Err(message), false) => {
                    refused += 1;
                    // An unknown or unserved apiVersion is refused by discovery before
                    // validation (kubectl: "no matches for kind"): only the verdict compares.
                    for error in errors.iter().filter(|e| !e.starts_with("apiVersion: ")) {
                        if !message.contains(error.as_str()) {
                            mismatches.push(format!("{name}: rop predicts `{error}`, the server says `{message}`"));
                        }
                    }
                }
            }
            if let Ok(stored) = verdict {
                api.delete(&stored, &DeleteParams::default()).await.unwrap();
            }
        }
    });
    assert!(mismatches.is_empty(), "{} mismatches:\n{}", mismatches.len(), mismatches.join("\n"));
    assert!(refused >= 15, "only {refused} samples were refused: the corpus lost its bad cases");
}
