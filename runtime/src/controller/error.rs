//! Why a pass of a controller failed, and how failures are named in logs and metrics.

/// A failed pass: the reconciler's own error, or the runtime's step around it.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Error<E: std::error::Error + 'static> {
    /// [`super::Reconciler::reconcile`] failed.
    #[error("reconcile failed: {0}")]
    Reconcile(#[source] E),
    /// [`super::Reconciler::cleanup`] failed; the finalizer stays.
    #[error("cleanup failed: {0}")]
    Cleanup(#[source] E),
    /// Adding or removing the kind's finalizer failed (a conflict with another writer is
    /// retried at once).
    #[error("failed to {action} the finalizer {finalizer}")]
    Finalizer {
        /// `add` or `remove`.
        action: &'static str,
        /// The kind's finalizer.
        finalizer: String,
        /// The API server's answer.
        #[source]
        source: kube::Error,
    },
}

/// A failed [`super::Context::apply`]: the object's kind and name, and the API server's answer
/// (or the refusal to adopt an object another controller, or none, controls). It reads
/// `failed to apply <Kind> [<namespace>/]<name>`, with the answer as its source, so the Warning
/// Event and the `Degraded` condition say which object failed.
///
/// A reconciler with its own error type carries it in a variant, `#[error(transparent)]
/// Apply(#[from] ApplyError)` (as below: the message is `ApplyError`'s, with the name). One
/// whose error type is `kube::Error` takes it with `?` too, as its source, without the name.
///
/// ```
/// use rop::controller::{ApplyError, Terminal};
///
/// /// Why a pass failed.
/// #[derive(Debug, thiserror::Error)]
/// pub enum Error {
///     /// Names the object: "failed to apply ConfigMap shop/web".
///     #[error(transparent)]
///     Apply(#[from] ApplyError),
///     /// Not retried until the object changes.
///     #[error("the spec is invalid")]
///     Invalid(#[from] Terminal),
/// }
/// ```
#[derive(Debug, thiserror::Error)]
#[error("failed to apply {object}")]
pub struct ApplyError {
    object: String,
    #[source]
    source: kube::Error,
}

impl ApplyError {
    pub(crate) fn new(object: String, source: kube::Error) -> Self {
        Self { object, source }
    }

    /// The API server's answer, for a reconciler that looks at its code or reason (a `409
    /// AlreadyExists` for an object not adopted).
    pub fn kube_error(&self) -> &kube::Error {
        &self.source
    }
}

impl From<ApplyError> for kube::Error {
    fn from(error: ApplyError) -> Self {
        error.source
    }
}

/// An error that retrying cannot fix until the object changes (controller-runtime's
/// `reconcile.TerminalError`): an invalid combination of fields the schema cannot refuse, a
/// reference to something that will never exist.
///
/// A pass that fails with a `Terminal` anywhere in its error's chain of sources is not retried:
/// the runtime records a Warning Event `Stalled`, sets the condition `Stalled` (`True`, reason
/// `TerminalError`, the message) when the kind's status has conditions, counts it in
/// `controller_runtime_terminal_reconcile_errors_total`, and waits for the object to change.
/// The next pass that succeeds removes the condition.
///
/// Carry it as the source of a variant of the reconciler's error (`#[source]`, or `#[from]`
/// on a variant that is not `#[error(transparent)]`, which would hide it from the chain), or
/// use it as the whole error type.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct Terminal {
    message: String,
}

impl Terminal {
    /// A terminal error with `message`, which says what is wrong and how to fix it.
    pub fn new(message: impl Into<String>) -> Self {
        Self { message: message.into() }
    }
}

/// Whether `error` or one of its sources is a [`Terminal`].
pub(crate) fn is_terminal(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut current = Some(error);
    while let Some(error) = current {
        if error.is::<Terminal>() {
            return true;
        }
        current = error.source();
    }
    false
}

