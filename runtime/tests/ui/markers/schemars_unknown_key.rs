// An attribute schemars' derive refuses is one error, not that plus "JsonSchema is not
// implemented" for the type rop hands the schema on from.
use rop::{CustomResource, JsonSchema};
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[rop(group = "cache.example.com", version = "v1", kind = "Cache", namespaced)]
pub struct CacheSpec {
    #[schemars(bogus = 1)]
    pub size: i32,
}

fn main() {}
