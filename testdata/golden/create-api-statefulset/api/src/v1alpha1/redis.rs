// Copyright 2026 The Memcached Authors.
// SPDX-License-Identifier: Apache-2.0

//! The `Redis` kind, version `v1alpha1` of `cache.example.com`: runs `redis:7.2-alpine` as a
//! StatefulSet that each `Redis` owns, with a headless Service, a PodDisruptionBudget and a
//! ConfigMap of its configuration files.

use std::collections::BTreeMap;

use rop::k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use rop::k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use rop::k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use rop::{CustomResource, JsonSchema};
use serde::{Deserialize, Serialize};

// Doc comments (`///`) become descriptions in the CRD. After editing, run `make manifests`.
// `storage` marks this version as the one the API server stores; a kind has exactly one.
// The controller applies the StatefulSet, its Service, PodDisruptionBudget and ConfigMap per
// object (`owns`: the watches, and RBAC on them), watches the Pods (a Pod that becomes ready
// moves the rollout on: `watches` gives it get, list and watch) and deletes them one at a time
// to update them: the `rbac` rule gives it that permission.
/// RedisSpec defines the desired state of Redis.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[rop(
    group = "cache.example.com",
    version = "v1alpha1",
    kind = "Redis",
    plural = "redises"
)]
#[rop(
    namespaced,
    storage,
    status = "RedisStatus",
    derive = "Default",
    derive = "PartialEq"
)]
#[rop(
    owns(rop::k8s_openapi::api::apps::v1::StatefulSet),
    owns(rop::k8s_openapi::api::core::v1::Service)
)]
#[rop(
    owns(rop::k8s_openapi::api::policy::v1::PodDisruptionBudget),
    owns(rop::k8s_openapi::api::core::v1::ConfigMap)
)]
#[rop(watches(rop::k8s_openapi::api::core::v1::Pod))]
#[rop(rbac(groups = [""], resources = ["pods"], verbs = ["delete"]))]
#[rop(root_validation(
    rule = "self.metadata.name.size() <= 52",
    message = "at most 52 characters: the StatefulSet's Pods carry the name and a revision hash in a 63-character label"
))]
#[rop(root_validation(
    rule = "self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')",
    message = "lower-case letters, digits and '-', starting with a letter: the name is also the headless Service's (a DNS-1035 label)"
))]
#[rop(root_validation(
    rule = "self.spec.storageSize == oldSelf.spec.storageSize && has(self.spec.storageClassName) == has(oldSelf.spec.storageClassName) && (!has(self.spec.storageClassName) || self.spec.storageClassName == oldSelf.spec.storageClassName)",
    message = "storageSize and storageClassName cannot change: a StatefulSet's volume claims are fixed when it is created",
    field_path = ".spec.storageSize"
))]
#[rop(root_validation(
    rule = "!has(self.spec.config) || self.spec.config.all(name, name.matches('^[-._a-zA-Z0-9]+$') && name != '.' && name != '..')",
    message = "config file names are letters, digits, '-', '_' and '.', and not . or .. (ConfigMap keys)",
    field_path = ".spec.config"
))]
#[rop(root_validation(
    rule = "!has(self.spec.minAvailable) || (type(self.spec.minAvailable) == int ? self.spec.minAvailable >= 0 && self.spec.minAvailable <= self.spec.replicas : self.spec.minAvailable.matches('^(100|[1-9]?[0-9])%$'))",
    message = "minAvailable is a number of replicas from 0 to replicas, or a percentage from \"0%\" to \"100%\"",
    field_path = ".spec.minAvailable"
))]
#[rop(printcolumn(name = "Replicas", json_path = ".spec.replicas"))]
#[rop(printcolumn(name = "Ready", json_path = ".status.readyReplicas"))]
#[rop(printcolumn(
    name = "Available",
    type_ = "string",
    json_path = ".status.conditions[?(@.type==\"Available\")].status"
))]
#[serde(rename_all = "camelCase")]
pub struct RedisSpec {
    /// Number of replicas: Pods `<name>-0` to `<name>-<replicas - 1>`, each with a volume.
    // TODO(user): the bounds your workload supports; the API server refuses other values.
    #[schemars(range(min = 1, max = 10))]
    pub replicas: i32,
    /// Port the Redis container listens on.
    #[serde(default = "default_container_port")]
    #[schemars(range(min = 1, max = 65535))]
    pub container_port: i32,
    /// Size of each replica's volume (its PersistentVolumeClaim), such as `1Gi`.
    #[serde(default = "default_storage_size")]
    pub storage_size: Quantity,
    /// StorageClass of the volumes; the cluster's default one when not set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage_class_name: Option<String>,
    /// Replicas that stay available through voluntary disruptions, a number or a percentage of
    /// `replicas` (`"50%"`, rounded up): the PodDisruptionBudget's `minAvailable`, which the
    /// rolling update keeps too. With `replicas` of 1 an update (or a node drain) needs 0.
    #[serde(default = "default_min_available")]
    pub min_available: IntOrString,
    /// Spread the replicas across zones (`topology.kubernetes.io/zone`): no zone runs two more
    /// than another, and a replica that would break that waits unscheduled. Nodes without that
    /// label (kind, minikube) then take no replica: set it false there.
    #[serde(default = "default_zone_spread")]
    pub zone_spread: bool,
    /// Configuration files by name, mounted at `/etc/redis`; a change rolls every replica.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub config: BTreeMap<String, String>,
    // TODO(user): more fields of the desired state.
}

/// The port of `redis:7.2-alpine`, used when `containerPort` is not set.
fn default_container_port() -> i32 {
    6379
}

/// `1Gi` per replica when `storageSize` is not set.
fn default_storage_size() -> Quantity {
    Quantity("1Gi".into())
}

/// At least one replica stays available when `minAvailable` is not set.
fn default_min_available() -> IntOrString {
    IntOrString::Int(1)
}

/// Replicas spread across zones unless `zoneSpread` is false.
fn default_zone_spread() -> bool {
    true
}

/// RedisStatus defines the observed state of Redis.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RedisStatus {
    /// Conditions of the Redis: `Available` (every replica is ready), `Progressing`
    /// (replicas are being created or updated; `False` with reason `RolloutBlocked` when the
    /// next update would break the disruption budget) and `Degraded` (reconciling failed).
    // A list keyed by `type`, as kubebuilder's `+listType=map` / `+listMapKey=type`: server-side
    // apply merges conditions by type instead of replacing the list.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[rop(list_type = "map", list_map_keys = ["type"])]
    pub conditions: Vec<Condition>,
    /// The `metadata.generation` this status was computed from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    /// Replicas whose Pod is ready.
    #[serde(default)]
    pub ready_replicas: i32,
    /// Replicas whose Pod runs the current template.
    #[serde(default)]
    pub updated_replicas: i32,
}
