//! A printer column without `type_` takes the type of the field its plain JSON path names:
//! `integer`, `number`, `string`, `boolean`, and `date` for a `date-time` string.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use rop::{CustomResource, JsonSchema};
use serde::{Deserialize, Serialize};

/// A kind whose columns name fields of every scalar type.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[rop(group = "columns.example.com", version = "v1", kind = "Column", status = "ColumnStatus")]
#[rop(printcolumn(name = "Size", json_path = ".spec.size"))]
#[rop(printcolumn(name = "Ratio", json_path = ".spec.ratio"))]
#[rop(printcolumn(name = "Image", json_path = ".spec.image"))]
#[rop(printcolumn(name = "Paused", json_path = ".spec.paused"))]
#[rop(printcolumn(name = "Since", json_path = ".status.since"))]
#[rop(printcolumn(name = "Ready", json_path = ".status.readyReplicas"))]
#[rop(printcolumn(name = "Phase", type_ = "string", json_path = ".status.phase"))]
#[serde(rename_all = "camelCase")]
pub struct ColumnSpec {
    pub size: i32,
    pub ratio: f64,
    pub image: String,
    #[serde(default)]
    pub paused: bool,
}

/// What the controller saw.
#[derive(Serialize, Deserialize, Clone, Debug, Default, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ColumnStatus {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<Time>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ready_replicas: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
}

#[test]
fn a_column_without_a_type_takes_its_fields() {
    let crd = <Column as rop::CustomResource>::custom_resource_definition();
    let columns = crd.spec.versions[0].additional_printer_columns.clone().unwrap();
    let types: Vec<(&str, &str)> = columns.iter().map(|c| (c.name.as_str(), c.type_.as_str())).collect();
    assert_eq!(
        types,
        [
            ("Size", "integer"),
            ("Ratio", "number"),
            ("Image", "string"),
            ("Paused", "boolean"),
            ("Since", "date"),
            ("Ready", "integer"),
            ("Phase", "string"),
        ]
    );
}
