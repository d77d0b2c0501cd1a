//! What `rop create webhook` adds to a project for one kind version, described as data: the
//! files it renders, the fragments it inserts at markers and the `#[rop(webhook(...))]`
//! attributes it puts on the spec type. `create webhook` applies the description;
//! `delete webhook` reverses it.

use std::rc::Rc;

use super::builtin_marker;
use super::context::TemplateContext;
use super::kind::KindNames;
use super::layout;
use super::spec::{IfExists, Scaffold};
use super::templates::Templates;
use crate::builtin::{self, Builtin};
use crate::project::{Project, Webhooks};

/// The project's webhook tests on a real API server, one function per webhook type and spoke.
pub const TESTS: &str = "tests/webhooks.rs";

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

/// The type in user code that carries a kind version's `#[rop(webhook(...))]` attributes: the
/// spec type in its types file, or, for a kind Kubernetes serves, its marker type in
/// `api/src/builtin.rs`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AttributeTarget {
    /// The file, relative to the project root.
    pub file: String,
    /// The type's name (`MemcachedSpec`, `DeploymentV1`).
    pub type_name: String,
    /// Its declaration as scaffolded (`pub struct MemcachedSpec`), to name it in messages.
    pub declaration: String,
}

impl AttributeTarget {
    /// The target of kind version `k`; `builtin` for a kind Kubernetes serves.
    pub fn of(k: &KindNames, builtin: bool) -> AttributeTarget {
        if builtin {
            AttributeTarget {
                file: builtin_marker::FILE.to_string(),
                type_name: k.marker_type(),
                declaration: builtin_marker::anchor(k),
            }
        } else {
            let type_name = format!("{}Spec", k.kind);
            AttributeTarget {
                file: format!("{}/{}.rs", k.api_dir(), k.snake),
                declaration: format!("pub struct {type_name}"),
                type_name,
            }
        }
    }
}

/// What the webhooks `w` of kind version `k` consist of. Fragments are rendered with
/// `templates` here; files are rendered when the scaffold is applied. The webhook module and
/// the spokes' conversions are the user's; the manifests, certificates and patches are shared
/// by every webhook ([`IfExists::Skip`]: written once, then left alone).
///
/// # Errors
/// A fragment's template that does not render.
pub fn describe(
    project: &Project,
    k: &KindNames,
    w: &Webhooks,
    templates: &Templates,
    header: &str,
) -> anyhow::Result<Scaffold> {
    let mut s = Scaffold::default();
    let builtin = builtin_of(project, k);
    let context = Rc::new(TemplateContext::webhook(project, k, builtin, header, None));
    let render = |template: &str, context: &TemplateContext| -> anyhow::Result<String> {
        Ok(templates.render(template, &context.to_tera())?.trim_end().to_string())
    };
    let module = k.webhook_module();
    let module_file = format!("src/webhook/{module}.rs");
    if let Some(b) = builtin {
        // The built-in kind's marker type in the api crate carries the webhook attributes;
        // the manifests generator lists it.
        s.extend(builtin_marker::describe(project, k, b, &context));
    }
    if w.defaulting || w.validation {
        s.file(&module_file, "webhook/src/webhook/kind.rs.tera", &context, IfExists::Refuse);
        s.insert("src/webhook/mod.rs", "webhook-modules", format!("pub mod {module};"));
        s.insert("config/webhook/kustomization.yaml", "webhook-manifests", "- manifests.yaml");
    }
    for (on, mutating, path, role) in
        [(w.defaulting, true, &w.defaulting_path, "defaulter"), (w.validation, false, &w.validation_path, "validator")]
    {
        if !on {
            continue;
        }
        let name = format!("{}{}", k.kind, if mutating { "Defaulter" } else { "Validator" });
        let fragment = |f: &str| render(&format!("webhook/fragments/{f}.rs.tera"), &context);
        // The names the fragment uses, beside the module's other `use` lines (a second
        // role's `Request` is the first's: the line is added once).
        s.insert(&module_file, "webhook-uses", "use rop::webhook::Request;");
        let names = if mutating { "{Defaulter, Denied}" } else { "{Validator, Verdict}" };
        s.insert(&module_file, "webhook-uses", format!("use rop::webhook::{names};"));
        s.insert(&module_file, "webhook-impls", fragment(role)?);
        s.insert(&module_file, "webhook-tests", fragment(&format!("{role}_test"))?);
        if builtin.is_none() {
            s.insert(TESTS, "webhook-tests", fragment(&format!("{role}_e2e"))?);
        }
        s.insert("src/webhook/mod.rs", "webhook-uses", "use rop::webhook::Registration;");
        s.insert("src/webhook/mod.rs", "webhooks", format!("Registration::{role}({module}::{name}),"));
        let letter = if mutating { 'm' } else { 'v' };
        let name = builtin.map(|_| format!("{letter}{}-{}.{}", k.lower, k.version, project.domain));
        s.attributes.push(attribute(mutating, path.as_deref(), name.as_deref()));
    }
    if w.conversion {
        conversion(&mut s, project, k, w, header, &context, &render)?;
    }
    if builtin.is_none() {
        // A built-in kind has no sample to send: its webhooks are tested in their module only.
        s.file(TESTS, "webhook/tests/webhooks.rs.tera", &context, IfExists::Skip);
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
        "webhook-self-managed/kustomization.yaml",
        "webhook-self-managed/kustomizeconfig.yaml",
        "webhook-self-managed/manager_patch.yaml",
        "webhook-self-managed/role_binding.yaml",
        "webhook-self-managed/secret.yaml",
    ] {
        s.file(format!("config/{name}"), &format!("webhook/config/{name}"), &context, IfExists::Skip);
    }
    s.insert("config/default/kustomization.yaml", "webhook", "- ../webhook\n- ../certmanager");
    let patches = render("webhook/fragments/default_kustomization.yaml", &context)?;
    s.insert("config/default/kustomization.yaml", "webhook-patches", patches);
    Ok(s)
}

