use rop::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, JsonSchema)]
pub struct Spec {
    #[rop(optional)]
    pub may: String,
    // Optional for serde too: no error.
    #[rop(optional)]
    #[serde(default)]
    pub defaulted: String,
    #[rop(optional)]
    pub maybe: Option<String>,
    #[rop(optional)]
    #[serde(default = "three")]
    pub counted: i32,
}

#[derive(Serialize, Deserialize, JsonSchema, Default)]
#[serde(default)]
pub struct AllDefaulted {
    #[rop(optional)]
    pub may: String,
}

fn three() -> i32 {
    3
}

fn main() {}
