//! Every CRD of the derive corpus (testdata/derive/corpus.rs) and the controller-gen CronJob
//! port (testdata/derive/cronjob.rs) is accepted by a real API server and stored unchanged;
//! objects of the trickier shapes (tagged and untagged enums, free-form JSON, recursion,
//! defaults, CEL rules) are created and behave as their Rust types say.
// The corpus writes some `Option`s as `null` on purpose (the API server's handling of `null`
// is part of what it checks); the derive's warning about them is expected.
#![allow(deprecated)]

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::Resource;
use kube::api::{Api, ApiResource, DeleteParams, DynamicObject, Patch, PatchParams, PostParams};
use kube::core::CustomResourceExt;
use rop::JsonSchema;
use rop_testenv::TestEnv;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

include!("../../testdata/derive/rop_corpus.rs");

pub mod cronjob {
    include!("../../testdata/derive/cronjob.rs");
}

include!("../../testdata/derive/root_rule.rs");

fn all_crds() -> Vec<CustomResourceDefinition> {
    use rop::CustomResource as _;
    let mut crds = corpus_crds();
    crds.push(RootRule::crd());
    crds.extend(
        rop::crd::merge(vec![
            cronjob::v1::CronJob::custom_resource_definition(),
            cronjob::v1beta1::CronJob::custom_resource_definition(),
            cronjob::v1beta2::CronJob::custom_resource_definition(),
        ])
        .unwrap(),
    );
    crds
}

/// Creates `obj` (retrying while its resource is not served yet) and returns the server's
/// answer, or the server's refusal.
async fn create<K>(api: &Api<K>, obj: &K) -> Result<K, kube::Error>
where
    K: Resource + Clone + Serialize + serde::de::DeserializeOwned + std::fmt::Debug,
{
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        match api.create(&PostParams::default(), obj).await {
            Err(kube::Error::Api(s)) if s.code == 404 && Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            other => return other,
        }
    }
}

fn spec_json<T: Serialize>(spec: &T) -> Value {
    serde_json::to_value(spec).unwrap()
}

