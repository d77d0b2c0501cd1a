//! A real API server calls rop's webhook server: the defaulting webhook's patch is applied,
//! the validating webhook's denial reaches the client word for word, and the conversion
//! webhook serves a second version of the kind; a built-in kind's (apps/v1 Deployment)
//! defaulting webhook is called too.
//!
//! The manifests come from `rop::manifests` as `rop generate` writes them; the test then does
//! what kustomize and cert-manager do in a cluster: point the webhooks at the server (here a
//! loopback URL instead of the Service) and inject the CA that signed its certificate.

use std::net::TcpListener;
use std::time::{Duration, Instant};

use k8s_openapi::ByteString;
use k8s_openapi::api::admissionregistration::v1::{MutatingWebhookConfiguration, ValidatingWebhookConfiguration};
use k8s_openapi::api::apps::v1::{Deployment, DeploymentSpec};
use k8s_openapi::api::core::v1::{Container, PodSpec, PodTemplateSpec};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceConversion, CustomResourceDefinition, WebhookClientConfig, WebhookConversion,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};
use kube::api::{Api, DeleteParams, PostParams};
use rop::CustomResource;
use rop::conversion::{ConversionError, Spoke};
use rop::webhook::{Defaulter, Denied, HubConversion, Registration, Server, Validator, Verdict};
use rop_testenv::TestEnv;
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

struct SizeDefaulter;

impl Defaulter for SizeDefaulter {
    type Kind = v1::Cache;
    async fn default(&self, object: &mut v1::Cache) -> Result<(), Denied> {
        object.spec.size.get_or_insert(3);
        Ok(())
    }
}

struct SizeValidator;

impl Validator for SizeValidator {
    type Kind = v1::Cache;
    async fn validate_create(&self, object: &v1::Cache) -> Verdict {
        match object.spec.size {
            Some(size) if size > 10 => Err(Denied::new(format!("size {size} is above 10"))),
            _ => Ok(vec![]),
        }
    }
    async fn validate_update(&self, _old: &v1::Cache, new: &v1::Cache) -> Verdict {
        self.validate_create(new).await
    }
    async fn validate_delete(&self, _object: &v1::Cache) -> Verdict {
        Ok(vec![])
    }
}

/// Webhooks for the built-in apps/v1 Deployment.
#[derive(rop::BuiltinKind)]
#[rop(group = "apps", version = "v1", kind = "Deployment", plural = "deployments")]
#[rop(object = "k8s_openapi::api::apps::v1::Deployment", webhook(mutating, name = "mdeployment-v1.hooks.example.com"))]
pub struct DeploymentV1;

struct LabelDefaulter;

impl Defaulter for LabelDefaulter {
    type Kind = DeploymentV1;
    async fn default(&self, object: &mut Deployment) -> Result<(), Denied> {
        object.metadata.labels.get_or_insert_with(Default::default).insert("defaulted-by".into(), "rop".into());
        Ok(())
    }
}

/// A CA and a serving certificate for 127.0.0.1 signed by it, in a fresh folder.
fn certificates() -> (tempfile::TempDir, String) {
    let ca_key = rcgen::KeyPair::generate().unwrap();
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    let ca = rcgen::CertifiedIssuer::self_signed(ca_params, ca_key).unwrap();
    let key = rcgen::KeyPair::generate().unwrap();
    let cert = rcgen::CertificateParams::new(vec!["127.0.0.1".to_string()]).unwrap().signed_by(&key, &ca).unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(rop::webhook::CERT_FILE), cert.pem()).unwrap();
    std::fs::write(dir.path().join(rop::webhook::KEY_FILE), key.serialize_pem()).unwrap();
    (dir, ca.pem())
}

/// The generated manifests, pointed at `https://127.0.0.1:<port>` and trusting `ca`.
fn manifests(
    port: u16,
    ca: &str,
) -> (CustomResourceDefinition, MutatingWebhookConfiguration, ValidatingWebhookConfiguration) {
    let bundle = rop::manifests::bundle(&[
        rop::manifests::kind::<v1::Cache>("v1::Cache"),
        rop::manifests::kind::<v2::Cache>("v2::Cache"),
        rop::manifests::builtin::<DeploymentV1>("DeploymentV1"),
    ]);
    let files = rop::manifests::assemble(&bundle, false).unwrap();
    let file =
        |path: &str| files.iter().find(|f| f.path == path).unwrap_or_else(|| panic!("no {path}")).content.clone();
    let mut crd: CustomResourceDefinition =
        serde_yaml::from_str(&file("config/crd/bases/hooks.example.com_caches.yaml")).unwrap();
    let ca_bundle = Some(ByteString(ca.as_bytes().to_vec()));
    let url = |path: &str| Some(format!("https://127.0.0.1:{port}{path}"));
    crd.spec.conversion = Some(CustomResourceConversion {
        strategy: "Webhook".into(),
        webhook: Some(WebhookConversion {
            client_config: Some(WebhookClientConfig {
                ca_bundle: ca_bundle.clone(),
                url: url(rop::webhook::CONVERSION_PATH),
                service: None,
            }),
            conversion_review_versions: vec!["v1".into()],
        }),
    });
    let webhooks = file(rop::manifests::WEBHOOK_MANIFESTS);
    let mut documents = webhooks.split("---\n").filter(|d| !d.trim().is_empty());
    let mut mutating: MutatingWebhookConfiguration = serde_yaml::from_str(documents.next().unwrap()).unwrap();
    let mut validating: ValidatingWebhookConfiguration = serde_yaml::from_str(documents.next().unwrap()).unwrap();
    for webhook in mutating.webhooks.iter_mut().flatten() {
        let path = webhook.client_config.service.take().unwrap().path.unwrap();
        webhook.client_config.url = url(&path);
        webhook.client_config.ca_bundle = ca_bundle.clone();
    }
    for webhook in validating.webhooks.iter_mut().flatten() {
        let path = webhook.client_config.service.take().unwrap().path.unwrap();
        webhook.client_config.url = url(&path);
        webhook.client_config.ca_bundle = ca_bundle.clone();
    }
    (crd, mutating, validating)
}