/// A conversion webhook with `k` as the hub of the spokes `w.spoke`: each spoke's conversion
/// file, registration and round-trip test, and the CRD's conversion patch.
fn conversion(
    s: &mut Scaffold,
    project: &Project,
    k: &KindNames,
    w: &Webhooks,
    header: &str,
    context: &Rc<TemplateContext>,
    render: &dyn Fn(&str, &TemplateContext) -> anyhow::Result<String>,
) -> anyhow::Result<()> {
    let api_crate = project.api_crate();
    for version in &w.spoke {
        let spoke = k.in_version(project, version);
        let spoke_context = Rc::new(TemplateContext::webhook(project, k, None, header, Some(version)));
        let path = format!("{}/{}_conversion.rs", spoke.api_dir(), k.snake);
        s.file(path, "webhook/api/src/version/conversion.rs.tera", &spoke_context, IfExists::Refuse);
        s.insert(&format!("{}/mod.rs", spoke.api_dir()), "kinds", format!("mod {}_conversion;", k.snake));
        let hub_type = format!("{api_crate}::{}::{}", k.api_module(), k.kind);
        let spoke_type = format!("{api_crate}::{}::{}", spoke.api_module(), k.kind);
        // As rustfmt lays it out: the call on one line (at column 8) when it fits and its
        // argument fits `fn_call_width` (60); else the argument on its own line, where the
        // chain stays on one line when it fits (at column 12) and its `.spoke` part fits
        // `chain_width` (60).
        let parent = format!("HubConversion::<{hub_type}>::hub()");
        let spoke_call = format!(".spoke::<{spoke_type}>()");
        let one_line = format!("Registration::conversion({parent}{spoke_call}),");
        let registration = if 8 + one_line.len() <= 100 && parent.len() + spoke_call.len() <= 60 {
            one_line
        } else if 12 + parent.len() + spoke_call.len() < 100 && spoke_call.len() <= 60 {
            format!("Registration::conversion(\n    {parent}{spoke_call},\n),")
        } else {
            format!("Registration::conversion(\n    {parent}\n        {spoke_call},\n),")
        };
        s.insert("src/webhook/mod.rs", "webhook-uses", "use rop::webhook::HubConversion;");
        s.insert("src/webhook/mod.rs", "webhook-uses", "use rop::webhook::Registration;");
        s.insert("src/webhook/mod.rs", "webhooks", registration);
        let test = render("webhook/fragments/conversion_test.rs.tera", &spoke_context)?;
        s.insert("src/webhook/mod.rs", "webhook-tests", test);
        let test = render("webhook/fragments/conversion_e2e.rs.tera", &spoke_context)?;
        s.insert(TESTS, "webhook-tests", test);
    }
    let patch = format!("config/crd/patches/webhook_in_{}.yaml", k.plural);
    s.file(patch, "webhook/config/crd/patches/webhook_in.yaml", context, IfExists::Skip);
    s.insert("config/crd/kustomization.yaml", "crd-patches", format!("- path: patches/webhook_in_{}.yaml", k.plural));
    Ok(())
}

/// The built-in kind `k` stands for, if it is one the project lists.
fn builtin_of(project: &Project, k: &KindNames) -> Option<&'static Builtin> {
    project.find_core(&k.group, &k.version, &k.kind).and_then(|r| builtin::find(&r.group, &r.version, &r.kind))
}
