//! What `rop create api` adds to a project for one resource, described as data: the files it
//! renders and the fragments it inserts at markers. `create api` applies the description;
//! `delete api` reverses it; `alpha generate` replays it.

use std::rc::Rc;

use super::context::TemplateContext;
use super::deploy_image::{DeployImage, KindTemplates};
use super::kind::KindNames;
use super::spec::{IfExists, Scaffold};
use super::{builtin_marker, layout};
use crate::builtin::Builtin;
use crate::project::Project;

/// What a `create api` run scaffolds for a kind version, besides its names.
#[derive(Clone, Copy, Debug)]
pub struct ApiOptions<'a> {
    /// The types (`--resource`).
    pub resource: bool,
    /// The controller (`--controller`).
    pub controller: bool,
    /// The kind is namespaced (for a built-in kind, Kubernetes says).
    pub namespaced: bool,
    /// This version is the kind's storage version (its first).
    pub storage: bool,
    /// The image the controller runs (`--image`).
    pub image: Option<&'a DeployImage>,
    /// The copyright header of Rust files.
    pub header: &'a str,
}

impl ApiOptions<'_> {
    /// The options PROJECT's entry `r` was scaffolded with, as far as its paths and fragments
    /// go (what other kinds still need when one is deleted).
    pub fn of<'a>(r: &crate::project::Resource, header: &'a str) -> ApiOptions<'a> {
        ApiOptions {
            resource: r.api.is_some(),
            controller: r.controller,
            namespaced: r.api.as_ref().is_none_or(|a| a.namespaced),
            storage: true,
            image: None,
            header,
        }
    }
}

/// What `create api` adds for `k`: its types (when `resource`) and its controller (when
/// `controller`), from the templates of its variant (plain, a deployed image, a built-in kind).
/// Files several kinds share (a version module, a group module, the built-in kinds' marker
/// file) are listed with [`IfExists::Skip`]: written only by the first.
pub fn describe(project: &Project, k: &KindNames, options: &ApiOptions) -> Scaffold {
    let builtin = k.builtin;
    let namespaced = builtin.map_or(options.namespaced, Builtin::namespaced);
    let mut context = TemplateContext::kind(project, k, builtin, namespaced, options.storage, options.header);
    if let Some(image) = options.image {
        context = context.with_image(image, k);
    }
    let context = Rc::new(context);
    let templates = KindTemplates::of(options.image.map(|i| i.workload));
    let mut s = Scaffold::default();
    if options.resource {
        types(&mut s, project, k, &context, &templates);
    }
    if options.controller {
        controller(&mut s, project, k, builtin, &context, &templates);
    }
    s
}

/// The kind's types, sample, roles and their registrations.
fn types(s: &mut Scaffold, project: &Project, k: &KindNames, context: &Rc<TemplateContext>, templates: &KindTemplates) {
    let dir = k.api_dir();
    let version_mod = format!("{dir}/mod.rs");
    s.file(&version_mod, "api/api/src/version/mod.rs.tera", context, IfExists::Skip);
    s.file(format!("{dir}/{}.rs", k.snake), templates.types, context, IfExists::Refuse);
    s.insert(&version_mod, "kinds", layout::kind_exports(&k.snake));
    if k.multigroup {
        let group_mod = format!("api/src/{}/mod.rs", k.group_module());
        s.file(&group_mod, "api/api/src/group/mod.rs.tera", context, IfExists::Skip);
        s.insert(&group_mod, "group-versions", format!("pub mod {};", k.version));
        s.insert("api/src/lib.rs", "api-versions", format!("pub mod {};", k.group_module()));
        let import = format!("use {}::{} as {};", project.api_crate(), k.api_module(), k.api_alias());
        s.insert("api/src/bin/manifests.rs", "imports", import);
    } else {
        s.insert("api/src/lib.rs", "api-versions", format!("pub mod {};", k.version));
        s.insert("api/src/bin/manifests.rs", "imports", format!("use {}::{};", project.api_crate(), k.version));
    }
    let kind_type = format!("{}::{}", k.api_alias(), k.kind);
    let call = layout::generic_call(8, "rop::manifests::kind", &kind_type, "", ",");
    s.insert("api/src/bin/manifests.rs", "manifest-kinds", call);
    s.file(format!("config/samples/{}", k.sample()), templates.sample, context, IfExists::Refuse);
    s.insert("config/samples/kustomization.yaml", "samples", format!("- {}", k.sample()));
    let crd = format!("- bases/{}_{}.yaml", k.full_group, k.plural);
    s.insert("config/crd/kustomization.yaml", "crd-resources", crd);
    // kustomize refuses an empty kustomization: config/default lists ../crd once a CRD exists.
    s.insert("config/default/kustomization.yaml", "crd", "- ../crd");
    let mut role_files = Vec::new();
    let prefix = if k.multigroup { format!("{}_{}", k.group_module(), k.lower) } else { k.lower.clone() };
    for role in ["admin", "editor", "viewer"] {
        let name = format!("{prefix}_{role}_role.yaml");
        let template = format!("api/config/rbac/{role}_role.yaml");
        s.file(format!("config/rbac/{name}"), &template, context, IfExists::Overwrite);
        role_files.push(format!("- {name}"));
    }
    s.insert("config/rbac/kustomization.yaml", "rbac-kind-roles", role_files.join("\n"));
}

/// The kind's controller, its test and their registrations.
fn controller(
    s: &mut Scaffold,
    project: &Project,
    k: &KindNames,
    builtin: Option<&Builtin>,
    context: &Rc<TemplateContext>,
    templates: &KindTemplates,
) {
    let module = k.controller_module();
    if k.builtin.is_some() {
        // A built-in kind's controller: its marker type (with `#[rop(controller)]`, which the
        // command adds) stands in for the types, and there is no integration test to scaffold.
        if let Some(b) = builtin {
            s.extend(builtin_marker::describe(project, k, b, context));
        }
        s.file(format!("src/controller/{module}.rs"), "api/src/controller/builtin.rs.tera", context, IfExists::Refuse);
    } else {
        s.file(format!("src/controller/{module}.rs"), templates.controller, context, IfExists::Refuse);
        s.file(format!("tests/{module}_controller.rs"), templates.test, context, IfExists::Refuse);
    }
    s.insert("src/controller/mod.rs", "controller-modules", format!("pub mod {module};"));
    let crate_name = project.project_name.replace('-', "_");
    let reconciler = format!("{}Reconciler", k.kind);
    s.insert("src/main.rs", "imports", format!("use {crate_name}::controller::{module}::{reconciler};"));
    s.insert("src/main.rs", "controllers", format!("manager.add_controller({reconciler});"));
}

/// The copyright header of the project's existing api crate, reused for new files.
pub fn header_of(root: &std::path::Path) -> String {
    let lib = std::fs::read_to_string(root.join("api/src/lib.rs")).unwrap_or_default();
    let header: String = lib.lines().take_while(|l| l.starts_with("// ")).map(|l| format!("{l}\n")).collect();
    if header.is_empty() { header } else { format!("{header}\n") }
}
