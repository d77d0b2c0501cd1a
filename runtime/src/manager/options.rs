//! The manager's command-line flags, named as controller-runtime's and kubebuilder's manager
//! names them.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

/// An address to serve on, or `0` for none (controller-runtime's convention for
/// `--metrics-bind-address` and `--health-probe-bind-address`). As in Go, `:8080` is port 8080
/// on every interface, and a host name (`localhost:8080`) is looked up; a value that is none
/// of these is refused with a message listing them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BindAddress(pub Option<SocketAddr>);

impl FromStr for BindAddress {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let parsed = match s {
            "0" => return Ok(Self(None)),
            addr if addr.starts_with(':') => format!("0.0.0.0{addr}").parse().ok(),
            addr => addr.parse().ok().or_else(|| {
                use std::net::ToSocketAddrs as _;
                addr.to_socket_addrs().ok()?.next()
            }),
        };
        parsed.map(|addr| Self(Some(addr))).ok_or_else(|| {
            format!("{s:?} is not an address to serve on: give :PORT (every interface), IP:PORT, HOST:PORT, or 0 to serve nothing")
        })
    }
}

/// An address that must serve: a [`BindAddress`] other than `0`.
fn parse_serving_address(s: &str) -> Result<SocketAddr, String> {
    s.parse::<BindAddress>()?.0.ok_or_else(|| {
        format!("{s:?}: the webhook server needs an address; without webhooks, pass --enable-webhooks=false")
    })
}

/// The manager's flags. Put them in the project's own flags with `#[command(flatten)]`:
///
/// ```
/// #[derive(clap::Parser)]
/// struct Args {
///     #[command(flatten)]
///     manager: rop::manager::Options,
///     /// A flag of the project's own.
///     #[arg(long, default_value_t = 3)]
///     retries: u32,
/// }
///
/// use clap::Parser as _;
/// let args = Args::parse_from(["manager", "--leader-elect", "--metrics-bind-address", "0"]);
/// assert!(args.manager.leader_elect);
/// assert_eq!(args.manager.metrics_bind_address, rop::manager::BindAddress(None));
/// ```
///
/// [`Options::default`] is what the manager runs with when no flag is given (and no
/// environment variable is set): the flags' own defaults. The struct is `#[non_exhaustive]`: a
/// new flag is not a breaking change, so build it from a default and set fields.
#[derive(Clone, Debug, PartialEq, Eq, clap::Args)]
#[non_exhaustive]
pub struct Options {
    /// Address of the Prometheus `/metrics` endpoint; `0` disables it. `:8443` is kubebuilder's
    /// port for HTTPS; plain HTTP (`--metrics-secure=false`) is usually given `:8080`.
    #[arg(long, default_value = "0.0.0.0:8443")]
    pub metrics_bind_address: BindAddress,

    /// Serve `/metrics` over HTTPS (HTTP/1.1 unless --enable-http2), and only to callers whose
    /// bearer token the API server authenticates (a TokenReview) and authorizes for `get` on
    /// the non-resource URL `/metrics` (a SubjectAccessReview;
    /// `config/rbac/metrics_reader_role.yaml` grants it), as kubebuilder's manager does. `false` serves plain HTTP to anyone who reaches the
    /// port, for a manager run on a developer's machine.
    #[arg(long, env = "METRICS_SECURE", default_value = "true", action = clap::ArgAction::Set, num_args = 0..=1, default_missing_value = "true")]
    pub metrics_secure: bool,

    /// Folder holding the secure metrics server's certificate, `tls.crt` and `tls.key` (a
    /// `kubernetes.io/tls` Secret such as cert-manager's), reloaded when they change;
    /// kubebuilder's `--metrics-cert-path`. Unset, the manager makes a self-signed certificate
    /// in memory at start.
    #[arg(long)]
    pub metrics_cert_dir: Option<PathBuf>,

    /// Address of the `/healthz` and `/readyz` endpoints; `0` disables them.
    #[arg(long, default_value = "0.0.0.0:8081")]
    pub health_probe_bind_address: BindAddress,

    /// Run the controllers only while holding the leader Lease, so that only one of several
    /// replicas is active.
    #[arg(long, default_value = "false", action = clap::ArgAction::Set, num_args = 0..=1, default_missing_value = "true")]
    pub leader_elect: bool,

    /// Namespace of the leader Lease.
    #[arg(long, env = "POD_NAMESPACE", default_value = "default")]
    pub leader_election_namespace: String,

