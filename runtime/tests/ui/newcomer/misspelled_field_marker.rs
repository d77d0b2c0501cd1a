use rop::{CustomResource, JsonSchema};
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[rop(group = "example.com", version = "v1", kind = "Website")]
pub struct WebsiteSpec {
    #[rop(list_typ = "set")]
    pub tags: Vec<String>,
    #[rop(validaton(rule = "self > 0"))]
    pub replicas: i32,
    #[rop(colour = "red")]
    pub colour: String,
}

fn main() {}
