//! A real API server calls rop's webhook server: the defaulting webhook's patch is applied,
//! the validating webhook's denial reaches the client word for word, and the conversion
//! webhook serves a second version of the kind; a built-in kind's (apps/v1 Deployment)
//! defaulting webhook is called too.
//!
//! The manifests come from `rop::manifests` as `rop generate` writes them; the test then does
//! what kustomize and cert-manager do in a cluster: point the webhooks at the server (here a
//! loopback URL instead of the Service) and inject the CA that signed its certificate.

use std::net::TcpListener;
use std::path::Path;
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
use rop::webhook::{Defaulter, Denied, HubConversion, Registration, Request, Server};
use rop_testenv::TestEnv;

#[path = "support/caches.rs"]
mod caches;
#[path = "support/tls_probe.rs"]
mod tls_probe;
use caches::{SizeDefaulter, SizeValidator, v1, v2};

/// Webhooks for the built-in apps/v1 Deployment.
#[derive(rop::BuiltinKind)]
#[rop(group = "apps", version = "v1", kind = "Deployment", plural = "deployments")]
#[rop(object = "k8s_openapi::api::apps::v1::Deployment", webhook(mutating, name = "mdeployment-v1.hooks.example.com"))]
pub struct DeploymentV1;

struct LabelDefaulter;

