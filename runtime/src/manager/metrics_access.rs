//! Who may read `/metrics` on the secure metrics server: a caller whose bearer token the API
//! server authenticates (a TokenReview) and whose user it authorizes for `get` on the
//! non-resource URL `/metrics` (a SubjectAccessReview), as controller-runtime's
//! `filters.WithAuthenticationAndAuthorization` decides for a kubebuilder manager. No token or
//! one the API server does not accept gets 401, an authenticated user without the permission
//! 403. Each token's decision is kept for a short while, so a scrape every few seconds does not
//! cost the API server two requests each.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use k8s_openapi::api::authentication::v1::{TokenReview, TokenReviewSpec};
use k8s_openapi::api::authorization::v1::{NonResourceAttributes, SubjectAccessReview, SubjectAccessReviewSpec};
use kube::Client;
use kube::api::{Api, PostParams};
use tracing::warn;

/// How long an allowed token is trusted before it is reviewed again: controller-runtime keeps
/// a TokenReview for a minute (and an allowed SubjectAccessReview for five).
const ALLOWED_FOR: Duration = Duration::from_secs(60);
/// How long a refused token stays refused: controller-runtime keeps a denied
/// SubjectAccessReview for 30 s.
const REFUSED_FOR: Duration = Duration::from_secs(30);
/// How many tokens' decisions are kept at most, so that callers sending new tokens cannot grow
/// the manager's memory.
const KEPT_TOKENS: usize = 1024;

/// What the API server said of a token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Decision {
    /// Authenticated, and allowed to `get` the path.
    Allowed,
    /// Not a token the API server accepts: 401.
    Unauthenticated,
    /// A user without the permission: 403.
    Forbidden,
}

/// Decides whether a token may read the metrics, with the manager's client.
#[derive(Clone)]
pub(crate) struct Access {
    client: Client,
    kept: Arc<Mutex<Kept>>,
}

impl Access {
    pub(crate) fn new(client: Client) -> Self {
        Self { client, kept: Arc::default() }
    }

    /// The decision for `token` reading `path`: kept, or asked of the API server.
    ///
    /// # Errors
    /// The TokenReview or SubjectAccessReview failed (the API server unreachable, or the
    /// manager not allowed to create them: `config/rbac/metrics_auth_role.yaml`).
    async fn decide(&self, token: &str, path: &str) -> Result<Decision, kube::Error> {
        if let Some(decision) = self.lock().get(token, Instant::now()) {
            return Ok(decision);
        }
        let decision = self.review(token, path).await?;
        self.lock().insert(token, decision, Instant::now());
        Ok(decision)
    }

