use rop::{CustomResource, JsonSchema};
use serde::{Deserialize, Serialize};

pub struct NotAKind;

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[rop(group = "example.com", version = "v1", kind = "Widget")]
// A built-in kind by strings: its plural would be a guess.
#[rop(watches(group = "", version = "v1", kind = "Endpoints"))]
pub struct WidgetSpec {
    pub color: String,
}

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[rop(group = "example.com", version = "v1", kind = "Gadget")]
// A type that is not a Kubernetes API type.
#[rop(owns(NotAKind))]
pub struct GadgetSpec {
    pub color: String,
}

fn main() {}
