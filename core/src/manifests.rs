//! The manifests generator and the files `rop generate` writes.
//!
//! A generated project's api crate has a small binary, `manifests`, that lists the project's
//! kinds and calls [`main`]. It prints a [`Bundle`] as JSON on stdout; `rop generate` reads it
//! and turns it into files with [`assemble`]. Only the api crate is linked into that binary,
//! so it builds fast and never needs a cluster.
//!
//! A project uses [`Kind`], [`kind`], [`builtin`] and [`main`] (its `api/src/bin/manifests.rs`
//! is a call of `main`); the rest is what `rop generate` does with the bundle, hidden from
//! the documentation and outside semver.

use std::collections::BTreeMap;
use std::io::Write;

use k8s_openapi::api::admissionregistration::v1::{MutatingWebhook, ValidatingWebhook};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use serde::{Deserialize, Serialize};

use crate::crd::{self, MergeError};
use crate::definition::AdmissionTarget;
use crate::rbac::{self, Rule};
use crate::resource::{BuiltinKind, CustomResource, WebhookTarget};
use crate::schema::Unstructured;
use crate::webhook_configuration::{
    self, CERT_SECRET, DuplicateWebhook, MUTATING_CONFIGURATION, VALIDATING_CONFIGURATION,
};
use crate::yaml;

#[doc(hidden)]
/// Where `rop generate` writes the webhook configurations, as controller-gen's `webhook`
/// generator does.
pub const WEBHOOK_MANIFESTS: &str = "config/webhook/manifests.yaml";

#[doc(hidden)]
/// Where `rop generate` writes the RBAC of a manager that issues and injects its own webhook
/// certificate (the kustomize component `config/webhook-self-managed`).
pub const WEBHOOK_CERT_ROLES: &str = "config/webhook-self-managed/role.yaml";

#[doc(hidden)]
/// The `Role` in [`WEBHOOK_CERT_ROLES`]: the manager's certificate Secret.
pub const WEBHOOK_CERT_ROLE: &str = "webhook-cert-role";

#[doc(hidden)]
/// The `ClusterRole` in [`WEBHOOK_CERT_ROLES`]: the webhook configurations and converted CRDs
/// the manager puts its CA into.
pub const WEBHOOK_CERT_INJECTION_ROLE: &str = "webhook-cert-injection-role";

#[doc(hidden)]
/// Version of the [`Bundle`] format; `rop generate` refuses a bundle of another version.
/// Format 2 carries `skip_version` as a field of [`KindManifest`].
pub const BUNDLE_FORMAT: u32 = 2;

#[doc(hidden)]
/// The role name of the generated `ClusterRole`, as kubebuilder's `rbac:roleName=manager-role`.
pub const MANAGER_ROLE: &str = "manager-role";

#[doc(hidden)]
/// What one version of one kind contributes to the manifests.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct KindManifest {
    /// The Rust path of the root type, e.g. `v1alpha1::Memcached`, to name it in messages.
    pub rust_type: String,
    /// This version's single-version CRD.
    pub crd: CustomResourceDefinition,
    /// `#[rop(skip_version)]`: the version is left out of the merged CRD.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub skip_version: bool,
    /// The RBAC rules the kind's controller needs.
    pub rules: Vec<Rule>,
    /// Schema nodes that keep unknown fields only because of how serde writes their values;
    /// [`assemble`] refuses the bundle while there is one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unstructured: Vec<Unstructured>,
    /// This version's defaulting webhook, if any (`#[rop(webhook(mutating, ...))]`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mutating_webhooks: Vec<MutatingWebhook>,
    /// This version's validating webhook, if any.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub validating_webhooks: Vec<ValidatingWebhook>,
}

