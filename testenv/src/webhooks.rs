//! A project's webhook server on the test API server, registered as the project deploys it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use k8s_openapi::ByteString;
use k8s_openapi::api::admissionregistration::v1::{
    MutatingWebhookConfiguration, ValidatingWebhookConfiguration, WebhookClientConfig as AdmissionClientConfig,
};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceConversion, WebhookClientConfig, WebhookConversion,
};
use kube::api::PostParams;
use kube::{Api, Resource};
use rop::WebhookTarget;
use rop::controller::KindScope;
use rop::webhook::Metrics;
use rop::webhook::{CERT_FILE, CONVERSION_PATH, KEY_FILE, Server};
use serde::Deserialize;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::manifests::read_crds;
use crate::pki::new_ca;
use crate::process::{free_port, install_crypto_provider};
use crate::{MANAGER_NAMESPACE, MANAGER_SERVICE_ACCOUNT, TestEnv, install_crd, install_manager_rbac};

/// How long the API server takes at most to start calling a webhook configuration it stored
/// (its admission plug-ins pick configurations up from a watch).
const REGISTERED_WITHIN: Duration = Duration::from_secs(1);

/// A project's webhook server, served and registered with the test API server by
/// [`TestEnv::serve_webhooks`]. Dropping it stops the server; [`Webhooks::stop`] also checks
/// it did not fail.
pub struct Webhooks {
    url: String,
    client: kube::Client,
    metrics: Metrics,
    stop: Option<oneshot::Sender<()>>,
    serving: Option<JoinHandle<Result<(), rop::webhook::ServeError>>>,
    _certificates: tempfile::TempDir,
}

impl TestEnv {
    /// Serves the project's webhook `server` (its `webhook::server()`) on a free loopback port,
    /// with a serving certificate from a CA made for it, and registers its webhooks as the
    /// project in folder `project` deploys them:
    ///
    /// - the CRDs from `config/crd/bases`, with the conversion of each kind `server` converts
    ///   going to its `/convert` (what `config/crd/patches/webhook_in_<plural>.yaml` and
    ///   cert-manager's CA injection do in a cluster), so the API server itself converts
    ///   between the versions;
    /// - the configurations of `config/webhook/manifests.yaml` (when the project has one),
    ///   each webhook pointed at the server's URL and trusting the CA.
    ///
    /// The defaulters and validators get a client acting as the manager's ServiceAccount, with
    /// the rules of `config/rbac/role.yaml`. Call it before [`TestEnv::start_controller`], which
    /// leaves the CRDs installed here as they are.
    ///
    /// # Panics
    /// When a manifest cannot be read or installed (run `make manifests` first), or the server
    /// cannot start.
    pub async fn serve_webhooks(&self, project: impl AsRef<Path>, server: Server) -> Webhooks {
        let project = project.as_ref();
        install_crypto_provider();
        let client = self.client();
        if let Err(err) = install_manager_rbac(&client, &project.join("config/rbac/role.yaml")).await {
            panic!("the manager's RBAC installs (run `make manifests` first): {err}");
        }
        let as_manager = self
            .client_as_service_account(MANAGER_NAMESPACE, MANAGER_SERVICE_ACCOUNT)
            .unwrap_or_else(|err| panic!("a client as the manager's ServiceAccount: {err}"));
        let (certificates, ca) = certificates();
        let port = free_port().unwrap_or_else(|err| panic!("a free port for the webhook server: {err}"));
        let url = format!("https://127.0.0.1:{port}");
        let ca_bundle = ByteString(ca.into_bytes());

        let crds = read_crds(&project.join("config/crd/bases"))
            .unwrap_or_else(|err| panic!("the CRDs (run `make manifests` first): {err}"));
        for mut crd in crds {
            if server.converts(&crd.spec.group, &crd.spec.names.kind) {
                crd.spec.conversion = Some(CustomResourceConversion {
                    strategy: "Webhook".into(),
                    webhook: Some(WebhookConversion {
                        client_config: Some(WebhookClientConfig {
                            ca_bundle: Some(ca_bundle.clone()),
                            url: Some(format!("{url}{CONVERSION_PATH}")),
                            service: None,
                        }),
                        conversion_review_versions: vec!["v1".into()],
                    }),
                });
            }
            if let Err(err) = install_crd(&client, &crd).await {
                panic!("the CRD installs: {err}");
            }
        }

        let mut served = server.paths();
        served.retain(|path| path != CONVERSION_PATH);
        let (stop, stopped) = oneshot::channel::<()>();
        let metrics = Metrics::default();
        let server = server.with_client(as_manager).with_metrics(metrics.clone());
        let dir = certificates.path().to_path_buf();
        let serving = tokio::spawn(async move {
            server
                .serve(([127, 0, 0, 1], port).into(), &dir, async {
                    let _ = stopped.await;
                })
                .await
        });
        let manifests = project.join(rop::manifests::WEBHOOK_MANIFESTS);
        let mut registered = register(&client, &manifests, &url, &ca_bundle).await;
        registered.sort();
        if registered != served {
            panic!(
                "{} registers the webhook paths {registered:?}, and the webhook server serves {served:?}: run `make manifests` after changing a `#[rop(webhook(...))]` attribute",
                manifests.display()
            );
        }
        tokio::time::sleep(REGISTERED_WITHIN).await;
        let (stop, serving) = (Some(stop), Some(serving));
        Webhooks { url, client, metrics, stop, serving, _certificates: certificates }
    }
}

