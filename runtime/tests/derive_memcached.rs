//! The derive on the spec `rop create api` scaffolds, checked against the exact CRD and RBAC.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube_core::{CustomResourceExt, Resource};
use rop::CustomResource;
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
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["type"]))]
    pub conditions: Vec<Condition>,
    /// The generation the status was computed for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
}

fn golden(name: &str) -> String {
    std::fs::read_to_string(format!("{}/tests/golden/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn check_golden(name: &str, actual: &str) {
    let path = format!("{}/tests/golden/{name}", env!("CARGO_MANIFEST_DIR"));
    if std::env::var_os("ROP_BLESS").is_some() {
        std::fs::create_dir_all(std::path::Path::new(&path).parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
    }
    pretty_assertions::assert_eq!(golden(name), actual);
}

#[test]
fn resource_facts() {
    assert_eq!(Memcached::kind(&()), "Memcached");
    assert_eq!(Memcached::api_version(&()), "cache.example.com/v1alpha1");
    assert_eq!(Memcached::plural(&()), "memcacheds");
    assert_eq!(Memcached::crd_name(), "memcacheds.cache.example.com");
    assert_eq!(Memcached::shortnames(), &["mc"]);
    assert_eq!(<Memcached as rop::ControllerTarget>::CONTROLLER.finalizer, "cache.example.com/finalizer");
}

#[test]
fn serialises_with_api_version_and_kind() {
    let obj = Memcached::new("sample", MemcachedSpec { size: Some(3) });
    let json = serde_json::to_value(&obj).unwrap();
    assert_eq!(
        json,
        serde_json::json!({
            "apiVersion": "cache.example.com/v1alpha1",
            "kind": "Memcached",
            "metadata": {"name": "sample"},
            "spec": {"size": 3}
        })
    );
    let back: Memcached = serde_json::from_value(json).unwrap();
    assert_eq!(back, obj);
}

#[test]
fn crd_matches_golden() {
    check_golden("cache.example.com_memcacheds.yaml", &rop::yaml::document(&Memcached::crd()).unwrap());
}

#[test]
fn manifests_match_golden() {
    let bundle = rop::manifests::bundle(&[rop::manifests::kind::<Memcached>()]);
    let files = rop::manifests::assemble(&bundle, false).unwrap();
    let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["config/crd/bases/cache.example.com_memcacheds.yaml", "config/rbac/role.yaml"]);
    check_golden("role.yaml", &files[1].content);
    check_golden("cache.example.com_memcacheds.yaml", &files[0].content);
}

#[test]
fn a_namespaced_manager_gets_a_role() {
    let bundle = rop::manifests::bundle(&[rop::manifests::kind::<Memcached>()]);
    let files = rop::manifests::assemble(&bundle, true).unwrap();
    let role = &files[1].content;
    assert!(
        role.starts_with(
            "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: manager-role\nrules:\n"
        ),
        "{role}"
    );
    assert_eq!(role.replace("kind: Role\n", "kind: ClusterRole\n"), golden("role.yaml"));
}
