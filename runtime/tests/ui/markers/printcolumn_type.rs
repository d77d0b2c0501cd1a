use rop::{CustomResource, JsonSchema};
use serde::{Deserialize, Serialize};

/// A column over a filtered path must say its type: no one field gives it.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[rop(group = "cache.example.com", version = "v1", kind = "Cache")]
#[rop(printcolumn(name = "Available", json_path = ".status.conditions[?(@.type==\"Available\")].status"))]
pub struct CacheSpec {}

fn main() {}