impl Defaulter for LabelDefaulter {
    type Kind = DeploymentV1;
    async fn default(&self, object: &mut Deployment, _: &Request<'_, Self::Kind>) -> Result<(), Denied> {
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
        rop::manifests::kind::<v1::Cache>(),
        rop::manifests::kind::<v2::Cache>(),
        rop::manifests::builtin::<DeploymentV1>(),
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

/// Serves `server` on 127.0.0.1:`port` with the certificate in `cert_dir` until the returned
/// sender is used.
fn spawn(
    server: Server,
    port: u16,
    cert_dir: &Path,
) -> (tokio::sync::oneshot::Sender<()>, tokio::task::JoinHandle<Result<(), rop::webhook::ServeError>>) {
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let dir = cert_dir.to_path_buf();
    let serving = tokio::spawn(async move {
        server
            .serve(([127, 0, 0, 1], port).into(), &dir, async {
                let _ = stopped.await;
            })
            .await
    });
    (stop, serving)
}

/// Installs the CRD and the two webhook configurations.
async fn install(
    client: &kube::Client,
    crd: &CustomResourceDefinition,
    mutating: &MutatingWebhookConfiguration,
    validating: &ValidatingWebhookConfiguration,
) {
    rop_testenv::install_crd(client, crd).await.unwrap();
    Api::<MutatingWebhookConfiguration>::all(client.clone()).create(&PostParams::default(), mutating).await.unwrap();
    Api::<ValidatingWebhookConfiguration>::all(client.clone())
        .create(&PostParams::default(), validating)
        .await
        .unwrap();
}

/// A project folder with what `rop generate` writes for the kinds here: the CRD, the webhook
/// configurations and the manager's role.
fn project() -> tempfile::TempDir {
    let bundle = rop::manifests::bundle(&[
        rop::manifests::kind::<v1::Cache>(),
        rop::manifests::kind::<v2::Cache>(),
        rop::manifests::builtin::<DeploymentV1>(),
    ]);
    let dir = tempfile::tempdir().unwrap();
    for file in rop::manifests::assemble(&bundle, false).unwrap() {
        let path = dir.path().join(&file.path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, file.content).unwrap();
    }
    dir
}

/// Creates the Cache `plain` until it comes back defaulted: the API server picks a new
/// resource and new webhooks up within moments.
async fn create_defaulted(caches: &Api<v1::Cache>) -> v1::Cache {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let attempt = caches.create(&PostParams::default(), &v1::Cache::new("plain", v1::CacheSpec::default())).await;
        match attempt {
            Ok(created) if created.spec.size == Some(3) => return created,
            Ok(_) => {
                caches.delete("plain", &DeleteParams::default()).await.unwrap();
            }
            Err(kube::Error::Api(s)) if s.code == 404 => {}
            Err(e) => panic!("creating a Cache: {e}"),
        }
        assert!(Instant::now() < deadline, "the defaulting webhook was never called");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The webhook server speaks HTTP/1.1 alone, as kubebuilder's does without `--enable-http2`:
/// no HTTP/2 over ALPN, nor to a client that starts it unasked. No API server needed.
#[tokio::test]
async fn the_webhook_server_speaks_http_1_1_alone() {
    let (cert_dir, _) = certificates();
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let server = Server::build([Registration::defaulter(SizeDefaulter)]).unwrap();
    let (stop, serving) = spawn(server, port, cert_dir.path());
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "the webhook server did not start");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::task::spawn_blocking(move || tls_probe::assert_http_1_1_alone(port)).await.unwrap();
    stop.send(()).unwrap();
    serving.await.unwrap().unwrap();
}

#[test]
fn the_api_server_calls_the_webhooks() {
    let Some(env) = TestEnv::start_or_skip() else { return };
    let project = project();
    let client = env.client();
    env.block_on(async {
        let server = Server::build([
            Registration::defaulter(SizeDefaulter),
            Registration::defaulter(LabelDefaulter),
            Registration::validator(SizeValidator),
            Registration::conversion(HubConversion::<v1::Cache>::hub().spoke::<v2::Cache>()),
        ])
        .unwrap();
        // As a project's test does it: the webhooks served and registered as the project
        // deploys them, the CRD's conversion pointed at the server.
        let webhooks = env.serve_webhooks(project.path(), server).await;

        let caches: Api<v1::Cache> = Api::namespaced(client.clone(), "default");
        let created = create_defaulted(&caches).await;
        assert_eq!(created.spec, v1::CacheSpec { size: Some(3) });
        assert!(webhooks.defaulter_calls::<v1::Cache>() >= 1);
        let validated = webhooks.validator_calls::<v1::Cache>();

        let refused = caches
            .create(&PostParams::default(), &v1::Cache::new("huge", v1::CacheSpec { size: Some(11) }))
            .await
            .expect_err("the validating webhook refuses size 11");
        assert_eq!(webhooks.validator_calls::<v1::Cache>(), validated + 1, "one review, denied");
        let kube::Error::Api(status) = refused else { panic!("{refused}") };
        assert_eq!(
            (status.code, status.message.as_str()),
            (403, "admission webhook \"vcache-v1.hooks.example.com\" denied the request: size 11 is above 10")
        );

        // The validator reads the cluster through the client the server was given.
        let team = |name: &str| {
            let mut cache = v1::Cache::new(name, v1::CacheSpec { size: Some(1) });
            cache.metadata.labels = Some([("team".to_string(), "blue".to_string())].into());
            cache
        };
        caches.create(&PostParams::default(), &team("blue-1")).await.unwrap();
        let refused = caches.create(&PostParams::default(), &team("blue-2")).await.expect_err("one per team");
        let kube::Error::Api(status) = refused else { panic!("{refused}") };
        assert_eq!(
            status.message,
            "admission webhook \"vcache-v1.hooks.example.com\" denied the request: team blue already has the Cache blue-1"
        );

        // The v1 object read as v2, and a v2 object written and read as v1, go through /convert.
        let converted = webhooks.conversion_calls();
        let caches_v2: Api<v2::Cache> = Api::namespaced(client.clone(), "default");
        let as_v2 = caches_v2.get("plain").await.unwrap();
        assert_eq!(as_v2.spec, v2::CacheSpec { capacity: Some(v2::Capacity { replicas: 3 }) });
        let written = v2::Cache::new("from-v2", v2::CacheSpec { capacity: Some(v2::Capacity { replicas: 7 }) });
        caches_v2.create(&PostParams::default(), &written).await.unwrap();
        assert_eq!(caches.get("from-v2").await.unwrap().spec, v1::CacheSpec { size: Some(7) });
        assert!(webhooks.conversion_calls() >= converted + 3, "a read, a create and a read");

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

        webhooks.stop().await;
    });
}

/// Posts `{}` to `/convert` on the webhook server at `port` over TLS, trusting `ca` and
/// presenting the certificate and key files `client` when given: the first line of the answer,
/// or the error that ended the connection.
fn post(port: u16, ca: &str, client: Option<(&Path, &Path)>) -> Result<String, String> {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
    use std::io::{Read, Write};
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(ca.as_bytes()) {
        roots.add(cert.unwrap()).unwrap();
    }
    // ring's provider, as the manager uses (deprecated from rustls 0.23.48).
    #[allow(deprecated)]
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots);
    let config = match client {
        None => builder.with_no_client_auth(),
        Some((cert, key)) => {
            let certs = CertificateDer::pem_file_iter(cert).unwrap().map(Result::unwrap).collect();
            builder.with_client_auth_cert(certs, PrivateKeyDer::from_pem_file(key).unwrap()).unwrap()
        }
    };
    let connection =
        rustls::ClientConnection::new(std::sync::Arc::new(config), ServerName::try_from("127.0.0.1").unwrap()).unwrap();
    let mut tls = rustls::StreamOwned::new(connection, std::net::TcpStream::connect(("127.0.0.1", port)).unwrap());
    let request = "POST /convert HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}";
    tls.write_all(request.as_bytes()).map_err(|e| e.to_string())?;
    let mut answer = String::new();
    tls.read_to_string(&mut answer).map_err(|e| e.to_string())?;
    Ok(answer.lines().next().unwrap_or_default().to_string())
}

/// With `--webhook-client-ca-file` (here [`Server::client_ca_file`]) the server admits the API
/// server, which presents the client certificate its admission configuration gives it, and
/// refuses in the TLS handshake a client with no certificate or one from another CA.
#[test]
fn only_the_api_server_gets_past_a_client_certificate_check() {
    let mut options = rop_testenv::Options::default();
    options.webhook_client_certificate = true;
    let Some(env) = options.start_or_skip() else { return };
    let client_ca = env.webhook_client_ca().expect("the option makes a client CA").to_path_buf();
    let (cert_dir, ca) = certificates();
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let (mut crd, mutating, validating) = manifests(port, &ca);
    // Conversion is left out: kube-apiserver presents no client certificate to conversion
    // webhooks (see below).
    crd.spec.conversion = None;
    crd.spec.versions.retain(|v| v.name == "v1");
    let client = env.client();
    let pki = env.dir().join("pki");
    env.block_on(async move {
        let server = Server::build([Registration::defaulter(SizeDefaulter), Registration::validator(SizeValidator)])
            .unwrap()
            .client_ca_file(&client_ca);
        let (stop, serving) = spawn(server, port, cert_dir.path());

        install(&client, &crd, &mutating, &validating).await;
        let caches: Api<v1::Cache> = Api::namespaced(client.clone(), "default");
        create_defaulted(&caches).await;
        let refused = caches
            .create(&PostParams::default(), &v1::Cache::new("huge", v1::CacheSpec { size: Some(11) }))
            .await
            .expect_err("the validating webhook refuses size 11");
        assert!(refused.to_string().contains("size 11 is above 10"), "{refused}");

        let answers = tokio::task::spawn_blocking(move || {
            let ca = ca.clone();
            [
                post(port, &ca, None),
                post(port, &ca, Some((&pki.join("admin.crt"), &pki.join("admin.key")))),
                post(port, &ca, Some((&pki.join("webhook-client.crt"), &pki.join("webhook-client.key")))),
            ]
        })
        .await
        .unwrap();
        assert_eq!(
            answers,
            [
                Err("received fatal alert: CertificateRequired".to_string()),
                Err("received fatal alert: UnknownCA".to_string()),
                Ok("HTTP/1.1 404 Not Found".to_string()),
            ]
        );

        stop.send(()).unwrap();
        serving.await.unwrap().unwrap();
    });
}

/// kube-apiserver presents the admission configuration's client certificate to admission
/// webhooks only: a conversion webhook behind the client certificate check refuses it, which is
/// why `Server::serve` refuses a client CA on a server with conversions. Here the conversion is
/// served by a second server that checks client certificates with the same code
/// (`client_ca_file` on a server with only a defaulter), which the API server calls as its
/// conversion webhook.
#[test]
fn conversion_webhooks_get_no_client_certificate() {
    let mut options = rop_testenv::Options::default();
    options.webhook_client_certificate = true;
    let Some(env) = options.start_or_skip() else { return };
    let client_ca = env.webhook_client_ca().expect("the option makes a client CA").to_path_buf();
    let (cert_dir, ca) = certificates();
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let (crd, _, _) = manifests(port, &ca);
    let client = env.client();
    env.block_on(async move {
        let server = Server::build([Registration::conversion(HubConversion::<v1::Cache>::hub().spoke::<v2::Cache>())])
            .unwrap()
            .client_ca_file(&client_ca);
        let refused = server.serve(([127, 0, 0, 1], port).into(), cert_dir.path(), async {}).await.unwrap_err();
        assert_eq!(
            refused.to_string(),
            "the webhook server converts hooks.example.com Cache and was asked to admit only callers with a client certificate (--webhook-client-ca-file): kube-apiserver presents none to CRD conversion webhooks, so every conversion would fail; leave the flag out"
        );
        let server = Server::build([Registration::defaulter(SizeDefaulter)]).unwrap().client_ca_file(&client_ca);
        let (stop, serving) = spawn(server, port, cert_dir.path());
        rop_testenv::install_crd(&client, &crd).await.unwrap();
        let caches: Api<v1::Cache> = Api::namespaced(client.clone(), "default");
        let deadline = Instant::now() + Duration::from_secs(30);
        while let Err(e) = caches.create(&PostParams::default(), &v1::Cache::new("plain", v1::CacheSpec::default())).await {
            assert!(Instant::now() < deadline, "creating a Cache: {e}");
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        let caches_v2: Api<v2::Cache> = Api::namespaced(client.clone(), "default");
        // The refusal is a TLS alert; the API server's client sometimes sees the connection
        // closed or reset before it reads the alert, and reports that instead: ask again.
        let mut error = String::new();
        for _ in 0..10 {
            error = caches_v2.get("plain").await.expect_err("the conversion webhook refuses the API server").to_string();
            if !error.contains("use of closed network connection") && !error.contains("connection reset by peer") {
                break;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        assert!(
            error.contains("conversion webhook for hooks.example.com/v1, Kind=Cache failed")
                && error.contains("remote error: tls: certificate required"),
            "{error}"
        );
        stop.send(()).unwrap();
        serving.await.unwrap().unwrap();
    });
}
