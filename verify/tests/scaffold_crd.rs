//! The CRDs rop generates are accepted by a real API server, and their objects work there.
//!
//! Two kinds go through `rop::manifests` exactly as a project's `manifests` binary sends them
//! (`bundle` → `assemble`, i.e. what `rop generate` writes to `config/crd/bases/`): the
//! Memcached spec `rop create api` scaffolds, and a cluster-scoped kind with a scale
//! subresource. Each CRD is created, must become Established, then an object (for Memcached,
//! the scaffolded `config/samples/` file) is created, read back unchanged, its status written
//! through the status subresource, and everything is deleted again.

use std::time::{Duration, Instant};

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use kube::{Client, Resource};
use rop::CustomResource;
use rop_testenv::TestEnv;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// MemcachedSpec defines the desired state of Memcached.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[rop(group = "cache.example.com", version = "v1alpha1", kind = "Memcached", plural = "memcacheds")]
#[rop(namespaced, status = "MemcachedStatus", shortname = "mc", derive = "Default", derive = "PartialEq")]
#[rop(printcolumn(name = "Size", type_ = "integer", json_path = ".spec.size"))]
#[serde(rename_all = "camelCase")]
pub struct MemcachedSpec {
    /// Number of memcached instances.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<i32>,
}

/// MemcachedStatus defines the observed state of Memcached.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MemcachedStatus {
    /// Current conditions of the Memcached.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
    /// The generation the status was computed for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
}

/// A cluster-scoped kind with a scale subresource, a category and a second printer column.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[rop(group = "cache.example.com", version = "v1", kind = "CachePool", namespaced = false)]
#[rop(status = "CachePoolStatus", category = "caches", derive = "PartialEq")]
#[rop(scale(spec_replicas_path = ".spec.replicas", status_replicas_path = ".status.replicas"))]
#[rop(printcolumn(name = "Replicas", type_ = "integer", json_path = ".spec.replicas"))]
#[rop(printcolumn(name = "Tier", type_ = "string", json_path = ".spec.tier", priority = 1))]
#[serde(rename_all = "camelCase")]
pub struct CachePoolSpec {
    /// Desired number of cache servers.
    pub replicas: i32,
    /// The storage tier.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tier: Option<String>,
    /// Free-form labels for the pool.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub labels: std::collections::BTreeMap<String, String>,
}

/// CachePoolStatus is the observed state of a CachePool.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CachePoolStatus {
    /// Running cache servers.
    #[serde(default)]
    pub replicas: i32,
}

/// The generated CRDs, as `rop generate` writes them.
fn generated_crds() -> Vec<(String, CustomResourceDefinition)> {
    let bundle = rop::manifests::bundle(&[rop::manifests::kind::<Memcached>(), rop::manifests::kind::<CachePool>()]);
    let files = rop::manifests::assemble(&bundle, false).unwrap();
    let crds: Vec<_> = files
        .into_iter()
        .filter(|f| f.path.starts_with("config/crd/bases/"))
        .map(|f| {
            let crd: CustomResourceDefinition =
                serde_yaml::from_str(&f.content).unwrap_or_else(|e| panic!("{}: {e}", f.path));
            (f.path, crd)
        })
        .collect();
    assert_eq!(crds.len(), 2, "{:?}", crds.iter().map(|(p, _)| p).collect::<Vec<_>>());
    crds
}

/// The sample `rop create api` writes to `config/samples/` for a kind's first (storage)
/// version, rendered from its template.
fn memcached_sample() -> Memcached {
    let template =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../templates/api/config/samples/sample.yaml"))
            .expect("the sample template");
    let text = template
        .replace("{% if not storage %}-{{ version }}{% endif %}", "")
        .replace("{{ group }}", "cache.example.com")
        .replace("{{ version }}", "v1alpha1")
        .replace("{{ kind }}", "Memcached")
        .replace("{{ kind_lower }}", "memcached")
        .replace("{{ project_name }}", "memcached-operator");
    assert!(!text.contains("{{") && !text.contains("{%"), "unrendered placeholder in the sample template:\n{text}");
    serde_yaml::from_str(&text).unwrap_or_else(|e| panic!("{e}:\n{text}"))
}

/// Creates `obj`, retrying while the new resource is not served yet (Established comes a
/// moment before the handler).
async fn create_when_served<K>(api: &Api<K>, obj: &K) -> K
where
    K: Resource + Clone + Serialize + serde::de::DeserializeOwned + std::fmt::Debug,
{
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        match api.create(&PostParams::default(), obj).await {
            Ok(created) => return created,
            Err(kube::Error::Api(s)) if s.code == 404 && Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(e) => panic!("creating {obj:?}: {e}"),
        }
    }
}

