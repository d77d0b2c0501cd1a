//! Leader election between two managers on a real API server, each on a Tokio runtime of its
//! own, as two Pods would run: a standby takes over at once when the leader shuts down (it
//! releases the Lease), once the Lease expires when the leader is killed, and a leader cut off
//! from the API server stops before a standby takes over. The audit log shows that the two
//! never write at the same time.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::api::rbac::v1::{ClusterRoleBinding, RoleRef, Subject};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use k8s_openapi::jiff::Timestamp;
use kube::api::{Api, PostParams};
use kube::{Client, ResourceExt};
use rop::CustomResource;
use rop::JsonSchema;
use rop::controller::{Action, Context, Reconciler};
use rop::manager::{Manager, Options};
use rop_testenv::{TEST_NAMESPACE, TestEnv, wait_for};
use serde::{Deserialize, Serialize};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

/// A ballot publishes `value` in a ConfigMap it owns, signed by the replica that wrote it.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[rop(group = "leader.rop.dev", version = "v1", kind = "Ballot", plural = "ballots")]
#[rop(namespaced, storage, owns(k8s_openapi::api::core::v1::ConfigMap))]
pub struct BallotSpec {
    /// What the ConfigMap holds.
    pub value: String,
}

/// Publishes ballots, signing with the replica's name.
struct Publish(&'static str);

impl Reconciler for Publish {
    type Kind = Ballot;
    type Error = kube::Error;

    async fn reconcile(&self, ballot: Arc<Ballot>, ctx: &Context<Ballot>) -> Result<Action, kube::Error> {
        let data = [("value".to_string(), ballot.spec.value.clone()), ("by".to_string(), self.0.to_string())];
        let config_map = ConfigMap {
            metadata: ObjectMeta { name: Some(ballot.name_any()), ..ObjectMeta::default() },
            data: Some(data.into()),
            ..ConfigMap::default()
        };
        ctx.apply(&ballot, config_map).await?;
        Ok(Action::await_change())
    }
}

const LEASE: &str = "ballots-leader";

/// The leader election flags of a replica.
struct Timing {
    lease_duration: Duration,
    renew_deadline: Duration,
    retry_period: Duration,
}

impl Timing {
    /// The flags' defaults (controller-runtime's): 15 s, 10 s, 2 s.
    const DEFAULT: Timing = Timing {
        lease_duration: Duration::from_secs(15),
        renew_deadline: Duration::from_secs(10),
        retry_period: Duration::from_secs(2),
    };
}

/// Short durations, so a test waits seconds for a lease to expire.
fn short() -> Timing {
    Timing {
        lease_duration: Duration::from_secs(4),
        renew_deadline: Duration::from_secs(3),
        retry_period: Duration::from_secs(1),
    }
}

/// A manager run as a replica named `name` (its Lease identity, and the ServiceAccount
/// `default/<name>` it acts as), on a runtime of its own.
struct Replica {
    name: &'static str,
    runtime: Option<tokio::runtime::Runtime>,
    stop: CancellationToken,
    done: Option<tokio::sync::oneshot::Receiver<(Result<(), rop::manager::Error>, SystemTime)>>,
}

impl Replica {
    /// Starts the replica's manager with `--leader-elect` and `timing`, its requests going to
    /// `server` (the API server's URL, or a proxy's).
    fn start(env: &TestEnv, name: &'static str, timing: Timing, server: &str) -> Self {
        let kubeconfig = env.kubeconfig_as_service_account("default", name).unwrap();
        let text = std::fs::read_to_string(&kubeconfig).unwrap().replace(env.server_url(), server);
        std::fs::write(&kubeconfig, text).unwrap();
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
        let stop = CancellationToken::new();
        let (report, done) = tokio::sync::oneshot::channel();
        let stopped = stop.clone();
        runtime.spawn(async move {
            let kubeconfig = kube::config::Kubeconfig::read_from(&kubeconfig).unwrap();
            let config = kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default()).await.unwrap();
            let mut options = Options::for_tests();
            options.leader_elect = true;
            options.leader_election_id = Some(LEASE.into());
            options.leader_election_identity = Some(name.into());
            options.leader_elect_lease_duration = timing.lease_duration;
            options.leader_elect_renew_deadline = timing.renew_deadline;
            options.leader_elect_retry_period = timing.retry_period;
            let mut manager = Manager::with_client("ballots", options, Client::try_from(config).unwrap());
            manager.add_controller(Publish(name));
            let result = manager.run_until(stopped.cancelled_owned()).await;
            let _ = report.send((result, SystemTime::now()));
        });
        Self { name, runtime: Some(runtime), stop, done: Some(done) }
    }

    /// Stops the manager as SIGTERM does, and waits for it.
    async fn shut_down(&mut self) {
        self.stop.cancel();
        let (result, _) = self.ended().await;
        result.unwrap_or_else(|err| panic!("{} failed: {err}", self.name));
    }

    /// Waits until the manager ends by itself: its result, and when it ended.
    async fn ended(&mut self) -> (Result<(), rop::manager::Error>, SystemTime) {
        let done = self.done.take().expect("not waited for before");
        tokio::time::timeout(Duration::from_secs(30), done).await.expect("the manager ends").expect("it reports")
    }

    /// Ends the replica as kill -9 does: its tasks stop where they are, nothing is released.
    fn kill(mut self) {
        self.runtime.take().unwrap().shutdown_background();
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        self.stop.cancel();
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_timeout(Duration::from_secs(10));
        }
    }
}

