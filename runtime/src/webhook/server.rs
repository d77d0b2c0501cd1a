//! Routing of webhook requests by URL path.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Instant;

use axum::Router;
use axum::body::Bytes;
use axum::http::{StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use kube::Client;
use serde_json::Value;

use super::admission::{self, Defaulter, Validator};
use super::convert::{self, HubConversion, KindConversion};
use super::metrics::Metrics;
use super::request::no_client;
use super::setup::{Problem, SetupError};
use crate::WebhookTarget;
use crate::{AdmissionTarget, Webhook};

/// The path of the conversion webhook, shared by every kind (as in kubebuilder's
/// `config/crd/patches/webhook_in_<plural>.yaml`).
#[doc(hidden)]
pub const CONVERSION_PATH: &str = "/convert";

type Handler = Arc<dyn Fn(Value, Client) -> Pin<Box<dyn Future<Output = Value> + Send>> + Send + Sync>;

/// The manager's webhook server: a handler per path. Build it with [`Server::build`] from a
/// list of [`Registration`]s; test it with [`Server::handle`]; run it in a manager
/// (`Manager::add_webhooks`).
pub struct Server {
    handlers: BTreeMap<String, Handler>,
    conversions: BTreeMap<(String, String), KindConversion>,
    /// The CA file client certificates must be signed by ([`Server::client_ca_file`]).
    pub(super) client_ca: Option<std::path::PathBuf>,
    /// The client defaulters and validators get ([`Server::with_client`]).
    client: Option<Client>,
    /// Where the server counts its requests ([`Server::with_metrics`]).
    metrics: Metrics,
    /// The admission webhooks served, with their kinds: what a manager that registers its own
    /// webhooks (`--webhook-url`) puts in the configurations.
    admission: Vec<(AdmissionTarget, &'static Webhook)>,
    /// The HTTP versions served: HTTP/1.1 only unless the manager's `--enable-http2`.
    pub(super) http: super::tls::HttpVersions,
}

/// One webhook to register, for [`Server::build`]: a list of these is how a project names its
/// webhooks (`src/webhook/mod.rs`, extended by `rop create webhook`): a defaulter at its
/// kind's mutating webhook's path, a validator at its validating webhook's, the conversions of
/// one kind at [`CONVERSION_PATH`].
pub struct Registration(Box<dyn FnOnce(Server) -> Result<Server, SetupError>>);

impl Registration {
    /// Serves `defaulter` at the path of its kind's mutating webhook. [`Server::build`] fails
    /// when the kind has no `#[rop(webhook(mutating, ...))]`, or another webhook has the path.
    pub fn defaulter<D: Defaulter>(defaulter: D) -> Registration {
        Registration(Box::new(move |server| server.defaulter(defaulter)))
    }

    /// Serves `validator` at the path of its kind's validating webhook. [`Server::build`] fails
    /// when the kind has no `#[rop(webhook(validating, ...))]`, or another webhook has the path.
    pub fn validator<V: Validator>(validator: V) -> Registration {
        Registration(Box::new(move |server| server.validator(validator)))
    }

    /// Serves the conversions of one kind at [`CONVERSION_PATH`]; registering the same hub
    /// again adds its spokes. [`Server::build`] fails when the hub is not the storage version,
    /// a spoke is not a version of the same kind, or the kind has a conversion with another
    /// hub already.
    pub fn conversion<H: 'static>(conversion: HubConversion<H>) -> Registration {
        Registration(Box::new(move |server| server.conversion(conversion)))
    }
}

impl Server {
    /// A server with no webhooks (`Server::build([])` is the public way to one).
    pub(crate) fn new() -> Server {
        Server {
            handlers: BTreeMap::new(),
            conversions: BTreeMap::new(),
            client_ca: None,
            client: None,
            metrics: Metrics::default(),
            admission: Vec::new(),
            http: super::tls::HttpVersions::default(),
        }
    }

    /// Serves HTTP/2 as well as HTTP/1.1 (`--enable-http2`).
    #[cfg(feature = "manager")]
    pub(crate) fn with_http(mut self, http: super::tls::HttpVersions) -> Server {
        self.http = http;
        self
    }

    /// Admits only callers with a client certificate signed by a CA in `path` (PEM, one or more
    /// certificates), as controller-runtime's `ClientCAName` does: the API server presents one
    /// when its admission configuration gives it a kubeconfig for webhooks. Others are refused
    /// in the TLS handshake. The manager's `--webhook-client-ca-file` sets it.
    #[doc(hidden)]
    pub fn client_ca_file(mut self, path: impl Into<std::path::PathBuf>) -> Server {
        self.client_ca = Some(path.into());
        self
    }

    /// Hands `client` to the defaulters and validators ([`super::Request::client`]). The
    /// manager gives the server its own client; a test gives it the test API server's.
    #[must_use]
    pub fn with_client(mut self, client: Client) -> Server {
        self.client = Some(client);
        self
    }

    /// Counts the server's requests in `metrics` (controller-runtime's webhook metrics; see
    /// [`Metrics`]). The manager registers them on its `/metrics`; a test keeps a clone to see
    /// which webhooks the API server called. Without it, the server counts into metrics no one
    /// reads.
    #[doc(hidden)]
    pub fn with_metrics(mut self, metrics: Metrics) -> Server {
        self.metrics = metrics;
        self
    }

    /// Serves `defaulter` at the path of its kind's mutating webhook.
    ///
    /// # Errors
    /// The kind has no `#[rop(webhook(mutating, ...))]`, or another webhook has the same path.
    pub(crate) fn defaulter<D: Defaulter>(mut self, defaulter: D) -> Result<Server, SetupError> {
        let target = <D::Kind as WebhookTarget>::TARGET;
        let webhook = target.mutating_webhook().ok_or_else(|| Problem::NoWebhook {
            kind: target.name(),
            which: "defaulting",
            flag: "mutating",
            option: "--defaulting",
        })?;
        let defaulter = Arc::new(defaulter);
        self.admission.push((target, webhook));
        self.route(
            webhook.path,
            Arc::new(move |body, client| {
                let defaulter = defaulter.clone();
                Box::pin(async move { admission::default(&*defaulter, body, client).await })
            }),
        )
    }

    /// Serves `validator` at the path of its kind's validating webhook.
    ///
    /// # Errors
    /// The kind has no `#[rop(webhook(validating, ...))]`, or another webhook has the same path.
    pub(crate) fn validator<V: Validator>(mut self, validator: V) -> Result<Server, SetupError> {
        let target = <V::Kind as WebhookTarget>::TARGET;
        let webhook = target.validating_webhook().ok_or_else(|| Problem::NoWebhook {
            kind: target.name(),
            which: "validating",
            flag: "validating",
            option: "--programmatic-validation",
        })?;
        let validator = Arc::new(validator);
        self.admission.push((target, webhook));
        self.route(
            webhook.path,
            Arc::new(move |body, client| {
                let validator = validator.clone();
                Box::pin(async move { admission::validate(&*validator, body, client).await })
            }),
        )
    }

    /// Serves the conversions of one kind at [`CONVERSION_PATH`]. Registering the same hub
    /// again adds its spokes to the ones already there.
    ///
    /// # Errors
    /// The hub is not the storage version, a spoke is not a version of the same kind, or the
    /// kind already has a conversion with another hub.
    pub(crate) fn conversion<H>(mut self, conversion: HubConversion<H>) -> Result<Server, SetupError> {
        let kind = conversion.kind;
        if let Some(error) = kind.errors.first() {
            return Err(error.clone().into());
        }
        let name = format!("{}/{} {}", kind.group, kind.hub_version, kind.kind);
        if !kind.hub_is_storage {
            return Err(Problem::HubNotStorage { hub: name }.into());
        }
        let key = (kind.group.to_string(), kind.kind.to_string());
        self.add_conversion(key, kind)?;
        Ok(self)
    }

    /// Adds the conversions of one kind: its spokes join those of the same hub.
    fn add_conversion(&mut self, key: (String, String), kind: KindConversion) -> Result<(), SetupError> {
        match self.conversions.get_mut(&key) {
            Some(existing) if existing.hub_version == kind.hub_version => existing.spokes.extend(kind.spokes),
            Some(existing) => {
                return Err(Problem::TwoHubs {
                    kind: format!("{} {}", kind.group, kind.kind),
                    first: existing.hub_version.into(),
                    second: kind.hub_version.into(),
                }
                .into());
            }
            None => {
                self.conversions.insert(key, kind);
            }
        }
        Ok(())
    }

    /// This server with the webhooks and conversions of `other` added (what
    /// `Manager::add_webhooks` does with a second server); `other`'s client CA file is taken
    /// when this server has none.
    ///
    /// # Errors
    /// Two webhooks at one path, or two hubs for one kind's conversion.
    #[cfg_attr(not(feature = "manager"), allow(dead_code, reason = "the manager is what calls it"))]
    pub(crate) fn merge(mut self, other: Server) -> Result<Server, SetupError> {
        let Server { handlers, conversions, client_ca, client: _, metrics: _, admission, http: _ } = other;
        for (path, handler) in handlers {
            self = self.route(&path, handler)?;
        }
        for (key, kind) in conversions {
            self.add_conversion(key, kind)?;
        }
        self.admission.extend(admission);
        self.client_ca = self.client_ca.or(client_ca);
        Ok(self)
    }

    /// A server with every webhook of `registrations`, registered in order.
    ///
    /// # Errors
    /// The first registration that fails (see [`Registration`]).
    pub fn build(registrations: impl IntoIterator<Item = Registration>) -> Result<Server, SetupError> {
        registrations.into_iter().try_fold(Server::new(), |server, registration| (registration.0)(server))
    }

    /// Whether this server converts the versions of kind `kind` of `group` (it has a
    /// [`Registration::conversion`] for it): its CRD's conversion goes to [`CONVERSION_PATH`].
    #[doc(hidden)]
    pub fn converts(&self, group: &str, kind: &str) -> bool {
        self.conversions.contains_key(&(group.to_string(), kind.to_string()))
    }

    /// The kinds this server converts, `<group> <kind>` each.
    pub(super) fn converted_kinds(&self) -> Vec<String> {
        self.conversions.keys().map(|(group, kind)| format!("{group} {kind}")).collect()
    }

    /// The names of the CRDs whose conversion this server serves, `<plural>.<group>` each.
    #[cfg_attr(not(feature = "manager"), allow(dead_code, reason = "the manager is what calls it"))]
    pub(crate) fn converted_crds(&self) -> Vec<String> {
        self.conversions.values().map(|kind| format!("{}.{}", kind.plural, kind.group)).collect()
    }

    /// The admission webhooks this server serves, with their kinds.
    #[cfg_attr(not(feature = "manager"), allow(dead_code, reason = "the manager is what calls it"))]
    pub(crate) fn admission_webhooks(&self) -> &[(AdmissionTarget, &'static Webhook)] {
        &self.admission
    }

    fn route(mut self, path: &str, handler: Handler) -> Result<Server, SetupError> {
        if path == CONVERSION_PATH || self.handlers.contains_key(path) {
            return Err(Problem::SamePath { path: path.into() }.into());
        }
        self.handlers.insert(path.to_string(), handler);
        Ok(self)
    }

    /// Whether no webhook is registered (the manager then starts no server).
    #[cfg_attr(not(feature = "manager"), allow(dead_code, reason = "the manager is what calls it"))]
    pub(crate) fn is_empty(&self) -> bool {
        self.handlers.is_empty() && self.conversions.is_empty()
    }

    /// The paths served, sorted.
    #[doc(hidden)]
    pub fn paths(&self) -> Vec<String> {
        let mut paths: Vec<String> = self.handlers.keys().cloned().collect();
        if !self.conversions.is_empty() {
            paths.push(CONVERSION_PATH.into());
            paths.sort();
        }
        paths
    }

    /// Whether a webhook is served at `path`.
    fn serves(&self, path: &str) -> bool {
        self.handlers.contains_key(path) || (path == CONVERSION_PATH && !self.conversions.is_empty())
    }

    /// The HTTP answer to a request to `path`, a served one.
    async fn answer(&self, method: &axum::http::Method, path: &str, body: &[u8]) -> Response {
        if method != axum::http::Method::POST {
            return (StatusCode::METHOD_NOT_ALLOWED, "webhooks take POST\n").into_response();
        }
        let review = match serde_json::from_slice::<Value>(body) {
            Ok(review) => review,
            Err(e) => return (StatusCode::BAD_REQUEST, format!("the body is not JSON: {e}\n")).into_response(),
        };
        match self.handle(path, review).await {
            Some(answer) => json(answer),
            None => (StatusCode::NOT_FOUND, format!("no webhook at {path}\n")).into_response(),
        }
    }

    /// Answers one review sent to `path`: the response review, or `None` for a path nothing is
    /// served at. What the HTTPS server does for each request, without the network, for tests.
    pub async fn handle(&self, path: &str, review: Value) -> Option<Value> {
        if path == CONVERSION_PATH && !self.conversions.is_empty() {
            return Some(convert::review(&self.conversions, review));
        }
        let handler = self.handlers.get(path)?;
        let client = self.client.clone().unwrap_or_else(no_client);
        Some(handler(review, client).await)
    }

    /// The server as an axum router: `POST <path>` with a JSON review for each webhook.
    pub(crate) fn router(self) -> Router {
        let server = Arc::new(self);
        Router::new().fallback(move |method: axum::http::Method, uri: Uri, body: Bytes| {
            let server = server.clone();
            async move {
                let path = uri.path();
                if !server.serves(path) {
                    return (StatusCode::NOT_FOUND, format!("no webhook at {path}\n")).into_response();
                }
                let started = Instant::now();
                let _in_flight = server.metrics.in_flight(path);
                let response = server.answer(&method, path, &body).await;
                server.metrics.record(path, response.status().as_u16(), started.elapsed());
                response
            }
        })
    }
}

fn json(value: Value) -> Response {
    let body = serde_json::to_vec(&value).expect("a JSON value always serialises");
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}