#[doc(hidden)]
/// What a built-in kind (`#[derive(rop::BuiltinKind)]`) contributes: no CRD; its webhooks,
/// and the RBAC rules of its controller when the project has one.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BuiltinManifest {
    /// The Rust path of the marker type, e.g. `builtin::DeploymentV1`, to name it in messages.
    pub rust_type: String,
    /// The RBAC rules of the kind's controller (`#[rop(controller)]`); empty without one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<Rule>,
    /// The built-in kind's defaulting webhook, if any (`#[rop(webhook(mutating, ...))]` on the
    /// marker type).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mutating_webhooks: Vec<MutatingWebhook>,
    /// The built-in kind's validating webhook, if any.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub validating_webhooks: Vec<ValidatingWebhook>,
}

#[doc(hidden)]
/// Everything the generator binary reports, as JSON on its stdout.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Bundle {
    /// The bundle format the generator binary writes, [`BUNDLE_FORMAT`] of the rop it was
    /// built with; [`assemble`] refuses any other.
    pub format: u32,
    /// One entry per version of each custom kind listed with [`kind`].
    pub kinds: Vec<KindManifest>,
    /// Built-in kinds the project has webhooks for.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub builtin: Vec<BuiltinManifest>,
}

/// One kind as the generator binary lists it; build with [`kind`] or [`builtin`].
pub struct Kind {
    rust_type: &'static str,
    /// The CRD of a custom kind; `None` for a built-in one.
    crd: Option<fn() -> crd::VersionCrd>,
    rules: fn() -> Vec<Rule>,
    unstructured: fn() -> Vec<Unstructured>,
    target: AdmissionTarget,
}

/// The path of type `T` within its crate, which names it in messages (`v1alpha1::Memcached`).
fn path_in_crate<T: ?Sized>() -> &'static str {
    let path = std::any::type_name::<T>();
    path.split_once("::").map_or(path, |(_, rest)| rest)
}

/// Lists root type `K` in the generator.
pub fn kind<K: CustomResource + WebhookTarget>() -> Kind {
    Kind {
        rust_type: path_in_crate::<K>(),
        crd: Some(K::version_crd),
        rules: K::rbac_rules,
        unstructured: K::unstructured_nodes,
        target: K::TARGET,
    }
}

/// Lists built-in kind `B` (a `#[derive(rop::BuiltinKind)]` marker type) in the generator:
/// its webhooks and its controller's RBAC rules.
pub fn builtin<B: BuiltinKind>() -> Kind {
    Kind {
        rust_type: path_in_crate::<B>(),
        crd: None,
        rules: <B as BuiltinKind>::rbac_rules,
        unstructured: Vec::new,
        target: B::TARGET,
    }
}

#[doc(hidden)]
/// Builds the bundle for `kinds`.
pub fn bundle(kinds: &[Kind]) -> Bundle {
    let mut bundle = Bundle { format: BUNDLE_FORMAT, kinds: Vec::new(), builtin: Vec::new() };
    for k in kinds {
        let (mutating_webhooks, validating_webhooks) = webhook_configuration::for_kind(&k.target);
        match k.crd {
            Some(crd) => {
                let crd::VersionCrd { crd, skip } = crd();
                bundle.kinds.push(KindManifest {
                    rust_type: k.rust_type.into(),
                    crd,
                    skip_version: skip,
                    rules: (k.rules)(),
                    unstructured: (k.unstructured)(),
                    mutating_webhooks,
                    validating_webhooks,
                });
            }
            None => bundle.builtin.push(BuiltinManifest {
                rust_type: k.rust_type.into(),
                rules: (k.rules)(),
                mutating_webhooks,
                validating_webhooks,
            }),
        }
    }
    bundle
}

/// Entry point of a project's `manifests` binary: prints the bundle of `kinds` as JSON.
///
/// # Panics
/// When stdout cannot be written (the caller, `rop generate`, reads a pipe).
pub fn main(kinds: &[Kind]) {
    let json = serde_json::to_string(&bundle(kinds)).expect("a bundle always serialises");
    let mut out = std::io::stdout().lock();
    out.write_all(json.as_bytes()).and_then(|()| out.write_all(b"\n")).expect("writing the bundle to stdout");
}

#[doc(hidden)]
/// A file `rop generate` writes: a path relative to the project root and its full content.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputFile {
    /// Path relative to the project root, `/`-separated, e.g. `config/rbac/role.yaml`.
    pub path: String,
    /// The full text of the file, YAML.
    pub content: String,
}

