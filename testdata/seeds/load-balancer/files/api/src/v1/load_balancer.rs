//! The `LoadBalancer` kind, version `v1` of `network.example.com`: a port and the backends
//! behind it, validated by the API server before any controller sees them.

use rop::k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use rop::{CustomResource, JsonSchema};
use serde::{Deserialize, Serialize};

/// LoadBalancerSpec defines the desired state of LoadBalancer.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[rop(
    group = "network.example.com",
    version = "v1",
    kind = "LoadBalancer",
    plural = "loadbalancers"
)]
#[rop(
    namespaced,
    storage,
    status = "LoadBalancerStatus",
    derive = "Default",
    derive = "PartialEq"
)]
#[rop(
    shortname = "lb",
    printcolumn(name = "Port", type_ = "integer", json_path = ".spec.port")
)]
#[serde(rename_all = "camelCase")]
pub struct LoadBalancerSpec {
    /// The port clients connect to.
    #[schemars(range(min = 1, max = 65535))]
    pub port: i32,
    /// The backends traffic is spread over, as `host:port`.
    #[schemars(length(min = 1, max = 64))]
    pub backends: Vec<String>,
    /// How a backend is chosen for a new connection: `RoundRobin` (each in turn, the default)
    /// or `LeastConnections` (the one with the fewest open connections).
    #[serde(default)]
    pub algorithm: Algorithm,
}

/// How a backend is chosen for a new connection.
// The variants carry `//` comments, not `///`: schemars turns documented variants into a
// `oneOf` of constants, which is not a structural schema; undocumented ones give `enum`.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq, JsonSchema)]
pub enum Algorithm {
    // Each backend in turn.
    #[default]
    RoundRobin,
    // The backend with the fewest open connections.
    LeastConnections,
}

/// LoadBalancerStatus defines the observed state of LoadBalancer.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LoadBalancerStatus {
    /// Conditions of the LoadBalancer, such as `Available`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[rop(list_type = "map", list_map_keys = ["type"])]
    pub conditions: Vec<Condition>,
    /// The `metadata.generation` this status was computed from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
}
