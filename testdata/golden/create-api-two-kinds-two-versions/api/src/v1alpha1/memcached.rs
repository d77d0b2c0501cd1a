// Copyright 2026 The Memcached Authors.
// SPDX-License-Identifier: Apache-2.0

//! The `Memcached` kind, version `v1alpha1` of `cache.example.com`.

use rop::k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use rop::{CustomResource, JsonSchema};
use serde::{Deserialize, Serialize};

// Doc comments (`///`) become descriptions in the CRD. After editing, run `make manifests`.
// `storage` marks this version as the one the API server stores; a kind has exactly one.
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
#[serde(rename_all = "camelCase")]
pub struct MemcachedSpec {
    // TODO(user): the fields of the desired state. This one is an example.
    /// Number of instances the operator should run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<i32>,
}

/// MemcachedStatus defines the observed state of Memcached.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MemcachedStatus {
    /// Conditions of the Memcached, such as `Available`, `Progressing` and `Degraded`.
    // A list keyed by `type`, as kubebuilder's `+listType=map` / `+listMapKey=type`: server-side
    // apply merges conditions by type instead of replacing the list.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[rop(list_type = "map", list_map_keys = ["type"])]
    pub conditions: Vec<Condition>,
    /// The `metadata.generation` this status was computed from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
}