/// A short, bounded name for `error`, for the `reason` label of
/// `controller_runtime_reconcile_errors_total`: the HTTP status of the first `kube::Error` in
/// its chain (`conflict` 409, `already_exists` 409 AlreadyExists, `not_found` 404,
/// `forbidden` 403, `invalid` 422, else `api`), or `reconcile` when no API call failed.
pub(crate) fn error_reason(error: &(dyn std::error::Error + 'static)) -> &'static str {
    let mut current = Some(error);
    while let Some(error) = current {
        // A wrapper marked `#[error(transparent)]` hands out the kube::Error's own source, the
        // API server's Status, so look for that too.
        let code = if let Some(error) = error.downcast_ref::<kube::Error>() {
            match error {
                kube::Error::Api(status) => Some(status.code),
                _ => return "api",
            }
        } else if let Some(status) = error.downcast_ref::<kube::core::Status>() {
            Some(status.code)
        } else {
            error.downcast_ref::<Box<kube::core::Status>>().map(|status| status.code)
        };
        if let Some(code) = code {
            // A 409 is a conflict (an update on an old resourceVersion), routine, unless the
            // object exists: a create that lost, or an apply that would adopt.
            if code == 409 && already_exists(error) {
                return "already_exists";
            }
            return match code {
                409 => "conflict",
                404 => "not_found",
                403 => "forbidden",
                422 => "invalid",
                _ => "api",
            };
        }
        current = error.source();
    }
    "reconcile"
}

/// Whether the first `kube::Error` in `error`'s chain is one of reaching the API server (a
/// refused or broken connection, a TLS failure), not an answer from it: the Warning Event of
/// such a failure could not be recorded either.
pub(crate) fn is_unreachable(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut current = Some(error);
    while let Some(error) = current {
        if let Some(error) = error.downcast_ref::<kube::Error>() {
            return matches!(error, kube::Error::Service(_) | kube::Error::HyperError(_));
        }
        current = error.source();
    }
    false
}

/// Whether `error` is the API server's (or [`crate::controller::Context::apply`]'s) `409
/// AlreadyExists`.
fn already_exists(error: &(dyn std::error::Error + 'static)) -> bool {
    let status = match error.downcast_ref::<kube::Error>() {
        Some(kube::Error::Api(status)) => Some(&**status),
        _ => error
            .downcast_ref::<kube::core::Status>()
            .or_else(|| error.downcast_ref::<Box<kube::core::Status>>().map(|s| &**s)),
    };
    status.is_some_and(|status| status.reason == "AlreadyExists")
}

/// Formats `error` with its causes, `outer: cause: root cause`, leaving out a cause whose
/// message the text already holds (many errors print their source).
#[doc(hidden)]
pub fn error_chain(error: &dyn std::error::Error) -> String {
    let mut message = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_message = cause.to_string();
        if !message.contains(&cause_message) {
            message.push_str(": ");
            message.push_str(&cause_message);
        }
        source = cause.source();
    }
    message
}

#[cfg(test)]
mod tests {
    use kube::core::Status;

    use super::*;

    fn api_error(code: u16) -> kube::Error {
        kube::Error::Api(Box::new(Status::failure("refused", "Refused").with_code(code)))
    }

    #[derive(Debug, thiserror::Error)]
    #[error("failed to apply Deployment web")]
    struct Apply(#[source] kube::Error);

    #[derive(Debug, thiserror::Error)]
    enum Transparent {
        #[error(transparent)]
        Api(#[from] kube::Error),
    }

    #[test]
    fn the_reason_is_the_status_of_the_first_api_error() {
        assert_eq!(error_reason(&api_error(409)), "conflict");
        assert_eq!(error_reason(&Apply(api_error(404))), "not_found");
        assert_eq!(error_reason(&Apply(api_error(403))), "forbidden");
        assert_eq!(error_reason(&Apply(api_error(422))), "invalid");
        assert_eq!(error_reason(&Apply(api_error(500))), "api");
        assert_eq!(error_reason(&std::io::Error::other("disk full")), "reconcile");
        assert_eq!(error_reason(&Transparent::Api(api_error(403))), "forbidden", "through #[error(transparent)]");
    }

    #[test]
    fn a_connection_error_is_told_from_an_answer() {
        let refused = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "connection refused");
        let unreachable = kube::Error::Service(Box::new(refused));
        assert!(super::is_unreachable(&unreachable));
        assert!(!super::is_unreachable(&api_error(500)));
        assert!(!super::is_unreachable(&std::io::Error::other("no kube error")));
    }

    #[test]
    fn a_terminal_error_is_found_anywhere_in_the_chain() {
        #[derive(Debug, thiserror::Error)]
        enum Failure {
            #[error("the spec is invalid")]
            Invalid(#[from] Terminal),
            #[error("failed to apply")]
            Apply(#[source] kube::Error),
        }

        assert!(is_terminal(&Terminal::new("spec.size must be even")));
        assert!(is_terminal(&Failure::Invalid(Terminal::new("spec.size must be even"))));
        assert!(!is_terminal(&Failure::Apply(api_error(409))));
        assert!(!is_terminal(&std::io::Error::other("disk full")));
    }

    #[test]
    fn error_chain_lists_causes_once() {
        #[derive(Debug, thiserror::Error)]
        #[error("outer: {0}")]
        struct Outer(#[source] std::io::Error);
        #[derive(Debug, thiserror::Error)]
        #[error("top")]
        struct Top(#[source] Outer);

        assert_eq!(error_chain(&Top(Outer(std::io::Error::other("disk full")))), "top: outer: disk full");
    }
}
