//! The kind the webhook tests share: `Cache` in two versions (v1 the hub and storage version,
//! v2 a spoke), a defaulter that sets `size` to 3 and a validator that refuses sizes above 10
//! and a second Cache of a `team`.

use kube::api::Api;
use rop::CustomResource;
use rop::conversion::{ConversionError, Spoke};
use rop::webhook::{Defaulter, Denied, Request, Validator, Verdict};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub mod v1 {
    use super::*;

    /// A cache, in the storage version.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
    #[rop(group = "hooks.example.com", version = "v1", kind = "Cache", storage, derive = "PartialEq")]
    #[rop(webhook(mutating), webhook(validating, timeout_seconds = 5))]
    #[serde(rename_all = "camelCase")]
    pub struct CacheSpec {
        /// Number of instances.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub size: Option<i32>,
    }
}

pub mod v2 {
    use super::*;

    /// A cache, with its size under `capacity`.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
    #[rop(group = "hooks.example.com", version = "v2", kind = "Cache", derive = "PartialEq")]
    #[serde(rename_all = "camelCase")]
    pub struct CacheSpec {
        /// How much to run.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub capacity: Option<Capacity>,
    }

    /// Capacity of a cache.
    #[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
    pub struct Capacity {
        /// Number of instances.
        pub replicas: i32,
    }
}

impl Spoke<v1::Cache> for v2::Cache {
    fn convert_to_hub(self) -> Result<v1::Cache, ConversionError> {
        let size = self.spec.capacity.map(|c| c.replicas);
        Ok(v1::Cache { metadata: self.metadata, spec: v1::CacheSpec { size } })
    }
    fn convert_from_hub(hub: v1::Cache) -> Result<Self, ConversionError> {
        let capacity = hub.spec.size.map(|replicas| v2::Capacity { replicas });
        Ok(v2::Cache { metadata: hub.metadata, spec: v2::CacheSpec { capacity } })
    }
}

pub struct SizeDefaulter;

impl Defaulter for SizeDefaulter {
    type Kind = v1::Cache;
    async fn default(&self, object: &mut v1::Cache, _: &Request<'_, Self::Kind>) -> Result<(), Denied> {
        object.spec.size.get_or_insert(3);
        Ok(())
    }
}

pub struct SizeValidator;

impl Validator for SizeValidator {
    type Kind = v1::Cache;
    async fn validate_create(&self, object: &v1::Cache, request: &Request<'_, Self::Kind>) -> Verdict {
        if let Some(size) = object.spec.size.filter(|size| *size > 10) {
            return Err(Denied::new(format!("size {size} is above 10")));
        }
        // At most one Cache per `team` label: the others are listed with the manager's client.
        let Some(team) = object.metadata.labels.as_ref().and_then(|labels| labels.get("team")) else {
            return Ok(vec![]);
        };
        let caches: Api<v1::Cache> = Api::all(request.client().clone());
        let selector = kube::api::ListParams::default().labels(&format!("team={team}"));
        let taken = caches.list(&selector).await.map_err(|e| Denied::new(format!("cannot list Caches: {e}")))?;
        match taken.items.first() {
            Some(other) => Err(Denied::new(format!(
                "team {team} already has the Cache {}",
                other.metadata.name.as_deref().unwrap_or_default()
            ))),
            None => Ok(vec![]),
        }
    }
    async fn validate_update(&self, _old: &v1::Cache, new: &v1::Cache, request: &Request<'_, Self::Kind>) -> Verdict {
        self.validate_create(new, request).await
    }
    async fn validate_delete(&self, _object: &v1::Cache, _: &Request<'_, Self::Kind>) -> Verdict {
        Ok(vec![])
    }
}
