//! Leader election on a `coordination.k8s.io/v1` Lease, run as client-go's `leaderelection`
//! package runs it for controller-runtime: the leader renews the Lease every retry period and
//! stops leading when it could not renew within the renew deadline; a standby takes the Lease
//! once it has seen no renewal for the lease duration, measured on its own clock (so clocks
//! that disagree between nodes do not matter); every write carries the Lease's resource
//! version, so two replicas never both win. Beyond client-go, a standby watches the Lease and
//! tries again as soon as it is released or due to expire, instead of at its next retry.

use std::hash::{BuildHasher, Hasher};
use std::time::Duration;

use futures::{Stream, StreamExt};
use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, ObjectMeta};
use k8s_openapi::jiff::Timestamp;
use kube::api::PostParams;
use kube::runtime::watcher::Event;
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Api, Client};
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tracing::{debug, info, warn};

use super::options::LeaderElectionTiming;

/// The field manager of the Lease's writes.
const FIELD_MANAGER: &str = "rop-leader-election";

/// Where this replica stands; sent on [`Leader::role`] as it changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// Waiting for the Lease.
    Standby,
    /// Holding the Lease: reconcile and write.
    Leading,
    /// Led, then could not renew within the renew deadline, or saw another holder: stop
    /// writing at once.
    Lost,
}

/// A replica competing for (then holding) the leader Lease, in a task of its own.
pub(crate) struct Leader {
    role: watch::Receiver<Role>,
    leading: watch::Receiver<bool>,
    stop: CancellationToken,
    task: JoinHandle<()>,
}

impl Leader {
    /// Whether a Lease `namespace/name` can exist: its namespace a DNS-1123 label, its name a
    /// DNS-1123 subdomain as apimachinery's `IsDNS1123Subdomain` checks object names (at most
    /// 253 characters, dot-separated parts of lower-case letters, digits and '-' that start
    /// and end with a letter or digit; no limit per part). A manager that could never create
    /// its Lease would stay a standby for ever while nothing reconciles.
    pub(crate) fn check_lease(namespace: &str, name: &str) -> Result<(), String> {
        if !rop_core::names::is_dns1123_label(namespace) {
            return Err(format!(
                "--leader-election-namespace {namespace:?} is not a namespace name (lower-case letters, digits and '-', at most 63): set it, or POD_NAMESPACE, to the manager's namespace"
            ));
        }
        if !is_object_name(name) {
            let rule =
                "lower-case letters, digits, '-' and '.', starting and ending with a letter or digit, at most 253";
            let suggestion = lease_name_like(name);
            return Err(match suggestion {
                Some(suggestion) => {
                    format!("--leader-election-id {name:?} cannot name a Lease ({rule}): use e.g. {suggestion:?}")
                }
                None => format!("--leader-election-id {name:?} cannot name a Lease ({rule})"),
            });
        }
        Ok(())
    }

    /// Starts competing for the Lease `namespace/name`, creating it if needed. `identity`
    /// names this replica in the Lease's `holderIdentity` (the Pod name); `None` makes one from
    /// the host name and a random suffix.
    pub(crate) fn start(
        client: Client,
        namespace: &str,
        name: &str,
        identity: Option<String>,
        timing: LeaderElectionTiming,
    ) -> Self {
        let identity = identity.filter(|id| !id.is_empty()).unwrap_or_else(random_identity);
        let elector =
            Elector { api: Api::namespaced(client, namespace), name: name.into(), identity, timing, observed: None };
        let (send_role, role) = watch::channel(Role::Standby);
        // Whether to reconcile: `true` exactly while leading.
        let (send_leading, leading) = watch::channel(false);
        let stop = CancellationToken::new();
        let task = tokio::spawn(elect(elector, Roles { role: send_role, leading: send_leading }, stop.clone()));
        Self { role, leading, stop, task }
    }

    /// `true` while this replica leads: the controllers' signal to reconcile.
    pub(crate) fn leading(&self) -> watch::Receiver<bool> {
        self.leading.clone()
    }

    /// Waits until this replica, having led, lost the Lease (or the election task failed).
    pub(crate) async fn lost(&mut self) {
        let _ = self.role.wait_for(|role| *role == Role::Lost).await;
    }

    /// Stops competing and, if this replica holds the Lease, releases it, so a standby takes
    /// over at once instead of after the lease duration.
    pub(crate) async fn release(self) {
        self.stop.cancel();
        if let Err(err) = self.task.await {
            warn!(error = %err, "the leader election task failed");
        }
    }
}

