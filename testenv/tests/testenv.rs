//! The environment itself: it starts, serves discovery (what `kubectl` needs), runs as the
//! Kubernetes version it claims, and leaves nothing running behind.

use std::net::TcpStream;

use k8s_openapi::api::core::v1::Namespace;
use kube::Api;
use rop_testenv::TestEnv;

#[test]
fn starts_serves_and_stops() {
    let Some(env) = TestEnv::start_or_skip() else { return };
    println!("ready in {:?} at {}", env.startup_time(), env.server_url());
    assert!(env.kubeconfig().is_file());
    let kubeconfig = std::fs::read_to_string(env.kubeconfig()).unwrap();
    assert!(kubeconfig.contains(env.server_url()), "{kubeconfig}");

    let (version, groups, default_ns) = env.block_on(async {
        let client = env.client();
        let version = client.apiserver_version().await.unwrap();
        let groups = client.list_api_groups().await.unwrap();
        let default_ns = Api::<Namespace>::all(client).get("default").await.unwrap();
        (version, groups, default_ns)
    });
    println!("server {}", version.git_version);
    assert_eq!(version.major, "1");
    assert_eq!(
        version.minor, "37",
        "k8s-openapi 0.29 (feature v1_37) needs a 1.37 server, got {}",
        version.git_version
    );
    // Discovery works: the apiextensions group (CRDs) is served.
    assert!(groups.groups.iter().any(|g| g.name == "apiextensions.k8s.io"), "{groups:?}");
    assert_eq!(default_ns.metadata.name.as_deref(), Some("default"));

    let port: u16 = env.server_url().rsplit(':').next().unwrap().parse().unwrap();
    let dir = env.dir().to_path_buf();
    assert!(TcpStream::connect(("127.0.0.1", port)).is_ok());
    let started = std::time::Instant::now();
    drop(env);
    println!("stopped in {:?}", started.elapsed());
    assert!(TcpStream::connect(("127.0.0.1", port)).is_err(), "the API server still listens on {port}");
    assert!(std::env::var_os("ROP_TESTENV_KEEP").is_some() || !dir.exists(), "{} was not removed", dir.display());
}

#[test]
fn a_panicking_test_still_stops_the_server() {
    let Some(env) = TestEnv::start_or_skip() else { return };
    let port: u16 = env.server_url().rsplit(':').next().unwrap().parse().unwrap();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
        let _env = env;
        panic!("a failing assertion");
    }));
    assert!(result.is_err());
    assert!(TcpStream::connect(("127.0.0.1", port)).is_err(), "the API server still listens on {port}");
}