impl Webhooks {
    /// Where the server listens, `https://127.0.0.1:<port>`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The objects of kind `O` where a test's objects are: in [`crate::TEST_NAMESPACE`], or all
    /// of them for a cluster-scoped kind. Its client is the API server's admin, so what it
    /// sends goes through the webhooks as a user's request would.
    pub fn api_of<O>(&self) -> Api<O>
    where
        O: Resource<DynamicType = (), Scope: KindScope>,
    {
        <O::Scope as KindScope>::api(self.client.clone(), Some(crate::TEST_NAMESPACE))
    }

    /// How many reviews the API server sent to the defaulting webhook of `K` (0 when `K` has
    /// none) and the server answered: a create calls it once.
    pub fn defaulter_calls<K: WebhookTarget>(&self) -> u64 {
        K::TARGET.mutating_webhook().map_or(0, |webhook| self.metrics.answered(webhook.path))
    }

    /// How many reviews the API server sent to the validating webhook of `K` (0 when `K` has
    /// none) and the server answered, allowed or denied.
    pub fn validator_calls<K: WebhookTarget>(&self) -> u64 {
        K::TARGET.validating_webhook().map_or(0, |webhook| self.metrics.answered(webhook.path))
    }

    /// How many conversion reviews the API server sent and the server answered, for every kind.
    pub fn conversion_calls(&self) -> u64 {
        self.metrics.answered(CONVERSION_PATH)
    }

    /// Stops the server and waits for it.
    ///
    /// # Panics
    /// When the server failed (its certificate could not be read, its port was taken).
    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(serving) = self.serving.take() {
            match serving.await {
                Ok(Ok(())) => {}
                Ok(Err(err)) => panic!("the webhook server failed: {err}"),
                Err(err) => panic!("the webhook server's task failed: {err}"),
            }
        }
    }
}

impl Drop for Webhooks {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// A CA and a serving certificate for 127.0.0.1 it signs, in a new folder as the server reads
/// them (`tls.crt`, `tls.key`); and the CA's certificate (PEM).
fn certificates() -> (tempfile::TempDir, String) {
    let fail = |err: &dyn std::fmt::Display| -> ! { panic!("the webhook server's certificate: {err}") };
    let ca = new_ca("rop-testenv-webhook-ca").unwrap_or_else(|err| fail(&err));
    let key = rcgen::KeyPair::generate().unwrap_or_else(|err| fail(&err));
    let params = rcgen::CertificateParams::new(vec!["127.0.0.1".to_string()]).unwrap_or_else(|err| fail(&err));
    let cert = params.signed_by(&key, &ca).unwrap_or_else(|err| fail(&err));
    let dir = tempfile::tempdir().unwrap_or_else(|err| fail(&err));
    for (file, pem) in [(CERT_FILE, cert.pem()), (KEY_FILE, key.serialize_pem())] {
        std::fs::write(dir.path().join(file), pem).unwrap_or_else(|err| fail(&err));
    }
    (dir, ca.pem())
}

/// Creates the webhook configurations of `manifests` (absent: none), each webhook's service
/// replaced by `url` and the path the service had, trusting `ca_bundle`; returns the paths.
async fn register(client: &kube::Client, manifests: &PathBuf, url: &str, ca_bundle: &ByteString) -> Vec<String> {
    let Ok(text) = std::fs::read_to_string(manifests) else { return Vec::new() };
    let paths = std::cell::RefCell::new(Vec::new());
    let point = |config: &mut AdmissionClientConfig| {
        let path = config.service.take().and_then(|service| service.path).unwrap_or_default();
        config.url = Some(format!("{url}{path}"));
        config.ca_bundle = Some(ca_bundle.clone());
        paths.borrow_mut().push(path);
    };
    for document in serde_yaml::Deserializer::from_str(&text) {
        let value = serde_yaml::Value::deserialize(document)
            .unwrap_or_else(|err| panic!("{} is not YAML: {err}", manifests.display()));
        let created = match value.get("kind").and_then(|k| k.as_str()) {
            Some("MutatingWebhookConfiguration") => {
                let mut configuration: MutatingWebhookConfiguration = decode(manifests, value);
                configuration.webhooks.iter_mut().flatten().for_each(|w| point(&mut w.client_config));
                Api::all(client.clone()).create(&PostParams::default(), &configuration).await.map(|_| ())
            }
            Some("ValidatingWebhookConfiguration") => {
                let mut configuration: ValidatingWebhookConfiguration = decode(manifests, value);
                configuration.webhooks.iter_mut().flatten().for_each(|w| point(&mut w.client_config));
                Api::all(client.clone()).create(&PostParams::default(), &configuration).await.map(|_| ())
            }
            _ => continue,
        };
        if let Err(err) = created {
            panic!("the webhook configuration of {} installs: {err}", manifests.display());
        }
    }
    paths.into_inner()
}

fn decode<T: serde::de::DeserializeOwned>(path: &Path, value: serde_yaml::Value) -> T {
    serde_yaml::from_value(value)
        .unwrap_or_else(|err| panic!("{} holds an invalid configuration: {err}", path.display()))
}