async fn objects(client: kube::Client) {
    let ns = "default";

    let api: Api<InternallyTagged> = Api::namespaced(client.clone(), ns);
    for (name, backend) in [
        ("s3", Backend::S3 { bucket: "b".into(), region: None }),
        ("volume", Backend::Volume(Leaf { foo: "f".into(), bar: true })),
        ("memory", Backend::Memory),
    ] {
        let sent = InternallyTagged::new(name, InternallyTaggedSpec { backend });
        let got = create(&api, &sent).await.unwrap();
        assert_eq!(spec_json(&got.spec), spec_json(&sent.spec), "{name}");
    }
    // The oneOf branches hold each variant to its own fields.
    let bad = json!({"apiVersion": "corpus.rop.dev/v1", "kind": "InternallyTagged", "metadata": {"name": "bad"},
        "spec": {"backend": {"type": "S3"}}});
    let dynamic: Api<DynamicObject> =
        Api::namespaced_with(client.clone(), ns, &ApiResource::erase::<InternallyTagged>(&()));
    let err = dynamic.create(&PostParams::default(), &serde_json::from_value(bad).unwrap()).await.unwrap_err();
    assert!(err.to_string().contains("bucket"), "{err}");

    // Enums with data under Option keep their schema: every field round-trips, and a value
    // of the wrong shape is refused instead of kept as unknown fields.
    let api: Api<OptionalEnum> = Api::namespaced(client.clone(), ns);
    let sent = OptionalEnum::new(
        "options",
        OptionalEnumsSpec {
            source: Some(Source::Git { url: "https://example.com/r.git".into(), revision: Some("main".into()) }),
            limit: Some(Limit::Percent("50%".into())),
            credentials: Some(Credentials::Token { token: "t".into() }),
            backend: Some(Backend::Volume(Leaf { foo: "f".into(), bar: false })),
        },
    );
    let got = create(&api, &sent).await.unwrap();
    assert_eq!(spec_json(&got.spec), spec_json(&sent.spec));
    let empty = create(
        &api,
        &OptionalEnum::new("empty", OptionalEnumsSpec { source: None, limit: None, credentials: None, backend: None }),
    )
    .await
    .unwrap();
    assert_eq!(spec_json(&empty.spec), json!({}));
    let dynamic: Api<DynamicObject> =
        Api::namespaced_with(client.clone(), ns, &ApiResource::erase::<OptionalEnum>(&()));
    for (spec, field) in [
        (json!({"limit": {"count": "ten"}}), "spec.limit.count"),
        (json!({"backend": {"type": "Tape"}}), "spec.backend.type"),
        (json!({"credentials": {"user": "u"}}), "spec.credentials"),
    ] {
        let bad = json!({"apiVersion": "corpus.rop.dev/v1", "kind": "OptionalEnum", "metadata": {"name": "bad"},
            "spec": spec});
        let err = dynamic.create(&PostParams::default(), &serde_json::from_value(bad).unwrap()).await.unwrap_err();
        assert!(err.to_string().contains(field), "{spec}: {err}");
    }

    // Option is not nullable (as controller-gen writes it). A create drops a null sent for an
    // unset field, but server-side apply refuses it: an applied object leaves unset fields out
    // (`skip_serializing_if`), and leaving out a field an earlier apply set removes it.
    let api: Api<Optional> = Api::namespaced(client.clone(), ns);
    let params = PatchParams::apply("derive-crds").force();
    let nulls = Optional::new("applied", OptionalsSpec::default());
    assert!(serde_json::to_value(&nulls).unwrap()["spec"]["maybeName"].is_null(), "None is sent as null");
    let err = api.patch("applied", &params, &Patch::Apply(&nulls)).await.unwrap_err();
    assert!(err.to_string().contains(r#"spec.maybeName in body must be of type string: \"null\""#), "{err}");
    let dynamic: Api<DynamicObject> = Api::namespaced_with(client.clone(), ns, &ApiResource::erase::<Optional>(&()));
    let applied = |spec: Value| {
        let dynamic = dynamic.clone();
        let params = params.clone();
        async move {
            let object = json!({"apiVersion": "corpus.rop.dev/v1", "kind": "Optional", "metadata": {"name": "applied"},
                "spec": spec});
            dynamic.patch("applied", &params, &Patch::Apply(&object)).await.unwrap().data["spec"].clone()
        }
    };
    assert_eq!(
        applied(json!({"maybeName": "set", "defaultedCount": 1})).await,
        json!({"maybeName": "set", "defaultedCount": 1})
    );
    assert_eq!(
        applied(json!({"defaultedCount": 1})).await,
        json!({"defaultedCount": 1}),
        "a field left out is removed"
    );
    create(&api, &Optional::new("created", OptionalsSpec::default())).await.unwrap();

    // An ObjectMeta inside the spec keeps what a user may set on a template; the rest is pruned.
    let api: Api<KnownType> = Api::namespaced(client.clone(), ns);
    let template = ObjectMeta {
        labels: Some([("app".to_string(), "web".to_string())].into()),
        annotations: Some([("note".to_string(), "kept".to_string())].into()),
        uid: Some("pruned".into()),
        ..ObjectMeta::default()
    };
    let sent = KnownType::new(
        "template",
        KnownTypesSpec {
            memory: Quantity("1Gi".into()),
            max_unavailable: IntOrString::Int(1),
            started: None,
            observed: None,
            template_metadata: template.clone(),
            owner: None,
            payload: RawExtension(json!({})),
            conditions: vec![],
        },
    );
    let got = create(&api, &sent).await.unwrap();
    assert_eq!(got.spec.template_metadata, ObjectMeta { uid: None, ..template });

    let api: Api<RootRule> = Api::namespaced(client.clone(), ns);
    create(&api, &RootRule::new("big-one", RootRuleSpec { replicas: 9 })).await.unwrap();
    let err =
        create(&api, &RootRule::new("a-name-longer-than-twenty", RootRuleSpec { replicas: 1 })).await.unwrap_err();
    assert!(err.to_string().contains("names are at most 20 characters"), "{err}");
    let err = create(&api, &RootRule::new("small", RootRuleSpec { replicas: 9 })).await.unwrap_err();
    assert!(
        err.to_string().contains("spec.replicas: Forbidden: only big- objects may have more than 5 replicas"),
        "{err}"
    );

    let api: Api<UntaggedIntOrString> = Api::namespaced(client.clone(), ns);
    let sent = UntaggedIntOrString::new(
        "ports",
        UntaggedIntOrStringSpec {
            port: PortRef::Number(80),
            ports: vec![PortRef::Name("http".into()), PortRef::Number(1)],
        },
    );
    let got = create(&api, &sent).await.unwrap();
    assert_eq!(spec_json(&got.spec), json!({"port": 80, "ports": ["http", 1]}));

    let api: Api<FreeForm> = Api::namespaced(client.clone(), ns);
    let config = json!({"a": [1, {"b": null, "c": "d"}], "e": true});
    let sent = FreeForm::new(
        "free",
        FreeFormSpec {
            config: config.clone(),
            items: vec![json!(1), json!("two"), json!({"three": 3})],
            values: [("k".to_string(), json!({"deep": [1, 2]}))].into(),
            maybe: Some(json!([])),
        },
    );
    let got = create(&api, &sent).await.unwrap();
    assert_eq!(got.spec.config, config, "free-form JSON is kept, not pruned");
    assert_eq!(spec_json(&got.spec), spec_json(&sent.spec));

    let api: Api<Recursive> = Api::namespaced(client.clone(), ns);
    let leaf = |name: &str, children| Node { name: name.into(), children };
    let sent = Recursive::new(
        "tree",
        RecursiveSpec { root: leaf("a", vec![leaf("b", vec![leaf("c", vec![leaf("d", vec![])])])]) },
    );
    let got = create(&api, &sent).await.unwrap();
    assert_eq!(spec_json(&got.spec), spec_json(&sent.spec), "levels below the recursion point are kept");

    let api: Api<Presence> = Api::namespaced(client.clone(), ns);
    let sent = Presence::new(
        "defaults",
        PresenceSpec {
            must: Some("m".into()),
            may: String::new(),
            can_be_null: None,
            replicas: None,
            policy: None,
            defaulted_slice: vec!["x".into()],
            leaf: None,
        },
    );
    let got = create(&api, &sent).await.unwrap();
    assert_eq!(got.spec.replicas, Some(3), "the server applies #[rop(default = 3)]");
    assert!(matches!(got.spec.policy, Some(Policy::Forbid)));
    assert_eq!(got.spec.leaf.as_ref().map(|l| l.foo.as_str()), Some("x"));

    let api: Api<Cel> = Api::namespaced(client.clone(), ns);
    let bounds = Bounds { min_replicas: 1, max_replicas: 2, schedule: None, interval: None };
    let spec = CelSpec {
        even: "good-1".into(),
        fixed: "a".into(),
        set_once: Some("s".into()),
        only_on_update: Some(0),
        image: Some("nginx".into()),
        image_ref: None,
        forbidden: None,
        bounds: bounds.clone(),
    };
    create(&api, &Cel::new("rules", spec.clone())).await.unwrap();
    let refuse = |patch: Value, expected: &'static str| {
        let api = api.clone();
        async move {
            let err = api.patch("rules", &PatchParams::default(), &Patch::Merge(&patch)).await.unwrap_err();
            assert!(err.to_string().contains(expected), "{patch}: {err}");
        }
    };
    refuse(json!({"spec": {"fixed": "b"}}), "field is immutable").await;
    refuse(json!({"spec": {"setOnce": null}}), "field setOnce is immutable once set").await;
    refuse(json!({"spec": {"imageRef": "r"}}), "exactly one of the fields in [image imageRef] must be set").await;
    refuse(json!({"spec": {"even": "good-12"}}), "must have even length").await;
    refuse(json!({"spec": {"bounds": {"minReplicas": 3}}}), "minReplicas must not exceed maxReplicas").await;
    refuse(json!({"spec": {"forbidden": 1}}), "forbidden is not allowed").await;
    let too_many = Cel::new("two", CelSpec { image_ref: Some("r".into()), ..spec.clone() });
    let err = create(&api, &too_many).await.unwrap_err();
    assert!(err.to_string().contains("exactly one of the fields"), "{err}");
    let api_ok =
        api.patch("rules", &PatchParams::default(), &Patch::Merge(&json!({"spec": {"onlyOnUpdate": 5}}))).await;
    assert!(api_ok.is_ok(), "optionalOldSelf lets an update set the field: {api_ok:?}");
}

#[test]
fn derived_crds_are_accepted_and_stored_unchanged() {
    let crds = all_crds();
    assert!(crds.len() >= 32, "{}", crds.len());
    let Some(env) = TestEnv::start_or_skip() else { return };
    env.block_on(async {
        let client = env.client();
        let api: Api<CustomResourceDefinition> = Api::all(client.clone());
        for crd in &crds {
            let name = crd.metadata.name.clone().unwrap();
            rop_testenv::install_crd(&client, crd).await.unwrap_or_else(|e| panic!("{name}: {e}"));
            let stored = api.get(&name).await.unwrap();
            assert_eq!(stored.spec.versions.len(), crd.spec.versions.len(), "{name}");
            for (stored, generated) in stored.spec.versions.iter().zip(&crd.spec.versions) {
                assert_eq!(stored.schema, generated.schema, "{name}: version {}", generated.name);
                assert_eq!(stored.selectable_fields, generated.selectable_fields, "{name}");
            }
        }
        objects(client.clone()).await;
        for crd in &crds {
            api.delete(crd.metadata.name.as_deref().unwrap(), &DeleteParams::default()).await.unwrap();
        }
    });
}
