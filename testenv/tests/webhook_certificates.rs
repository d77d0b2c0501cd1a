//! Self-managed webhook certificates (`--webhook-cert-mode=self-managed`) on a real API
//! server: a manager issues its CA and serving certificate into a Secret, registers its
//! webhooks at a URL (`--webhook-url`, the dev loop) and the API server calls them; a second
//! replica serves the same certificate and writes nothing; the certificate is renewed with no
//! failed admission; a `caBundle` changed by hand and an unusable Secret are put right. In the
//! cluster layout (webhooks behind a Service) the manager fills the Secret deployed empty,
//! injects the CA, and without a rule it needs says so in its readiness.

use std::net::TcpListener;
use std::sync::Arc;
use std::time::{Duration, Instant};

use k8s_openapi::ByteString;
use k8s_openapi::api::admissionregistration::v1::{
    MutatingWebhookConfiguration, ServiceReference, ValidatingWebhookConfiguration,
};
use k8s_openapi::api::core::v1::Secret;
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, PolicyRule, RoleRef, Subject};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceConversion, CustomResourceDefinition, WebhookClientConfig, WebhookConversion,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::Client;
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use rop::manager::{CertMode, Manager, Options, Readiness};
use rop::webhook::{HubConversion, Registration, Server};
use rop_testenv::TestEnv;
use tokio_util::sync::CancellationToken;

#[path = "support/caches.rs"]
mod caches;
use caches::{SizeDefaulter, SizeValidator, v1, v2};

/// The manager's name: names get the prefix `hooks-`, as kustomize's `namePrefix` gives them.
const NAME: &str = "hooks";
const SECRET: &str = "hooks-webhook-server-cert";
const MUTATING: &str = "hooks-mutating-webhook-configuration";
const VALIDATING: &str = "hooks-validating-webhook-configuration";
const CRD: &str = "caches.hooks.example.com";

