//! The manager's webhook server: defaulting and validating admission webhooks and the
//! conversion webhook, over HTTPS (feature `webhook`).
//!
//! Kubernetes calls a webhook with a JSON `AdmissionReview` or `ConversionReview` and expects
//! one back ([admission webhooks], [conversion webhooks]). A project implements [`Defaulter`],
//! [`Validator`] and [`crate::conversion::Spoke`] for its kinds; [`Server`] routes each request
//! to the right one, decodes and encodes the reviews, computes the JSON patch of a defaulter,
//! converts through the hub version, and serves TLS with the certificate cert-manager mounts or
//! the one the manager issues itself (`--webhook-cert-mode=self-managed`).
//! The paths come from the kinds' `#[rop(webhook(...))]` attributes, the same ones
//! `rop generate` writes into `config/webhook/manifests.yaml`, so the two cannot disagree.
//!
//! A validator, registered with the server the manager serves (`rop create webhook
//! --programmatic-validation` scaffolds the same):
//!
//! ```
//! use rop::webhook::{Denied, Registration, Request, Server, Validator, Verdict};
//! use rop::{CustomResource, JsonSchema};
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
//! #[rop(group = "cache.example.com", version = "v1", kind = "Memcached", namespaced)]
//! #[rop(webhook(validating))]
//! pub struct MemcachedSpec {
//!     pub size: i32,
//! }
//!
//! /// Refuses more than 10 replicas, and warns when a Memcached shrinks.
//! pub struct MemcachedValidator;
//!
//! impl Validator for MemcachedValidator {
//!     type Kind = Memcached;
//!
//!     async fn validate_create(&self, object: &Memcached, _: &Request<'_, Memcached>) -> Verdict {
//!         if object.spec.size > 10 {
//!             return Err(Denied::new("spec.size: at most 10 replicas"));
//!         }
//!         Ok(vec![])
//!     }
//!
//!     async fn validate_update(&self, old: &Memcached, new: &Memcached, request: &Request<'_, Memcached>) -> Verdict {
//!         let mut warnings = self.validate_create(new, request).await?;
//!         if new.spec.size < old.spec.size {
//!             warnings.push(format!("spec.size: shrinking from {} to {}", old.spec.size, new.spec.size));
//!         }
//!         Ok(warnings)
//!     }
//!
//!     async fn validate_delete(&self, _: &Memcached, _: &Request<'_, Memcached>) -> Verdict {
//!         Ok(vec![])
//!     }
//! }
//!
//! // In the project's `webhook::server()`, which `src/main.rs` hands to
//! // `Manager::add_webhooks`:
//! let server: Result<Server, _> = Server::build([Registration::validator(MemcachedValidator)]);
//! assert!(server.is_ok());
//! ```
//!
//! [admission webhooks]: https://kubernetes.io/docs/reference/access-authn-authz/extensible-admission-controllers/
//! [conversion webhooks]: https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definition-versioning/#webhook-conversion

mod admission;
mod convert;
mod metrics;
mod request;
mod server;
mod setup;
pub mod testing;
pub(crate) mod tls;

pub use admission::{Defaulter, Denied, Validator, Verdict};
pub use convert::HubConversion;
pub use kube_core::admission::Operation;
#[doc(hidden)]
pub use metrics::Metrics;
pub use request::Request;
#[doc(hidden)]
pub use server::CONVERSION_PATH;
pub use server::{Registration, Server};
pub use setup::SetupError;
/// The server's plumbing: what the manager and rop-testenv use to serve it. Not for user
/// code, and not covered by semver.
#[doc(hidden)]
pub use tls::{CERT_FILE, DEFAULT_CERT_DIR, KEY_FILE, ServeError};
#[cfg(feature = "manager")]
pub(crate) use tls::{check_certificate, check_client_ca};
