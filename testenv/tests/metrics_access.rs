//! The secure metrics server (`--metrics-secure`, the default) on a real API server: no token
//! gets 401, a ServiceAccount's token without the metrics-reader role 403, with it 200 and the
//! metrics; a manager whose own role cannot review tokens answers 500 until it can; HTTP/2 and
//! plain HTTP are refused, and HTTP/2 offered with `--enable-http2`.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::time::{Duration, Instant};

use k8s_openapi::api::authentication::v1::{TokenRequest, TokenRequestSpec};
use k8s_openapi::api::core::v1::ServiceAccount;
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, RoleRef, Subject};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::Client;
use kube::api::{Api, PostParams};
use rop::manager::{BindAddress, Manager, Options};
use rop_testenv::TestEnv;
use tokio_util::sync::CancellationToken;

#[path = "support/tls_probe.rs"]
mod tls_probe;

/// The scaffold's roles, as `rop init` writes them.
const METRICS_AUTH_ROLE: &str = include_str!("../../templates/init/config/rbac/metrics_auth_role.yaml");
const METRICS_READER_ROLE: &str = include_str!("../../templates/init/config/rbac/metrics_reader_role.yaml");

#[test]
fn metrics_are_served_only_to_callers_the_api_server_authorizes() {
    let Some(env) = TestEnv::start_or_skip() else { return };
    let admin = env.client();
    env.block_on(async {
        // Inside the runtime: the client's buffer needs it.
        let as_manager = env.client_as_service_account("default", "manager").unwrap();
        for name in ["manager", "scraper", "stranger"] {
            service_account(&admin, name).await;
        }
        apply_role(&admin, METRICS_READER_ROLE).await;
        bind(&admin, "metrics-reader", "scraper").await;
        let scraper = token(&admin, "scraper").await;
        let stranger = token(&admin, "stranger").await;

        let (port, manager) =
            Scraped::start(as_manager, |options| assert!(options.metrics_secure, "the default")).await;

        // The manager may not review tokens yet: it says so, and remembers nothing.
        assert_eq!(get(port, Some(&scraper)).await.0, "HTTP/1.1 500 Internal Server Error");
        apply_role(&admin, METRICS_AUTH_ROLE).await;
        bind(&admin, "metrics-auth-role", "manager").await;
        let deadline = Instant::now() + Duration::from_secs(30);
        let (status, body) = loop {
            let (status, body) = get(port, Some(&scraper)).await;
            if status != "HTTP/1.1 500 Internal Server Error" || Instant::now() > deadline {
                break (status, body);
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        };
        assert_eq!(status, "HTTP/1.1 200 OK");
        // No controller has reconciled anything: the registry has no sample yet.
        assert_eq!(body, "# EOF\n");
        assert_eq!(get(port, None).await, ("HTTP/1.1 401 Unauthorized".into(), "Unauthorized\n".into()));
        assert_eq!(get(port, Some("not-a-token")).await.0, "HTTP/1.1 401 Unauthorized");
        assert_eq!(
            get(port, Some(&stranger)).await,
            ("HTTP/1.1 403 Forbidden".into(), "Forbidden: the caller may not get /metrics\n".into())
        );
        assert_eq!(get(port, Some(&scraper)).await.0, "HTTP/1.1 200 OK");

        tokio::task::spawn_blocking(move || tls_probe::assert_http_1_1_alone(port)).await.unwrap();
        let plain = tokio::task::spawn_blocking(move || plain_http(port)).await.unwrap();
        assert!(!plain.starts_with("HTTP/1.1 200"), "plain HTTP gets no metrics: {plain:?}");

        manager.stop().await;

        // --enable-http2 offers HTTP/2 first.
        let (port, manager) = Scraped::start(env.client(), |options| options.enable_http2 = true).await;
        let agreed = tokio::task::spawn_blocking(move || tls_probe::handshake(port, &[b"h2", b"http/1.1"]));
        assert_eq!(agreed.await.unwrap(), Ok(Some(b"h2".to_vec())));
        manager.stop().await;
    });
}

/// A manager serving metrics on a port of its own.
struct Scraped {
    stop: CancellationToken,
    running: tokio::task::JoinHandle<Result<(), rop::manager::Error>>,
}

impl Scraped {
    /// Starts a manager as `client` with its metrics on a free port and `options` changed by
    /// `with`, and waits until it is ready: the port, and the manager.
    async fn start(client: Client, with: impl FnOnce(&mut Options)) -> (u16, Scraped) {
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let mut options = Options::for_tests();
        options.metrics_bind_address = BindAddress(Some(([127, 0, 0, 1], port).into()));
        with(&mut options);
        let manager = Manager::with_client("scraped", options, client);
        let readiness = manager.readiness();
        let stop = CancellationToken::new();
        let running = tokio::spawn(manager.run_until(stop.clone().cancelled_owned()));
        while !readiness.is_ready() {
            assert!(!running.is_finished(), "the manager stopped");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        (port, Scraped { stop, running })
    }

    async fn stop(self) {
        self.stop.cancel();
        self.running.await.unwrap().unwrap();
    }
}

async fn service_account(client: &Client, name: &str) {
    let account = ServiceAccount {
        metadata: ObjectMeta { name: Some(name.into()), ..ObjectMeta::default() },
        ..ServiceAccount::default()
    };
    Api::<ServiceAccount>::namespaced(client.clone(), "default")
        .create(&PostParams::default(), &account)
        .await
        .unwrap();
}

/// A token of the ServiceAccount `default/<name>`, as `kubectl create token` asks for one.
async fn token(client: &Client, name: &str) -> String {
    let request = TokenRequest {
        spec: Some(TokenRequestSpec { expiration_seconds: Some(600), ..TokenRequestSpec::default() }),
        ..TokenRequest::default()
    };
    let accounts = Api::<ServiceAccount>::namespaced(client.clone(), "default");
    let issued = accounts.create_token_request(name, &PostParams::default(), &request).await.unwrap();
    issued.status.and_then(|status| status.token).expect("the API server issues the token")
}

/// Creates the ClusterRole of a scaffold template.
async fn apply_role(client: &Client, template: &str) {
    let role: ClusterRole = serde_yaml::from_str(&template.replace("{{ project_name }}", "scraped")).unwrap();
    Api::<ClusterRole>::all(client.clone()).create(&PostParams::default(), &role).await.unwrap();
}

/// Binds the ClusterRole `role` to the ServiceAccount `default/<account>`.
async fn bind(client: &Client, role: &str, account: &str) {
    let binding = ClusterRoleBinding {
        metadata: ObjectMeta { name: Some(format!("{role}-{account}")), ..ObjectMeta::default() },
        role_ref: RoleRef {
            api_group: Some("rbac.authorization.k8s.io".into()),
            kind: "ClusterRole".into(),
            name: role.into(),
        },
        subjects: Some(vec![Subject {
            kind: "ServiceAccount".into(),
            name: account.into(),
            namespace: Some("default".into()),
            ..Subject::default()
        }]),
    };
    Api::<ClusterRoleBinding>::all(client.clone()).create(&PostParams::default(), &binding).await.unwrap();
}

/// `GET /metrics` over HTTPS with `token` as bearer token: the status line and the body.
async fn get(port: u16, token: Option<&str>) -> (String, String) {
    let token = token.map(String::from);
    tokio::task::spawn_blocking(move || {
        let mut tls = tls_probe::connect(port, &[b"http/1.1"]);
        let authorization = token.map(|token| format!("Authorization: Bearer {token}\r\n")).unwrap_or_default();
        let request = format!("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n{authorization}Connection: close\r\n\r\n");
        tls.write_all(request.as_bytes()).unwrap();
        let mut answer = String::new();
        tls.read_to_string(&mut answer).unwrap();
        let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
        (head.lines().next().unwrap_or_default().to_string(), body.to_string())
    })
    .await
    .unwrap()
}

/// `GET /metrics` in plain HTTP on the HTTPS port: what came back, if anything.
fn plain_http(port: u16) -> String {
    let mut tcp = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    tcp.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let _ = tcp.write_all(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    let mut answer = Vec::new();
    let _ = tcp.read_to_end(&mut answer);
    String::from_utf8_lossy(&answer).into_owned()
}
