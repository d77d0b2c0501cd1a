use rop::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[rop(group = "example.com", version = "v1", kind = "Widget")]
pub struct WidgetSpec {
    #[rop(list_type = "set")]
    pub tags: Vec<String>,
}

fn main() {}
