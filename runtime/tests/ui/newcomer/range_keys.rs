use rop::{CustomResource, JsonSchema};
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[rop(group = "example.com", version = "v1", kind = "Website")]
pub struct WebsiteSpec {
    #[rop(minimum = 1, maximum = 10)]
    pub replicas: i32,
}

fn main() {}
