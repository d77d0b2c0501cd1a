//! Puts the CA bundle where the API server reads it: each webhook's `clientConfig.caBundle`
//! in the manager's MutatingWebhookConfiguration and ValidatingWebhookConfiguration, and the
//! conversion `clientConfig.caBundle` of the CRDs it converts (what cert-manager's CA injector
//! does from the `cert-manager.io/inject-ca-from` annotation). With `--webhook-url` it also
//! points them at that URL, creating the webhook configurations from the webhooks it serves.
//!
//! Every replica checks; only the leader writes. Each object is read by name and written by
//! name, so the RBAC the manager needs names them (config/webhook-self-managed/role.yaml).

use k8s_openapi::ByteString;
use k8s_openapi::api::admissionregistration::v1::{
    MutatingWebhook, MutatingWebhookConfiguration, RuleWithOperations, ValidatingWebhook,
    ValidatingWebhookConfiguration, WebhookClientConfig,
};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::api::{Patch, PatchParams, PostParams};
use kube::{Api, Client};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::json;
use tracing::{info, warn};

use super::FIELD_MANAGER;
use crate::webhook::CONVERSION_PATH;
use crate::webhook_configuration;

/// What the CA bundle goes into.
#[derive(Clone, Debug)]
pub(crate) struct Targets {
    /// The MutatingWebhookConfiguration's name and, with a URL, its webhooks; `None` when the
    /// manager serves no defaulter.
    pub(crate) mutating: Option<(String, Vec<MutatingWebhook>)>,
    /// The ValidatingWebhookConfiguration's name and webhooks; `None` without validators.
    pub(crate) validating: Option<(String, Vec<ValidatingWebhook>)>,
    /// The CRDs whose conversion the manager serves, `<plural>.<group>`.
    pub(crate) crds: Vec<String>,
    /// `--webhook-url` without a trailing `/`: the manager registers the webhooks itself, at
    /// this URL; `None` leaves the configurations' `service` as deployed.
    pub(crate) url: Option<String>,
}

/// Why a target is not right yet.
pub(crate) type Pending = String;

impl Targets {
    /// Checks every target against `bundle` and, when `write`, fixes the ones that differ.
    /// Returns why targets are not right (empty when all are).
    pub(crate) async fn inject(&self, client: &Client, bundle: &ByteString, write: bool) -> Vec<Pending> {
        let mut pending = Vec::new();
        if let Some((name, webhooks)) = &self.mutating {
            pending.extend(
                self.configuration::<MutatingWebhookConfiguration>(client, name, webhooks, bundle, write).await.err(),
            );
        }
        if let Some((name, webhooks)) = &self.validating {
            pending.extend(
                self.configuration::<ValidatingWebhookConfiguration>(client, name, webhooks, bundle, write).await.err(),
            );
        }
        for crd in &self.crds {
            pending.extend(conversion(client, crd, self.url.as_deref(), bundle, write).await.err());
        }
        pending
    }
}

impl Targets {
    /// Deletes the webhook configurations a manager with `--webhook-url` registered, when it
    /// stops: those whose every webhook calls the URL. The CRDs keep their conversion
    /// (`make undo-run-webhooks` points it back at the Service).
    pub(crate) async fn unregister(&self, client: &Client) {
        let Some(url) = &self.url else { return };
        if let Some((name, _)) = &self.mutating {
            unregister::<MutatingWebhookConfiguration>(client, name, url).await;
        }
        if let Some((name, _)) = &self.validating {
            unregister::<ValidatingWebhookConfiguration>(client, name, url).await;
        }
    }
}

async fn unregister<K: Configuration>(client: &Client, name: &str, url: &str) {
    let api: Api<K> = Api::all(client.clone());
    let mut current = match api.get_opt(name).await {
        Ok(Some(current)) => current,
        Ok(None) => return,
        Err(error) => return warn!(name, error = %error, "cannot read the webhook configuration to unregister it"),
    };
    let ours = current.entries().iter().all(|(config, _)| config.url.as_deref().is_some_and(|u| u.starts_with(url)));
    if !ours {
        return;
    }
    match api.delete(name, &kube::api::DeleteParams::default()).await {
        Ok(_) => info!(name, "deleted the webhook configuration registered at --webhook-url"),
        Err(error) => {
            warn!(name, error = %error, "cannot delete the webhook configuration registered at --webhook-url")
        }
    }
}

/// Points a webhook from the generated `service` reference at `url` plus the service's path,
/// and spells out the rule scope the API server would default, so a read-back compares equal.
fn at_url(config: &mut WebhookClientConfig, rules: &mut Option<Vec<RuleWithOperations>>, url: &str) {
    let path = config.service.take().and_then(|service| service.path).unwrap_or_default();
    config.url = Some(format!("{url}{path}"));
    for rule in rules.iter_mut().flatten() {
        rule.scope.get_or_insert_with(|| "*".into());
    }
}

