//! The example at the top of docs/markers.md compiles and gives the CRD the page describes.

use kube_core::CustomResourceExt;
use rop::{CustomResource, JsonSchema};
use serde::{Deserialize, Serialize};
use serde_json::json;

include!("../../testdata/derive/docs_example.rs");

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
