//! The `Tenant` kind, version `v1alpha1` of `tenancy.example.com`: the first shape of the API,
//! still served. A v1alpha1 Tenant has one admin and its quota's limits as fields of the spec;
//! v1, the storage version, has a list of admins and a `quota`. `tenant_conversion.rs`
//! converts between the two.

use rop::k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use rop::{CustomResource, JsonSchema};
use serde::{Deserialize, Serialize};

use crate::v1::Quota;

/// TenantSpec defines the desired state of Tenant.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
#[rop(
    group = "tenancy.example.com",
    version = "v1alpha1",
    kind = "Tenant",
    plural = "tenants"
)]
#[rop(
    namespaced = false,
    status = "TenantStatus",
    derive = "Default",
    derive = "PartialEq"
)]
#[serde(rename_all = "camelCase")]
pub struct TenantSpec {
    /// The namespaces of the tenant (created by the platform team; the tenant gets a quota and
    /// its admin in each).
    #[schemars(length(min = 1, max = 32))]
    pub namespaces: Vec<String>,
    /// The user who administers the tenant's namespaces.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub admin: Option<String>,
    /// CPU requests each namespace may use at most, in cores (a Kubernetes quantity, e.g. `8`
    /// or `500m`).
    #[serde(default = "default_cpu")]
    #[schemars(regex(pattern = r"^[0-9]+(\.[0-9]+)?m?$"))]
    pub cpu: String,
    /// Memory requests each namespace may use at most (a Kubernetes quantity, e.g. `16Gi`).
    #[serde(default = "default_memory")]
    #[schemars(regex(pattern = r"^[0-9]+(Ki|Mi|Gi|Ti)?$"))]
    pub memory: String,
    /// Number of Pods each namespace may run at most.
    #[serde(default = "default_pods")]
    #[schemars(range(min = 0, max = 10000))]
    pub pods: i32,
}

// The defaults are v1's, so that a field left out means the same in both versions.
fn default_cpu() -> String {
    Quota::default().cpu
}

fn default_memory() -> String {
    Quota::default().memory
}

fn default_pods() -> i32 {
    Quota::default().pods
}

impl Default for TenantSpec {
    fn default() -> Self {
        Self {
            namespaces: Vec::new(),
            admin: None,
            cpu: default_cpu(),
            memory: default_memory(),
            pods: default_pods(),
        }
    }
}

/// TenantStatus defines the observed state of Tenant.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TenantStatus {
    /// Conditions of the Tenant: `Ready` once every namespace has its quota and admin.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[rop(list_type = "map", list_map_keys = ["type"])]
    pub conditions: Vec<Condition>,
    /// The `metadata.generation` this status was computed from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
}