impl Targets {
    /// One webhook configuration: with a URL its webhooks become `webhooks` pointed there,
    /// created if missing; without, the deployed one's `caBundle`s are set.
    async fn configuration<K: Configuration>(
        &self,
        client: &Client,
        name: &str,
        webhooks: &[K::Webhook],
        bundle: &ByteString,
        write: bool,
    ) -> Result<(), Pending> {
        let desired = self.url.as_ref().map(|url| {
            let mut webhooks = webhooks.to_vec();
            for webhook in &mut webhooks {
                let (config, rules) = K::entry(webhook);
                at_url(config, rules, url);
            }
            K::build(name, webhooks)
        });
        configuration(client, name, desired, bundle, write).await
    }
}

/// A MutatingWebhookConfiguration or ValidatingWebhookConfiguration.
trait Configuration:
    kube::Resource<DynamicType = (), Scope = k8s_openapi::ClusterResourceScope>
    + Clone
    + std::fmt::Debug
    + Serialize
    + DeserializeOwned
{
    type Webhook: Clone;
    /// The configuration `name` of `webhooks`.
    fn build(name: &str, webhooks: Vec<Self::Webhook>) -> Self;
    /// A webhook's client config and rules.
    fn entry(webhook: &mut Self::Webhook) -> Entry<'_>;
    /// Every webhook's client config and rules.
    fn entries(&mut self) -> Vec<Entry<'_>>;
}

type Entry<'a> = (&'a mut WebhookClientConfig, &'a mut Option<Vec<RuleWithOperations>>);

impl Configuration for MutatingWebhookConfiguration {
    type Webhook = MutatingWebhook;
    fn build(name: &str, webhooks: Vec<MutatingWebhook>) -> Self {
        Self { metadata: ObjectMeta { name: Some(name.into()), ..ObjectMeta::default() }, webhooks: Some(webhooks) }
    }
    fn entry(webhook: &mut MutatingWebhook) -> Entry<'_> {
        (&mut webhook.client_config, &mut webhook.rules)
    }
    fn entries(&mut self) -> Vec<Entry<'_>> {
        self.webhooks.iter_mut().flatten().map(Self::entry).collect()
    }
}

impl Configuration for ValidatingWebhookConfiguration {
    type Webhook = ValidatingWebhook;
    fn build(name: &str, webhooks: Vec<ValidatingWebhook>) -> Self {
        Self { metadata: ObjectMeta { name: Some(name.into()), ..ObjectMeta::default() }, webhooks: Some(webhooks) }
    }
    fn entry(webhook: &mut ValidatingWebhook) -> Entry<'_> {
        (&mut webhook.client_config, &mut webhook.rules)
    }
    fn entries(&mut self) -> Vec<Entry<'_>> {
        self.webhooks.iter_mut().flatten().map(Self::entry).collect()
    }
}

/// See [`Targets::configuration`]; `desired` is the configuration a URL asks for.
async fn configuration<K: Configuration>(
    client: &Client,
    name: &str,
    desired: Option<K>,
    bundle: &ByteString,
    write: bool,
) -> Result<(), Pending> {
    let api: Api<K> = Api::all(client.clone());
    let kind = K::kind(&());
    let resource = K::plural(&()).to_string();
    let group = K::group(&()).to_string();
    let access = Access { group: &group, resource: &resource, name };
    let current = api.get_opt(name).await.map_err(|e| access.failed("get", e))?;
    let mut next = match (current, desired) {
        (None, None) => {
            return Err(format!("the {kind} {name} does not exist: deploy the project's config/default (make deploy)"));
        }
        (None, Some(mut desired)) => {
            desired.entries().into_iter().for_each(|(config, _)| config.ca_bundle = Some(bundle.clone()));
            if !write {
                return Err(format!("waiting for the leader to create the {kind} {name}"));
            }
            api.create(&post_params(), &desired).await.map_err(|e| access.failed("create", e))?;
            info!(name, "created the {kind}");
            return Ok(());
        }
        (Some(current), None) => current,
        (Some(mut current), Some(mut desired)) => {
            if let Some(service) = current.entries().into_iter().find_map(|(config, _)| config.service.clone()) {
                return Err(format!(
                    "the {kind} {name} calls the Service {}/{}: it is a deployed operator's, and a manager at --webhook-url leaves it alone; undeploy it (make undeploy) or run against a cluster without it",
                    service.namespace, service.name
                ));
            }
            desired.entries().into_iter().for_each(|(config, _)| config.ca_bundle = Some(bundle.clone()));
            let key = |object: &mut K| {
                let entries = object.entries().into_iter();
                entries
                    .map(|(config, rules)| (config.url.clone(), config.ca_bundle.clone(), rules.clone()))
                    .collect::<Vec<_>>()
            };
            if key(&mut current.clone()) == key(&mut desired) {
                return Ok(());
            }
            // The webhooks become the served ones; the object's metadata (its resource
            // version) stays.
            *desired.meta_mut() = current.meta().clone();
            return replace(&api, &access, &kind, desired, write).await;
        }
    };
    let mut changed = false;
    for (config, _) in next.entries() {
        if config.ca_bundle.as_ref() != Some(bundle) {
            config.ca_bundle = Some(bundle.clone());
            changed = true;
        }
    }
    if !changed {
        return Ok(());
    }
    replace(&api, &access, &kind, next, write).await
}

