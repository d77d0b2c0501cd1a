//! RBAC from `#[rop(rbac(...))]`, `owns(...)` and `watches(...)`: the 41 `+kubebuilder:rbac`
//! markers of controller-tools' RBAC testdata, written as rop attributes, give exactly
//! controller-gen's golden `role.yaml`; owned and watched kinds give the rules their watches need.

use rop::CustomResource;
use rop::rbac::{Rule, roles};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A kind carrying controller-tools' RBAC test markers as attributes.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, JsonSchema)]
#[rop(group = "testdata.kubebuilder.io", version = "v1", kind = "CronJob")]
#[rop(rbac(groups = ["batch.io"], resources = ["cronjobs"], verbs = ["get", "watch", "create"]))]
#[rop(rbac(groups = ["batch.io"], resources = ["cronjobs/status"], verbs = ["get", "update", "patch"]))]
#[rop(rbac(groups = ["art"], resources = ["jobs"], verbs = ["get"]))]
#[rop(rbac(groups = ["wave"], resources = ["jobs"], verbs = ["get"], namespace = "zoo"))]
#[rop(rbac(groups = ["batch", "batch", "batch"], resources = ["jobs/status"], verbs = ["watch"]))]
#[rop(rbac(groups = ["batch", "cron"], resources = ["jobs/status"], verbs = ["create", "get"]))]
#[rop(rbac(groups = ["art"], resources = ["jobs"], verbs = ["get"], namespace = "zoo"))]
#[rop(rbac(groups = ["cron", "batch"], resources = ["jobs/status"], verbs = ["get", "create"]))]
#[rop(rbac(groups = ["batch"], resources = ["jobs/status"], verbs = ["watch", "watch"]))]
#[rop(rbac(groups = ["art"], resources = ["jobs"], verbs = ["get"], namespace = "park"))]
#[rop(rbac(groups = ["batch.io"], resources = ["cronjobs"], resource_names = ["foo", "bar", "baz"], verbs = ["get", "watch"]))]
#[rop(rbac(groups = ["deduplicate-verbs"], resources = ["some"], verbs = ["get", "list"]))]
#[rop(rbac(groups = ["deduplicate-verbs"], resources = ["some"], verbs = ["get"]))]
#[rop(rbac(groups = ["deduplicate-verbs"], resources = ["some"], verbs = ["list"]))]
#[rop(rbac(groups = ["deduplicate-resources"], resources = ["one"], verbs = ["create"]))]
#[rop(rbac(groups = ["deduplicate-resources"], resources = ["two"], verbs = ["create"]))]
#[rop(rbac(groups = ["deduplicate-resources"], resources = ["three"], verbs = ["create"]))]
#[rop(rbac(groups = ["deduplicate-groups1"], resources = ["foo"], verbs = ["patch"]))]
#[rop(rbac(groups = ["deduplicate-groups2"], resources = ["foo"], verbs = ["patch"]))]
#[rop(rbac(groups = ["deduplicate-groups3"], resources = ["foo"], verbs = ["patch"]))]
#[rop(rbac(groups = ["deduplicate-all"], resources = ["foo", "bar"], verbs = ["get", "list"]))]
#[rop(rbac(groups = ["deduplicate-all"], resources = ["foo"], verbs = ["get"]))]
#[rop(rbac(groups = ["deduplicate-all"], resources = ["bar"], verbs = ["list"]))]
#[rop(rbac(groups = ["deduplicate-groups4"], resources = ["xyz"], verbs = ["get", "update", "patch"]))]
#[rop(rbac(groups = ["deduplicate-groups4"], resources = ["xyz"], verbs = ["*"]))]
#[rop(rbac(groups = ["deduplicate-all-group"], resources = ["foo", "bar"], verbs = ["get", "list"]))]
#[rop(rbac(groups = ["not-deduplicate-resources"], resources = ["some"], verbs = ["get"]))]
#[rop(rbac(groups = ["not-deduplicate-resources"], resources = ["another"], verbs = ["list"]))]
#[rop(rbac(groups = ["not-deduplicate-groups1"], resources = ["some"], verbs = ["get"]))]
#[rop(rbac(groups = ["not-deduplicate-groups2"], resources = ["some"], verbs = ["list"]))]
#[rop(rbac(urls = ["/url-to-duplicate"], verbs = ["get"]))]
#[rop(rbac(urls = ["/another/url-to-duplicate"], verbs = ["get"]))]
#[rop(rbac(groups = ["core"], resources = ["deduplicate"], verbs = ["list"]))]
#[rop(rbac(groups = [""], resources = ["me"], verbs = ["list"]))]
#[rop(rbac(groups = ["core", "", "some-other-to-deduplicate-with-core"], resources = ["me"], verbs = ["list", "get"]))]
#[rop(rbac(groups = ["deduplicate-groups5"], resources = ["abc"], verbs = ["get", "update", "patch", "create"], namespace = "here"))]
#[rop(rbac(groups = ["deduplicate-groups5"], resources = ["abc"], verbs = ["*"], namespace = "here"))]
#[rop(rbac(groups = ["apps"], namespace = "infrastructure", role_name = "infra-deployment-manager", resources = ["deployments"], verbs = ["get", "list", "watch", "update", "patch"]))]
#[rop(rbac(groups = [""], namespace = "users", role_name = "user-secrets-reader", resources = ["secrets"], verbs = ["get", "list", "watch"]))]
#[rop(rbac(groups = ["apps"], namespace = "infrastructure", role_name = "infra-deployment-manager", resources = ["statefulsets"], verbs = ["get", "list"]))]
#[rop(rbac(groups = ["monitoring"], namespace = "observability", resources = ["prometheuses"], verbs = ["get", "list"]))]
pub struct CronJobSpec {
    pub schedule: String,
}