async fn delete_crd(api: &Api<CustomResourceDefinition>, name: &str) {
    api.delete(name, &DeleteParams::default()).await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while api.get_opt(name).await.unwrap().is_some() {
        assert!(Instant::now() < deadline, "{name} was not deleted within 60s");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn memcached_round_trip(client: Client) {
    let api: Api<Memcached> = Api::namespaced(client, "default");
    let sample = memcached_sample();
    assert_eq!(sample.spec.size, Some(1));
    let created = create_when_served(&api, &sample).await;
    let name = created.metadata.name.clone().unwrap();
    assert_eq!(name, "memcached-sample");
    let got = api.get(&name).await.unwrap();
    assert_eq!(got.spec, sample.spec);
    assert_eq!(got.metadata.labels, sample.metadata.labels);
    assert_eq!(got.status, None);

    // The status subresource: a condition and observedGeneration round-trip.
    let condition = Condition {
        type_: "Available".into(),
        status: "True".into(),
        reason: "Reconciled".into(),
        message: "1 instance".into(),
        observed_generation: got.metadata.generation,
        last_transition_time: k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(
            k8s_openapi::jiff::Timestamp::from_second(1_700_000_000).unwrap(),
        ),
    };
    let status = MemcachedStatus { conditions: vec![condition], observed_generation: got.metadata.generation };
    let patch = serde_json::json!({ "status": status });
    let patched = api.patch_status(&name, &PatchParams::default(), &Patch::Merge(&patch)).await.unwrap();
    assert_eq!(patched.status.as_ref(), Some(&status));
    assert_eq!(api.get_status(&name).await.unwrap().status, Some(status));
    // Writing status did not touch the spec, and a spec change bumps the generation.
    let spec_patch = serde_json::json!({ "spec": { "size": 3 } });
    let bumped = api.patch(&name, &PatchParams::default(), &Patch::Merge(&spec_patch)).await.unwrap();
    assert_eq!(bumped.spec.size, Some(3));
    assert_eq!(bumped.metadata.generation, got.metadata.generation.map(|g| g + 1));

    api.delete(&name, &DeleteParams::default()).await.unwrap();
}

async fn cache_pool_round_trip(client: Client) {
    let api: Api<CachePool> = Api::all(client);
    let mut pool = CachePool::new(
        "pool-a",
        CachePoolSpec { replicas: 2, tier: Some("fast".into()), labels: [("team".into(), "a".into())].into() },
    );
    pool.metadata.labels = Some([("app".to_string(), "cache".to_string())].into());
    let created = create_when_served(&api, &pool).await;
    assert_eq!(created.metadata.namespace, None, "CachePool is cluster-scoped");
    assert_eq!(api.get("pool-a").await.unwrap().spec, pool.spec);

    // The scale subresource reads spec.replicas and writes it back.
    let scale = api.get_scale("pool-a").await.unwrap();
    assert_eq!(scale.spec.and_then(|s| s.replicas), Some(2));
    let patch = serde_json::json!({ "spec": { "replicas": 5 } });
    api.patch_scale("pool-a", &PatchParams::default(), &Patch::Merge(&patch)).await.unwrap();
    assert_eq!(api.get("pool-a").await.unwrap().spec.replicas, 5);

    api.delete("pool-a", &DeleteParams::default()).await.unwrap();
}

#[test]
fn generated_crds_are_accepted_and_serve_objects() {
    let crds = generated_crds();
    // The offline verdict first: rop generate refuses CRDs with errors.
    for (path, crd) in &crds {
        let errors: Vec<String> = rop_verify::verify_crd(&serde_json::to_value(crd).unwrap())
            .into_iter()
            .filter(|f| f.is_error())
            .map(|f| f.to_string())
            .collect();
        assert!(errors.is_empty(), "{path}: {errors:?}");
    }
    let Some(env) = TestEnv::start_or_skip() else { return };
    env.block_on(async {
        let client = env.client();
        let api: Api<CustomResourceDefinition> = Api::all(client.clone());
        for (path, crd) in &crds {
            let name = crd.metadata.name.clone().unwrap();
            rop_testenv::install_crd(&client, crd).await.unwrap_or_else(|e| panic!("{path}: {e}"));
            // The server stores what rop generated (nothing pruned or rewritten but defaults).
            let stored = api.get(&name).await.unwrap();
            assert_eq!(stored.spec.names, crd.spec.names, "{path}");
            assert_eq!(stored.spec.versions.len(), crd.spec.versions.len(), "{path}");
            for (stored, generated) in stored.spec.versions.iter().zip(&crd.spec.versions) {
                assert_eq!(stored.schema, generated.schema, "{path}: version {}", generated.name);
                assert_eq!(stored.subresources, generated.subresources, "{path}: version {}", generated.name);
            }
        }
        memcached_round_trip(client.clone()).await;
        cache_pool_round_trip(client.clone()).await;
        for (_, crd) in &crds {
            delete_crd(&api, crd.metadata.name.as_deref().unwrap()).await;
        }
    });
}