async fn replace<K>(api: &Api<K>, access: &Access<'_>, kind: &str, object: K, write: bool) -> Result<(), Pending>
where
    K: kube::Resource + Clone + std::fmt::Debug + Serialize + DeserializeOwned,
{
    let name = access.name;
    if !write {
        return Err(format!("waiting for the leader to put the CA into the {kind} {name}"));
    }
    api.replace(name, &post_params(), &object).await.map_err(|e| access.failed("update", e))?;
    info!(name, "put the webhook CA into the {kind}");
    Ok(())
}

/// The conversion of the CRD `name`: its `caBundle` (and with a URL, the whole webhook
/// conversion) as it should be.
async fn conversion(
    client: &Client,
    name: &str,
    url: Option<&str>,
    bundle: &ByteString,
    write: bool,
) -> Result<(), Pending> {
    let api: Api<CustomResourceDefinition> = Api::all(client.clone());
    let access = Access { group: "apiextensions.k8s.io", resource: "customresourcedefinitions", name };
    let Some(crd) = api.get_opt(name).await.map_err(|e| access.failed("get", e))? else {
        return Err(format!("the CustomResourceDefinition {name} is not installed (make install)"));
    };
    let conversion = crd.spec.conversion.as_ref();
    let client_config = conversion.and_then(|c| c.webhook.as_ref()).and_then(|w| w.client_config.as_ref());
    let patch = match url {
        None => {
            if conversion.map(|c| c.strategy.as_str()) != Some("Webhook") {
                return Err(format!(
                    "the CustomResourceDefinition {name} does not convert through a webhook: deploy it with its conversion patch (config/crd/patches/webhook_in_*.yaml, make deploy)"
                ));
            }
            if client_config.and_then(|c| c.ca_bundle.as_ref()) == Some(bundle) {
                return Ok(());
            }
            json!({"spec": {"conversion": {"webhook": {"clientConfig": {"caBundle": bundle}}}}})
        }
        Some(url) => {
            let url = format!("{url}{CONVERSION_PATH}");
            let right = conversion.map(|c| c.strategy.as_str()) == Some("Webhook")
                && client_config.and_then(|c| c.url.as_deref()) == Some(url.as_str())
                && client_config.and_then(|c| c.ca_bundle.as_ref()) == Some(bundle);
            if right {
                return Ok(());
            }
            json!({"spec": {"conversion": {
                "strategy": "Webhook",
                "webhook": {
                    "clientConfig": {"url": url, "caBundle": bundle, "service": null},
                    "conversionReviewVersions": ["v1"],
                },
            }}})
        }
    };
    if !write {
        return Err(format!("waiting for the leader to put the CA into the CustomResourceDefinition {name}"));
    }
    let params = PatchParams { field_manager: Some(FIELD_MANAGER.into()), ..PatchParams::default() };
    api.patch(name, &params, &Patch::Merge(patch)).await.map_err(|e| access.failed("patch", e))?;
    info!(name, "put the webhook CA into the CustomResourceDefinition's conversion");
    Ok(())
}

fn post_params() -> PostParams {
    PostParams { field_manager: Some(FIELD_MANAGER.into()), ..PostParams::default() }
}

/// One named object the manager reads or writes, for error messages.
pub(crate) struct Access<'a> {
    pub(crate) group: &'a str,
    pub(crate) resource: &'a str,
    pub(crate) name: &'a str,
}

impl Access<'_> {
    /// Why `verb` on the object failed; a 403 names the RBAC rule the manager's ServiceAccount
    /// lacks.
    pub(crate) fn failed(&self, verb: &str, error: kube::Error) -> Pending {
        let Access { group, resource, name } = self;
        match error {
            kube::Error::Api(status) if status.code == 403 => format!(
                "the manager may not {verb} the {resource} {name:?}: give its ServiceAccount the rule {{apiGroups: [\"{group}\"], resources: [\"{resource}\"], resourceNames: [\"{name}\"], verbs: [\"{verb}\"]}} (config/webhook-self-managed/role.yaml has it)"
            ),
            kube::Error::Api(status) if status.code == 409 => {
                format!("the {resource} {name:?} changed while the manager wrote it; trying again")
            }
            error => format!("cannot {verb} the {resource} {name:?}: {error}"),
        }
    }
}

/// The webhooks of `server` as the configurations' entries, `None` for a kind of webhook it
/// does not serve.
pub(crate) fn webhooks_of(
    server: &crate::webhook::Server,
) -> (Option<Vec<MutatingWebhook>>, Option<Vec<ValidatingWebhook>>) {
    let (mut mutating, mut validating) = (Vec::new(), Vec::new());
    for (target, webhook) in server.admission_webhooks() {
        let only = crate::AdmissionTarget { webhooks: std::slice::from_ref(*webhook), ..*target };
        let (m, v) = webhook_configuration::for_kind(&only);
        mutating.extend(m);
        validating.extend(v);
    }
    mutating.sort_by(|a, b| a.name.cmp(&b.name));
    validating.sort_by(|a, b| a.name.cmp(&b.name));
    ((!mutating.is_empty()).then_some(mutating), (!validating.is_empty()).then_some(validating))
}
