//! What `rop verify --against` claims about the API server, shown on the real one: for each
//! scenario an object is stored under the corpus's `old.yaml` (`testdata/verify/compat`), the
//! CRD is replaced by a case's new revision, and the object is read, written back with an
//! unrelated change, and written with the changed field, or a new object is created; each
//! outcome is asserted exactly. The messages of the compat rules say what these show.
//!
//! Every scenario has its own group (`s<N>.example.com`), so the CRDs do not share a kind.
//! The new revision gets one extra field, `spec.probe` with a default: the server defaults a
//! field missing from a stored object when it reads it, so the probe appearing on a read says
//! the new schema is being served.

use std::path::Path;
use std::time::{Duration, Instant};

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::Client;
use kube::api::{Api, ApiResource, DynamicObject, ListParams, Patch, PatchParams, PostParams};
use kube::core::GroupVersionKind;
use rop_testenv::TestEnv;
use serde_json::{Value, json};

fn read(rel: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/verify/compat").join(rel);
    serde_yaml::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// What a step should give: the object's spec (without the probe) or an error containing this.
type Outcome = Result<Value, &'static str>;

/// One claim.
struct Scenario {
    /// The case of `cases/` that replaces `old.yaml`.
    case: &'static str,
    /// The spec of the object stored under OLD (at v1, the storage version).
    object: Value,
    /// `status.storedVersions` to set before the update, as a cluster that stored objects at
    /// those versions has it.
    stored_versions: &'static [&'static str],
    /// The CRD update itself is refused with this message.
    update_refused: Option<&'static str>,
    /// The object read back once the new revision is served.
    read: Option<Value>,
    /// Writes of the object, in order: a merge into its spec, and what the server answers.
    writes: Vec<(Value, Outcome)>,
    /// A new object created under the new revision.
    create: Option<(Value, Outcome)>,
    /// A version that is no longer served: a read at it is refused with this.
    gone_version: Option<(&'static str, &'static str)>,
    /// A field selector the server no longer accepts, and its message.
    selector_refused: Option<(&'static str, &'static str)>,
    /// The status subresource is gone: a read of `/status` answers this code.
    status_gone: Option<&'static str>,
}

impl Scenario {
    fn new(case: &'static str, object: Value) -> Self {
        Self {
            case,
            object,
            stored_versions: &[],
            update_refused: None,
            read: None,
            writes: Vec::new(),
            create: None,
            gone_version: None,
            selector_refused: None,
            status_gone: None,
        }
    }
}

fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            update_refused: Some("spec.scope: Invalid value: \"Cluster\": field is immutable"),
            ..Scenario::new("scope", json!({"size": 1}))
        },
        Scenario {
            update_refused: Some("spec.names.kind: Invalid value: \"Gadget\": field is immutable"),
            ..Scenario::new("kind", json!({"size": 1}))
        },
        Scenario {
            stored_versions: &["v1beta1", "v1"],
            update_refused: Some("status.storedVersions[0]: Invalid value: \"v1beta1\": missing from spec.versions"),
            ..Scenario::new("stored-version-removed", json!({"size": 1}))
        },
        Scenario {
            gone_version: Some(("v1alpha1", "404")),
            ..Scenario::new("served-version-removed", json!({"size": 1}))
        },
        Scenario {
            read: Some(json!({"size": 1, "mode": "Managed"})),
            writes: vec![(json!({"color": "blue"}), Ok(json!({"size": 1, "mode": "Managed", "color": "blue"})))],
            ..Scenario::new("field-removed", json!({"size": 1, "name": "abc"}))
        },
        Scenario {
            read: Some(json!({"size": 1, "mode": "Managed"})),
            writes: vec![(json!({"color": "blue"}), Err("spec.name: Required value"))],
            ..Scenario::new("required", json!({"size": 1}))
        },
        Scenario {
            read: Some(json!({"size": 1, "mode": "Managed"})),
            create: Some((json!({"size": 2}), Ok(json!({"size": 2, "mode": "Unmanaged"})))),
            ..Scenario::new("default", json!({"size": 1}))
        },
        Scenario {
            read: Some(json!({"size": 1, "mode": "Unmanaged"})),
            writes: vec![(json!({"color": "blue"}), Ok(json!({"size": 1, "mode": "Unmanaged", "color": "blue"})))],
            create: Some((json!({"size": 1, "mode": "Unmanaged"}), Err("spec.mode: Unsupported value: \"Unmanaged\""))),
            ..Scenario::new("enum", json!({"size": 1, "mode": "Unmanaged"}))
        },
        Scenario {
            writes: vec![
                (json!({"color": "blue"}), Ok(json!({"size": 8, "mode": "Managed", "color": "blue"}))),
                (
                    json!({"size": 9}),
                    Err("spec.size: Invalid value: 9: spec.size in body should be less than or equal to 5"),
                ),
            ],
            ..Scenario::new("maximum", json!({"size": 8}))
        },
        Scenario {
            writes: vec![(json!({"size": 2}), Ok(json!({"size": 2, "mode": "Managed", "name": "ab"})))],
            create: Some((
                json!({"size": 1, "name": "ab"}),
                Err("spec.name: Invalid value: \"ab\": spec.name in body should be at least 3 chars long"),
            )),
            ..Scenario::new("min-length", json!({"size": 1, "name": "ab"}))
        },
        Scenario {
            writes: vec![(json!({"size": 2}), Ok(json!({"size": 2, "mode": "Managed", "color": "red"})))],
            create: Some((
                json!({"size": 1, "color": "red"}),
                Err("spec.color: Invalid value: \"red\": spec.color in body must be of type date-time"),
            )),
            ..Scenario::new("format", json!({"size": 1, "color": "red"}))
        },
        Scenario {
            read: Some(json!({"size": 1, "mode": "Managed"})),
            writes: vec![(json!({"color": "blue"}), Ok(json!({"size": 1, "mode": "Managed", "color": "blue"})))],
            ..Scenario::new("nullable", json!({"size": 1, "note": null}))
        },
        Scenario {
            read: Some(json!({"size": 1, "mode": "Managed", "extra": {"size": 2}})),
            writes: vec![(
                json!({"color": "blue"}),
                Ok(json!({"size": 1, "mode": "Managed", "color": "blue", "extra": {"size": 2}})),
            )],
            ..Scenario::new("preserve-unknown-fields", json!({"size": 1, "extra": {"size": 2, "tier": "gold"}}))
        },
        Scenario {
            writes: vec![(json!({"color": "blue"}), Err("at most 10"))],
            ..Scenario::new("cel-rule", json!({"size": 8}))
        },
        Scenario {
            writes: vec![
                (json!({"color": "blue"}), Ok(json!({"size": 8, "mode": "Managed", "color": "blue"}))),
                (
                    json!({"size": 9}),
                    Err("spec.size: Invalid value: 9: spec.size in body should be less than or equal to 5"),
                ),
            ],
            ..Scenario::new("junctor", json!({"size": 8}))
        },
        Scenario {
            writes: vec![(
                json!({"color": "blue"}),
                Ok(json!({"size": 1, "step": 8, "mode": "Managed", "color": "blue"})),
            )],
            create: Some((
                json!({"size": 1, "step": 8}),
                Err("spec.step: Invalid value: 8: spec.step in body should be a multiple of 3"),
            )),
            ..Scenario::new("multiple-of", json!({"size": 1, "step": 8}))
        },
        Scenario { status_gone: Some("404"), ..Scenario::new("subresource", json!({"size": 1})) },
        Scenario {
            selector_refused: Some(("spec.color=red", "field label not supported: spec.color")),
            ..Scenario::new("selectable-field", json!({"size": 1, "color": "red"}))
        },
    ]
}

/// `doc` moved to group `s<n>.example.com`.
fn regroup(mut doc: Value, n: usize) -> Value {
    let group = format!("s{n}.example.com");
    doc["metadata"]["name"] = json!(format!("widgets.{group}"));
    doc["spec"]["group"] = json!(group);
    doc.as_object_mut().unwrap().remove("status");
    doc
}

fn api_at(client: &Client, crd: &Value, version: &str) -> Api<DynamicObject> {
    let gvk = GroupVersionKind::gvk(crd["spec"]["group"].as_str().unwrap(), version, "Widget");
    let resource = ApiResource::from_gvk_with_plural(&gvk, "widgets");
    Api::namespaced_with(client.clone(), "default", &resource)
}

fn object(crd: &Value, name: &str, spec: &Value) -> DynamicObject {
    serde_json::from_value(json!({
        "apiVersion": format!("{}/v1", crd["spec"]["group"].as_str().unwrap()),
        "kind": "Widget",
        "metadata": {"name": name, "namespace": "default"},
        "spec": spec,
    }))
    .unwrap()
}

/// The spec without the probe.
fn spec_of(object: &DynamicObject) -> Value {
    let mut spec = object.data["spec"].clone();
    if let Some(spec) = spec.as_object_mut() {
        spec.remove("probe");
    }
    spec
}

fn message(e: kube::Error) -> String {
    match e {
        kube::Error::Api(status) => status.message,
        other => other.to_string(),
    }
}

/// Creates `object`, retrying while the resource is not served yet.
async fn create(api: &Api<DynamicObject>, object: &DynamicObject) -> Result<DynamicObject, String> {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        match api.create(&PostParams::default(), object).await {
            Err(kube::Error::Api(s)) if s.code == 404 && Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            other => return other.map_err(message),
        }
    }
}