/// The user a replica acts as in the audit log.
fn user(replica: &str) -> String {
    format!("system:serviceaccount:default:{replica}")
}

/// Installs the Ballot CRD and lets replicas `a` and `b` do anything.
async fn install(client: &Client) {
    rop_testenv::install_crd(client, &Ballot::custom_resource_definition()).await.unwrap();
    let subjects = ["a", "b"].map(|name| Subject {
        kind: "ServiceAccount".into(),
        name: name.into(),
        namespace: Some("default".into()),
        ..Subject::default()
    });
    let binding = ClusterRoleBinding {
        metadata: ObjectMeta { name: Some("replicas".into()), ..ObjectMeta::default() },
        role_ref: RoleRef {
            api_group: Some("rbac.authorization.k8s.io".into()),
            kind: "ClusterRole".into(),
            name: "cluster-admin".into(),
        },
        subjects: Some(subjects.to_vec()),
    };
    Api::<ClusterRoleBinding>::all(client.clone()).create(&PostParams::default(), &binding).await.unwrap();
}

/// Creates the ballot `vote` with `value`.
async fn create(client: &Client, value: &str) -> Ballot {
    let mut ballot = Ballot::new("vote", BallotSpec { value: value.into() });
    ballot.metadata.namespace = Some(TEST_NAMESPACE.into());
    Api::namespaced(client.clone(), TEST_NAMESPACE).create(&PostParams::default(), &ballot).await.unwrap()
}

/// Sets the ballot's value.
async fn vote(client: &Client, value: &str) {
    let api: Api<Ballot> = Api::namespaced(client.clone(), TEST_NAMESPACE);
    let patch = serde_json::json!({ "spec": { "value": value } });
    api.patch("vote", &kube::api::PatchParams::default(), &kube::api::Patch::Merge(patch)).await.unwrap();
}

/// Waits until the ballot's ConfigMap holds `value`, written by `by`.
async fn published(client: &Client, value: &str, by: &str) {
    let config_maps: Api<ConfigMap> = Api::namespaced(client.clone(), TEST_NAMESPACE);
    let done = |c: &ConfigMap| c.data.as_ref().is_some_and(|d| d["value"] == value && d["by"] == by);
    wait_for(&config_maps, "vote", done).await;
}

/// The Lease as it is now.
async fn lease(client: &Client) -> k8s_openapi::api::coordination::v1::LeaseSpec {
    let leases: Api<Lease> = Api::namespaced(client.clone(), "default");
    leases.get(LEASE).await.unwrap().spec.unwrap()
}

/// Waits until `holder` holds the Lease.
async fn held_by(client: &Client, holder: &str) -> Lease {
    let leases: Api<Lease> = Api::namespaced(client.clone(), "default");
    wait_for(&leases, LEASE, |l: &Lease| l.spec.as_ref().and_then(|s| s.holder_identity.as_deref()) == Some(holder))
        .await
}

/// Checks in the audit log that every write of `first` but the Lease's came before every
/// write of `second`.
fn one_writer_at_a_time(env: &TestEnv, first: &str, second: &str) {
    let not_lease = |w: &rop_testenv::Write| w.resource != "leases";
    let first: Vec<_> = env.writes_of(&user(first)).unwrap().into_iter().filter(not_lease).collect();
    let second: Vec<_> = env.writes_of(&user(second)).unwrap().into_iter().filter(not_lease).collect();
    let (Some(last), Some(next)) = (first.last(), second.first()) else {
        panic!("both replicas wrote: {first:?}, {second:?}");
    };
    assert!(last.received < next.received, "{last:?} came after {next:?}");
}