/// A kind whose controller owns Deployments and watches ConfigMaps, Endpoints (built-in kinds,
/// by type) and Gateways (another project's custom kind, by name).
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, JsonSchema)]
#[rop(group = "cache.example.com", version = "v1alpha1", kind = "Memcached", status = "MemcachedStatus")]
#[rop(
    owns(k8s_openapi::api::apps::v1::Deployment),
    watches(k8s_openapi::api::core::v1::ConfigMap),
    watches(k8s_openapi::api::core::v1::Endpoints),
    watches(group = "gateway.networking.k8s.io", version = "v1", kind = "Gateway")
)]
#[rop(rbac(groups = [""], resources = ["events"], verbs = ["create", "patch"]))]
pub struct MemcachedSpec {
    pub size: i32,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, JsonSchema)]
pub struct MemcachedStatus {
    pub ready: bool,
}

/// A CRD of another project, as `rop import crd --types-only` writes its type.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, JsonSchema)]
#[rop(group = "snapshot.storage.k8s.io", version = "v1", kind = "VolumeSnapshot", namespaced)]
pub struct VolumeSnapshotSpec {
    pub source: String,
}

/// A kind whose controller owns an imported kind and watches one of the project's own, both
/// named by type.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, JsonSchema)]
#[rop(group = "db.example.com", version = "v1alpha1", kind = "Backup", namespaced)]
#[rop(owns(VolumeSnapshot), watches(Memcached))]
pub struct BackupSpec {
    pub database: String,
}

fn shared(path: &str) -> Option<String> {
    std::fs::read_to_string(format!("{}/../../shared/testdata/{path}", env!("CARGO_MANIFEST_DIR"))).ok()
}

fn parse(text: &str) -> Vec<serde_yaml::Value> {
    serde_yaml::Deserializer::from_str(text).map(|d| serde::Deserialize::deserialize(d).unwrap()).collect()
}

#[test]
fn attributes_reproduce_controller_gen_role_yaml() {
    let Some(golden) = shared("controller-gen/rbac_role.yaml") else {
        eprintln!("skipped: ../shared/testdata/controller-gen is not beside the checkout");
        return;
    };
    let def = CronJob::DEFINITION;
    assert_eq!(def.rbac.len(), 41);
    let rules: Vec<Rule> = def.rbac.iter().map(Rule::from_attribute).collect();
    let objects: Vec<_> = roles(&rules, "manager-role").iter().map(|r| r.to_object()).collect();
    let ours = parse(&rop::yaml::documents(&objects).unwrap());
    let golden = parse(&golden);
    assert_eq!(ours.len(), golden.len(), "number of roles");
    for (i, (o, g)) in ours.iter().zip(&golden).enumerate() {
        pretty_assertions::assert_eq!(o, g, "document {i}");
    }
}

#[test]
fn owned_and_watched_kinds_get_the_rules_their_watches_need() {
    let def = Memcached::DEFINITION;
    assert_eq!(def.owns[0].api_version(), "apps/v1");
    assert_eq!(def.owns[0].plural, "deployments");
    assert_eq!(def.watches[0].api_version(), "v1");
    assert_eq!(def.watches[0].plural, "configmaps");
    // The type knows the plural: no guess of `endpointses`.
    assert_eq!((def.watches[1].group, def.watches[1].kind, def.watches[1].plural), ("", "Endpoints", "endpoints"));
    let objects: Vec<_> = roles(&Memcached::rbac_rules(), "manager-role").iter().map(|r| r.to_object()).collect();
    assert_eq!(
        rop::yaml::documents(&objects).unwrap(),
        "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: manager-role\nrules:\n- apiGroups:\n  - \"\"\n  resources:\n  - configmaps\n  - endpoints\n  verbs:\n  - get\n  - list\n  - watch\n- apiGroups:\n  - \"\"\n  resources:\n  - events\n  verbs:\n  - create\n  - patch\n- apiGroups:\n  - apps\n  resources:\n  - deployments\n  verbs:\n  - create\n  - delete\n  - get\n  - list\n  - patch\n  - update\n  - watch\n- apiGroups:\n  - cache.example.com\n  resources:\n  - memcacheds\n  verbs:\n  - create\n  - delete\n  - get\n  - list\n  - patch\n  - update\n  - watch\n- apiGroups:\n  - cache.example.com\n  resources:\n  - memcacheds/finalizers\n  verbs:\n  - update\n- apiGroups:\n  - cache.example.com\n  resources:\n  - memcacheds/status\n  verbs:\n  - get\n  - patch\n  - update\n- apiGroups:\n  - gateway.networking.k8s.io\n  resources:\n  - gateways\n  verbs:\n  - get\n  - list\n  - watch\n"
    );
}

#[test]
fn custom_kinds_are_named_by_type_in_owns_and_watches() {
    let def = Backup::DEFINITION;
    let named = |k: &rop::RelatedKind| (k.group, k.version, k.kind, k.plural);
    assert_eq!(named(&def.owns[0]), ("snapshot.storage.k8s.io", "v1", "VolumeSnapshot", "volumesnapshots"));
    assert_eq!(named(&def.watches[0]), ("cache.example.com", "v1alpha1", "Memcached", "memcacheds"));
}