    /// Name of the leader Lease; `<manager name>-leader` when not set.
    #[arg(long)]
    pub leader_election_id: Option<String>,

    /// This replica's name in the Lease's `holderIdentity`: the Pod's name (`POD_NAME`, which
    /// `config/manager/manager.yaml` sets from the downward API); the host name and a random
    /// suffix when not set.
    #[arg(long, env = "POD_NAME")]
    pub leader_election_identity: Option<String>,

    /// How long a standby waits, after it last saw the leader renew the Lease, before it takes
    /// over: whole seconds (`15s`, `1m`), as the Lease stores it.
    #[arg(long, default_value = "15s", value_parser = parse_duration)]
    pub leader_elect_lease_duration: Duration,

    /// How long the leader keeps trying to renew the Lease before it stops leading; below the
    /// lease duration, so it stops before a standby may take over.
    #[arg(long, default_value = "10s", value_parser = parse_duration)]
    pub leader_elect_renew_deadline: Duration,

    /// How often the leader renews the Lease, and a standby tries to acquire it (`2s`,
    /// `500ms`); the renew deadline must be above 1.2 times it.
    #[arg(long, default_value = "2s", value_parser = parse_duration)]
    pub leader_elect_retry_period: Duration,

    /// Watch and reconcile objects in this namespace only (a namespace-scoped manager, see
    /// `rop edit --namespaced`); unset or empty watches every namespace.
    #[arg(long, env = "WATCH_NAMESPACE")]
    pub watch_namespace: Option<String>,

    /// Address of the HTTPS webhook server, started when the project has webhooks (`:9443`,
    /// IP:PORT or HOST:PORT).
    #[arg(long, default_value = "0.0.0.0:9443", value_parser = parse_serving_address)]
    pub webhook_bind_address: SocketAddr,

    /// Folder holding the webhook server's certificate, `tls.crt` and `tls.key`
    /// (`--webhook-cert-mode=mounted`).
    #[arg(long, default_value = crate::webhook::DEFAULT_CERT_DIR)]
    pub webhook_cert_dir: PathBuf,

    /// Where the webhook server's certificate comes from: `mounted` (files in
    /// --webhook-cert-dir, such as cert-manager's Secret) or `self-managed` (the manager issues,
    /// renews and injects its own, see config/webhook-self-managed).
    #[arg(long, env = "WEBHOOK_CERT_MODE", value_enum, default_value = "mounted")]
    pub webhook_cert_mode: super::certs::CertMode,

    /// Self-managed certificates: the prefix of the webhook Service, certificate Secret and
    /// webhook configurations' names, as config/default's `namePrefix`; `<manager name>-` when
    /// not set.
    #[arg(long, env = "WEBHOOK_NAME_PREFIX")]
    pub webhook_name_prefix: Option<String>,

    /// Self-managed certificates: how long a serving certificate is valid (`2160h`, `20s`); it
    /// is renewed after two thirds of that, and the CA lives ten times as long.
    #[arg(long, env = "WEBHOOK_CERT_LIFETIME", default_value = "2160h", value_parser = parse_duration)]
    pub webhook_cert_lifetime: Duration,

    /// The URL the API server reaches this manager's webhook server at, for a manager run
    /// outside the cluster (`make run WEBHOOK_URL=https://<this machine>:9443`): the manager
    /// registers its webhooks and conversions at this URL, with a self-managed certificate for
    /// its host. Implies --webhook-cert-mode=self-managed.
    #[arg(long, env = "WEBHOOK_URL")]
    pub webhook_url: Option<String>,

    /// Admit only webhook callers with a client certificate signed by a CA in this PEM file
    /// (the API server, when its admission configuration gives it one); unset admits any
    /// caller that can reach the port.
    #[arg(long, env = "WEBHOOK_CLIENT_CA_FILE")]
    pub webhook_client_ca_file: Option<PathBuf>,

    /// Speak HTTP/2 on the webhook and metrics servers too. Off by default, as kubebuilder's
    /// manager has it, because of HTTP/2's Rapid Reset (CVE-2023-44487) and Stream
    /// Cancellation (CVE-2023-39325) attacks: the servers then speak HTTP/1.1 alone, and offer
    /// only it over ALPN.
    #[arg(long, default_value = "false", action = clap::ArgAction::Set, num_args = 0..=1, default_missing_value = "true")]
    pub enable_http2: bool,

