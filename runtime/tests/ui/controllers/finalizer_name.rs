// A custom kind's finalizer is domain-qualified, as a built-in kind's is.
use rop::CustomResource;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, rop::JsonSchema)]
#[rop(group = "cache.example.com", version = "v1", kind = "Cache", finalizer = "cleanup")]
pub struct CacheSpec {
    pub size: i32,
}

// Declared once.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, rop::JsonSchema)]
#[rop(group = "cache.example.com", version = "v1", kind = "Store", finalizer, finalizer = "example.com/store")]
pub struct StoreSpec {
    pub size: i32,
}

fn main() {}