/// The Lease as one replica sees it.
struct Elector {
    api: Api<Lease>,
    name: String,
    identity: String,
    timing: LeaderElectionTiming,
    /// The Lease's spec as last read, and when it was first read so: a holder that has not
    /// renewed for its lease duration since then is gone.
    observed: Option<(LeaseSpec, Instant)>,
}

/// What one attempt found.
#[derive(Debug, PartialEq, Eq)]
enum Attempt {
    /// This replica holds the Lease (acquired or renewed).
    Held,
    /// Another replica holds it until about this instant (the end of its lease duration after
    /// its last renewal seen here).
    HeldBy(String, Instant),
}

impl Elector {
    /// Acquires or renews the Lease (client-go's `tryAcquireOrRenew`).
    ///
    /// # Errors
    /// The Lease cannot be read or written; a conflict (another replica wrote first) is
    /// [`Attempt::HeldBy`] when another replica holds it now, else an error.
    async fn try_acquire_or_renew(&mut self) -> Result<Attempt, kube::Error> {
        let now = Instant::now();
        let Some(lease) = self.api.get_opt(&self.name).await? else {
            let lease = Lease {
                metadata: ObjectMeta { name: Some(self.name.clone()), ..ObjectMeta::default() },
                spec: Some(self.record(None)),
            };
            self.api.create(&self.post_params(), &lease).await?;
            return Ok(Attempt::Held);
        };
        let spec = lease.spec.clone().unwrap_or_default();
        if self.observed.as_ref().is_none_or(|(seen, _)| *seen != spec) {
            self.observed = Some((spec.clone(), now));
        }
        let observed_at = self.observed.as_ref().map_or(now, |(_, at)| *at);
        let holder = spec.holder_identity.clone().filter(|holder| !holder.is_empty());
        let duration = Duration::from_secs(spec.lease_duration_seconds.unwrap_or(0).max(0).unsigned_abs().into());
        if let Some(holder) = holder.filter(|holder| *holder != self.identity)
            && observed_at + duration > now
        {
            return Ok(Attempt::HeldBy(holder, observed_at + duration));
        }
        let renewed = Lease { spec: Some(self.record(Some(&spec))), ..lease };
        let written = self.api.replace(&self.name, &self.post_params(), &renewed).await?;
        self.observed = Some((written.spec.unwrap_or_default(), Instant::now()));
        Ok(Attempt::Held)
    }

    /// Gives the Lease up if this replica holds it: no holder, and a lease duration of one
    /// second, as client-go's `ReleaseOnCancel` writes it.
    async fn release(&mut self) -> Result<(), kube::Error> {
        let Some(lease) = self.api.get_opt(&self.name).await? else { return Ok(()) };
        let spec = lease.spec.clone().unwrap_or_default();
        if spec.holder_identity.as_deref() != Some(&self.identity) {
            return Ok(());
        }
        let now = MicroTime(Timestamp::now());
        let released = LeaseSpec {
            holder_identity: None,
            lease_duration_seconds: Some(1),
            acquire_time: Some(now.clone()),
            renew_time: Some(now),
            ..spec
        };
        self.api.replace(&self.name, &self.post_params(), &Lease { spec: Some(released), ..lease }).await?;
        Ok(())
    }

    /// This replica's record in the Lease, renewing `old` when it holds it already.
    fn record(&self, old: Option<&LeaseSpec>) -> LeaseSpec {
        let now = MicroTime(Timestamp::now());
        // A new Lease starts at no transitions; every change of holder counts one.
        let transitions = old.map_or(0, |old| {
            let renewing = old.holder_identity.as_deref() == Some(&self.identity);
            old.lease_transitions.unwrap_or(0) + i32::from(!renewing)
        });
        let old = old.cloned().unwrap_or_default();
        let renewing = old.holder_identity.as_deref() == Some(&self.identity);
        LeaseSpec {
            holder_identity: Some(self.identity.clone()),
            lease_duration_seconds: Some(i32::try_from(self.timing.lease_duration.as_secs()).unwrap_or(i32::MAX)),
            acquire_time: if renewing { old.acquire_time.clone() } else { Some(now.clone()) },
            renew_time: Some(now),
            lease_transitions: Some(transitions),
            ..old
        }
    }

    fn post_params(&self) -> PostParams {
        PostParams { field_manager: Some(FIELD_MANAGER.into()), ..PostParams::default() }
    }

