//! The manager's command-line flags, named as controller-runtime's and kubebuilder's manager
//! names them.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::str::FromStr;

/// An address to serve on, or `0` for none (controller-runtime's convention for
/// `--metrics-bind-address` and `--health-probe-bind-address`). As in Go, `:8080` is port 8080
/// on every interface.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BindAddress(pub Option<SocketAddr>);

impl FromStr for BindAddress {
    type Err = std::net::AddrParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "0" => Ok(Self(None)),
            addr if addr.starts_with(':') => format!("0.0.0.0{addr}").parse().map(|addr| Self(Some(addr))),
            addr => addr.parse().map(|addr| Self(Some(addr))),
        }
    }
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
#[derive(Clone, Debug, PartialEq, Eq, clap::Args)]
pub struct Options {
    /// Address of the Prometheus `/metrics` endpoint; `0` disables it.
    #[arg(long, default_value = "0.0.0.0:8080")]
    pub metrics_bind_address: BindAddress,

    /// Address of the `/healthz` and `/readyz` endpoints; `0` disables them.
    #[arg(long, default_value = "0.0.0.0:8081")]
    pub health_probe_bind_address: BindAddress,

    /// Run the controllers only while holding the leader Lease, so that only one of several
    /// replicas is active.
    #[arg(long)]
    pub leader_elect: bool,

    /// Namespace of the leader Lease.
    #[arg(long, env = "POD_NAMESPACE", default_value = "default")]
    pub leader_election_namespace: String,

    /// Name of the leader Lease; `<manager name>-leader` when not set.
    #[arg(long)]
    pub leader_election_id: Option<String>,

    /// Watch and reconcile objects in this namespace only (a namespace-scoped manager, see
    /// `rop edit --namespaced`); unset or empty watches every namespace.
    #[arg(long, env = "WATCH_NAMESPACE")]
    pub watch_namespace: Option<String>,

    /// Address of the HTTPS webhook server, started when the project has webhooks.
    #[arg(long, default_value = "0.0.0.0:9443")]
    pub webhook_bind_address: SocketAddr,

    /// Folder holding the webhook server's certificate, `tls.crt` and `tls.key`.
    #[arg(long, default_value = crate::webhook::DEFAULT_CERT_DIR)]
    pub webhook_cert_dir: PathBuf,

    /// Admit only webhook callers with a client certificate signed by a CA in this PEM file
    /// (the API server, when its admission configuration gives it one); unset admits any
    /// caller that can reach the port.
    #[arg(long, env = "WEBHOOK_CLIENT_CA_FILE")]
    pub webhook_client_ca_file: Option<PathBuf>,

    /// Serve the webhooks; `false` (or ENABLE_WEBHOOKS=false) runs the controllers without them,
    /// as `make run` does on a machine without the serving certificate.
    #[arg(long, env = "ENABLE_WEBHOOKS", default_value = "true", action = clap::ArgAction::Set)]
    pub enable_webhooks: bool,
}

impl Options {
    /// The options of a manager inside a test: no metrics or probe servers, no leader election,
    /// no webhook server, every namespace watched.
    pub fn for_tests() -> Self {
        Self {
            metrics_bind_address: BindAddress(None),
            health_probe_bind_address: BindAddress(None),
            leader_elect: false,
            leader_election_namespace: "default".into(),
            leader_election_id: None,
            watch_namespace: None,
            webhook_bind_address: SocketAddr::from(([127, 0, 0, 1], 0)),
            webhook_cert_dir: PathBuf::from(crate::webhook::DEFAULT_CERT_DIR),
            webhook_client_ca_file: None,
            enable_webhooks: false,
        }
    }

    /// The namespace to watch, if the manager is namespace-scoped.
    pub fn watch_namespace(&self) -> Option<&str> {
        self.watch_namespace.as_deref().filter(|ns| !ns.is_empty())
    }
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
        assert!("localhost".parse::<BindAddress>().is_err());
        let any: SocketAddr = "0.0.0.0:8081".parse().unwrap();
        assert_eq!(":8081".parse(), Ok(BindAddress(Some(any))), "Go's port-only form");
    }

    #[test]
    fn the_defaults_are_kubebuilders_ports() {
        let args = Args::try_parse_from(["manager"]).unwrap();
        assert_eq!(args.manager.metrics_bind_address, BindAddress(Some("0.0.0.0:8080".parse().unwrap())));
        assert_eq!(args.manager.health_probe_bind_address, BindAddress(Some("0.0.0.0:8081".parse().unwrap())));
        assert_eq!(args.manager.webhook_bind_address, "0.0.0.0:9443".parse().unwrap());
        assert!(!args.manager.leader_elect);
    }

    #[test]
    fn a_bad_address_is_refused_with_the_flag_named() {
        let err = Args::try_parse_from(["manager", "--metrics-bind-address", "localhost"]).unwrap_err();
        assert!(err.to_string().contains("--metrics-bind-address"), "{err}");
    }
}
