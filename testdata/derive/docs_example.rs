// The example at the top of docs/markers.md, as written there. Included by
// runtime/tests/derive_docs_example.rs (the CRD the page describes) and
// verify/tests/derive_crds.rs (which verifies it); the includer brings `rop::{CustomResource,
// JsonSchema}` and serde's derives into scope.

/// CronJobSpec defines the desired state of CronJob.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[rop(group = "batch.example.com", version = "v1", kind = "CronJob", status = "CronJobStatus")]
#[rop(validation(rule = "!has(self.minReplicas) || self.minReplicas <= self.maxReplicas", message = "min above max"))]
#[rop(exactly_one_of(image, image_ref))]
#[serde(rename_all = "camelCase")]
pub struct CronJobSpec {
    /// The schedule in Cron format.
    #[schemars(length(min = 1), regex(pattern = r"^(\S+ ){4}\S+$"))]
    pub schedule: String,
    #[schemars(range(min = 0, max = 10))]
    #[rop(default = 1)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_replicas: Option<i32>,
    pub max_replicas: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_ref: Option<String>,
    #[rop(list_type = "map", list_map_keys = ["name"])]
    pub ports: Vec<Port>,
    #[rop(immutable)]
    pub storage_class: String,
}

/// A named port.
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
pub struct Port {
    pub name: String,
    pub port: i32,
}

/// CronJobStatus defines the observed state of CronJob.
#[derive(Serialize, Deserialize, Clone, Debug, Default, JsonSchema)]
pub struct CronJobStatus {}