    /// The Lease's changes, to try again as soon as it is released. Errors, and the watcher's
    /// own events around each attempt to list, are left to the retry period: the watch only
    /// shortens the wait, it never makes a standby ask more often while the server is away.
    fn changes(&self) -> impl Stream<Item = ()> + Send + use<> {
        let config = watcher::Config::default().fields(&format!("metadata.name={}", self.name));
        watcher(self.api.clone(), config).default_backoff().filter_map(|event| {
            let changed = matches!(event, Ok(Event::Apply(_) | Event::Delete(_) | Event::InitApply(_)));
            std::future::ready(changed.then_some(()))
        })
    }
}

/// Where [`elect`] tells its [`Role`], and whether to reconcile.
struct Roles {
    role: watch::Sender<Role>,
    leading: watch::Sender<bool>,
}

impl Roles {
    fn send(&self, role: Role) {
        self.leading.send_replace(role == Role::Leading);
        self.role.send_replace(role);
    }
}

/// Competes for the Lease until `stop`, then releases it if held.
async fn elect(mut elector: Elector, roles: Roles, stop: CancellationToken) {
    let lease = format!("{}/{}", elector.api.namespace().unwrap_or_default(), elector.name);
    info!(%lease, identity = %elector.identity, "waiting to become the leader");
    if !acquire(&mut elector, &stop).await {
        return;
    }
    info!(%lease, identity = %elector.identity, "became the leader");
    roles.send(Role::Leading);
    if renew(&mut elector, &stop).await {
        // The controllers stopped before `stop`: nothing writes after the release.
        roles.send(Role::Standby);
        match elector.release().await {
            Ok(()) => info!(%lease, "leader lease released"),
            Err(err) => {
                warn!(%lease, error = %err, "cannot release the leader lease: a standby takes over when it expires")
            }
        }
    } else {
        roles.send(Role::Lost);
    }
}

/// Tries every retry period (jittered), and whenever the Lease changes or is due to expire,
/// until this replica holds it: `false` when `stop` came first.
async fn acquire(elector: &mut Elector, stop: &CancellationToken) -> bool {
    let changes = elector.changes();
    tokio::pin!(changes);
    let mut failing = false;
    loop {
        let retry = jittered(elector.timing.retry_period);
        // A request the API server holds (its etcd down) is given up at the renew deadline,
        // not sooner: an attempt cut at the retry period could never finish when that is short.
        let wait = match tokio::time::timeout(elector.timing.renew_deadline, elector.try_acquire_or_renew()).await {
            Ok(Ok(Attempt::Held)) => return true,
            Ok(Ok(Attempt::HeldBy(holder, expires))) => {
                debug!(%holder, "the leader lease is held by another replica");
                failing = false;
                // Wake just after the holder's lease would expire, if that comes first.
                retry.min(expires.saturating_duration_since(Instant::now()) + Duration::from_millis(10))
            }
            Ok(Err(err)) => {
                failure(&mut failing, &crate::controller::error_chain(&err));
                retry
            }
            Err(_) => {
                failure(&mut failing, "timed out");
                retry
            }
        };
        tokio::select! {
            () = stop.cancelled() => return false,
            () = tokio::time::sleep(wait) => {}
            Some(()) = changes.next() => {}
        }
    }
}

/// apimachinery's `IsDNS1123Subdomain`, the rule for most object names.
fn is_object_name(name: &str) -> bool {
    let part = |part: &str| {
        let b = part.as_bytes();
        !b.is_empty()
            && b.iter().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
            && b[0] != b'-'
            && b[b.len() - 1] != b'-'
    };
    name.len() <= 253 && name.split('.').all(part)
}

/// `name` made into a valid Lease name, if anything of it is left: lower-cased, other
/// characters as '-', each part trimmed of '-', empty parts dropped, cut to 253.
fn lease_name_like(name: &str) -> Option<String> {
    let lowered = name.to_lowercase().replace(|c: char| !c.is_ascii_alphanumeric() && c != '.', "-");
    let parts: Vec<&str> = lowered.split('.').map(|part| part.trim_matches('-')).filter(|p| !p.is_empty()).collect();
    let mut suggestion = parts.join(".");
    suggestion.truncate(253);
    let suggestion = suggestion.trim_end_matches(['-', '.']).to_string();
    is_object_name(&suggestion).then_some(suggestion)
}

/// Logs the first of a row of failed attempts at WARN, the others at DEBUG.
fn failure(failing: &mut bool, error: &str) {
    if *failing {
        debug!(error, "cannot acquire the leader lease");
    } else {
        warn!(error, "cannot acquire the leader lease, retrying");
    }
    *failing = true;
}