#[test]
fn a_standby_takes_over_at_once_when_the_leader_shuts_down() {
    let mut options = rop_testenv::Options::default();
    options.audit_log = true;
    let Some(env) = options.start_or_skip() else { return };
    let client = env.client();
    env.block_on(install(&client));
    let mut a = Replica::start(&env, "a", Timing::DEFAULT, env.server_url());
    env.block_on(async {
        held_by(&client, "a").await;
        create(&client, "one").await;
        published(&client, "one", "a").await;
    });
    // B watches from the start, and waits.
    let b = Replica::start(&env, "b", Timing::DEFAULT, env.server_url());
    env.block_on(async {
        tokio::time::sleep(Duration::from_secs(3)).await;
        assert_eq!(lease(&client).await.holder_identity.as_deref(), Some("a"), "the standby waits");
        let stopping = std::time::Instant::now();
        a.shut_down().await;
        vote(&client, "two").await;
        let bound = Duration::from_secs(6);
        let taken = tokio::time::timeout(bound, published(&client, "two", "b")).await;
        assert!(taken.is_ok(), "the standby did not take over within {bound:?}, far below the 15 s lease");
        eprintln!("the standby reconciled {:?} after the leader was told to stop", stopping.elapsed());
        let spec = lease(&client).await;
        assert_eq!((spec.holder_identity.as_deref(), spec.lease_transitions), (Some("b"), Some(1)));
    });
    one_writer_at_a_time(&env, "a", "b");
    drop(b);
}

#[test]
fn a_killed_leader_is_replaced_once_its_lease_expires() {
    let mut options = rop_testenv::Options::default();
    options.audit_log = true;
    let Some(env) = options.start_or_skip() else { return };
    let client = env.client();
    env.block_on(install(&client));
    let a = Replica::start(&env, "a", short(), env.server_url());
    env.block_on(async {
        held_by(&client, "a").await;
        create(&client, "one").await;
        published(&client, "one", "a").await;
    });
    let b = Replica::start(&env, "b", short(), env.server_url());
    env.block_on(async { tokio::time::sleep(Duration::from_secs(2)).await });
    a.kill();
    env.block_on(async {
        let last_renewal = lease(&client).await.renew_time.unwrap().0;
        vote(&client, "two").await;
        let taken = held_by(&client, "b").await.spec.unwrap();
        let acquired = taken.acquire_time.unwrap().0;
        // B saw A's last renewal after A made it, and waited a whole lease duration from then.
        let waited = acquired.duration_since(last_renewal);
        assert!(
            waited >= k8s_openapi::jiff::SignedDuration::from_secs(4),
            "took over {waited:?} after the last renewal"
        );
        published(&client, "two", "b").await;
    });
    one_writer_at_a_time(&env, "a", "b");
    drop(b);
}

#[test]
fn a_leader_cut_off_from_the_api_server_stops_before_a_standby_takes_over() {
    let Some(env) = TestEnv::start_or_skip() else { return };
    let client = env.client();
    env.block_on(install(&client));
    let proxy = env.block_on(Proxy::start(env.server_url()));
    let mut a = Replica::start(&env, "a", short(), &proxy.url);
    env.block_on(async {
        held_by(&client, "a").await;
        create(&client, "one").await;
        published(&client, "one", "a").await;
    });
    let b = Replica::start(&env, "b", short(), env.server_url());
    env.block_on(async {
        tokio::time::sleep(Duration::from_secs(2)).await;
        proxy.cut();
        vote(&client, "two").await;
        let (result, ended) = a.ended().await;
        assert_eq!(result.unwrap_err().to_string(), "lost the leader lease");
        let taken = held_by(&client, "b").await.spec.unwrap();
        let acquired = taken.acquire_time.unwrap().0;
        let ended = Timestamp::try_from(ended).unwrap();
        assert!(ended < acquired, "A stopped at {ended}, B led from {acquired}");
        published(&client, "two", "b").await;
    });
    drop(b);
}

/// A TCP proxy to the API server that can be cut, as a network partition cuts one replica off.
struct Proxy {
    url: String,
    cut: CancellationToken,
}

impl Proxy {
    async fn start(server_url: &str) -> Self {
        let upstream = server_url.trim_start_matches("https://").to_string();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("https://{}", listener.local_addr().unwrap());
        let cut = CancellationToken::new();
        let cutting = cut.clone();
        tokio::spawn(async move {
            loop {
                let accepted = tokio::select! {
                    () = cutting.cancelled() => return,
                    accepted = listener.accept() => accepted,
                };
                let Ok((mut client, _)) = accepted else { continue };
                let (upstream, cutting) = (upstream.clone(), cutting.clone());
                tokio::spawn(async move {
                    let Ok(mut server) = TcpStream::connect(&upstream).await else { return };
                    tokio::select! {
                        () = cutting.cancelled() => {}
                        _ = tokio::io::copy_bidirectional(&mut client, &mut server) => {}
                    }
                });
            }
        });
        Self { url, cut }
    }

    /// Drops every connection and refuses new ones.
    fn cut(&self) {
        self.cut.cancel();
    }
}
