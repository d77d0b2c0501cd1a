//! What `rop create api` adds to a project for one resource, described as data: the files it
//! renders and the fragments it inserts at markers. `create api` applies the description;
//! `delete api` reverses it; `alpha generate` replays it.

use heck::ToSnakeCase;
use tera::Context;

use super::plan::Plan;
use super::{builtin_marker, layout, markers};
use crate::builtin;
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
    /// Multigroup layout (`rop edit --multigroup`): APIs live under `api/src/<group>/<version>/`.
    pub multigroup: bool,
    /// A kind Kubernetes serves (PROJECT's `core: true`), with a marker type in
    /// `api/src/builtin.rs` rather than types of its own.
    pub core: bool,
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
            multigroup: project.multigroup,
            core: false,
        }
    }

    /// The group as a Rust identifier (`cache`, `batch_x`).
    pub fn group_module(&self) -> String {
        self.group.replace(['.', '-'], "_")
    }

    /// Folder of the version module: `api/src/<version>` or, multigroup, `api/src/<group>/<version>`.
    pub fn api_dir(&self) -> String {
        if self.multigroup {
            format!("api/src/{}/{}", self.group_module(), self.version)
        } else {
            format!("api/src/{}", self.version)
        }
    }

    /// Path of the version module inside the api crate: `v1` or `cache::v1`.
    pub fn api_module(&self) -> String {
        if self.multigroup { format!("{}::{}", self.group_module(), self.version) } else { self.version.clone() }
    }

    /// Name the manifests generator imports the version module as: `v1` or `cache_v1`.
    pub fn api_alias(&self) -> String {
        if self.multigroup { format!("{}_{}", self.group_module(), self.version) } else { self.version.clone() }
    }

    /// Module of the kind's controller under `src/controller/`: `memcached` or `cache_memcached`.
    pub fn controller_module(&self) -> String {
        if self.multigroup { format!("{}_{}", self.group_module(), self.snake) } else { self.snake.clone() }
    }

    /// The names of a resource PROJECT records. Its layout is the one it was created with
    /// (its `path` has a group segment when multigroup), not the project's current one.
    pub fn of(project: &Project, r: &Resource) -> KindNames {
        let mut k = KindNames::new(project, &r.group, &r.version, &r.kind, &r.plural);
        k.multigroup = !r.core && r.path.split("::").count() == 4;
        k.core = r.core;
        if r.core {
            k.full_group = r.full_group();
        }
        k
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
        context.insert("api_module", &self.api_module());
        context.insert("namespaced_manager", &project.namespaced);
        context.insert("storage", &storage);
        context.insert("controller_module", &self.controller_module());
        context.insert("sample", &self.sample());
        context.insert("header", header);
        context.insert("domain", &project.domain);
        if self.core
            && let Some(b) = builtin::find(&self.group, &self.version, &self.kind)
        {
            context.insert("target", &builtin_marker::target(self));
            context.insert("object_path", b.object);
        }
        context
    }
}

