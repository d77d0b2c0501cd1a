//! Self-managed webhook certificates (`--webhook-cert-mode=self-managed`): the manager issues
//! its own CA and serving certificate instead of having cert-manager's mounted, as Kopf and
//! the cert-controller of open-policy-agent do for theirs.
//!
//! Every replica runs one loop, each `--webhook-cert-lifetime`/10 (1 to 10 s):
//!
//! 1. read the Secret `<prefix>webhook-server-cert` in the manager's namespace;
//! 2. the leader (every replica without `--leader-elect`) fills it when it is empty, missing or
//!    unusable (logged, never a crash), and renews at two thirds of a certificate's life (see
//!    [`bundle`] for the CA rollover);
//! 3. the leader puts the Secret's CAs into the `caBundle` of the webhook configurations and
//!    converted CRDs, putting them back when someone changed them; other replicas only check;
//! 4. every replica serves the Secret's certificate, swapping it in when it changes.
//!
//! `/readyz` fails with the reason (the missing RBAC rule, the object not deployed, waiting for
//! the leader) until the replica serves the Secret's certificate and every `caBundle` trusts it.

mod bundle;
mod inject;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use k8s_openapi::api::core::v1::Secret;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::api::PostParams;
use kube::{Api, Client};
use rustls::ServerConfig;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;
use tracing::{info, warn};

use self::bundle::{Plan, Stored, Want, plan};
use self::inject::{Access, Targets, webhooks_of};
use super::probes::Readiness;
use crate::webhook::Server;
use crate::webhook_configuration::{CERT_SECRET, MUTATING_CONFIGURATION, SERVICE_NAME, VALIDATING_CONFIGURATION};

/// The field manager of the manager's certificate writes.
pub(crate) const FIELD_MANAGER: &str = "rop-webhook-certificates";
/// The name of the readiness check.
const CHECK: &str = "webhook-certificate";

/// Where the webhook server's certificate comes from (`--webhook-cert-mode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum CertMode {
    /// Files in `--webhook-cert-dir` that someone else writes and renews: cert-manager's
    /// Secret, mounted by config/default, as in kubebuilder's projects.
    #[default]
    Mounted,
    /// The manager issues a CA and serving certificate into a Secret, renews them and injects
    /// the CA into its webhook configurations and CRDs (config/webhook-self-managed).
    SelfManaged,
}

/// A flag of the self-managed certificates that cannot be used, and why.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("{flag} {value}: {why}")]
pub struct CertOptionError {
    flag: &'static str,
    value: String,
    why: &'static str,
}

/// The shortest `--webhook-cert-lifetime`: the manager checks at most once a second and renews
/// after two thirds of a lifetime, so a shorter one would leave no time to serve the next.
pub(crate) const MIN_CERT_LIFETIME: Duration = Duration::from_secs(10);

/// Checks the self-managed certificates' flags, before the manager connects or serves.
///
/// # Errors
/// A `--webhook-cert-lifetime` under [`MIN_CERT_LIFETIME`], or a `--webhook-url` that is not
/// `https://<host>[:port]`.
pub(crate) fn check_options(options: &super::Options) -> Result<(), CertOptionError> {
    if options.webhook_cert_lifetime < MIN_CERT_LIFETIME {
        return Err(CertOptionError {
            flag: "--webhook-cert-lifetime",
            value: format!("{:?}", options.webhook_cert_lifetime),
            why: "a certificate must live at least 10s: the manager renews it after two thirds of its life and checks once a second",
        });
    }
    options.webhook_url.as_deref().map(parse_url).transpose().map(drop)
}

/// The self-managed certificates of one manager, ready to run.
pub(crate) struct SelfManaged {
    namespace: String,
    secret: String,
    targets: Targets,
    want: Want,
    client_ca: Option<PathBuf>,
}

impl SelfManaged {
    /// The certificates of the manager named `name` with `options`, for the webhooks `server`
    /// serves.
    ///
    /// # Errors
    /// As [`check_options`].
    pub(crate) fn new(options: &super::Options, name: &str, server: &Server) -> Result<Self, CertOptionError> {
        check_options(options)?;
        let prefix = options.webhook_name_prefix.clone().unwrap_or_else(|| format!("{name}-"));
        let namespace = options.leader_election_namespace.clone();
        let url = options.webhook_url.as_deref().map(parse_url).transpose()?;
        let hosts = match &url {
            Some((_, host)) => vec![host.clone()],
            None => {
                let service = format!("{prefix}{SERVICE_NAME}");
                vec![format!("{service}.{namespace}.svc"), format!("{service}.{namespace}.svc.cluster.local")]
            }
        };
        let (mutating, validating) = webhooks_of(server);
        let targets = Targets {
            mutating: mutating.map(|webhooks| (format!("{prefix}{MUTATING_CONFIGURATION}"), webhooks)),
            validating: validating.map(|webhooks| (format!("{prefix}{VALIDATING_CONFIGURATION}"), webhooks)),
            crds: server.converted_crds(),
            url: url.map(|(base, _)| base),
        };
        Ok(SelfManaged {
            namespace,
            secret: format!("{prefix}{CERT_SECRET}"),
            targets,
            want: Want { hosts, lifetime: options.webhook_cert_lifetime },
            client_ca: options.webhook_client_ca_file.clone(),
        })
    }

