//! What `rop create webhook` adds to a project for one kind version, described as data: the
//! files it renders, the fragments it inserts at markers and the `#[rop(webhook(...))]`
//! attributes it puts on the spec type. `create webhook` applies the description;
//! `delete webhook` reverses it.

use tera::Context;

use super::builtin_marker;
use super::layout;
use super::resource::{Insert, KindNames};
use super::templates::Templates;
use crate::builtin::{self, Builtin};
use crate::project::{Project, Webhooks};

/// A file of the webhooks, rendered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WebhookFile {
    /// Path relative to the project root.
    pub path: String,
    pub content: String,
    /// The user edits it (webhook module, spoke conversion): never replaced without `--force`.
    /// Other files are shared by every webhook: written once and then left alone.
    pub user_owned: bool,
}

/// The files, insertions and attributes of one kind version's webhooks, rendered.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WebhookScaffold {
    pub files: Vec<WebhookFile>,
    /// Marker insertions, in order (a file's skeleton before the fragments that go into it).
    pub inserts: Vec<Insert>,
    /// Lines put just above `pub struct <Kind>Spec` in the kind's types file.
    pub attributes: Vec<String>,
}

/// Module of a kind version's admission webhooks under `src/webhook/`: `memcached_v1` or,
/// multigroup, `cache_memcached_v1`.
pub fn module(k: &KindNames) -> String {
    format!("{}_{}", k.controller_module(), k.version)
}

/// The attribute that declares one webhook on the spec type (or, with a `name`, on a
/// built-in kind's marker type: its webhook names take the project's domain).
pub fn attribute(mutating: bool, path: Option<&str>, name: Option<&str>) -> String {
    let which = if mutating { "mutating" } else { "validating" };
    let mut settings = vec![which.to_string()];
    if let Some(name) = name {
        settings.push(format!("name = \"{name}\""));
    }
    if let Some(path) = path {
        settings.push(format!("path = \"{path}\""));
    }
    layout::attribute("", &format!("#[rop(webhook({}))]", settings.join(", ")))
}

/// The `#[rop(webhook(...))]` attributes among `lines`, also those rustfmt wrapped over several
/// lines: the first line of each, one past its last, and its webhook type (`mutating`).
pub fn webhook_attributes(lines: &[&str]) -> Vec<(usize, usize, String)> {
    const START: &str = "#[rop(webhook(";
    let mut found = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if !lines[i].trim_start().starts_with(START) {
            i += 1;
            continue;
        }
        let Some(last) = (i..lines.len()).find(|&j| lines[j].trim_end().ends_with(")]")) else { break };
        let compact: String = lines[i..=last].concat().chars().filter(|c| !c.is_whitespace()).collect();
        let which = compact[START.len()..].split([',', ')']).next().unwrap_or_default().to_string();
        found.push((i, last + 1, which));
        i = last + 1;
    }
    found
}

/// The names of spoke `version` of the kind `k`, in the layout `k` has.
fn spoke_names(project: &Project, k: &KindNames, version: &str) -> KindNames {
    let mut spoke = KindNames::new(project, &k.group, version, &k.kind, &k.plural);
    spoke.multigroup = k.multigroup;
    spoke
}

