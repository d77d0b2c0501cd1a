//! What `rop create api` adds to a project for one resource, described as data: the files it
//! renders and the fragments it inserts at markers. `create api` applies the description;
//! `delete api` reverses it; `alpha generate` replays it.

use heck::ToSnakeCase;
use tera::Context;

use crate::project::{Project, Resource};

/// A file rendered from a template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScaffoldFile {
    /// Path relative to the project root.
    pub path: String,
    /// Template name under `templates/`.
    pub template: String,
    /// The user edits this file (types, reconciler, sample): never replaced without `--force`.
    pub user_owned: bool,
}

/// Lines inserted before a `+rop:scaffold:<marker>` line of a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Insert {
    pub path: String,
    pub marker: String,
    pub fragment: String,
}

/// The files and insertions of one resource.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ResourceScaffold {
    pub files: Vec<ScaffoldFile>,
    pub inserts: Vec<Insert>,
}

/// The names of one kind in one version, in every spelling the scaffold uses.
#[derive(Clone, Debug)]
pub struct KindNames {
    /// Group without the domain, e.g. `cache`.
    pub group: String,
    /// `<group>.<domain>`.
    pub full_group: String,
    pub version: String,
    pub kind: String,
    /// Lower-cased kind: object names (`memcached-sample`) and role names.
    pub lower: String,
    /// snake_case kind: Rust module and file names.
    pub snake: String,
    pub plural: String,
}

impl KindNames {
    pub fn new(project: &Project, group: &str, version: &str, kind: &str, plural: &str) -> KindNames {
        let full_group =
            if project.domain.is_empty() { group.to_string() } else { format!("{group}.{}", project.domain) };
        KindNames {
            group: group.into(),
            full_group,
            version: version.into(),
            kind: kind.into(),
            lower: kind.to_lowercase(),
            snake: kind.to_snake_case(),
            plural: plural.into(),
        }
    }

    pub fn of(project: &Project, r: &Resource) -> KindNames {
        KindNames::new(project, &r.group, &r.version, &r.kind, &r.plural)
    }

    /// `config/samples/<group>_<version>_<kind>.yaml`
    pub fn sample(&self) -> String {
        format!("{}_{}_{}.yaml", self.group, self.version, self.lower)
    }

    /// The template context for this kind.
    pub fn context(&self, project: &Project, namespaced: bool, storage: bool, header: &str) -> Context {
        let mut context = Context::new();
        context.insert("project_name", &project.project_name);
        context.insert("project_crate", &project.project_name.replace('-', "_"));
        context.insert("api_crate", &project.api_crate());
        context.insert("group", &self.full_group);
        context.insert("group_short", &self.group);
        context.insert("version", &self.version);
        context.insert("kind", &self.kind);
        context.insert("kind_lower", &self.lower);
        context.insert("kind_snake", &self.snake);
        context.insert("plural", &self.plural);
        context.insert("namespaced", &namespaced);
        context.insert("storage", &storage);
        context.insert("header", header);
        context
    }
}

/// What `create api` adds for `k`: its types (when `resource`) and its controller (when
/// `controller`). The version module `api/src/<version>/mod.rs` is listed as a file only
/// when `new_version_module`.
pub fn describe(
    project: &Project,
    k: &KindNames,
    resource: bool,
    controller: bool,
    new_version_module: bool,
) -> ResourceScaffold {
    let mut s = ResourceScaffold::default();
    let file = |s: &mut ResourceScaffold, path: String, template: &str, user_owned: bool| {
        s.files.push(ScaffoldFile { path, template: template.into(), user_owned });
    };
    let insert = |s: &mut ResourceScaffold, path: &str, marker: &str, fragment: String| {
        s.inserts.push(Insert { path: path.into(), marker: marker.into(), fragment });
    };
    if resource {
        let version_mod = format!("api/src/{}/mod.rs", k.version);
        if new_version_module {
            file(&mut s, version_mod.clone(), "api/api/src/version/mod.rs.tera", false);
        }
        file(&mut s, format!("api/src/{}/{}.rs", k.version, k.snake), "api/api/src/version/kind.rs.tera", true);
        insert(
            &mut s,
            &version_mod,
            "kinds",
            format!("mod {0};\npub use {0}::{{{1}, {1}Spec, {1}Status}};", k.snake, k.kind),
        );
        insert(&mut s, "api/src/lib.rs", "api-versions", format!("pub mod {};", k.version));
        insert(&mut s, "api/src/bin/manifests.rs", "imports", format!("use {}::{};", project.api_crate(), k.version));
        insert(
            &mut s,
            "api/src/bin/manifests.rs",
            "manifest-kinds",
            format!("rop::manifests::kind::<{0}::{1}>(\"{0}::{1}\"),", k.version, k.kind),
        );
        file(&mut s, format!("config/samples/{}", k.sample()), "api/config/samples/sample.yaml", true);
        insert(&mut s, "config/samples/kustomization.yaml", "samples", format!("- {}", k.sample()));
        insert(
            &mut s,
            "config/crd/kustomization.yaml",
            "crd-resources",
            format!("- bases/{}_{}.yaml", k.full_group, k.plural),
        );
        let mut role_files = Vec::new();
        for role in ["admin", "editor", "viewer"] {
            let name = format!("{}_{role}_role.yaml", k.lower);
            file(&mut s, format!("config/rbac/{name}"), &format!("api/config/rbac/{role}_role.yaml"), false);
            role_files.push(format!("- {name}"));
        }
        insert(&mut s, "config/rbac/kustomization.yaml", "rbac-kind-roles", role_files.join("\n"));
    }
    if controller {
        file(&mut s, format!("src/controller/{}.rs", k.snake), "api/src/controller/kind.rs.tera", true);
        insert(&mut s, "src/controller/mod.rs", "controller-modules", format!("pub mod {};", k.snake));
        insert(&mut s, "src/main.rs", "controllers", format!("controller::{}::run,", k.snake));
    }
    s
}

/// The copyright header of the project's existing api crate, reused for new files.
pub fn header_of(root: &std::path::Path) -> String {
    let lib = std::fs::read_to_string(root.join("api/src/lib.rs")).unwrap_or_default();
    let header: String = lib.lines().take_while(|l| l.starts_with("// ")).map(|l| format!("{l}\n")).collect();
    if header.is_empty() { header } else { format!("{header}\n") }
}
