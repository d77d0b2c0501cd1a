//! The manager's API client: kube-client's, with its retry of the API server's "try again
//! later" answers bounded to seconds.
//!
//! kube-client sends a request again when the API server answers `429 Too Many Requests`,
//! `503 Service Unavailable` or `504 Gateway Timeout`, by default up to 15 times, from 5 ms
//! doubling to 1000 s (its `RetryPolicy::server_retry`): a request can wait minutes in those
//! retries, unseen by the logs and the metrics, holding one of the controller's workers the
//! whole time. A restarting API server or an etcd outage answers so for seconds. client-go
//! retries only answers that carry `Retry-After`, at most 10 times; here a request is sent again
//! at most [`RETRIES`] times, after [`FIRST_RETRY`] doubling to [`MAX_RETRY`] or the server's
//! `Retry-After` when it asks for longer, and then its error reaches the caller: a pass fails and
//! its object backs off (logged, counted). A watch is not sent again here: it retries on its own
//! (`controller::retry`), and retries in both places would add up to seconds more of a watch
//! blind after the server is back (a restarted etcd makes the API server's watch cache answer
//! `429` until it has listed again).

use std::time::Duration;

use http::{Request, Response};
use kube::client::retry::RetryPolicy;
use kube::client::{Body, ClientBuilder};
use kube::{Client, Config};
use tower::BoxError;
use tower::buffer::BufferLayer;
use tower::retry::{Policy, RetryLayer};
use tracing::warn;

use super::{Error, Problem};

/// How many times a request answered with 429, 503 or 504 is sent again.
const RETRIES: u32 = 5;
/// The pause before the first retry; it doubles for each one after.
const FIRST_RETRY: Duration = Duration::from_millis(200);
/// The longest pause between two retries, unless the server's `Retry-After` asks for more.
const MAX_RETRY: Duration = Duration::from_secs(2);
/// Requests waiting for the retrying layer (kube-client's own buffer holds 1024 too).
const BUFFER: usize = 1024;

/// A client from the in-cluster service account or the kubeconfig, warning once when it does
/// not verify the API server's certificate.
pub(crate) async fn connect() -> Result<Client, Error> {
    let config = Config::infer().await.map_err(|err| {
        let source = kube::Error::InferConfig(err);
        match std::env::var("KUBECONFIG").ok().filter(|path| !path.is_empty()) {
            Some(path) => Problem::Kubeconfig { path, source },
            None => Problem::Client(source),
        }
    })?;
    if config.accept_invalid_certs {
        warn!(
            server = %config.cluster_url,
            "the kubeconfig skips verifying the API server's certificate (insecure-skip-tls-verify): whoever sits between the manager and the server can read and change its requests"
        );
    }
    with_retries(config, FIRST_RETRY, MAX_RETRY)
}

/// A client for `config` whose requests answered with 429, 503 or 504 are sent again at most
/// [`RETRIES`] times, `first` doubling to `max` apart.
fn with_retries(mut config: Config, first: Duration, max: Duration) -> Result<Client, Error> {
    config.default_retry = false;
    let policy =
        RetryPolicy::new(first, max, RETRIES, true).map_err(|err| Problem::Client(kube::Error::Service(err.into())))?;
    let client = ClientBuilder::try_from(config)
        .map_err(Problem::Client)?
        .with_layer(&BufferLayer::new(BUFFER))
        .with_layer(&RetryLayer::new(NotWatches(policy)))
        .build();
    Ok(client)
}

/// kube-client's retry policy for every request but a watch (`watch=true` in the query).
#[derive(Clone)]
struct NotWatches(RetryPolicy);

impl<Res> Policy<Request<Body>, Response<Res>, BoxError> for NotWatches {
    type Future = <RetryPolicy as Policy<Request<Body>, Response<Res>, BoxError>>::Future;

    fn retry(
        &mut self,
        request: &mut Request<Body>,
        result: &mut Result<Response<Res>, BoxError>,
    ) -> Option<Self::Future> {
        self.0.retry(request, result)
    }

    /// No copy of a watch request, so it is never sent again.
    fn clone_request(&mut self, request: &Request<Body>) -> Option<Request<Body>> {
        if is_watch(request) {
            return None;
        }
        <RetryPolicy as Policy<Request<Body>, Response<Res>, BoxError>>::clone_request(&mut self.0, request)
    }
}

/// Whether `request` starts a watch (kube-client asks `watch=true`).
fn is_watch<B>(request: &Request<B>) -> bool {
    request.uri().query().is_some_and(|query| query.split('&').any(|pair| pair == "watch=true" || pair == "watch=1"))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use k8s_openapi::api::core::v1::ConfigMap;
    use kube::Api;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpListener;

    use super::*;

    /// ConfigMaps through a client of [`unavailable`]'s server, retrying 1 to 2 ms apart.
    fn config_maps(url: &str) -> Api<ConfigMap> {
        let config = Config::new(url.parse().unwrap());
        let client = with_retries(config, Duration::from_millis(1), Duration::from_millis(2)).unwrap();
        Api::namespaced(client, "default")
    }

    /// A server that answers every request with `503` and counts them.
    async fn unavailable() -> (String, Arc<AtomicUsize>) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let count = Arc::new(AtomicUsize::new(0));
        let counting = count.clone();
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let mut request = Vec::new();
                let mut buffer = [0u8; 1024];
                while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                    match stream.read(&mut buffer).await {
                        Ok(0) | Err(_) => break,
                        Ok(n) => request.extend_from_slice(&buffer[..n]),
                    }
                }
                counting.fetch_add(1, Ordering::SeqCst);
                let answer = "HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\nconnection: close\r\n\r\n";
                let _ = stream.write_all(answer.as_bytes()).await;
            }
        });
        (url, count)
    }

    #[tokio::test]
    async fn a_busy_server_is_asked_again_a_few_times_then_the_error_is_returned() {
        let (url, count) = unavailable().await;
        let api = config_maps(&url);
        let error = api.get("any").await.unwrap_err();
        assert!(matches!(&error, kube::Error::Api(status) if status.code == 503), "{error:?}");
        assert_eq!(count.load(Ordering::SeqCst), 1 + RETRIES as usize);
    }

    #[tokio::test]
    async fn a_watch_is_not_sent_again_by_the_client() {
        let (url, count) = unavailable().await;
        let api = config_maps(&url);
        let watch = api.watch(&kube::api::WatchParams::default(), "0").await;
        assert!(matches!(&watch, Err(kube::Error::Api(status)) if status.code == 503), "{:?}", watch.err());
        assert_eq!(count.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_watch_is_told_by_its_query() {
        let request = |uri: &str| Request::get(uri).body(()).unwrap();
        assert!(is_watch(&request("/api/v1/namespaces/a/configmaps?&watch=true&timeoutSeconds=290")));
        assert!(is_watch(&request("/apis/apps/v1/deployments?watch=1")));
        assert!(!is_watch(&request("/api/v1/namespaces/a/configmaps?labelSelector=watch%3Dtrue")));
        assert!(!is_watch(&request("/api/v1/namespaces/a/configmaps/watch")));
    }
}
