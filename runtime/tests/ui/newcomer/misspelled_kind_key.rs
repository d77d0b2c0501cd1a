use rop::{CustomResource, JsonSchema};
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[rop(group = "example.com", version = "v1", kind = "Website")]
#[rop(owns(group = "apps", version = "v1", knd = "Deployment"))]
#[rop(printcolum(name = "Replicas", type_ = "integer", json_path = ".spec.replicas"))]
pub struct WebsiteSpec {
    pub replicas: i32,
}

fn main() {}