/// What the webhooks `w` of kind version `k` consist of, rendered with `templates`.
///
/// # Errors
/// A template that does not render.
pub fn describe(
    project: &Project,
    k: &KindNames,
    w: &Webhooks,
    templates: &Templates,
    header: &str,
) -> anyhow::Result<WebhookScaffold> {
    let mut s = WebhookScaffold::default();
    let context = context(project, k, header, None);
    let render = |template: &str, context: &Context| -> anyhow::Result<String> {
        Ok(templates.render(template, context)?.trim_end().to_string())
    };
    let insert =
        |path: &str, marker: &str, fragment: String| Insert { path: path.into(), marker: marker.into(), fragment };
    let module = module(k);
    let module_file = format!("src/webhook/{module}.rs");
    let builtin = builtin_of(project, k);
    if let Some(b) = builtin {
        // The built-in kind's marker type in the api crate carries the webhook attributes;
        // the manifests generator lists it. The file is listed always: `apply` keeps one that
        // exists, and the block goes in only where the marker type is not yet.
        let (files, inserts) = builtin_marker::describe(project, k, b, &|_| false);
        for f in files {
            let content = templates.render(&f.template, &context)?;
            s.files.push(WebhookFile { path: f.path, content, user_owned: false });
        }
        s.inserts.extend(inserts);
    }
    if w.defaulting || w.validation {
        let content = templates.render("webhook/src/webhook/kind.rs.tera", &context)?;
        s.files.push(WebhookFile { path: module_file.clone(), content, user_owned: true });
        s.inserts.push(insert("src/webhook/mod.rs", "webhook-modules", format!("pub mod {module};")));
        s.inserts.push(insert("config/webhook/kustomization.yaml", "webhook-manifests", "- manifests.yaml".into()));
    }
    for (on, mutating, path, role) in
        [(w.defaulting, true, &w.defaulting_path, "defaulter"), (w.validation, false, &w.validation_path, "validator")]
    {
        if !on {
            continue;
        }
        let name = format!("{}{}", k.kind, if mutating { "Defaulter" } else { "Validator" });
        let fragment = |f: &str| render(&format!("webhook/fragments/{f}.rs.tera"), &context);
        s.inserts.push(insert(&module_file, "webhook-impls", fragment(role)?));
        s.inserts.push(insert(&module_file, "webhook-tests", fragment(&format!("{role}_test"))?));
        let registration = format!("rop::webhook::Registration::{role}({module}::{name}),");
        s.inserts.push(insert("src/webhook/mod.rs", "webhooks", registration));
        let letter = if mutating { 'm' } else { 'v' };
        let name = builtin.map(|_| format!("{letter}{}-{}.{}", k.lower, k.version, project.domain));
        s.attributes.push(attribute(mutating, path.as_deref(), name.as_deref()));
    }
    if w.conversion {
        let api_crate = project.api_crate();
        for version in &w.spoke {
            let spoke = spoke_names(project, k, version);
            let spoke_context = self::context(project, k, header, Some(version));
            s.files.push(WebhookFile {
                path: format!("{}/{}_conversion.rs", spoke.api_dir(), k.snake),
                content: templates.render("webhook/api/src/version/conversion.rs.tera", &spoke_context)?,
                user_owned: true,
            });
            let spoke_mod = format!("{}/mod.rs", spoke.api_dir());
            s.inserts.push(insert(&spoke_mod, "kinds", format!("mod {}_conversion;", k.snake)));
            let hub_type = format!("{api_crate}::{}::{}", k.api_module(), k.kind);
            let spoke_type = format!("{api_crate}::{}::{}", spoke.api_module(), k.kind);
            // As rustfmt lays it out: the argument never fits on the call's line (at column 8);
            // the chain stays on one line when it fits (at column 12) and its `.spoke` part
            // fits `chain_width` (60).
            let parent = format!("rop::webhook::HubConversion::<{hub_type}>::hub()");
            let spoke_call = format!(".spoke::<{spoke_type}>()");
            let chain = if 12 + parent.len() + spoke_call.len() < 100 && spoke_call.len() <= 60 {
                format!("{parent}{spoke_call}")
            } else {
                format!("{parent}\n        {spoke_call}")
            };
            let registration = format!("rop::webhook::Registration::conversion(\n    {chain},\n),");
            s.inserts.push(insert("src/webhook/mod.rs", "webhooks", registration));
            let test = render("webhook/fragments/conversion_test.rs.tera", &spoke_context)?;
            s.inserts.push(insert("src/webhook/mod.rs", "webhook-tests", test));
        }
        s.files.push(WebhookFile {
            path: format!("config/crd/patches/webhook_in_{}.yaml", k.plural),
            content: templates.render("webhook/config/crd/patches/webhook_in.yaml", &context)?,
            user_owned: false,
        });
        let patch = format!("- path: patches/webhook_in_{}.yaml", k.plural);
        s.inserts.push(insert("config/crd/kustomization.yaml", "crd-patches", patch));
    }
    for name in [
        "webhook/kustomization.yaml",
        "webhook/service.yaml",
        "certmanager/kustomization.yaml",
        "certmanager/issuer.yaml",
        "certmanager/certificate.yaml",
        "certmanager/kustomizeconfig.yaml",
        "default/manager_webhook_patch.yaml",
        "default/manager_webhook_client_ca_patch.yaml",
    ] {
        let content = templates.render(&format!("webhook/config/{name}"), &context)?;
        s.files.push(WebhookFile { path: format!("config/{name}"), content, user_owned: false });
    }
    s.inserts.push(insert("config/default/kustomization.yaml", "webhook", "- ../webhook\n- ../certmanager".into()));
    let patches = render("webhook/fragments/default_kustomization.yaml", &context)?;
    s.inserts.push(insert("config/default/kustomization.yaml", "webhook-patches", patches));
    Ok(s)
}