/// Renews the Lease every retry period until `stop` (`true`), or until a renewal could not
/// be made within the renew deadline or another replica holds it (`false`).
async fn renew(elector: &mut Elector, stop: &CancellationToken) -> bool {
    let timing = elector.timing;
    let mut renewed = Instant::now();
    loop {
        tokio::select! {
            () = stop.cancelled() => return true,
            () = tokio::time::sleep(timing.retry_period) => {}
        }
        loop {
            let left = timing.renew_deadline.saturating_sub(renewed.elapsed());
            if left.is_zero() {
                warn!(renew_deadline = ?timing.renew_deadline, "could not renew the leader lease in time");
                return false;
            }
            match tokio::time::timeout(left, elector.try_acquire_or_renew()).await {
                Ok(Ok(Attempt::Held)) => {
                    renewed = Instant::now();
                    break;
                }
                Ok(Ok(Attempt::HeldBy(holder, _))) => {
                    warn!(%holder, "another replica holds the leader lease");
                    return false;
                }
                Ok(Err(err)) => {
                    debug!(error = crate::controller::error_chain(&err), "cannot renew the leader lease, retrying");
                    tokio::select! {
                        () = stop.cancelled() => return true,
                        () = tokio::time::sleep(timing.retry_period.min(left)) => {}
                    }
                }
                Err(_) => {}
            }
        }
    }
}

/// `period` plus up to 20 % more at random (client-go's `JitterFactor` of 1.2), so standbys
/// that started together do not ask together.
fn jittered(period: Duration) -> Duration {
    period.mul_f64(1.0 + 0.2 * random_fraction())
}

/// A number in `[0, 1)` from the standard library's randomly keyed hasher.
fn random_fraction() -> f64 {
    let bits = std::collections::hash_map::RandomState::new().build_hasher().finish() >> 11;
    bits as f64 / (1u64 << 53) as f64
}

/// `<host name>_<16 random hex digits>`, as controller-runtime's default identity is the host
/// name and a UUID.
fn random_identity() -> String {
    let host = std::env::var("HOSTNAME")
        .ok()
        .or_else(|| std::fs::read_to_string("/etc/hostname").ok())
        .map(|host| host.trim().to_string())
        .filter(|host| !host.is_empty())
        .unwrap_or_else(|| "manager".into());
    let random = std::collections::hash_map::RandomState::new().build_hasher().finish();
    format!("{host}_{random:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lease_that_cannot_exist_is_refused_at_start() {
        assert_eq!(Leader::check_lease("operators", "memcached-operator.example.com"), Ok(()));
        // Kubernetes limits the whole name, not each part.
        assert_eq!(Leader::check_lease("operators", &"a".repeat(64)), Ok(()));
        let refused = |id: &str| Leader::check_lease("operators", id).unwrap_err();
        let rule = "lower-case letters, digits, '-' and '.', starting and ending with a letter or digit, at most 253";
        assert_eq!(
            refused("Bad_Name"),
            format!("--leader-election-id \"Bad_Name\" cannot name a Lease ({rule}): use e.g. \"bad-name\"")
        );
        assert_eq!(
            refused("-leader."),
            format!("--leader-election-id \"-leader.\" cannot name a Lease ({rule}): use e.g. \"leader\"")
        );
        assert_eq!(
            refused("a..B"),
            format!("--leader-election-id \"a..B\" cannot name a Lease ({rule}): use e.g. \"a.b\"")
        );
        assert_eq!(
            refused(" Ünïcode"),
            format!("--leader-election-id \" Ünïcode\" cannot name a Lease ({rule}): use e.g. \"n-code\"")
        );
        assert_eq!(refused("___"), format!("--leader-election-id \"___\" cannot name a Lease ({rule})"));
        assert_eq!(refused(""), format!("--leader-election-id \"\" cannot name a Lease ({rule})"));
        assert_eq!(
            refused(&"a".repeat(254)),
            format!(
                "--leader-election-id \"{}\" cannot name a Lease ({rule}): use e.g. \"{}\"",
                "a".repeat(254),
                "a".repeat(253)
            )
        );
        assert_eq!(
            Leader::check_lease("", "memcached-operator-leader"),
            Err("--leader-election-namespace \"\" is not a namespace name (lower-case letters, digits and '-', at most 63): set it, or POD_NAMESPACE, to the manager's namespace".into())
        );
    }

    #[test]
    fn jitter_adds_at_most_a_fifth() {
        for _ in 0..100 {
            let wait = jittered(Duration::from_secs(2));
            assert!(wait >= Duration::from_secs(2) && wait < Duration::from_millis(2400), "{wait:?}");
        }
    }

    #[test]
    fn identities_differ_between_replicas_on_one_host() {
        assert_ne!(random_identity(), random_identity());
    }
}