fn server() -> Server {
    Server::build([
        Registration::defaulter(SizeDefaulter),
        Registration::validator(SizeValidator),
        Registration::conversion(HubConversion::<v1::Cache>::hub().spoke::<v2::Cache>()),
    ])
    .unwrap()
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// A running manager.
struct Replica {
    readiness: Readiness,
    stop: CancellationToken,
    done: tokio::task::JoinHandle<Result<(), rop::manager::Error>>,
}

impl Replica {
    /// Starts a manager with self-managed certificates on `port`, with `options` changed by
    /// `with`, as `client`.
    fn start(client: Client, port: u16, with: impl FnOnce(&mut Options)) -> Replica {
        let mut options = Options::for_tests();
        options.enable_webhooks = true;
        options.webhook_bind_address = ([127, 0, 0, 1], port).into();
        options.webhook_cert_mode = CertMode::SelfManaged;
        with(&mut options);
        let mut manager = Manager::with_client(NAME, options, client);
        manager.add_webhooks(server());
        let readiness = manager.readiness();
        let stop = CancellationToken::new();
        let done = tokio::spawn(manager.run_until(stop.clone().cancelled_owned()));
        Replica { readiness, stop, done }
    }

    async fn ready(&self, who: &str) {
        let deadline = Instant::now() + Duration::from_secs(60);
        while !self.readiness.is_ready() {
            assert!(!self.done.is_finished(), "{who} stopped");
            assert!(Instant::now() < deadline, "{who} is not ready: {:?}", self.readiness.reasons());
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    async fn stop(self) {
        self.stop.cancel();
        self.done.await.unwrap().unwrap();
    }
}

/// Lets the ServiceAccounts `default/<name>` do anything.
async fn admins(client: &Client, names: &[&str]) {
    let subjects = names.iter().map(|name| Subject {
        kind: "ServiceAccount".into(),
        name: name.to_string(),
        namespace: Some("default".into()),
        ..Subject::default()
    });
    let binding = ClusterRoleBinding {
        metadata: ObjectMeta { name: Some("replicas".into()), ..ObjectMeta::default() },
        role_ref: role_ref("cluster-admin"),
        subjects: Some(subjects.collect()),
    };
    Api::<ClusterRoleBinding>::all(client.clone()).create(&PostParams::default(), &binding).await.unwrap();
}

fn role_ref(name: &str) -> RoleRef {
    RoleRef { api_group: Some("rbac.authorization.k8s.io".into()), kind: "ClusterRole".into(), name: name.into() }
}

async fn secret(client: &Client) -> Secret {
    Api::<Secret>::namespaced(client.clone(), "default").get(SECRET).await.unwrap()
}

fn key(secret: &Secret, key: &str) -> Vec<u8> {
    secret.data.as_ref().and_then(|d| d.get(key)).map(|v| v.0.clone()).unwrap_or_default()
}

/// The certificate the server on `port` presents for `host`, verified against `ca` (PEM).
fn served_certificate(port: u16, host: &str, ca: &[u8]) -> Result<Vec<u8>, String> {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, ServerName};
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(ca) {
        roots.add(cert.unwrap()).unwrap();
    }
    #[allow(deprecated)]
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let name = ServerName::try_from(host.to_string()).unwrap();
    let mut connection = rustls::ClientConnection::new(Arc::new(config), name).unwrap();
    let mut tcp = std::net::TcpStream::connect(("127.0.0.1", port)).map_err(|e| e.to_string())?;
    while connection.is_handshaking() {
        connection.complete_io(&mut tcp).map_err(|e| e.to_string())?;
    }
    Ok(connection.peer_certificates().unwrap()[0].to_vec())
}

fn pem_to_der(pem: &[u8]) -> Vec<u8> {
    use rustls::pki_types::CertificateDer;
    use rustls::pki_types::pem::PemObject;
    CertificateDer::from_pem_slice(pem).unwrap().to_vec()
}

/// The CRDs of both versions, converting with strategy `None`.
fn crd() -> CustomResourceDefinition {
    use rop::CustomResource as _;
    let mut crd = v1::Cache::custom_resource_definition();
    crd.spec.versions.extend(v2::Cache::custom_resource_definition().spec.versions);
    crd
}

/// Creates a Cache through the webhooks: the defaulter sets its size.
async fn create(caches: &Api<v1::Cache>, name: &str) -> Result<v1::Cache, kube::Error> {
    caches.create(&PostParams::default(), &v1::Cache::new(name, v1::CacheSpec::default())).await
}

#[test]
fn a_manager_issues_registers_renews_and_repairs_its_certificate() {
    let mut options = rop_testenv::Options::default();
    options.audit_log = true;
    let Some(env) = options.start_or_skip() else { return };
    let client = env.client();
    env.block_on(async {
        rop_testenv::install_crd(&client, &crd()).await.unwrap();
        admins(&client, &["a", "b"]).await;
        let (port_a, port_b) = (free_port(), free_port());
        let url = format!("https://127.0.0.1:{port_a}");
        let replica = |name: &'static str, port| {
            let client = env.client_as_service_account("default", name).unwrap();
            let url = url.clone();
            Replica::start(client, port, move |options| {
                options.webhook_url = Some(url);
                // Renewed after 16 s, checked every 2.4 s.
                options.webhook_cert_lifetime = Duration::from_secs(24);
                options.leader_elect = true;
                options.leader_election_identity = Some(name.into());
                options.leader_elect_lease_duration = Duration::from_secs(4);
                options.leader_elect_renew_deadline = Duration::from_secs(3);
                options.leader_elect_retry_period = Duration::from_secs(1);
            })
        };
        let a = replica("a", port_a);
        a.ready("a").await;

        // The Secret, the configurations and the CRD's conversion, all pointing at the URL and
        // trusting the Secret's CA.
        let issued = secret(&client).await;
        let ca = key(&issued, "ca.crt");
        assert!(String::from_utf8_lossy(&ca).starts_with("-----BEGIN CERTIFICATE-----"));
        for data_key in ["ca.key", "tls.crt", "tls.key"] {
            assert!(!key(&issued, data_key).is_empty(), "{data_key}");
        }
        let mutating = Api::<MutatingWebhookConfiguration>::all(client.clone()).get(MUTATING).await.unwrap();
        let webhook = &mutating.webhooks.as_ref().unwrap()[0];
        assert_eq!(webhook.client_config.url, Some(format!("{url}/mutate-hooks-example-com-v1-cache")));
        assert_eq!(webhook.client_config.ca_bundle, Some(ByteString(ca.clone())));
        let validating = Api::<ValidatingWebhookConfiguration>::all(client.clone()).get(VALIDATING).await.unwrap();
        let webhook = &validating.webhooks.as_ref().unwrap()[0];
        assert_eq!(webhook.client_config.url, Some(format!("{url}/validate-hooks-example-com-v1-cache")));
        let crds = Api::<CustomResourceDefinition>::all(client.clone());
        let conversion = crds.get(CRD).await.unwrap().spec.conversion.unwrap();
        assert_eq!(conversion.strategy, "Webhook");
        let config = conversion.webhook.unwrap().client_config.unwrap();
        assert_eq!((config.url, config.ca_bundle), (Some(format!("{url}/convert")), Some(ByteString(ca.clone()))));

        // The API server calls all three.
        let caches: Api<v1::Cache> = Api::namespaced(client.clone(), "default");
        let created = create(&caches, "plain").await.unwrap();
        assert_eq!(created.spec.size, Some(3));
        let refused = caches
            .create(&PostParams::default(), &v1::Cache::new("huge", v1::CacheSpec { size: Some(11) }))
            .await
            .unwrap_err();
        let kube::Error::Api(status) = refused else { panic!("{refused}") };
        assert_eq!(
            (status.code, status.message.as_str()),
            (403, "admission webhook \"vcache-v1.hooks.example.com\" denied the request: size 11 is above 10")
        );
        let as_v2 = Api::<v2::Cache>::namespaced(client.clone(), "default").get("plain").await.unwrap();
        assert_eq!(as_v2.spec.capacity, Some(v2::Capacity { replicas: 3 }));

        // A second replica, standing by, serves the same certificate.
        let b = replica("b", port_b);
        b.ready("b").await;
        let tls = key(&secret(&client).await, "tls.crt");
        assert_eq!(served_certificate(port_b, "127.0.0.1", &ca), Ok(pem_to_der(&tls)));
        assert_eq!(served_certificate(port_a, "127.0.0.1", &ca), Ok(pem_to_der(&tls)));

        // Renewal: objects keep being admitted while the certificate is replaced.
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut failures = Vec::new();
        let mut created = 0;
        loop {
            let name = format!("r{created}");
            match create(&caches, &name).await {
                Ok(_) => caches.delete(&name, &DeleteParams::default()).await.map(drop).unwrap(),
                Err(e) => failures.push(e.to_string()),
            }
            created += 1;
            let now = key(&secret(&client).await, "tls.crt");
            let renewed = pem_to_der(&now);
            if now != tls
                && served_certificate(port_a, "127.0.0.1", &ca) == Ok(renewed.clone())
                && served_certificate(port_b, "127.0.0.1", &ca) == Ok(renewed)
            {
                break;
            }
            assert!(Instant::now() < deadline, "the certificate was not renewed and served within 60 s");
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
        assert_eq!(failures, Vec::<String>::new(), "admissions failed during renewal ({created} tried)");
        assert_eq!(key(&secret(&client).await, "ca.crt"), ca, "a renewal keeps the CA");

        // The standby wrote nothing but its Lease attempts.
        let writes = env.writes_of("system:serviceaccount:default:b").unwrap();
        assert!(writes.iter().all(|w| w.resource == "leases"), "{writes:?}");

        // A caBundle changed by hand is put back.
        let validatings = Api::<ValidatingWebhookConfiguration>::all(client.clone());
        let mut changed = validatings.get(VALIDATING).await.unwrap();
        changed.webhooks.as_mut().unwrap()[0].client_config.ca_bundle = Some(ByteString(b"junk".to_vec()));
        validatings.replace(VALIDATING, &PostParams::default(), &changed).await.unwrap();
        rop_testenv::wait_for(&validatings, VALIDATING, |v: &ValidatingWebhookConfiguration| {
            v.webhooks.as_ref().unwrap()[0].client_config.ca_bundle == Some(ByteString(ca.clone()))
        })
        .await;

        // An unusable Secret is replaced; the manager keeps running and serving.
        let secrets = Api::<Secret>::namespaced(client.clone(), "default");
        let patch = serde_json::json!({"data": {"tls.crt": ByteString(b"garbage".to_vec())}});
        secrets.patch(SECRET, &PatchParams::default(), &Patch::Merge(patch)).await.unwrap();
        let replaced = rop_testenv::wait_for(&secrets, SECRET, |s: &Secret| {
            key(s, "tls.crt").starts_with(b"-----BEGIN CERTIFICATE-----")
        })
        .await;
        a.ready("a after the Secret was replaced").await;
        let new_ca = key(&replaced, "ca.crt");
        assert_ne!(new_ca, ca, "an unusable Secret gets a new CA");
        let deadline = Instant::now() + Duration::from_secs(30);
        while create(&caches, "again").await.is_err() {
            assert!(Instant::now() < deadline, "the webhooks were not called again within 30 s");
            tokio::time::sleep(Duration::from_millis(250)).await;
        }

        b.stop().await;
        a.stop().await;
        // Stopped, the leader takes its registrations along: nothing refuses Caches now.
        let mutatings = Api::<MutatingWebhookConfiguration>::all(client.clone());
        assert_eq!(mutatings.get_opt(MUTATING).await.unwrap(), None);
        assert_eq!(validatings.get_opt(VALIDATING).await.unwrap(), None);
    });
}

#[test]
fn in_the_cluster_layout_the_manager_fills_its_secret_and_names_a_missing_rule() {
    let Some(env) = TestEnv::start_or_skip() else { return };
    let client = env.client();
    env.block_on(async {
        // What config/default deploys: the CRD converting through the Service, the webhook
        // configurations calling it, the Secret empty.
        let mut crd = crd();
        let service = |path: &str| ServiceReference {
            name: "hooks-webhook-service".into(),
            namespace: "default".into(),
            path: Some(path.into()),
            port: None,
        };
        crd.spec.conversion = Some(CustomResourceConversion {
            strategy: "Webhook".into(),
            webhook: Some(WebhookConversion {
                client_config: Some(WebhookClientConfig {
                    service: Some(k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::ServiceReference {
                        name: "hooks-webhook-service".into(),
                        namespace: "default".into(),
                        path: Some("/convert".into()),
                        port: None,
                    }),
                    ..WebhookClientConfig::default()
                }),
                conversion_review_versions: vec!["v1".into()],
            }),
        });
        rop_testenv::install_crd(&client, &crd).await.unwrap();
        let (mutating, validating) = rop::webhook_configuration::for_kind(&<v1::Cache as rop::WebhookTarget>::TARGET);
        let (mutating, validating) = rop::webhook_configuration::configurations(mutating, validating).unwrap();
        let (mut mutating, mut validating) = (mutating.unwrap(), validating.unwrap());
        mutating.metadata.name = Some(MUTATING.into());
        validating.metadata.name = Some(VALIDATING.into());
        // Nothing answers behind the Service here: let the API server admit without it.
        let behind_service = |config: &mut k8s_openapi::api::admissionregistration::v1::WebhookClientConfig,
                              policy: &mut Option<String>| {
            config.service = Some(service(&config.service.take().unwrap().path.unwrap()));
            *policy = Some("Ignore".into());
        };
        for webhook in mutating.webhooks.iter_mut().flatten() {
            behind_service(&mut webhook.client_config, &mut webhook.failure_policy);
        }
        for webhook in validating.webhooks.iter_mut().flatten() {
            behind_service(&mut webhook.client_config, &mut webhook.failure_policy);
        }
        Api::<MutatingWebhookConfiguration>::all(client.clone()).create(&PostParams::default(), &mutating).await.unwrap();
        Api::<ValidatingWebhookConfiguration>::all(client.clone())
            .create(&PostParams::default(), &validating)
            .await
            .unwrap();
        let empty = Secret {
            metadata: ObjectMeta { name: Some(SECRET.into()), ..ObjectMeta::default() },
            type_: Some("Opaque".into()),
            ..Secret::default()
        };
        Api::<Secret>::namespaced(client.clone(), "default").create(&PostParams::default(), &empty).await.unwrap();

        // The rules config/webhook-self-managed/role.yaml grants, but `update` on the
        // validating configuration.
        let rule = |group: &str, resource: &str, name: &str, verbs: &[&str]| PolicyRule {
            api_groups: Some(vec![group.into()]),
            resources: Some(vec![resource.into()]),
            resource_names: Some(vec![name.into()]),
            verbs: verbs.iter().map(|v| v.to_string()).collect(),
            ..PolicyRule::default()
        };
        let rules = vec![
            rule("", "secrets", SECRET, &["get", "update"]),
            rule("admissionregistration.k8s.io", "mutatingwebhookconfigurations", MUTATING, &["get", "update"]),
            rule("admissionregistration.k8s.io", "validatingwebhookconfigurations", VALIDATING, &["get"]),
            rule("apiextensions.k8s.io", "customresourcedefinitions", CRD, &["get", "patch"]),
        ];
        let roles = Api::<ClusterRole>::all(client.clone());
        let role = ClusterRole {
            metadata: ObjectMeta { name: Some("certificates".into()), ..ObjectMeta::default() },
            rules: Some(rules),
            ..ClusterRole::default()
        };
        roles.create(&PostParams::default(), &role).await.unwrap();
        let binding = ClusterRoleBinding {
            metadata: ObjectMeta { name: Some("certificates".into()), ..ObjectMeta::default() },
            role_ref: role_ref("certificates"),
            subjects: Some(vec![Subject {
                kind: "ServiceAccount".into(),
                name: "manager".into(),
                namespace: Some("default".into()),
                ..Subject::default()
            }]),
        };
        Api::<ClusterRoleBinding>::all(client.clone()).create(&PostParams::default(), &binding).await.unwrap();

        let port = free_port();
        let manager = Replica::start(env.client_as_service_account("default", "manager").unwrap(), port, |_| {});
        let reason = "webhook-certificate: the manager may not update the validatingwebhookconfigurations \"hooks-validating-webhook-configuration\": give its ServiceAccount the rule {apiGroups: [\"admissionregistration.k8s.io\"], resources: [\"validatingwebhookconfigurations\"], resourceNames: [\"hooks-validating-webhook-configuration\"], verbs: [\"update\"]} (config/webhook-self-managed/role.yaml has it)";
        let deadline = Instant::now() + Duration::from_secs(30);
        while manager.readiness.reasons() != [reason] {
            assert!(Instant::now() < deadline, "readiness: {:?}", manager.readiness.reasons());
            tokio::time::sleep(Duration::from_millis(200)).await;
        }

        // The Secret was filled, the CA went where the rules allow, and the certificate is for
        // the Service's names.
        let filled = secret(&client).await;
        let ca = key(&filled, "ca.crt");
        let mutating = Api::<MutatingWebhookConfiguration>::all(client.clone()).get(MUTATING).await.unwrap();
        assert_eq!(mutating.webhooks.unwrap()[0].client_config.ca_bundle, Some(ByteString(ca.clone())));
        let conversion = Api::<CustomResourceDefinition>::all(client.clone()).get(CRD).await.unwrap().spec.conversion;
        let config = conversion.unwrap().webhook.unwrap().client_config.unwrap();
        assert_eq!(config.ca_bundle, Some(ByteString(ca.clone())));
        assert!(config.service.is_some(), "the Service reference stays");
        let tls = pem_to_der(&key(&filled, "tls.crt"));
        for host in ["hooks-webhook-service.default.svc", "hooks-webhook-service.default.svc.cluster.local"] {
            assert_eq!(served_certificate(port, host, &ca), Ok(tls.clone()), "{host}");
        }

        // With the rule, it becomes ready.
        let patch = serde_json::json!({"rules": [
            {"apiGroups": [""], "resources": ["secrets"], "resourceNames": [SECRET], "verbs": ["get", "update"]},
            {"apiGroups": ["admissionregistration.k8s.io"], "resources": ["mutatingwebhookconfigurations", "validatingwebhookconfigurations"], "resourceNames": [MUTATING, VALIDATING], "verbs": ["get", "update"]},
            {"apiGroups": ["apiextensions.k8s.io"], "resources": ["customresourcedefinitions"], "resourceNames": [CRD], "verbs": ["get", "patch"]},
        ]});
        roles.patch("certificates", &PatchParams::default(), &Patch::Merge(patch)).await.unwrap();
        manager.ready("the manager with every rule").await;
        let validating = Api::<ValidatingWebhookConfiguration>::all(client.clone()).get(VALIDATING).await.unwrap();
        assert_eq!(validating.webhooks.unwrap()[0].client_config.ca_bundle, Some(ByteString(ca)));
        manager.stop().await;

        // A manager run from a laptop (`make run WEBHOOK_URL=...`) leaves the deployed
        // operator's configurations alone, and does not delete them when it stops.
        let port = free_port();
        let laptop = Replica::start(client.clone(), port, |options| {
            options.webhook_url = Some(format!("https://127.0.0.1:{port}"));
        });
        let deadline = Instant::now() + Duration::from_secs(30);
        let refused = "the MutatingWebhookConfiguration hooks-mutating-webhook-configuration calls the Service default/hooks-webhook-service: it is a deployed operator's, and a manager at --webhook-url leaves it alone; undeploy it (make undeploy) or run against a cluster without it";
        while !laptop.readiness.reasons().iter().any(|r| r.contains(refused)) {
            assert!(Instant::now() < deadline, "readiness: {:?}", laptop.readiness.reasons());
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        laptop.stop().await;
        let mutating = Api::<MutatingWebhookConfiguration>::all(client.clone()).get(MUTATING).await.unwrap();
        assert_eq!(mutating.webhooks.unwrap()[0].client_config.service.as_ref().map(|s| s.name.as_str()), Some("hooks-webhook-service"));
    });
}
