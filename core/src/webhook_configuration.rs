//! `MutatingWebhookConfiguration` and `ValidatingWebhookConfiguration` from the kinds'
//! `#[rop(webhook(...))]` attributes: what controller-gen's `webhook` generator writes to
//! `config/webhook/manifests.yaml` from `+kubebuilder:webhook` markers.
//!
//! Every webhook calls the Service `webhook-service` in namespace `system`; kustomize's
//! `namePrefix` and `namespace` in `config/default` turn them into the deployed names, and
//! cert-manager's CA injector fills in `caBundle`.

use std::collections::BTreeMap;

use k8s_openapi::api::admissionregistration::v1::{
    MutatingWebhook, MutatingWebhookConfiguration, RuleWithOperations, ServiceReference, ValidatingWebhook,
    ValidatingWebhookConfiguration, WebhookClientConfig,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{
    LabelSelector as MetaLabelSelector, LabelSelectorRequirement, ObjectMeta,
};

use crate::definition::{AdmissionTarget, LabelSelector, Webhook};

/// Name of the Service in front of the manager's webhook server (config/webhook/service.yaml).
pub const SERVICE_NAME: &str = "webhook-service";
/// Namespace of that Service before kustomize sets the project's namespace.
pub const SERVICE_NAMESPACE: &str = "system";
/// Name of the generated `MutatingWebhookConfiguration`, as controller-gen names it.
pub const MUTATING_CONFIGURATION: &str = "mutating-webhook-configuration";
/// Name of the generated `ValidatingWebhookConfiguration`, as controller-gen names it.
pub const VALIDATING_CONFIGURATION: &str = "validating-webhook-configuration";
/// Name of the Secret the webhook server's certificate is in, before kustomize's `namePrefix`:
/// cert-manager's Certificate writes it, or the manager fills it (`--webhook-cert-mode=self-managed`).
pub const CERT_SECRET: &str = "webhook-server-cert";

/// The webhooks of one kind version, mutating and validating, as the API objects' entries.
pub fn for_kind(kind: &AdmissionTarget) -> (Vec<MutatingWebhook>, Vec<ValidatingWebhook>) {
    let mut mutating = Vec::new();
    let mut validating = Vec::new();
    for webhook in kind.webhooks {
        let rules = Some(vec![RuleWithOperations {
            api_groups: Some(vec![kind.group.to_string()]),
            api_versions: Some(vec![kind.version.to_string()]),
            operations: Some(strings(webhook.operations)),
            resources: Some(vec![kind.plural.to_string()]),
            scope: None,
        }]);
        let common = Common::of(webhook);
        if webhook.mutating {
            mutating.push(MutatingWebhook {
                admission_review_versions: common.admission_review_versions,
                client_config: common.client_config,
                failure_policy: common.failure_policy,
                match_policy: common.match_policy,
                name: common.name,
                namespace_selector: common.namespace_selector,
                object_selector: common.object_selector,
                reinvocation_policy: webhook.reinvocation_policy.map(str::to_string),
                rules,
                side_effects: common.side_effects,
                timeout_seconds: webhook.timeout_seconds,
                match_conditions: None,
            });
        } else {
            validating.push(ValidatingWebhook {
                admission_review_versions: common.admission_review_versions,
                client_config: common.client_config,
                failure_policy: common.failure_policy,
                match_policy: common.match_policy,
                name: common.name,
                namespace_selector: common.namespace_selector,
                object_selector: common.object_selector,
                rules,
                side_effects: common.side_effects,
                timeout_seconds: webhook.timeout_seconds,
                match_conditions: None,
            });
        }
    }
    (mutating, validating)
}

/// The fields mutating and validating webhooks share.
struct Common {
    admission_review_versions: Vec<String>,
    client_config: WebhookClientConfig,
    failure_policy: Option<String>,
    match_policy: Option<String>,
    name: String,
    namespace_selector: Option<MetaLabelSelector>,
    object_selector: Option<MetaLabelSelector>,
    side_effects: String,
}

impl Common {
    fn of(webhook: &Webhook) -> Common {
        Common {
            admission_review_versions: strings(webhook.admission_review_versions),
            client_config: WebhookClientConfig {
                service: Some(ServiceReference {
                    name: SERVICE_NAME.into(),
                    namespace: SERVICE_NAMESPACE.into(),
                    path: Some(webhook.path.into()),
                    port: None,
                }),
                ..WebhookClientConfig::default()
            },
            failure_policy: Some(webhook.failure_policy.into()),
            match_policy: webhook.match_policy.map(str::to_string),
            name: webhook.name.into(),
            namespace_selector: webhook.namespace_selector.as_ref().map(label_selector),
            object_selector: webhook.object_selector.as_ref().map(label_selector),
            side_effects: webhook.side_effects.into(),
        }
    }
}

fn strings(values: &[&str]) -> Vec<String> {
    values.iter().map(|v| v.to_string()).collect()
}

fn label_selector(selector: &LabelSelector) -> MetaLabelSelector {
    let labels: BTreeMap<String, String> =
        selector.match_labels.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let expressions: Vec<LabelSelectorRequirement> = selector
        .match_expressions
        .iter()
        .map(|r| LabelSelectorRequirement {
            key: r.key.into(),
            operator: r.operator.into(),
            values: (!r.values.is_empty()).then(|| strings(r.values)),
        })
        .collect();
    MetaLabelSelector {
        match_labels: (!labels.is_empty()).then_some(labels),
        match_expressions: (!expressions.is_empty()).then_some(expressions),
    }
}

/// The two configuration objects for all webhooks of a project, each omitted when it would be
/// empty, webhooks sorted by name as controller-gen sorts them.
///
/// # Errors
/// Two webhooks with the same name (the API server refuses duplicate names in a configuration),
/// or at the same path (the webhook server serves one webhook per path): the message names them.
pub fn configurations(
    mut mutating: Vec<MutatingWebhook>,
    mut validating: Vec<ValidatingWebhook>,
) -> Result<(Option<MutatingWebhookConfiguration>, Option<ValidatingWebhookConfiguration>), DuplicateWebhook> {
    mutating.sort_by(|a, b| a.name.cmp(&b.name));
    validating.sort_by(|a, b| a.name.cmp(&b.name));
    for names in [
        mutating.iter().map(|w| w.name.as_str()).collect::<Vec<_>>(),
        validating.iter().map(|w| w.name.as_str()).collect(),
    ] {
        if let Some(pair) = names.windows(2).find(|pair| pair[0] == pair[1]) {
            return Err(DuplicateWebhook::Name { name: pair[0].to_string() });
        }
    }
    // The manager's webhook server answers each path with one webhook, mutating or validating.
    let path = |config: &WebhookClientConfig| config.service.as_ref().and_then(|s| s.path.clone()).unwrap_or_default();
    let mut paths: Vec<(String, &str)> = mutating
        .iter()
        .map(|w| (path(&w.client_config), w.name.as_str()))
        .chain(validating.iter().map(|w| (path(&w.client_config), w.name.as_str())))
        .collect();
    paths.sort();
    if let Some(pair) = paths.windows(2).find(|pair| pair[0].0 == pair[1].0) {
        let (path, first, second) = (pair[0].0.clone(), pair[0].1.to_string(), pair[1].1.to_string());
        return Err(DuplicateWebhook::Path { path, first, second });
    }
    let metadata = |name: &str| ObjectMeta { name: Some(name.into()), ..ObjectMeta::default() };
    Ok((
        (!mutating.is_empty()).then(|| MutatingWebhookConfiguration {
            metadata: metadata(MUTATING_CONFIGURATION),
            webhooks: Some(mutating),
        }),
        (!validating.is_empty()).then(|| ValidatingWebhookConfiguration {
            metadata: metadata(VALIDATING_CONFIGURATION),
            webhooks: Some(validating),
        }),
    ))
}

/// Two webhooks that cannot both be deployed.
#[derive(Debug, thiserror::Error)]
pub enum DuplicateWebhook {
    /// Two webhooks of one configuration share a name (the API server refuses it).
    #[error(
        "two webhooks are named \"{name}\": webhook names are unique in a configuration, set another `name` in one of the #[rop(webhook(...))] attributes"
    )]
    Name {
        /// The shared name, a fully qualified DNS name such as `mmemcached-v1.cache.example.com`.
        name: String,
    },
    /// Two webhooks share a URL path (the manager's webhook server serves one per path).
    #[error(
        "the webhooks \"{first}\" and \"{second}\" are both served at {path}: the webhook server answers a path with one webhook, give one of them another `path` in its #[rop(webhook(...))] attribute"
    )]
    Path {
        /// The shared URL path on the webhook server, e.g. `/mutate-cache-example-com-v1-memcached`.
        path: String,
        /// The name of one webhook at `path`, the first in name order.
        first: String,
        /// The name of the other webhook at `path`.
        second: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(path: &str) -> WebhookClientConfig {
        let service = ServiceReference { path: Some(path.into()), ..ServiceReference::default() };
        WebhookClientConfig { service: Some(service), ..WebhookClientConfig::default() }
    }

    fn mutating(name: &str, path: &str) -> MutatingWebhook {
        MutatingWebhook { name: name.into(), client_config: at(path), ..MutatingWebhook::default() }
    }

    fn validating(name: &str, path: &str) -> ValidatingWebhook {
        ValidatingWebhook { name: name.into(), client_config: at(path), ..ValidatingWebhook::default() }
    }

    #[test]
    fn two_webhooks_at_one_path_are_refused_naming_both() {
        let refused = configurations(
            vec![mutating("mmemcached-v1.cache.example.com", "/mutate-memcached")],
            vec![validating("vmemcachedset-v1.cache.example.com", "/mutate-memcached")],
        )
        .unwrap_err();
        assert_eq!(
            refused.to_string(),
            "the webhooks \"mmemcached-v1.cache.example.com\" and \"vmemcachedset-v1.cache.example.com\" are both served at /mutate-memcached: the webhook server answers a path with one webhook, give one of them another `path` in its #[rop(webhook(...))] attribute"
        );
        let both = configurations(
            vec![mutating("mmemcached-v1.cache.example.com", "/mutate-memcached")],
            vec![validating("vmemcached-v1.cache.example.com", "/validate-memcached")],
        );
        assert!(both.is_ok());
    }

    #[test]
    fn two_webhooks_of_one_name_are_refused() {
        let refused = configurations(vec![mutating("m.example.com", "/a"), mutating("m.example.com", "/b")], vec![]);
        assert_eq!(
            refused.unwrap_err().to_string(),
            "two webhooks are named \"m.example.com\": webhook names are unique in a configuration, set another `name` in one of the #[rop(webhook(...))] attributes"
        );
    }
}