#[doc(hidden)]
/// Why a bundle cannot be turned into manifests.
#[derive(Debug, thiserror::Error)]
pub enum AssembleError {
    /// The bundle's [`Bundle::format`] is not [`BUNDLE_FORMAT`]: the generator binary was
    /// built against another rop.
    #[error(
        "the manifests generator speaks bundle format {found}, this rop speaks {BUNDLE_FORMAT}: build the project against the rop runtime that matches this rop (see --rop-path / --rop-version)"
    )]
    Format {
        /// The format the bundle carries.
        found: u32,
    },
    /// A kind's versions cannot be merged into one CRD.
    #[error(transparent)]
    Merge(#[from] MergeError),
    /// Two webhooks share a name or a path.
    #[error(transparent)]
    Webhook(#[from] DuplicateWebhook),
    /// Schema nodes that would accept any value ([`KindManifest::unstructured`]), each with the
    /// Rust type of its kind ([`KindManifest::rust_type`]).
    #[error("{}", unstructured_message(.0))]
    Unstructured(Vec<(String, Unstructured)>),
    /// An object could not be serialised for a file.
    #[error("cannot render {path}: {source}")]
    Render {
        /// The file being written, relative to the project root.
        path: String,
        /// The serialisation error.
        source: serde_json::Error,
    },
}

/// Every unstructured node (with the Rust type of its kind), one per line, then the fix.
fn unstructured_message(nodes: &[(String, Unstructured)]) -> String {
    let lines: Vec<String> =
        nodes.iter().map(|(kind, node)| format!("  {} (in {kind}): {}", node.path, node.reason())).collect();
    format!(
        "{} schema node{} would accept any value:\n{}\nhelp: {}",
        nodes.len(),
        if nodes.len() == 1 { "" } else { "s" },
        lines.join("\n"),
        Unstructured::FIX
    )
}

#[doc(hidden)]
/// The rule every manager with a controller needs beyond its kinds' own: `create` and `patch`
/// on `events.k8s.io` Events, which the runtime records (a failed pass, a stalled object, and
/// `Context::event`). `rop generate` adds it to `manager-role` itself, so no kind repeats it.
pub fn runtime_events_rule() -> Rule {
    Rule::new("events.k8s.io", &["events"], &["create", "patch"])
}

#[doc(hidden)]
/// The files of `config/` that come from the bundle:
/// `config/crd/bases/<group>_<plural>.yaml` per kind (all versions merged) and
/// `config/rbac/role.yaml` (the normalised roles, [`runtime_events_rule`] included once any
/// kind has rules, `ClusterRole` `manager-role` first; a
/// `Role` when `namespaced_manager`, see [`rbac::Role::to_object_for`]) and, when any kind has
/// a webhook, `config/webhook/manifests.yaml` (see [`webhook_configuration::configurations`]).
///
/// # Errors
/// A bundle of another format, a kind with a schema node that would accept any value
/// ([`Unstructured`]), versions that cannot merge ([`MergeError`]), or two webhooks with the
/// same name or path ([`DuplicateWebhook`]).
pub fn assemble(bundle: &Bundle, namespaced_manager: bool) -> Result<Vec<OutputFile>, AssembleError> {
    if bundle.format != BUNDLE_FORMAT {
        return Err(AssembleError::Format { found: bundle.format });
    }
    let unstructured: Vec<(String, Unstructured)> =
        bundle.kinds.iter().flat_map(|k| k.unstructured.iter().map(|u| (k.rust_type.clone(), u.clone()))).collect();
    if !unstructured.is_empty() {
        return Err(AssembleError::Unstructured(unstructured));
    }
    let crds = crd::merge(bundle.kinds.iter().map(|k| crd::VersionCrd { crd: k.crd.clone(), skip: k.skip_version }))?;
    let mut files = BTreeMap::new();
    for crd in &crds {
        let path = format!("config/crd/bases/{}_{}.yaml", crd.spec.group, crd.spec.names.plural);
        let content = yaml::document(crd).map_err(|source| AssembleError::Render { path: path.clone(), source })?;
        files.insert(path, content);
    }
    let custom = bundle.kinds.iter().flat_map(|k| &k.rules);
    let mut rules: Vec<Rule> = custom.chain(bundle.builtin.iter().flat_map(|b| &b.rules)).cloned().collect();
    if !rules.is_empty() {
        rules.push(runtime_events_rule());
    }
    let mut roles = rbac::roles(&rules, MANAGER_ROLE);
    if roles.is_empty() {
        // No kinds yet: the role still exists, so the role binding points at something.
        roles.push(rbac::Role { name: MANAGER_ROLE.into(), namespace: String::new(), rules: vec![] });
    }
    let roles: Vec<_> = roles.iter().map(|r| r.to_object_for(namespaced_manager)).collect();
    let path = "config/rbac/role.yaml".to_string();
    let content = yaml::documents(&roles).map_err(|source| AssembleError::Render { path: path.clone(), source })?;
    files.insert(path, content);
    let (mutating, validating) = webhook_configuration::configurations(
        bundle
            .kinds
            .iter()
            .flat_map(|k| &k.mutating_webhooks)
            .chain(bundle.builtin.iter().flat_map(|b| &b.mutating_webhooks))
            .cloned()
            .collect(),
        bundle
            .kinds
            .iter()
            .flat_map(|k| &k.validating_webhooks)
            .chain(bundle.builtin.iter().flat_map(|b| &b.validating_webhooks))
            .cloned()
            .collect(),
    )?;
    let mut configurations = Vec::new();
    let render = |e| AssembleError::Render { path: WEBHOOK_MANIFESTS.into(), source: e };
    if let Some(m) = mutating {
        configurations.push(serde_json::to_value(m).map_err(render)?);
    }
    if let Some(v) = validating {
        configurations.push(serde_json::to_value(v).map_err(render)?);
    }
    if !configurations.is_empty() {
        files.insert(WEBHOOK_MANIFESTS.into(), yaml::documents(&configurations).map_err(render)?);
    }
    Ok(files.into_iter().map(|(path, content)| OutputFile { path, content }).collect())
}

#[doc(hidden)]
/// [`WEBHOOK_CERT_ROLES`] for the webhooks of `bundle` and the CRDs whose conversion the
/// manager serves (`converted_crds`, `<plural>.<group>`): what a manager with
/// `--webhook-cert-mode=self-managed` reads and writes, each object by name. A `Role` (in the
/// manager's namespace once kustomize sets it) may get and update the Secret [`CERT_SECRET`]; a
/// `ClusterRole` may get and update the MutatingWebhookConfiguration and the
/// ValidatingWebhookConfiguration (those the project has) and get and patch the converted CRDs.
/// kustomize's `namePrefix` reaches the Secret's and configurations' names; CRD names keep theirs.
/// `None` when the project has no webhooks.
///
/// # Errors
/// [`AssembleError::Render`], which a role does not hit.
pub fn webhook_cert_roles(bundle: &Bundle, converted_crds: &[String]) -> Result<Option<OutputFile>, AssembleError> {
    let kinds = || bundle.kinds.iter().map(|k| (&k.mutating_webhooks, &k.validating_webhooks));
    let builtin = || bundle.builtin.iter().map(|b| (&b.mutating_webhooks, &b.validating_webhooks));
    let mutating = kinds().chain(builtin()).any(|(m, _)| !m.is_empty());
    let validating = kinds().chain(builtin()).any(|(_, v)| !v.is_empty());
    if !mutating && !validating && converted_crds.is_empty() {
        return Ok(None);
    }
    let rule = |group: &str, resource: &str, names: Vec<String>, verbs: &[&str]| Rule {
        resource_names: names,
        ..Rule::new(group, &[resource], verbs)
    };
    let mut cluster_rules = Vec::new();
    for (has, resource, name) in [
        (mutating, "mutatingwebhookconfigurations", MUTATING_CONFIGURATION),
        (validating, "validatingwebhookconfigurations", VALIDATING_CONFIGURATION),
    ] {
        if has {
            let names = vec![name.to_string()];
            cluster_rules.push(rule("admissionregistration.k8s.io", resource, names, &["get", "update"]));
        }
    }
    if !converted_crds.is_empty() {
        let mut names = converted_crds.to_vec();
        names.sort();
        names.dedup();
        cluster_rules.push(rule("apiextensions.k8s.io", "customresourcedefinitions", names, &["get", "patch"]));
    }
    let secret = rule("", "secrets", vec![CERT_SECRET.to_string()], &["get", "update"]);
    let roles = [
        rbac::Role { name: WEBHOOK_CERT_INJECTION_ROLE.into(), namespace: String::new(), rules: cluster_rules },
        rbac::Role {
            name: WEBHOOK_CERT_ROLE.into(),
            namespace: webhook_configuration::SERVICE_NAMESPACE.into(),
            rules: vec![secret],
        },
    ];
    let objects: Vec<_> = roles.iter().map(rbac::Role::to_object).collect();
    let content = yaml::documents(&objects)
        .map_err(|source| AssembleError::Render { path: WEBHOOK_CERT_ROLES.into(), source })?;
    Ok(Some(OutputFile { path: WEBHOOK_CERT_ROLES.into(), content }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn builtin(mutating: bool, validating: bool) -> BuiltinManifest {
        BuiltinManifest {
            rust_type: "builtin::DeploymentV1".into(),
            rules: vec![],
            mutating_webhooks: if mutating { vec![MutatingWebhook::default()] } else { vec![] },
            validating_webhooks: if validating { vec![ValidatingWebhook::default()] } else { vec![] },
        }
    }

    /// The roles' names and each rule as `group resource names verbs`.
    fn roles(mutating: bool, validating: bool, converted: &[&str]) -> Option<Vec<String>> {
        let bundle = Bundle { format: BUNDLE_FORMAT, kinds: vec![], builtin: vec![builtin(mutating, validating)] };
        let converted: Vec<String> = converted.iter().map(|c| c.to_string()).collect();
        let file = webhook_cert_roles(&bundle, &converted).unwrap()?;
        assert_eq!(file.path, "config/webhook-self-managed/role.yaml");
        let mut lines = Vec::new();
        for document in file.content.split("---\n").filter(|d| !d.is_empty()) {
            let role: serde_json::Value = serde_yaml::from_str(document).unwrap();
            let list = |v: &serde_json::Value| {
                v.as_array().unwrap().iter().map(|s| s.as_str().unwrap()).collect::<Vec<_>>().join(",")
            };
            lines.push(format!("{} {} {}", role["kind"], role["metadata"]["name"], role["metadata"]["namespace"]));
            for rule in role["rules"].as_array().unwrap() {
                lines.push(format!(
                    "  [{}] {} {} {}",
                    list(&rule["apiGroups"]),
                    list(&rule["resources"]),
                    list(&rule["resourceNames"]),
                    list(&rule["verbs"])
                ));
            }
        }
        Some(lines)
    }

    #[test]
    fn webhook_cert_roles_name_only_what_the_project_has() {
        assert_eq!(roles(false, false, &[]), None);
        assert_eq!(
            roles(false, true, &["widgets.example.org", "backups.example.org", "widgets.example.org"]).unwrap(),
            [
                "\"ClusterRole\" \"webhook-cert-injection-role\" null",
                "  [admissionregistration.k8s.io] validatingwebhookconfigurations validating-webhook-configuration get,update",
                "  [apiextensions.k8s.io] customresourcedefinitions backups.example.org,widgets.example.org get,patch",
                "\"Role\" \"webhook-cert-role\" \"system\"",
                "  [] secrets webhook-server-cert get,update",
            ]
        );
        assert_eq!(
            roles(true, false, &[]).unwrap()[..2],
            [
                "\"ClusterRole\" \"webhook-cert-injection-role\" null",
                "  [admissionregistration.k8s.io] mutatingwebhookconfigurations mutating-webhook-configuration get,update",
            ]
        );
    }
}
