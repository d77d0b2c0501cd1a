use rop::{CustomResource, JsonSchema};
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[rop(group = "cache.example.com", version = "v1", kind = "Cache")]
#[rop(webhook(validating, timeout_seconds = 31))]
#[rop(webhook(validating, reinvocation_policy = "IfNeeded"))]
#[rop(webhook(mutating, name = "mcache.example"))]
#[rop(webhook(mutating, failure_policy = "fail"))]
#[rop(webhook(mutating, operations = ["CREATE", "PATCH"]))]
#[rop(webhook(mutating, namespace_selector = "env in prod"))]
#[rop(webhook(mutating, side_effects = "Some"))]
#[rop(webhook(path = "/x"))]
#[rop(webhook(validating, path = "/Validate_Cache"))]
pub struct CacheSpec {}

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[rop(group = "cache.example.com", version = "v1", kind = "Queue")]
#[rop(webhook(mutating), webhook(mutating, path = "/again"))]
pub struct QueueSpec {}

fn main() {}
