// Copyright 2026 The Memcached Authors.
// SPDX-License-Identifier: Apache-2.0

//! The `Memcached` kind, version `v1alpha1` of `cache.example.com`: runs `memcached:1.6.26-alpine` as a
//! Deployment that each `Memcached` owns.

use rop::k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use rop::{CustomResource, JsonSchema};
use serde::{Deserialize, Serialize};

// Doc comments (`///`) become descriptions in the CRD. After editing, run `make manifests`.
// `storage` marks this version as the one the API server stores; a kind has exactly one.
// The controller applies a Deployment per object (`owns`: the watch, and RBAC on deployments).
/// MemcachedSpec defines the desired state of Memcached.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[rop(
    group = "cache.example.com",
    version = "v1alpha1",
    kind = "Memcached",
    plural = "memcacheds"
)]
#[rop(
    namespaced,
    storage,
    status = "MemcachedStatus",
    derive = "Default",
    derive = "PartialEq"
)]
#[rop(owns(rop::k8s_openapi::api::apps::v1::Deployment))]
#[rop(printcolumn(name = "Size", json_path = ".spec.size"))]
#[rop(printcolumn(
    name = "Available",
    type_ = "string",
    json_path = ".status.conditions[?(@.type==\"Available\")].status"
))]
#[serde(rename_all = "camelCase")]
pub struct MemcachedSpec {
    /// Number of replicas of the Memcached Deployment.
    // TODO(user): the bounds your workload supports; the API server refuses other values.
    #[schemars(range(min = 1, max = 10))]
    pub size: i32,
    /// Port the Memcached container listens on.
    #[serde(default = "default_container_port")]
    #[schemars(range(min = 1, max = 65535))]
    pub container_port: i32,
    // TODO(user): more fields of the desired state.
}

/// The port of `memcached:1.6.26-alpine`, used when `containerPort` is not set.
fn default_container_port() -> i32 {
    11211
}

/// MemcachedStatus defines the observed state of Memcached.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MemcachedStatus {
    /// Conditions of the Memcached: `Available` (enough replicas are ready), `Progressing`
    /// (the Deployment is being created or rolled out) and `Degraded` (reconciling failed).
    // A list keyed by `type`, as kubebuilder's `+listType=map` / `+listMapKey=type`: server-side
    // apply merges conditions by type instead of replacing the list.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[rop(list_type = "map", list_map_keys = ["type"])]
    pub conditions: Vec<Condition>,
    /// The `metadata.generation` this status was computed from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
}
