//! The names of one kind in one version, in every spelling the scaffold uses (Rust modules,
//! file paths, object names), and the files PROJECT's record of a kind stands for.

use heck::{ToSnakeCase, ToUpperCamelCase};

use crate::builtin::{self, Builtin};
use crate::project::{Project, Resource};

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
    /// The built-in kind this is, for a kind Kubernetes serves (PROJECT's `core: true`), with a
    /// marker type in `api/src/builtin.rs` rather than types of its own.
    pub builtin: Option<&'static Builtin>,
}

impl KindNames {
    /// The names of `kind` in `group`/`version` with plural `plural`, in `project`'s current layout.
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
            builtin: None,
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

    /// Module of the kind version's admission webhooks under `src/webhook/`: `memcached_v1` or,
    /// multigroup, `cache_memcached_v1`.
    pub fn webhook_module(&self) -> String {
        format!("{}_{}", self.controller_module(), self.version)
    }

    /// The names of a resource PROJECT records. Its layout is the one it was created with
    /// (its `path` has a group segment when multigroup), not the project's current one.
    pub fn of(project: &Project, r: &Resource) -> KindNames {
        let mut k = KindNames::new(project, &r.group, &r.version, &r.kind, &r.plural);
        k.multigroup = !r.core && r.path.split("::").count() == 4;
        k.builtin = r.core.then(|| builtin::find(&r.group, &r.version, &r.kind)).flatten();
        // A built-in kind, or an imported one outside the project's domain, names its own.
        if r.core || r.domain != project.domain {
            k.full_group = r.full_group();
        }
        k
    }

    /// `config/samples/<group>_<version>_<kind>.yaml`
    pub fn sample(&self) -> String {
        format!("{}_{}_{}.yaml", self.group, self.version, self.lower)
    }

    /// The marker type of a built-in kind version in `api/src/builtin.rs`: `DeploymentV1`.
    pub fn marker_type(&self) -> String {
        format!("{}{}", self.kind, self.version.to_upper_camel_case())
    }

    /// The same kind in version `version`, in this kind's layout (a spoke of a conversion).
    pub fn in_version(&self, project: &Project, version: &str) -> KindNames {
        let mut other = KindNames::new(project, &self.group, version, &self.kind, &self.plural);
        other.multigroup = self.multigroup;
        other
    }
}

// The check sits here rather than in `project`: it needs the layout of the files, and the
// PROJECT model stays free of scaffolding (no module cycle).
impl Project {
    /// Checks that the tree still holds what PROJECT records: the types file of every
    /// resource with an api and the controller file of every resource with a controller.
    ///
    /// # Errors
    /// The first recorded file that is missing, with how to repair the contradiction.
    pub fn check_tree(&self, root: &std::path::Path) -> anyhow::Result<()> {
        for r in &self.resources {
            let k = KindNames::of(self, r);
            let mut files = Vec::new();
            if r.api.is_some() {
                files.push(format!("{}/{}.rs", k.api_dir(), k.snake));
            }
            if r.controller {
                files.push(format!("src/controller/{}.rs", k.controller_module()));
            }
            if let Some(missing) = files.iter().find(|f| !root.join(f).is_file()) {
                anyhow::bail!(
                    "{} lists {}/{} {} but {missing} is missing: restore it from version control, or remove the resource from {}",
                    crate::project::FILE,
                    r.group,
                    r.version,
                    r.kind,
                    crate::project::FILE
                );
            }
        }
        Ok(())
    }
}
