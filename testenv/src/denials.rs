//! The requests the API server refused the manager under test (403 Forbidden): a rule missing
//! from `config/rbac/role.yaml`. A deployed manager would be refused the same, and a test that
//! waits for what the refused request was to do would only time out; [`ControllerTest`]'s waits
//! fail at once instead, naming the rule to add.
//!
//! [`ControllerTest`]: crate::ControllerTest

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use tokio::sync::watch;

/// One refused request: the RBAC attributes the API server checked, read from its method and
/// path as the API server's request-info resolver reads them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Denial {
    /// `get`, `list`, `watch`, `create`, `update`, `patch`, `delete` or `deletecollection`.
    pub verb: String,
    /// The API group, `""` for the core group.
    pub group: String,
    /// The resource, with its subresource after a `/` (`memcacheds/status`).
    pub resource: String,
    /// The namespace, `None` at the cluster scope.
    pub namespace: Option<String>,
}

impl Denial {
    /// The attributes of a request to a resource path; `None` for any other path
    /// (`/version`, `/apis`, discovery).
    pub(crate) fn of(method: &http::Method, uri: &http::Uri) -> Option<Denial> {
        let segments: Vec<&str> = uri.path().trim_matches('/').split('/').collect();
        let (group, rest) = match segments.as_slice() {
            ["api", _version, rest @ ..] => ("", rest),
            ["apis", group, _version, rest @ ..] => (*group, rest),
            _ => return None,
        };
        let (namespace, rest) = match rest {
            ["namespaces", namespace, rest @ ..] if !rest.is_empty() => (Some(namespace.to_string()), rest),
            // `/api/v1/namespaces/{name}` is the Namespace itself, which RBAC checks in the
            // namespace of its own name, as the API server's request-info resolver does.
            ["namespaces", name] => (Some(name.to_string()), rest),
            _ => (None, rest),
        };
        let (resource, named) = match rest {
            [resource] => (resource.to_string(), false),
            [resource, _name] => (resource.to_string(), true),
            [resource, _name, subresource, ..] => (format!("{resource}/{subresource}"), true),
            _ => return None,
        };
        let watch = uri.query().is_some_and(|q| q.split('&').any(|p| p == "watch=true" || p == "watch=1"));
        let verb = match (method.as_str(), named) {
            ("GET", true) => "get",
            ("GET", false) if watch => "watch",
            ("GET", false) => "list",
            ("POST", _) => "create",
            ("PUT", _) => "update",
            ("PATCH", _) => "patch",
            ("DELETE", true) => "delete",
            ("DELETE", false) => "deletecollection",
            _ => return None,
        };
        Some(Denial { verb: verb.into(), group: group.into(), resource, namespace })
    }

    /// What the manager was refused, and the attribute that grants it.
    pub(crate) fn explain(&self) -> String {
        let group = if self.group.is_empty() { "the core group".to_string() } else { format!("group {}", self.group) };
        let place = match &self.namespace {
            Some(namespace) => format!("in namespace {namespace}"),
            None => "at the cluster scope".to_string(),
        };
        format!(
            "the API server refused the manager (403 Forbidden): its ServiceAccount may not {} {} ({group}) {place}. Grant it with #[rop(rbac(groups = [\"{}\"], resources = [\"{}\"], verbs = [\"{}\"]))] on the kind (an owned or watched kind gets its rules from owns(...) or watches(...)), then run `make manifests`{}",
            self.verb,
            self.resource,
            self.group,
            self.resource,
            self.verb,
            // The test's manager is bound (and a namespace-scoped one watches) in TEST_NAMESPACE.
            if self.namespace.as_deref().is_none_or(|ns| ns != crate::TEST_NAMESPACE) {
                OUTSIDE_ITS_NAMESPACE
            } else {
                ""
            }
        )
    }
}

/// What a refusal at the cluster scope or in another namespace adds: a namespace-scoped
/// manager's rules are a Role in its own namespace, which grants nothing elsewhere.
pub(crate) const OUTSIDE_ITS_NAMESPACE: &str = ". If the manager is namespace-scoped (`rop edit --namespaced`: its rules are a Role bound in its own namespace), no rule grants this: ask within its namespace instead (Api::namespaced with its namespace, not Api::all)";

/// The refusals so far, shared by the manager's client and the test.
#[derive(Clone)]
pub(crate) struct Denials {
    seen: Arc<Mutex<Vec<Denial>>>,
    first: watch::Sender<Option<Denial>>,
}

impl Default for Denials {
    fn default() -> Self {
        Self { seen: Arc::default(), first: watch::channel(None).0 }
    }
}

impl Denials {
    fn note(&self, denial: Denial) {
        let mut seen = self.seen.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if !seen.contains(&denial) {
            seen.push(denial.clone());
        }
        self.first.send_if_modified(|first| first.is_none() && first.replace(denial).is_none());
    }

    /// Completes with the first refusal, at once if there was one already.
    pub(crate) async fn first(&self) -> Denial {
        let mut first = self.first.subscribe();
        let denial = first.wait_for(Option::is_some).await.map(|d| d.clone());
        match denial {
            Ok(Some(denial)) => denial,
            // The sender lives in `self`: the channel cannot close while this waits.
            _ => std::future::pending().await,
        }
    }
}