    async fn review(&self, token: &str, path: &str) -> Result<Decision, kube::Error> {
        let review = TokenReview {
            spec: TokenReviewSpec { token: token.to_string(), audiences: None },
            ..TokenReview::default()
        };
        let reviewed = Api::<TokenReview>::all(self.client.clone()).create(&PostParams::default(), &review).await?;
        let status = reviewed.status.unwrap_or_default();
        let (true, Some(user)) = (status.authenticated == Some(true), status.user) else {
            return Ok(Decision::Unauthenticated);
        };
        let access = SubjectAccessReview {
            spec: SubjectAccessReviewSpec {
                user: user.username,
                groups: user.groups,
                uid: user.uid,
                extra: user.extra,
                non_resource_attributes: Some(NonResourceAttributes {
                    path: Some(path.to_string()),
                    verb: Some("get".into()),
                }),
                ..SubjectAccessReviewSpec::default()
            },
            ..SubjectAccessReview::default()
        };
        let reviewed =
            Api::<SubjectAccessReview>::all(self.client.clone()).create(&PostParams::default(), &access).await?;
        Ok(if reviewed.status.is_some_and(|status| status.allowed) { Decision::Allowed } else { Decision::Forbidden })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Kept> {
        self.kept.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Lets a request through to the handler only with a token [`Access`] allows: the middleware
/// of the secure metrics server's `/metrics` route.
pub(crate) async fn require_access(State(access): State<Access>, request: Request, next: Next) -> Response {
    let Some(token) = bearer_token(request.headers()) else {
        return refuse(Decision::Unauthenticated);
    };
    match access.decide(token, request.uri().path()).await {
        Ok(Decision::Allowed) => next.run(request).await,
        Ok(refused) => refuse(refused),
        Err(error) => {
            warn!(error = %error, "cannot review a metrics caller's token: does the manager's role allow creating tokenreviews and subjectaccessreviews (config/rbac/metrics_auth_role.yaml)?");
            (StatusCode::INTERNAL_SERVER_ERROR, "cannot review the token\n").into_response()
        }
    }
}

fn refuse(decision: Decision) -> Response {
    match decision {
        Decision::Forbidden => (StatusCode::FORBIDDEN, "Forbidden: the caller may not get /metrics\n").into_response(),
        _ => (StatusCode::UNAUTHORIZED, [(header::WWW_AUTHENTICATE, "Bearer")], "Unauthorized\n").into_response(),
    }
}

/// The token of an `Authorization: Bearer <token>` header (the scheme in any case, RFC 6750).
fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// Decisions by token, each until it expires.
#[derive(Debug, Default)]
struct Kept(HashMap<String, (Decision, Instant)>);

impl Kept {
    fn get(&mut self, token: &str, now: Instant) -> Option<Decision> {
        match self.0.get(token) {
            Some(&(decision, until)) if now < until => Some(decision),
            Some(_) => {
                self.0.remove(token);
                None
            }
            None => None,
        }
    }

    fn insert(&mut self, token: &str, decision: Decision, now: Instant) {
        if self.0.len() >= KEPT_TOKENS {
            self.0.retain(|_, (_, until)| now < *until);
            if self.0.len() >= KEPT_TOKENS {
                self.0.clear();
            }
        }
        let kept_for = if decision == Decision::Allowed { ALLOWED_FOR } else { REFUSED_FOR };
        self.0.insert(token.to_string(), (decision, now + kept_for));
    }
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    fn headers(authorization: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::AUTHORIZATION, HeaderValue::from_str(authorization).unwrap());
        headers
    }

    #[test]
    fn a_bearer_token_is_read_from_the_authorization_header() {
        assert_eq!(bearer_token(&headers("Bearer abc.def")), Some("abc.def"));
        assert_eq!(bearer_token(&headers("bearer  abc ")), Some("abc"));
        assert_eq!(bearer_token(&headers("Basic dXNlcjpwYXNz")), None);
        assert_eq!(bearer_token(&headers("Bearer ")), None);
        assert_eq!(bearer_token(&headers("Bearer")), None);
        assert_eq!(bearer_token(&HeaderMap::new()), None);
    }

    #[test]
    fn an_allowed_token_is_kept_a_minute_a_refused_one_30_seconds() {
        let mut kept = Kept::default();
        let now = Instant::now();
        kept.insert("good", Decision::Allowed, now);
        kept.insert("stranger", Decision::Forbidden, now);
        kept.insert("forged", Decision::Unauthenticated, now);
        let later = |secs| now + Duration::from_secs(secs);
        assert_eq!(kept.get("good", later(59)), Some(Decision::Allowed));
        assert_eq!(kept.get("stranger", later(29)), Some(Decision::Forbidden));
        assert_eq!(kept.get("forged", later(29)), Some(Decision::Unauthenticated));
        assert_eq!(kept.get("stranger", later(30)), None);
        assert_eq!(kept.get("good", later(60)), None);
        assert_eq!(kept.get("unknown", now), None);
        assert!(kept.0.contains_key("forged") && !kept.0.contains_key("good"), "expired entries are dropped when read");
    }

    #[test]
    fn new_tokens_past_the_limit_drop_the_expired_then_all() {
        let mut kept = Kept::default();
        let now = Instant::now();
        for i in 0..KEPT_TOKENS {
            kept.insert(&format!("refused-{i}"), Decision::Unauthenticated, now);
        }
        kept.insert("allowed", Decision::Allowed, now + Duration::from_secs(31));
        assert_eq!(kept.0.len(), 1, "the refused ones had expired");

        for i in 1..KEPT_TOKENS {
            kept.insert(&format!("fresh-{i}"), Decision::Forbidden, now);
        }
        assert_eq!(kept.0.len(), KEPT_TOKENS);
        kept.insert("one more", Decision::Forbidden, now);
        assert_eq!(kept.0.len(), 1, "none had expired: all are dropped");
        assert_eq!(kept.get("one more", now), Some(Decision::Forbidden));
    }
}
