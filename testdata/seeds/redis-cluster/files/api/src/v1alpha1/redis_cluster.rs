//! The `RedisCluster` kind, version `v1alpha1` of `cache.example.com`: a number of Redis
//! replicas the operator keeps running.

use rop::k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use rop::{CustomResource, JsonSchema};
use serde::{Deserialize, Serialize};

/// RedisClusterSpec defines the desired state of RedisCluster.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[rop(
    group = "cache.example.com",
    version = "v1alpha1",
    kind = "RedisCluster",
    plural = "redisclusters"
)]
#[rop(
    namespaced,
    storage,
    status = "RedisClusterStatus",
    derive = "Default",
    derive = "PartialEq"
)]
// The controller creates the Pods itself: it owns them (watch + RBAC from this one line).
#[rop(owns(rop::k8s_openapi::api::core::v1::Pod))]
#[rop(printcolumn(name = "Ready", type_ = "integer", json_path = ".status.readyReplicas"))]
#[serde(rename_all = "camelCase")]
pub struct RedisClusterSpec {
    /// Number of Redis replicas.
    #[schemars(range(min = 1, max = 16))]
    pub replicas: i32,
    /// The Redis image.
    #[serde(default = "default_image")]
    pub image: String,
}

fn default_image() -> String {
    "redis:7.2-alpine".into()
}

/// RedisClusterStatus defines the observed state of RedisCluster.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RedisClusterStatus {
    /// Conditions of the RedisCluster: `Available` once every replica is ready.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[rop(list_type = "map", list_map_keys = ["type"])]
    pub conditions: Vec<Condition>,
    /// Replicas whose Pod is running and ready.
    #[serde(default)]
    pub ready_replicas: i32,
    /// The `metadata.generation` this status was computed from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
}
