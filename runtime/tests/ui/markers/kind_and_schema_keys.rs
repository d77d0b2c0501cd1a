use rop::{CustomResource, JsonSchema};
use serde::{Deserialize, Serialize};

// Kind-level keys and type-level schema markers share #[rop(...)] on a spec; a key that is
// neither is reported once.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[rop(group = "example.com", version = "v1", kind = "Widget", min_properties = 1)]
#[rop(shortnam = "w")]
pub struct WidgetSpec {
    pub size: Option<i32>,
}

fn main() {}
