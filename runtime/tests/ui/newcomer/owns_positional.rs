use rop::{CustomResource, JsonSchema};
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[rop(group = "example.com", version = "v1", kind = "Website")]
#[rop(owns("apps", "v1", "Deployment"))]
pub struct WebsiteSpec {
    pub replicas: i32,
}

fn main() {}