#[test]
fn the_api_server_calls_the_webhooks() {
    let Some(env) = TestEnv::start_or_skip() else { return };
    let (cert_dir, ca) = certificates();
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let (crd, mutating, validating) = manifests(port, &ca);
    let client = env.client();
    env.block_on(async move {
        let server = Server::build([
            Registration::defaulter(SizeDefaulter),
            Registration::defaulter(LabelDefaulter),
            Registration::validator(SizeValidator),
            Registration::conversion(HubConversion::<v1::Cache>::hub().spoke::<v2::Cache>()),
        ])
        .unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let dir = cert_dir.path().to_path_buf();
        let serving = tokio::spawn(async move {
            server
                .serve(([127, 0, 0, 1], port).into(), &dir, async {
                    let _ = stopped.await;
                })
                .await
        });

        rop_testenv::install_crd(&client, &crd).await.unwrap();
        Api::<MutatingWebhookConfiguration>::all(client.clone())
            .create(&PostParams::default(), &mutating)
            .await
            .unwrap();
        Api::<ValidatingWebhookConfiguration>::all(client.clone())
            .create(&PostParams::default(), &validating)
            .await
            .unwrap();

        // The API server picks the new resource and webhooks up within moments: create until
        // the object comes back defaulted.
        let caches: Api<v1::Cache> = Api::namespaced(client.clone(), "default");
        let deadline = Instant::now() + Duration::from_secs(30);
        let created = loop {
            let attempt =
                caches.create(&PostParams::default(), &v1::Cache::new("plain", v1::CacheSpec::default())).await;
            match attempt {
                Ok(created) if created.spec.size == Some(3) => break created,
                Ok(_) => {
                    caches.delete("plain", &DeleteParams::default()).await.unwrap();
                }
                Err(kube::Error::Api(s)) if s.code == 404 => {}
                Err(e) => panic!("creating a Cache: {e}"),
            }
            assert!(Instant::now() < deadline, "the defaulting webhook was never called");
            tokio::time::sleep(Duration::from_millis(200)).await;
        };
        assert_eq!(created.spec, v1::CacheSpec { size: Some(3) });

        let refused = caches
            .create(&PostParams::default(), &v1::Cache::new("huge", v1::CacheSpec { size: Some(11) }))
            .await
            .expect_err("the validating webhook refuses size 11");
        let kube::Error::Api(status) = refused else { panic!("{refused}") };
        assert_eq!(
            (status.code, status.message.as_str()),
            (403, "admission webhook \"vcache-v1.hooks.example.com\" denied the request: size 11 is above 10")
        );

        // The v1 object read as v2, and a v2 object written and read as v1, go through /convert.
        let caches_v2: Api<v2::Cache> = Api::namespaced(client.clone(), "default");
        let as_v2 = caches_v2.get("plain").await.unwrap();
        assert_eq!(as_v2.spec, v2::CacheSpec { capacity: Some(v2::Capacity { replicas: 3 }) });
        let written = v2::Cache::new("from-v2", v2::CacheSpec { capacity: Some(v2::Capacity { replicas: 7 }) });
        caches_v2.create(&PostParams::default(), &written).await.unwrap();
        assert_eq!(caches.get("from-v2").await.unwrap().spec, v1::CacheSpec { size: Some(7) });

        // A built-in kind's webhook: the Deployment is stored with the defaulter's label.
        let deployments: Api<Deployment> = Api::namespaced(client.clone(), "default");
        let labels = std::collections::BTreeMap::from([("app".to_string(), "web".to_string())]);
        let deployment = Deployment {
            metadata: ObjectMeta { name: Some("web".into()), labels: Some(labels.clone()), ..ObjectMeta::default() },
            spec: DeploymentSpec {
                selector: LabelSelector { match_labels: Some(labels.clone()), ..LabelSelector::default() },
                template: PodTemplateSpec {
                    metadata: Some(ObjectMeta { labels: Some(labels), ..ObjectMeta::default() }),
                    spec: Some(PodSpec {
                        containers: vec![Container {
                            name: "web".into(),
                            image: Some("nginx".into()),
                            ..Container::default()
                        }],
                        ..PodSpec::default()
                    }),
                },
                ..DeploymentSpec::default()
            },
            ..Deployment::default()
        };
        let stored = deployments.create(&PostParams::default(), &deployment).await.unwrap();
        assert_eq!(stored.metadata.labels.unwrap().get("defaulted-by").map(String::as_str), Some("rop"));

        stop.send(()).unwrap();
        serving.await.unwrap().unwrap();
    });
}