/// A tower layer noting each request the API server answers with 403 in [`Denials`].
#[derive(Clone)]
pub(crate) struct NoteDenials(pub(crate) Denials);

impl<S> tower::Layer<S> for NoteDenials {
    type Service = NotingDenials<S>;

    fn layer(&self, inner: S) -> Self::Service {
        NotingDenials { inner, denials: self.0.clone() }
    }
}

/// The service of [`NoteDenials`].
#[derive(Clone)]
pub(crate) struct NotingDenials<S> {
    inner: S,
    denials: Denials,
}

impl<S, B, Response> tower::Service<http::Request<B>> for NotingDenials<S>
where
    S: tower::Service<http::Request<B>, Response = http::Response<Response>>,
    S::Future: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<S::Response, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        let attributes = Denial::of(request.method(), request.uri());
        let response = self.inner.call(request);
        let denials = self.denials.clone();
        Box::pin(async move {
            let response = response.await?;
            if response.status() == http::StatusCode::FORBIDDEN
                && let Some(denial) = attributes
            {
                denials.note(denial);
            }
            Ok(response)
        })
    }
}

#[cfg(test)]
mod tests {
    use http::Method;

    use super::*;

    #[test]
    fn the_attributes_come_from_the_method_and_path_as_the_api_server_reads_them() {
        let ns = Some("default");
        let cases = [
            (
                Method::GET,
                "/apis/apps/v1/namespaces/default/deployments?watch=true&resourceVersion=1",
                Some(("watch", "apps", "deployments", ns)),
            ),
            (
                Method::GET,
                "/apis/apps/v1/namespaces/default/deployments?limit=500",
                Some(("list", "apps", "deployments", ns)),
            ),
            (Method::GET, "/api/v1/namespaces/default/configmaps/a", Some(("get", "", "configmaps", ns))),
            (
                Method::PATCH,
                "/apis/cache.example.com/v1alpha1/namespaces/default/memcacheds/m/status?fieldManager=x",
                Some(("patch", "cache.example.com", "memcacheds/status", ns)),
            ),
            (
                Method::POST,
                "/apis/events.k8s.io/v1/namespaces/default/events",
                Some(("create", "events.k8s.io", "events", ns)),
            ),
            (
                Method::PUT,
                "/apis/coordination.k8s.io/v1/namespaces/default/leases/l",
                Some(("update", "coordination.k8s.io", "leases", ns)),
            ),
            (Method::DELETE, "/api/v1/namespaces/default/pods", Some(("deletecollection", "", "pods", ns))),
            (Method::DELETE, "/api/v1/namespaces/default/pods/p", Some(("delete", "", "pods", ns))),
            (Method::GET, "/api/v1/namespaces/default", Some(("get", "", "namespaces", Some("default")))),
            (Method::GET, "/apis/example.com/v1/widgets", Some(("list", "example.com", "widgets", None))),
            (Method::GET, "/version", None),
            (Method::GET, "/apis/apps/v1", None),
        ];
        for (method, uri, expected) in cases {
            let denial = Denial::of(&method, &uri.parse().unwrap());
            let expected = expected.map(|(verb, group, resource, namespace)| Denial {
                verb: verb.into(),
                group: group.into(),
                resource: resource.into(),
                namespace: namespace.map(String::from),
            });
            assert_eq!(denial, expected, "{method} {uri}");
        }
    }

    #[test]
    fn a_denial_at_the_cluster_scope_says_a_role_cannot_grant_it() {
        let denial = Denial { verb: "list".into(), group: "".into(), resource: "secrets".into(), namespace: None };
        assert!(denial.explain().contains("may not list secrets (the core group) at the cluster scope."));
        assert!(denial.explain().ends_with(OUTSIDE_ITS_NAMESPACE));
    }

    #[test]
    fn a_denial_names_the_attribute_that_grants_it() {
        let denial = Denial {
            verb: "list".into(),
            group: "".into(),
            resource: "secrets".into(),
            namespace: Some("default".into()),
        };
        assert_eq!(
            denial.explain(),
            "the API server refused the manager (403 Forbidden): its ServiceAccount may not list secrets (the core group) in namespace default. Grant it with #[rop(rbac(groups = [\"\"], resources = [\"secrets\"], verbs = [\"list\"]))] on the kind (an owned or watched kind gets its rules from owns(...) or watches(...)), then run `make manifests`"
        );
    }

    #[tokio::test]
    async fn the_first_denial_is_kept_and_each_is_noted_once() {
        let denials = Denials::default();
        let first = Denial { verb: "get".into(), group: "".into(), resource: "pods".into(), namespace: None };
        let second = Denial { verb: "list".into(), ..first.clone() };
        denials.note(first.clone());
        denials.note(second.clone());
        denials.note(first.clone());
        assert_eq!(denials.first().await, first);
        assert_eq!(*denials.seen.lock().unwrap(), [first, second]);
    }
}
