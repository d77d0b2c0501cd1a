//! The `Tenant` kind, version `v1` of `tenancy.example.com`: a team's share of the cluster.
//! The storage version and the hub: `v1alpha1` converts to and from it.

use rop::k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use rop::{CustomResource, JsonSchema};
use serde::{Deserialize, Serialize};

// ANCHOR: spec
/// TenantSpec defines the desired state of Tenant.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[rop(
    group = "tenancy.example.com",
    version = "v1",
    kind = "Tenant",
    plural = "tenants"
)]
#[rop(
    namespaced = false,
    storage,
    status = "TenantStatus",
    derive = "Default",
    derive = "PartialEq"
)]
// ANCHOR: owns
// What the controller creates for each Tenant: the watches and the RBAC come from these lines.
#[rop(owns(rop::k8s_openapi::api::core::v1::ResourceQuota))]
#[rop(owns(rop::k8s_openapi::api::rbac::v1::RoleBinding))]
// ANCHOR_END: owns
// The controller's cleanup (src/controller/tenant.rs) holds each Tenant until its quotas and
// bindings are gone: `tenancy.example.com/finalizer`.
#[rop(finalizer)]
// ANCHOR: rbac
// Binding a role needs the permissions it grants, or `bind` on that role.
#[rop(rbac(groups = ["rbac.authorization.k8s.io"], resources = ["clusterroles"], resource_names = ["admin"], verbs = ["bind"]))]
// ANCHOR_END: rbac
// The validating webhook (src/webhook/tenant_v1.rs) lists the Tenants to refuse a namespace
// another Tenant has: the controller's rules on its own kind already allow that list.
#[rop(webhook(validating))]
#[serde(rename_all = "camelCase")]
pub struct TenantSpec {
    /// The namespaces of the tenant (created by the platform team; the tenant gets a quota and
    /// its admins in each).
    #[schemars(length(min = 1, max = 32))]
    pub namespaces: Vec<String>,
    /// Users who administer the tenant's namespaces.
    #[serde(default)]
    pub admins: Vec<String>,
    /// The resources each of the tenant's namespaces may use at most.
    #[serde(default)]
    pub quota: Quota,
}

/// Hard limits of a tenant's namespace.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Quota {
    /// CPU requests, in cores (a Kubernetes quantity, e.g. `8` or `500m`).
    #[schemars(regex(pattern = r"^[0-9]+(\.[0-9]+)?m?$"))]
    pub cpu: String,
    /// Memory requests (a Kubernetes quantity, e.g. `16Gi`).
    #[schemars(regex(pattern = r"^[0-9]+(Ki|Mi|Gi|Ti)?$"))]
    pub memory: String,
    /// Number of Pods.
    #[schemars(range(min = 0, max = 10000))]
    pub pods: i32,
}

impl Default for Quota {
    fn default() -> Self {
        Self {
            cpu: "4".into(),
            memory: "8Gi".into(),
            pods: 20,
        }
    }
}
// ANCHOR_END: spec

// ANCHOR: status
/// TenantStatus defines the observed state of Tenant.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TenantStatus {
    /// Conditions of the Tenant: `Ready` once every namespace has its quota and admins.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[rop(list_type = "map", list_map_keys = ["type"])]
    pub conditions: Vec<Condition>,
    /// The `metadata.generation` this status was computed from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
}
// ANCHOR_END: status