    /// Serve the webhooks; `false` (or ENABLE_WEBHOOKS=false) runs the controllers without them,
    /// as `make run` does on a machine without the serving certificate.
    #[arg(long, env = "ENABLE_WEBHOOKS", default_value = "true", action = clap::ArgAction::Set, num_args = 0..=1, default_missing_value = "true")]
    pub enable_webhooks: bool,
}

impl Default for Options {
    /// Every flag at its default, as `manager` with no arguments parses them, but without
    /// reading the environment variables some flags fall back on (`POD_NAMESPACE`,
    /// `WATCH_NAMESPACE`, ...): a value built in code does not depend on where it runs.
    fn default() -> Self {
        use clap::{Args as _, FromArgMatches as _};
        let command = Self::augment_args(clap::Command::new("manager")).mut_args(|arg| arg.env(None));
        let matches = command.try_get_matches_from(["manager"]).expect("every flag has a default or is optional");
        Self::from_arg_matches(&matches).expect("the defaults parse")
    }
}

impl Options {
    /// The options of a manager inside a test: [`Options::default`] without the metrics and
    /// probe servers and the webhook server (on `127.0.0.1:0` when a test enables it).
    pub fn for_tests() -> Self {
        Self {
            metrics_bind_address: BindAddress(None),
            health_probe_bind_address: BindAddress(None),
            webhook_bind_address: SocketAddr::from(([127, 0, 0, 1], 0)),
            enable_webhooks: false,
            ..Self::default()
        }
    }

    /// The HTTP versions the webhook and secure metrics servers speak (`--enable-http2`).
    pub(crate) fn http_versions(&self) -> crate::webhook::tls::HttpVersions {
        use crate::webhook::tls::HttpVersions;
        if self.enable_http2 { HttpVersions::Http1AndHttp2 } else { HttpVersions::Http1Only }
    }

    /// The namespace to watch, if the manager is namespace-scoped.
    pub(crate) fn watch_namespace(&self) -> Option<&str> {
        self.watch_namespace.as_deref().filter(|ns| !ns.is_empty())
    }

    /// The leader election's three durations, checked.
    ///
    /// # Errors
    /// As [`LeaderElectionTiming::new`].
    pub(crate) fn leader_election_timing(&self) -> Result<LeaderElectionTiming, TimingError> {
        LeaderElectionTiming::new(
            self.leader_elect_lease_duration,
            self.leader_elect_renew_deadline,
            self.leader_elect_retry_period,
        )
    }
}

/// How leader election paces itself; controller-runtime's defaults are 15 s, 10 s and 2 s.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LeaderElectionTiming {
    /// How long a standby waits after it last saw the Lease renewed before it takes over.
    pub lease_duration: Duration,
    /// How long the leader keeps trying to renew before it stops leading.
    pub renew_deadline: Duration,
    /// The pause between the leader's renewals and between a standby's attempts.
    pub retry_period: Duration,
}

impl LeaderElectionTiming {
    /// controller-runtime's (and client-go's usual) values: 15 s, 10 s, 2 s.
    #[cfg(test)]
    pub const DEFAULT: Self = Self {
        lease_duration: Duration::from_secs(15),
        renew_deadline: Duration::from_secs(10),
        retry_period: Duration::from_secs(2),
    };

    /// The shortest retry period accepted.
    pub(crate) const MIN_RETRY_PERIOD: Duration = Duration::from_millis(100);

    /// Checks the rules client-go's `NewLeaderElector` checks: the lease duration is above the
    /// renew deadline (so a leader that cannot renew stops before a standby may take over), the
    /// renew deadline is above 1.2 retry periods (room for one jittered retry), and the lease
    /// duration is a whole number of seconds, from 1 to 2147483647 (the Lease stores them in
    /// an int32). Also a retry period of at least 100 ms: each retry is a
    /// request to the API server, and a shorter one leaves no time for it.
    ///
    /// # Errors
    /// [`TimingError`] naming the flags to change.
    pub fn new(
        lease_duration: Duration,
        renew_deadline: Duration,
        retry_period: Duration,
    ) -> Result<Self, TimingError> {
        if lease_duration.subsec_nanos() != 0 || lease_duration.is_zero() {
            return Err(TimingError(format!(
                "--leader-elect-lease-duration must be a whole number of seconds, at least 1s (got {lease_duration:?})"
            )));
        }
        if i32::try_from(lease_duration.as_secs()).is_err() {
            return Err(TimingError(format!(
                "--leader-elect-lease-duration ({}s) is longer than a Lease can hold ({}s): a standby would wait that long after a crash; keep it near the default 15s",
                lease_duration.as_secs(),
                i32::MAX
            )));
        }
        if retry_period < Self::MIN_RETRY_PERIOD {
            return Err(TimingError(format!(
                "--leader-elect-retry-period must be at least {:?} (got {retry_period:?}): each retry is a request to the API server",
                Self::MIN_RETRY_PERIOD
            )));
        }
        if lease_duration <= renew_deadline {
            return Err(TimingError(format!(
                "--leader-elect-lease-duration ({lease_duration:?}) must be longer than --leader-elect-renew-deadline ({renew_deadline:?}), so that a leader that cannot renew stops before a standby takes over"
            )));
        }
        if renew_deadline <= retry_period.mul_f64(1.2) {
            return Err(TimingError(format!(
                "--leader-elect-renew-deadline ({renew_deadline:?}) must be longer than 1.2 times --leader-elect-retry-period ({retry_period:?}), room for one retry with its jitter: raise it above {:?} or shorten the retry period",
                retry_period.mul_f64(1.2)
            )));
        }
        Ok(Self { lease_duration, renew_deadline, retry_period })
    }
}

