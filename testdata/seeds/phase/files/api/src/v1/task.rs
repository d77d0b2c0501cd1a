//! The `Task` kind, version `v1` of `ops.example.com`: a command run once, to completion.

use rop::k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use rop::{CustomResource, JsonSchema};
use serde::{Deserialize, Serialize};

/// TaskSpec defines the desired state of Task.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[rop(
    group = "ops.example.com",
    version = "v1",
    kind = "Task",
    plural = "tasks"
)]
#[rop(
    namespaced,
    storage,
    status = "TaskStatus",
    derive = "Default",
    derive = "PartialEq"
)]
#[rop(owns(rop::k8s_openapi::api::core::v1::Pod))]
#[rop(printcolumn(name = "Phase", type_ = "string", json_path = ".status.phase"))]
#[serde(rename_all = "camelCase")]
pub struct TaskSpec {
    /// The image to run.
    #[schemars(length(min = 1))]
    pub image: String,
    /// The command, one element per argument.
    #[serde(default)]
    pub command: Vec<String>,
}

/// Where a Task is in its life: `Pending` (its Pod is not running yet), `Running`,
/// `Succeeded` or `Failed`. The last two are final.
// The variants carry `//` comments, not `///`, so schemars gives a structural `enum`.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq, JsonSchema)]
pub enum Phase {
    // Accepted; its Pod is not running yet.
    #[default]
    Pending,
    // Its Pod runs.
    Running,
    // Its command exited with 0.
    Succeeded,
    // Its command failed, or its Pod was lost while running.
    Failed,
}

impl Phase {
    /// Whether the Task stays in this phase for good.
    pub fn is_final(self) -> bool {
        matches!(self, Phase::Succeeded | Phase::Failed)
    }
}

/// TaskStatus defines the observed state of Task.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TaskStatus {
    /// The phase of the Task.
    #[serde(default)]
    pub phase: Phase,
    /// Conditions of the Task: `Started`, `Complete` and `Failed`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[rop(list_type = "map", list_map_keys = ["type"])]
    pub conditions: Vec<Condition>,
    /// The `metadata.generation` this status was computed from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
}
