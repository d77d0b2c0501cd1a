//! A request the API server refused with 403 Forbidden names a rule missing from the manager's
//! role: the log says which attribute grants it, once per missing rule, beside the error.

use std::collections::BTreeSet;
use std::sync::{Mutex, OnceLock};

use tracing::error;

/// The RBAC attributes of a refused request, read from the RBAC authorizer's message:
/// `User "..." cannot get resource "secrets" in API group "" in the namespace "default"`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Refused {
    verb: String,
    group: String,
    resource: String,
    namespace: Option<String>,
}

impl Refused {
    /// The attributes in `message`, the text of an error (or its chain) holding the API
    /// server's answer; `None` when it holds no RBAC refusal.
    fn parse(message: &str) -> Option<Refused> {
        let quoted = |text: &str, before: &str| -> Option<(String, usize)> {
            let start = text.find(before)? + before.len();
            let end = start + text[start..].find('"')?;
            Some((text[start..end].to_string(), end + 1))
        };
        let rest = &message[message.find("\" cannot ")? + "\" cannot ".len()..];
        let (verb, rest) = rest.split_once(' ')?;
        let (resource, end) = quoted(rest, "resource \"")?;
        let rest = &rest[end..];
        let (group, end) = quoted(rest, " in API group \"")?;
        let rest = &rest[end..];
        let namespace =
            rest.strip_prefix(" in the namespace \"").and_then(|ns| ns.split_once('"')).map(|(ns, _)| ns.to_string());
        Some(Refused { verb: verb.to_string(), group, resource, namespace })
    }

    fn hint(&self) -> String {
        let place = match &self.namespace {
            Some(namespace) => format!("in namespace {namespace}"),
            None => "at the cluster scope".to_string(),
        };
        let group = if self.group.is_empty() { "the core group".to_string() } else { format!("group {}", self.group) };
        format!(
            "the manager's role lacks a rule: it may not {} {} ({group}) {place}. Grant it with #[rop(rbac(groups = [\"{}\"], resources = [\"{}\"], verbs = [\"{}\"]))] on the kind (an owned or watched kind gets its rules from owns(...) or watches(...)), run `make manifests` and deploy the new config/rbac/role.yaml{}",
            self.verb,
            self.resource,
            self.group,
            self.resource,
            self.verb,
            if self.namespace.is_none() {
                ". If the manager is namespace-scoped (`rop edit --namespaced`: its rules are a Role bound in its own namespace), no rule grants this: ask within its namespace instead (Api::namespaced with its namespace, not Api::all)"
            } else {
                ""
            }
        )
    }
}

/// Logs, once per missing rule in this process, the attribute that grants what `message` (an
/// error's chain) says the API server refused.
pub(crate) fn log_missing_rule(message: &str) {
    let Some(refused) = Refused::parse(message) else { return };
    static LOGGED: OnceLock<Mutex<BTreeSet<Refused>>> = OnceLock::new();
    let mut logged = LOGGED.get_or_init(Mutex::default).lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if logged.insert(refused.clone()) {
        error!("{}", refused.hint());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rbac_authorizers_message_gives_the_attributes() {
        let namespaced = "ApiError: secrets \"credentials\" is forbidden: User \"system:serviceaccount:default:controller-manager\" cannot get resource \"secrets\" in API group \"\" in the namespace \"default\": Forbidden (ErrorResponse { status: \"Failure\", .. })";
        assert_eq!(
            Refused::parse(namespaced),
            Some(Refused {
                verb: "get".into(),
                group: "".into(),
                resource: "secrets".into(),
                namespace: Some("default".into())
            })
        );
        let cluster = "statefulsets.apps is forbidden: User \"u\" cannot list resource \"statefulsets\" in API group \"apps\" at the cluster scope";
        let refused = Refused::parse(cluster).unwrap();
        assert_eq!((refused.verb.as_str(), refused.group.as_str(), refused.namespace), ("list", "apps", None));
        let status = "User \"u\" cannot patch resource \"memcacheds/status\" in API group \"cache.example.com\" in the namespace \"ns\"";
        assert_eq!(Refused::parse(status).unwrap().resource, "memcacheds/status");
        assert_eq!(Refused::parse("deployments.apps \"x\" not found"), None);
    }

    #[test]
    fn the_hint_names_the_attribute() {
        let refused = Refused {
            verb: "get".into(),
            group: "".into(),
            resource: "secrets".into(),
            namespace: Some("default".into()),
        };
        assert_eq!(
            refused.hint(),
            "the manager's role lacks a rule: it may not get secrets (the core group) in namespace default. Grant it with #[rop(rbac(groups = [\"\"], resources = [\"secrets\"], verbs = [\"get\"]))] on the kind (an owned or watched kind gets its rules from owns(...) or watches(...)), run `make manifests` and deploy the new config/rbac/role.yaml"
        );
    }
}