/// Leader election durations that do not fit together.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct TimingError(String);

/// A duration as Go's flags write it: `15s`, `500ms`, `1m30s`.
fn parse_duration(text: &str) -> Result<Duration, String> {
    let parsed: k8s_openapi::jiff::SignedDuration = text
        .parse()
        .map_err(|_| format!("`{text}` is not a duration: write a number and a unit, as `15s` or `500ms`"))?;
    Duration::try_from(parsed).map_err(|_| format!("`{text}` is negative"))
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Debug, Parser)]
    struct Args {
        #[command(flatten)]
        manager: Options,
    }

    #[test]
    fn bind_address_zero_disables() {
        assert_eq!("0".parse::<BindAddress>(), Ok(BindAddress(None)));
        let addr: SocketAddr = "127.0.0.1:8080".parse().unwrap();
        assert_eq!("127.0.0.1:8080".parse(), Ok(BindAddress(Some(addr))));
        assert!("localhost".parse::<BindAddress>().is_err(), "no port");
        let local = "localhost:8080".parse::<BindAddress>().unwrap().0.unwrap();
        assert!(local.ip().is_loopback() && local.port() == 8080, "a host name is looked up: {local}");
        let any: SocketAddr = "0.0.0.0:8081".parse().unwrap();
        assert_eq!(":8081".parse(), Ok(BindAddress(Some(any))), "Go's port-only form");
    }

    #[test]
    fn the_default_is_the_flags_defaults_without_the_environment() {
        let defaults = Options::default();
        assert_eq!(defaults.metrics_bind_address, BindAddress(Some("0.0.0.0:8443".parse().unwrap())));
        assert!(defaults.metrics_secure);
        assert_eq!(defaults.webhook_cert_lifetime, Duration::from_secs(2160 * 3600));
        assert_eq!(defaults.leader_election_namespace, "default");
        assert_eq!(defaults.leader_elect_lease_duration, LeaderElectionTiming::DEFAULT.lease_duration);
        assert_eq!(defaults.watch_namespace, None);
        assert!(defaults.enable_webhooks);
        let tests = Options::for_tests();
        assert_eq!((tests.metrics_bind_address, tests.enable_webhooks), (BindAddress(None), false));
        assert_eq!(tests.webhook_cert_lifetime, defaults.webhook_cert_lifetime);
    }

    #[test]
    fn the_defaults_are_kubebuilders_ports() {
        let args = Args::try_parse_from(["manager"]).unwrap();
        assert_eq!(args.manager.metrics_bind_address, BindAddress(Some("0.0.0.0:8443".parse().unwrap())));
        assert!(args.manager.metrics_secure, "metrics are served over HTTPS to authorized callers");
        assert!(!args.manager.enable_http2, "HTTP/1.1 alone");
        assert_eq!(args.manager.metrics_cert_dir, None);
        assert_eq!(args.manager.health_probe_bind_address, BindAddress(Some("0.0.0.0:8081".parse().unwrap())));
        assert_eq!(args.manager.webhook_bind_address, "0.0.0.0:9443".parse().unwrap());
        let args = Args::try_parse_from(["manager", "--webhook-bind-address", ":9444"]).unwrap();
        assert_eq!(args.manager.webhook_bind_address, "0.0.0.0:9444".parse().unwrap(), "Go's port-only form");
        assert!(Args::try_parse_from(["manager", "--webhook-bind-address", "0"]).is_err());
        assert!(!args.manager.leader_elect);
    }

    #[test]
    fn metrics_over_plain_http_are_asked_for_by_name() {
        let args = Args::try_parse_from(["manager", "--metrics-secure=false", "--metrics-bind-address=:8080"]).unwrap();
        assert!(!args.manager.metrics_secure);
        assert_eq!(args.manager.metrics_bind_address, BindAddress(Some("0.0.0.0:8080".parse().unwrap())));
        let err = Args::try_parse_from(["manager", "--metrics-secure=no"]).unwrap_err();
        assert!(err.to_string().contains("invalid value 'no' for '--metrics-secure"), "{err}");
    }

    /// Every switch takes Go's forms, as a kubebuilder manager's flags do: bare, `=true`,
    /// `=false`.
    #[test]
    fn switches_are_set_with_or_without_a_value() {
        type Read = fn(&Options) -> bool;
        let switches: [(&str, Read); 4] = [
            ("--enable-http2", |o| o.enable_http2),
            ("--leader-elect", |o| o.leader_elect),
            ("--metrics-secure", |o| o.metrics_secure),
            ("--enable-webhooks", |o| o.enable_webhooks),
        ];
        for (flag, read) in switches {
            for (form, value) in
                [(flag.to_string(), true), (format!("{flag}=true"), true), (format!("{flag}=false"), false)]
            {
                let args = Args::try_parse_from(["manager", form.as_str()]).unwrap();
                assert_eq!(read(&args.manager), value, "{form}");
            }
        }
    }

    #[test]
    fn leader_election_defaults_are_controller_runtimes() {
        let args = Args::try_parse_from(["manager"]).unwrap();
        assert_eq!(args.manager.leader_election_timing(), Ok(LeaderElectionTiming::DEFAULT));
        let args = Args::try_parse_from([
            "manager",
            "--leader-elect-lease-duration",
            "1m",
            "--leader-elect-retry-period=500ms",
        ])
        .unwrap();
        assert_eq!(args.manager.leader_elect_lease_duration, Duration::from_secs(60));
        assert_eq!(args.manager.leader_elect_retry_period, Duration::from_millis(500));
    }

    #[test]
    fn leader_election_durations_that_do_not_fit_are_refused() {
        let timing = |lease, renew, retry| {
            let secs = Duration::from_secs_f64;
            LeaderElectionTiming::new(secs(lease), secs(renew), secs(retry)).map_err(|err| err.to_string())
        };
        assert_eq!(
            timing(10.0, 10.0, 2.0),
            Err("--leader-elect-lease-duration (10s) must be longer than --leader-elect-renew-deadline (10s), so that a leader that cannot renew stops before a standby takes over".into())
        );
        assert_eq!(
            timing(15.0, 2.0, 2.0),
            Err("--leader-elect-renew-deadline (2s) must be longer than 1.2 times --leader-elect-retry-period (2s), room for one retry with its jitter: raise it above 2.4s or shorten the retry period"
                .into())
        );
        assert_eq!(
            timing(1.5, 1.0, 0.5),
            Err("--leader-elect-lease-duration must be a whole number of seconds, at least 1s (got 1.5s)".into())
        );
        assert_eq!(timing(4.0, 3.0, 1.0).map(|t| t.retry_period), Ok(Duration::from_secs(1)));
        assert_eq!(
            timing(2.0, 1.0, 0.001),
            Err("--leader-elect-retry-period must be at least 100ms (got 1ms): each retry is a request to the API server".into())
        );
        assert_eq!(
            timing(99_999_999_999.0, 10.0, 2.0),
            Err("--leader-elect-lease-duration (99999999999s) is longer than a Lease can hold (2147483647s): a standby would wait that long after a crash; keep it near the default 15s".into())
        );
        let err = Args::try_parse_from(["manager", "--leader-elect-lease-duration", "soon"]).unwrap_err();
        assert!(
            err.to_string().contains("`soon` is not a duration: write a number and a unit, as `15s` or `500ms`"),
            "{err}"
        );
    }

    #[test]
    fn a_bad_address_is_refused_with_the_flag_named() {
        let err = Args::try_parse_from(["manager", "--metrics-bind-address", "localhost"]).unwrap_err();
        assert!(
            err.to_string().contains("for '--metrics-bind-address <METRICS_BIND_ADDRESS>': \"localhost\" is not an address to serve on: give :PORT (every interface), IP:PORT, HOST:PORT, or 0 to serve nothing"),
            "{err}"
        );
    }
}
