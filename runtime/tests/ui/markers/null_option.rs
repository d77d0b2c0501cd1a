// Warnings only: `deny` makes them the test's errors.
#![deny(deprecated)]

use rop::{CustomResource, JsonSchema};
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[rop(group = "example.com", version = "v1", kind = "Website")]
pub struct WebsiteSpec {
    pub image: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i32>,
    #[rop(nullable)]
    pub note: Option<String>,
    pub mirror: Option<Mirror>,
    #[serde(default)]
    pub alias: Option<String>,
}

#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
pub struct Mirror {
    pub url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
}

fn main() {}
