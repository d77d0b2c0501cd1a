//! The webhook server's decoding: any request body sent to a defaulting, a validating or the
//! conversion webhook, as the server reads it (JSON, then an `AdmissionReview` or a
//! `ConversionReview`). The first byte picks the path; the rest is the body. The server must
//! answer every JSON body with a response object, and never panic.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use rop::conversion::{ConversionError, Spoke};
use rop::webhook::{Defaulter, Denied, HubConversion, Registration, Request, Server, Validator, Verdict};
use rop::{CustomResource, JsonSchema};
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub mod v1 {
    use super::*;

    /// A cache.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, JsonSchema)]
    #[rop(group = "cache.example.com", version = "v1", kind = "Cache", namespaced, storage)]
    #[rop(webhook(mutating), webhook(validating, operations = ["CREATE", "UPDATE", "DELETE"]))]
    #[serde(rename_all = "camelCase")]
    pub struct CacheSpec {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub size: Option<i32>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        pub zones: Vec<String>,
    }
}

pub mod v2 {
    use super::*;

    /// A cache, with its size in a nested struct.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, JsonSchema)]
    #[rop(group = "cache.example.com", version = "v2", kind = "Cache", namespaced)]
    #[serde(rename_all = "camelCase")]
    pub struct CacheSpec {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub capacity: Option<Capacity>,
    }

    #[derive(Serialize, Deserialize, Clone, Debug, Default, JsonSchema)]
    pub struct Capacity {
        pub replicas: i32,
    }
}

impl Spoke<v1::Cache> for v2::Cache {
    fn convert_to_hub(self) -> Result<v1::Cache, ConversionError> {
        let size = self.spec.capacity.map(|c| c.replicas);
        Ok(v1::Cache { metadata: self.metadata, spec: v1::CacheSpec { size, zones: vec![] } })
    }

    fn convert_from_hub(hub: v1::Cache) -> Result<Self, ConversionError> {
        let capacity = hub.spec.size.map(|replicas| v2::Capacity { replicas });
        Ok(v2::Cache { metadata: hub.metadata, spec: v2::CacheSpec { capacity } })
    }
}

struct SizeDefaulter;

impl Defaulter for SizeDefaulter {
    type Kind = v1::Cache;
    async fn default(&self, object: &mut v1::Cache, _: &Request<'_, v1::Cache>) -> Result<(), Denied> {
        object.spec.size.get_or_insert(3);
        object.spec.zones.dedup();
        Ok(())
    }
}

struct SizeValidator;

impl Validator for SizeValidator {
    type Kind = v1::Cache;
    async fn validate_create(&self, object: &v1::Cache, _: &Request<'_, v1::Cache>) -> Verdict {
        match object.spec.size {
            Some(size) if size > 10 => Err(Denied::new(format!("size {size} is above 10"))),
            _ => Ok(vec![]),
        }
    }
    async fn validate_update(&self, old: &v1::Cache, new: &v1::Cache, request: &Request<'_, v1::Cache>) -> Verdict {
        if new.spec.size < old.spec.size {
            return Err(Denied::new("size cannot shrink"));
        }
        self.validate_create(new, request).await
    }
    async fn validate_delete(&self, _: &v1::Cache, _: &Request<'_, v1::Cache>) -> Verdict {
        Ok(vec![])
    }
}

fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap())
}

/// One server for the whole run, with a client as a manager gives it (one whose every request
/// fails: the webhooks here read nothing). Without one, the server makes a client for each
/// request, whose worker task a current-thread runtime never runs when the request completes
/// without waiting: the run's memory would grow by about 9 KiB per input.
fn server() -> &'static Server {
    static SERVER: OnceLock<Server> = OnceLock::new();
    SERVER.get_or_init(|| {
        let service = tower::service_fn(|_: http::Request<rop::kube::client::Body>| async {
            Err::<http::Response<rop::kube::client::Body>, _>(std::io::Error::other("no API server in a fuzz run"))
        });
        // The client's worker task lives on the run's one runtime.
        let client = runtime().block_on(async { rop::kube::Client::new(service, "default") });
        Server::build([
            Registration::defaulter(SizeDefaulter),
            Registration::validator(SizeValidator),
            Registration::conversion(HubConversion::<v1::Cache>::hub().spoke::<v2::Cache>()),
        ])
        .expect("the webhooks register")
        .with_client(client)
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, body)) = data.split_first() else { return };
    let Ok(review) = serde_json::from_slice::<Value>(body) else { return };
    let paths = server().paths();
    let path = &paths[usize::from(pick) % paths.len()];
    let answer = runtime().block_on(server().handle(path, review)).expect("a served path answers");
    // Every answer carries a response object, as the API server requires.
    assert!(answer.get("response").is_some_and(Value::is_object), "no response in {answer}");
});
