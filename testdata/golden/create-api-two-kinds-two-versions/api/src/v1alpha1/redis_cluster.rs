// Copyright 2026 The Memcached Authors.
// SPDX-License-Identifier: Apache-2.0

//! The `RedisCluster` kind, version `v1alpha1` of `cache.example.com`.

use rop::k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use rop::{CustomResource, JsonSchema};
use serde::{Deserialize, Serialize};

// Doc comments (`///`) become descriptions in the CRD. After editing, run `make manifests`.
// `storage` marks this version as the one the API server stores; a kind has exactly one.
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
#[serde(rename_all = "camelCase")]
pub struct RedisClusterSpec {
    // TODO(user): the fields of the desired state. This one is an example.
    /// Number of instances the operator should run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<i32>,
}

/// RedisClusterStatus defines the observed state of RedisCluster.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RedisClusterStatus {
    /// Conditions of the RedisCluster, such as `Available`, `Progressing` and `Degraded`.
    // A list keyed by `type`, as kubebuilder's `+listType=map` / `+listMapKey=type`: server-side
    // apply merges conditions by type instead of replacing the list.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[rop(list_type = "map", list_map_keys = ["type"])]
    pub conditions: Vec<Condition>,
    /// The `metadata.generation` this status was computed from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
}