/// What `create api` adds for `k`: its types (when `resource`) and its controller (when
/// `controller`). `exists` says whether a project file exists already: the version module
/// (and, multigroup, the group module) is listed as a file only when it does not.
pub fn describe(
    project: &Project,
    k: &KindNames,
    resource: bool,
    controller: bool,
    exists: &dyn Fn(&str) -> bool,
) -> ResourceScaffold {
    let mut s = ResourceScaffold::default();
    let file = |s: &mut ResourceScaffold, path: String, template: &str, user_owned: bool| {
        s.files.push(ScaffoldFile { path, template: template.into(), user_owned });
    };
    let insert = |s: &mut ResourceScaffold, path: &str, marker: &str, fragment: String| {
        s.inserts.push(Insert { path: path.into(), marker: marker.into(), fragment });
    };
    if resource {
        let dir = k.api_dir();
        let version_mod = format!("{dir}/mod.rs");
        if !exists(&version_mod) {
            file(&mut s, version_mod.clone(), "api/api/src/version/mod.rs.tera", false);
        }
        file(&mut s, format!("{dir}/{}.rs", k.snake), "api/api/src/version/kind.rs.tera", true);
        insert(
            &mut s,
            &version_mod,
            "kinds",
            format!(
                "mod {0};\n{1}",
                k.snake,
                layout::use_list(
                    0,
                    &format!("pub use {}::", k.snake),
                    &[k.kind.clone(), format!("{}Spec", k.kind), format!("{}Status", k.kind)]
                )
            ),
        );
        if k.multigroup {
            let group_mod = format!("api/src/{}/mod.rs", k.group_module());
            if !exists(&group_mod) {
                file(&mut s, group_mod.clone(), "api/api/src/group/mod.rs.tera", false);
            }
            insert(&mut s, &group_mod, "group-versions", format!("pub mod {};", k.version));
            insert(&mut s, "api/src/lib.rs", "api-versions", format!("pub mod {};", k.group_module()));
            insert(
                &mut s,
                "api/src/bin/manifests.rs",
                "imports",
                format!("use {}::{} as {};", project.api_crate(), k.api_module(), k.api_alias()),
            );
        } else {
            insert(&mut s, "api/src/lib.rs", "api-versions", format!("pub mod {};", k.version));
            insert(
                &mut s,
                "api/src/bin/manifests.rs",
                "imports",
                format!("use {}::{};", project.api_crate(), k.version),
            );
        }
        insert(
            &mut s,
            "api/src/bin/manifests.rs",
            "manifest-kinds",
            layout::generic_call(
                8,
                "rop::manifests::kind",
                &format!("{}::{}", k.api_alias(), k.kind),
                &format!("\"{}::{}\"", k.api_module(), k.kind),
                ",",
            ),
        );
        file(&mut s, format!("config/samples/{}", k.sample()), "api/config/samples/sample.yaml", true);
        insert(&mut s, "config/samples/kustomization.yaml", "samples", format!("- {}", k.sample()));
        insert(
            &mut s,
            "config/crd/kustomization.yaml",
            "crd-resources",
            format!("- bases/{}_{}.yaml", k.full_group, k.plural),
        );
        // kustomize refuses an empty kustomization: config/default lists ../crd once a CRD exists.
        insert(&mut s, "config/default/kustomization.yaml", "crd", "- ../crd".to_string());
        let mut role_files = Vec::new();
        let prefix = if k.multigroup { format!("{}_{}", k.group_module(), k.lower) } else { k.lower.clone() };
        for role in ["admin", "editor", "viewer"] {
            let name = format!("{prefix}_{role}_role.yaml");
            file(&mut s, format!("config/rbac/{name}"), &format!("api/config/rbac/{role}_role.yaml"), false);
            role_files.push(format!("- {name}"));
        }
        insert(&mut s, "config/rbac/kustomization.yaml", "rbac-kind-roles", role_files.join("\n"));
    }
    if controller && k.core {
        // A built-in kind's controller: its marker type (with `#[rop(controller)]`, which the
        // command adds) stands in for the types, and there is no integration test to scaffold.
        if let Some(b) = builtin::find(&k.group, &k.version, &k.kind) {
            let (files, inserts) = builtin_marker::describe(project, k, b, exists);
            s.files.extend(files);
            s.inserts.extend(inserts);
        }
        file(
            &mut s,
            format!("src/controller/{}.rs", k.controller_module()),
            "api/src/controller/builtin.rs.tera",
            true,
        );
    } else if controller {
        let module = k.controller_module();
        file(&mut s, format!("src/controller/{module}.rs"), "api/src/controller/kind.rs.tera", true);
        file(&mut s, format!("tests/{module}_controller.rs"), "api/tests/controller.rs.tera", true);
    }
    if controller {
        let module = k.controller_module();
        insert(&mut s, "src/controller/mod.rs", "controller-modules", format!("pub mod {module};"));
        let crate_name = project.project_name.replace('-', "_");
        let reconciler = format!("{}Reconciler", k.kind);
        insert(&mut s, "src/main.rs", "imports", format!("use {crate_name}::controller::{module}::{reconciler};"));
        insert(&mut s, "src/main.rs", "controllers", format!("manager.add_controller({reconciler});"));
    }
    s
}

/// Plans insertion `i` into its file (as planned so far, else as on disk), unless it is a
/// built-in kind's marker type the file declares already.
///
/// # Errors
/// The file is missing, or has no such scaffold marker.
pub fn insert_into(plan: &mut Plan, i: &Insert) -> anyhow::Result<()> {
    let current = plan.current(&i.path)?.ok_or_else(|| {
        anyhow::anyhow!(
            "{} is missing; rop adds code to it at `+rop:scaffold:{}`: restore it from version control or a fresh `rop init`",
            i.path,
            i.marker
        )
    })?;
    if !builtin_marker::already_declared(i, &current) {
        plan.edit(&i.path, markers::insert(&i.path, &current, &i.marker, &i.fragment)?);
    }
    Ok(())
}

/// The copyright header of the project's existing api crate, reused for new files.
pub fn header_of(root: &std::path::Path) -> String {
    let lib = std::fs::read_to_string(root.join("api/src/lib.rs")).unwrap_or_default();
    let header: String = lib.lines().take_while(|l| l.starts_with("// ")).map(|l| format!("{l}\n")).collect();
    if header.is_empty() { header } else { format!("{header}\n") }
}
