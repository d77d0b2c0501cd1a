use rop::webhook::{Defaulter, Denied, Request, Validator, Verdict};
use rop::{CustomResource, JsonSchema};
use serde::{Deserialize, Serialize};

/// A kind with a validating webhook only.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[rop(group = "cache.example.com", version = "v1", kind = "Cache")]
#[rop(webhook(validating))]
pub struct CacheSpec {}

/// A built-in kind with a defaulting webhook only.
#[derive(rop::BuiltinKind)]
#[rop(group = "", version = "v1", kind = "Pod", plural = "pods", object = "rop::k8s_openapi::api::core::v1::Pod")]
#[rop(webhook(mutating, name = "mpod-v1.example.com"))]
pub struct PodV1;

pub struct CacheDefaulter;

impl Defaulter for CacheDefaulter {
    type Kind = Cache;

    async fn default(&self, _: &mut Cache, _: &Request<'_, Cache>) -> Result<(), Denied> {
        Ok(())
    }
}

pub struct PodValidator;

impl Validator for PodValidator {
    type Kind = PodV1;

    async fn validate_create(&self, _: &rop::k8s_openapi::api::core::v1::Pod, _: &Request<'_, PodV1>) -> Verdict {
        Ok(vec![])
    }

    async fn validate_update(
        &self,
        _: &rop::k8s_openapi::api::core::v1::Pod,
        _: &rop::k8s_openapi::api::core::v1::Pod,
        _: &Request<'_, PodV1>,
    ) -> Verdict {
        Ok(vec![])
    }

    async fn validate_delete(&self, _: &rop::k8s_openapi::api::core::v1::Pod, _: &Request<'_, PodV1>) -> Verdict {
        Ok(vec![])
    }
}

fn main() {}