    /// The loop of the module docs, run until `shutdown`, sending each new serving
    /// certificate's TLS configuration on `configs`. `readiness` holds "waiting for the
    /// certificate" from this call on, before the loop first runs: the manager reports ready
    /// as soon as its tasks are spawned.
    pub(crate) fn run(
        self,
        client: Client,
        leading: watch::Receiver<bool>,
        readiness: Readiness,
        configs: watch::Sender<Option<Arc<ServerConfig>>>,
        shutdown: CancellationToken,
    ) -> impl Future<Output = ()> + Send + 'static {
        readiness.set_check(CHECK, Err("waiting for the certificate".into()));
        self.run_loop(client, leading, readiness, configs, shutdown)
    }

    async fn run_loop(
        self,
        client: Client,
        mut leading: watch::Receiver<bool>,
        readiness: Readiness,
        configs: watch::Sender<Option<Arc<ServerConfig>>>,
        shutdown: CancellationToken,
    ) {
        let every = (self.want.lifetime / 10).clamp(Duration::from_secs(1), Duration::from_secs(10));
        info!(
            secret = format!("{}/{}", self.namespace, self.secret),
            hosts = ?self.want.hosts,
            lifetime = ?self.want.lifetime,
            "the manager issues and renews its webhook certificate"
        );
        let mut served: Option<String> = None;
        let mut last_pending: Vec<String> = Vec::new();
        let mut leader;
        loop {
            leader = *leading.borrow_and_update();
            let pending = match self.step(&client, leader, &configs, &mut served).await {
                Ok(()) => Vec::new(),
                Err(pending) => pending,
            };
            if pending != last_pending && !pending.is_empty() {
                warn!(reasons = ?pending, "the webhook certificate is not ready");
            }
            readiness.set_check(CHECK, if pending.is_empty() { Ok(()) } else { Err(pending.join("; ")) });
            last_pending = pending;
            let leading_changed = async {
                if leading.changed().await.is_err() {
                    std::future::pending::<()>().await;
                }
            };
            // Shutdown first: the lease is released once the controllers stop, and a loop
            // that saw `leading` turn false first would forget it led and leave the
            // `--webhook-url` registration behind.
            tokio::select! {
                biased;
                () = shutdown.cancelled() => break,
                () = tokio::time::sleep(every) => {}
                () = leading_changed => {}
            }
        }
        if self.targets.url.is_some() && leader {
            // A manager run from a laptop leaves no webhook behind that nothing answers: with
            // `failurePolicy: Fail` it would refuse every object of its kinds.
            self.targets.unregister(&client).await;
        }
    }

    /// One pass: read, renew (leader), inject (leader) or check, serve. `Err` holds why the
    /// replica is not ready.
    async fn step(
        &self,
        client: &Client,
        leader: bool,
        configs: &watch::Sender<Option<Arc<ServerConfig>>>,
        served: &mut Option<String>,
    ) -> Result<(), Vec<String>> {
        let now = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64);
        let api: Api<Secret> = Api::namespaced(client.clone(), &self.namespace);
        let access = Access { group: "", resource: "secrets", name: &self.secret };
        let mut secret = api.get_opt(&self.secret).await.map_err(|e| vec![access.failed("get", e)])?;
        let mut stored = secret.as_ref().and_then(|s| Stored::from_secret(s, now));
        let mut pending;
        // A new CA takes three passes: write it, inject it, then serve from it.
        let mut passes = 0;
        loop {
            pending = match &stored {
                Some(Ok(current)) => self.targets.inject(client, &current.ca_bundle(), leader).await,
                _ => vec![self.missing(leader, stored.as_ref())],
            };
            if !leader || passes == 3 {
                break;
            }
            passes += 1;
            let next = match plan(stored.as_ref(), now, &self.want, pending.is_empty()) {
                Plan::Keep => break,
                Plan::Cannot { why } => return Err(vec![why]),
                Plan::Write { stored: next, why } => {
                    let at = format!("{}/{}", self.namespace, self.secret);
                    if matches!(stored, Some(Err(_))) {
                        warn!(secret = at, "{why}");
                    } else {
                        info!(secret = at, "{why}");
                    }
                    next
                }
            };
            secret = Some(self.write(&api, &access, secret.take(), &next).await.map_err(|e| vec![e])?);
            stored = Some(Ok(*next));
        }
        let Some(Ok(current)) = &stored else { return Err(pending) };
        if served.as_deref() != Some(current.cert_pem.as_str()) {
            let tls = crate::webhook::tls::from_pem(
                current.cert_pem.as_bytes(),
                current.key_pem.as_bytes(),
                self.client_ca.as_deref(),
            );
            match tls {
                Ok(config) => {
                    configs.send_replace(Some(Arc::new(config)));
                    if served.is_some() {
                        info!("serving the Secret's new webhook certificate");
                    }
                    *served = Some(current.cert_pem.clone());
                }
                Err(e) => pending.push(format!("cannot serve the certificate: {e}")),
            }
        }
        if pending.is_empty() { Ok(()) } else { Err(pending) }
    }

    /// Why there is nothing to serve yet.
    fn missing(&self, leader: bool, stored: Option<&Result<Stored, String>>) -> String {
        let at = format!("{}/{}", self.namespace, self.secret);
        match (leader, stored) {
            (true, _) => format!("no usable certificate in the Secret {at} yet"),
            (false, Some(Err(why))) => {
                format!("the Secret {at} cannot be used ({why}): waiting for the leader to replace it")
            }
            (false, _) => format!("waiting for the leader to issue the certificate into the Secret {at}"),
        }
    }

    /// Writes `stored` into the Secret: an update of `existing` (its resource version guards
    /// against a second writer), or a new `kubernetes.io/tls` Secret.
    async fn write(
        &self,
        api: &Api<Secret>,
        access: &Access<'_>,
        existing: Option<Secret>,
        stored: &Stored,
    ) -> Result<Secret, String> {
        let (data, annotations) = stored.to_secret();
        let params = PostParams { field_manager: Some(FIELD_MANAGER.into()), ..PostParams::default() };
        match existing {
            Some(mut secret) => {
                secret.data = Some(data);
                secret.string_data = None;
                secret.metadata.annotations.get_or_insert_with(Default::default).extend(annotations);
                api.replace(&self.secret, &params, &secret).await.map_err(|e| access.failed("update", e))
            }
            None => {
                let secret = Secret {
                    metadata: ObjectMeta {
                        name: Some(self.secret.clone()),
                        namespace: Some(self.namespace.clone()),
                        annotations: Some(annotations),
                        ..ObjectMeta::default()
                    },
                    type_: Some("kubernetes.io/tls".into()),
                    data: Some(data),
                    ..Secret::default()
                };
                api.create(&params, &secret).await.map_err(|e| access.failed("create", e))
            }
        }
    }
}