fn check(what: &str, got: Result<Value, String>, want: &Outcome, failures: &mut Vec<String>) {
    let ok = match (&got, want) {
        (Ok(g), Ok(w)) => g == w,
        (Err(g), Err(w)) => g.contains(w),
        _ => false,
    };
    if !ok {
        failures.push(format!("{what}: got {got:?}, expected {want:?}"));
    }
}

async fn run(client: &Client, n: usize, scenario: &Scenario, failures: &mut Vec<String>) {
    let case = scenario.case;
    let old = regroup(read("old.yaml"), n);
    let crds: Api<CustomResourceDefinition> = Api::all(client.clone());
    crds.create(&PostParams::default(), &serde_json::from_value(old.clone()).unwrap()).await.unwrap();
    let api = api_at(client, &old, "v1");
    create(&api, &object(&old, "stored", &scenario.object)).await.unwrap_or_else(|e| panic!("{case}: {e}"));
    let name = old["metadata"]["name"].as_str().unwrap();
    if !scenario.stored_versions.is_empty() {
        let status = json!({"status": {"storedVersions": scenario.stored_versions}});
        crds.patch_status(name, &PatchParams::default(), &Patch::Merge(&status)).await.unwrap();
    }
    if let Some((selector, _)) = scenario.selector_refused {
        api.list(&ListParams::default().fields(selector)).await.unwrap_or_else(|e| panic!("{case}: {e}"));
    }

    let mut new = regroup(read(&format!("cases/{case}.yaml")), n);
    for version in new["spec"]["versions"].as_array_mut().unwrap() {
        version["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["probe"] =
            json!({"type": "string", "default": "new"});
    }
    let mut replacement: CustomResourceDefinition = serde_json::from_value(new.clone()).unwrap();
    replacement.metadata.resource_version = crds.get(name).await.unwrap().metadata.resource_version;
    let updated = crds.replace(name, &PostParams::default(), &replacement).await;
    match (updated, scenario.update_refused) {
        (Err(e), Some(want)) => check(&format!("{case}: CRD update"), Err(message(e)), &Err(want), failures),
        (Ok(_), Some(want)) => failures.push(format!("{case}: the CRD update was accepted, expected {want:?}")),
        (Err(e), None) => failures.push(format!("{case}: the CRD update was refused: {}", message(e))),
        (Ok(_), None) => {}
    }
    if scenario.update_refused.is_some() {
        return;
    }

    // The new revision is served once a read defaults the probe.
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut stored = api.get("stored").await.unwrap();
    while stored.data["spec"]["probe"] != json!("new") {
        assert!(
            Instant::now() < deadline,
            "{case}: the new revision was not served within 30 s: {:?}\n{failures:?}",
            stored.data
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
        stored = api.get("stored").await.unwrap();
    }
    if let Some(want) = &scenario.read {
        check(&format!("{case}: read"), Ok(spec_of(&stored)), &Ok(want.clone()), failures);
    }
    for (i, (change, want)) in scenario.writes.iter().enumerate() {
        let mut next = api.get("stored").await.unwrap();
        for (key, value) in change.as_object().unwrap() {
            next.data["spec"][key] = value.clone();
        }
        let written = api.replace("stored", &PostParams::default(), &next).await;
        check(&format!("{case}: write {i} ({change})"), written.map(|o| spec_of(&o)).map_err(message), want, failures);
    }
    if let Some((spec, want)) = &scenario.create {
        let created = create(&api, &object(&new, "created", spec)).await;
        check(&format!("{case}: create ({spec})"), created.map(|o| spec_of(&o)), want, failures);
    }
    if let Some((version, want)) = scenario.gone_version {
        let got = api_at(client, &new, version).get("stored").await;
        let got = got.map(|o| spec_of(&o)).map_err(|e| match e {
            kube::Error::Api(s) => s.code.to_string(),
            other => other.to_string(),
        });
        check(&format!("{case}: read at {version}"), got, &Err(want), failures);
    }
    if let Some(want) = scenario.status_gone {
        let got = api.get_status("stored").await.map(|o| spec_of(&o)).map_err(|e| match e {
            kube::Error::Api(s) => s.code.to_string(),
            other => other.to_string(),
        });
        check(&format!("{case}: read of /status"), got, &Err(want), failures);
    }
    if let Some((selector, want)) = scenario.selector_refused {
        let listed = api.list(&ListParams::default().fields(selector)).await;
        check(&format!("{case}: list {selector}"), listed.map(|_| Value::Null).map_err(message), &Err(want), failures);
    }
}

#[test]
fn the_server_does_what_the_compat_rules_say() {
    let Some(env) = TestEnv::start_or_skip() else { return };
    let client = env.client();
    let mut failures = Vec::new();
    env.block_on(async {
        for (n, scenario) in scenarios().iter().enumerate() {
            run(&client, n, scenario, &mut failures).await;
        }
    });
    assert!(failures.is_empty(), "{} claims do not hold:\n{}", failures.len(), failures.join("\n"));
}
