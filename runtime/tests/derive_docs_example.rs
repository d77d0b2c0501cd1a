//! The example at the top of docs/markers.md compiles and gives the CRD the page describes.

use kube_core::CustomResourceExt;
use rop::{CustomResource, JsonSchema};
use serde::{Deserialize, Serialize};
use serde_json::json;

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
    pub min_replicas: Option<i32>,
    pub max_replicas: i32,
    pub image: Option<String>,
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

#[test]
fn the_documented_example() {
    let crd = serde_json::to_value(CronJob::crd()).unwrap();
    let spec = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"];
    assert_eq!(
        spec["x-kubernetes-validations"],
        json!([
            {"message": "min above max", "rule": "!has(self.minReplicas) || self.minReplicas <= self.maxReplicas"},
            {"message": "exactly one of the fields in [image imageRef] must be set",
             "rule": "(has(self.image)?1:0)+(has(self.imageRef)?1:0) == 1"},
        ])
    );
    assert_eq!(
        spec["properties"]["schedule"],
        json!({"description": "The schedule in Cron format.", "minLength": 1, "pattern": r"^(\S+ ){4}\S+$", "type": "string"})
    );
    assert_eq!(
        spec["properties"]["minReplicas"],
        // JSONSchemaProps holds bounds as f64 (the YAML writer prints them without a fraction).
        json!({"default": 1, "format": "int32", "maximum": 10.0, "minimum": 0.0, "type": "integer"})
    );
    assert_eq!(spec["properties"]["ports"]["x-kubernetes-list-type"], "map");
    assert_eq!(spec["properties"]["ports"]["x-kubernetes-list-map-keys"], json!(["name"]));
    assert_eq!(
        spec["properties"]["storageClass"]["x-kubernetes-validations"],
        json!([{"message": "field is immutable", "rule": "self == oldSelf"}])
    );
    assert_eq!(spec["required"], json!(["maxReplicas", "ports", "schedule", "storageClass"]));
}

#[test]
fn the_documented_example_passes_verify() {
    let findings = rop_verify::verify_crd(&serde_json::to_value(CronJob::crd()).unwrap());
    let errors: Vec<String> = findings.iter().filter(|f| f.is_error()).map(ToString::to_string).collect();
    assert!(errors.is_empty(), "{errors:?}");
}