/// `https://<host>[:port]` (a final `/` allowed) as the base the webhook paths are appended
/// to, and its host.
fn parse_url(url: &str) -> Result<(String, String), CertOptionError> {
    let error = |why| CertOptionError { flag: "--webhook-url", value: url.to_string(), why };
    let uri: http::Uri = url.parse().map_err(|_| error("not a URL: write https://<host>:<port>"))?;
    match uri.scheme_str() {
        None => return Err(error("no scheme: write https://<host>:<port>")),
        Some("https") => {}
        Some(_) => return Err(error("the API server calls webhooks over HTTPS only: write https://<host>:<port>")),
    }
    if uri.query().is_some() {
        return Err(error("a webhook URL has no query"));
    }
    if !matches!(uri.path(), "" | "/") {
        return Err(error(
            "a webhook URL has no path: the manager serves each webhook at its own path (/mutate-..., /validate-..., /convert) and adds it to the URL",
        ));
    }
    if uri.authority().is_some_and(|a| a.as_str().contains('@')) {
        return Err(error("a webhook URL has no user name: write https://<host>:<port>"));
    }
    let host = uri.host().filter(|h| !h.is_empty()).ok_or_else(|| error("no host: write https://<host>:<port>"))?;
    let host = host.trim_start_matches('[').trim_end_matches(']').to_string();
    Ok((url.trim_end_matches('/').to_string(), host))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn webhook_urls() {
        assert_eq!(
            parse_url("https://192.168.1.20:9443/").unwrap(),
            ("https://192.168.1.20:9443".into(), "192.168.1.20".into())
        );
        assert_eq!(parse_url("https://dev.example.com:9443").unwrap().1, "dev.example.com");
        assert_eq!(parse_url("https://[::1]:9443").unwrap().1, "::1");
        let err = |url| parse_url(url).unwrap_err().to_string();
        assert_eq!(
            err("http://127.0.0.1:9443"),
            "--webhook-url http://127.0.0.1:9443: the API server calls webhooks over HTTPS only: write https://<host>:<port>"
        );
        assert_eq!(err("127.0.0.1:9443"), "--webhook-url 127.0.0.1:9443: no scheme: write https://<host>:<port>");
        assert_eq!(
            err("https://127.0.0.1:9443/hooks"),
            "--webhook-url https://127.0.0.1:9443/hooks: a webhook URL has no path: the manager serves each webhook at its own path (/mutate-..., /validate-..., /convert) and adds it to the URL"
        );
        assert_eq!(
            err("https://me@127.0.0.1:9443"),
            "--webhook-url https://me@127.0.0.1:9443: a webhook URL has no user name: write https://<host>:<port>"
        );
        assert_eq!(err("https://h:1/?x=1"), "--webhook-url https://h:1/?x=1: a webhook URL has no query");
    }
}