/// The built-in kind `k` stands for, if it is one the project lists.
fn builtin_of(project: &Project, k: &KindNames) -> Option<&'static Builtin> {
    project.find_core(&k.group, &k.version, &k.kind).and_then(|r| builtin::find(&r.group, &r.version, &r.kind))
}

/// The template context of kind version `k`'s webhooks: the kind's context, plus `api_dir`,
/// `hub` and `hub_module` (this version, the one others convert through), for a spoke's
/// files `spoke`, `spoke_module`, `spoke_dir`, and `sample_let` and `object_let` (the
/// round-trip test's lines that read the spoke's sample); `builtin`, `target` (the type the webhooks are
/// registered for: the root type, or a built-in kind's marker type) and `object_path` (the
/// type of the objects).
pub fn context(project: &Project, k: &KindNames, header: &str, spoke: Option<&str>) -> Context {
    let mut context = k.context(project, true, true, header);
    context.insert("api_dir", &k.api_dir());
    context.insert("hub", &k.version);
    context.insert("hub_module", &k.api_module());
    match builtin_of(project, k) {
        Some(b) => {
            context.insert("builtin", &true);
            context.insert("target", &builtin_marker::target(k));
            context.insert("object_path", b.object);
            // In the order rustfmt sorts them, so a module rop wrote stays byte for byte its own.
            let mut uses =
                vec![b.object.to_string(), format!("{}::builtin::{}", project.api_crate(), builtin_marker::target(k))];
            uses.sort();
            context.insert("builtin_uses", &uses);
            context.insert("namespaced", &b.namespaced());
            context.insert("webhook_domain", &project.domain);
        }
        None => {
            context.insert("builtin", &false);
            context.insert("target", &k.kind);
            context.insert("object_path", &format!("{}::{}::{}", project.api_crate(), k.api_module(), k.kind));
        }
    }
    if let Some(version) = spoke {
        let names = spoke_names(project, k, version);
        context.insert("spoke", version);
        context.insert("spoke_module", &names.api_module());
        context.insert("spoke_dir", &names.api_dir());
        // The round-trip test's first lines, at column 8 of src/webhook/mod.rs (4 in the fragment).
        let at_column_8 = |text: String| text.replace('\n', "\n    ");
        let path = format!("\"../../config/samples/{}\"", names.sample());
        context.insert("sample_let", &at_column_8(layout::let_call(8, "sample", "include_str!", &path)));
        let object = format!("object: {}", k.kind);
        let object_let = layout::let_call(8, &object, "rop::webhook::testing::sample", "sample");
        context.insert("object_let", &at_column_8(object_let));
    }
    context
}
