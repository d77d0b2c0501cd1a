use rop::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[rop(group = "example.com", version = "v1", kind = "Widget")]
#[rop(selectable_field = "spec.color")]
#[rop(label("team"))]
#[rop(skip_version, skip_version)]
#[rop(root_validation(message = "no rule"))]
pub struct WidgetSpec {
    pub color: String,
}

fn main() {}
