// A status written by `rop::workload::write_status` needs conditions to report a failed pass
// in: one whose type derives schemars' own `JsonSchema` has none rop can read.
use rop::CustomResource;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, rop::JsonSchema)]
#[rop(group = "cache.example.com", version = "v1", kind = "Cache", status = "CacheStatus")]
pub struct CacheSpec {
    pub size: i32,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, schemars::JsonSchema)]
pub struct CacheStatus {
    #[serde(default)]
    pub conditions: Vec<rop::k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition>,
}

fn main() {
    let error = std::io::Error::other("the server is down");
    let _ = rop::workload::failed_status::<CacheStatus>(None, None, &error);
}
