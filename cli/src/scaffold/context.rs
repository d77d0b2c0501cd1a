//! What templates are rendered with: one typed context, built here and only here, and handed
//! to tera through `Serialize`. Its parts are flattened into one map, so a template names
//! `kind` or `image` directly; a part a command has no use for is absent, not empty.

use serde::Serialize;

use super::deploy_image::{DeployImage, Workload};
use super::kind::KindNames;
use super::layout;
use crate::builtin::Builtin;
use crate::project::Project;

/// The variables of a template.
#[derive(Clone, Debug, Serialize)]
pub struct TemplateContext {
    #[serde(flatten)]
    pub project: ProjectVars,
    #[serde(flatten)]
    pub init: Option<InitVars>,
    #[serde(flatten)]
    pub kind: Option<KindVars>,
    #[serde(flatten)]
    pub image: Option<ImageVars>,
    #[serde(flatten)]
    pub webhook: Option<WebhookVars>,
    #[serde(flatten)]
    pub spoke: Option<SpokeVars>,
}

/// The project's own settings, which every template may use.
#[derive(Clone, Debug, Serialize)]
pub struct ProjectVars {
    pub project_name: String,
    /// The manager crate's Rust name, `memcached_operator`.
    pub project_crate: String,
    pub api_crate: String,
    pub domain: String,
    pub repo: String,
    /// The manager watches one namespace (`rop edit --namespaced`).
    pub namespaced_manager: bool,
    /// The copyright header of Rust files, empty or ending in a blank line.
    pub header: String,
}

/// What only `rop init` knows: the license and the dependencies on rop's crates (TOML values).
#[derive(Clone, Debug, Serialize)]
pub struct InitVars {
    /// SPDX identifier, empty for none.
    pub license: String,
    pub rop_dependency: String,
    pub rop_testenv_dependency: String,
    /// Folder of rop's crates to stage for an image build, or empty.
    pub rop_crates: String,
}

/// One kind in one version.
#[derive(Clone, Debug, Serialize)]
pub struct KindVars {
    /// The full group, `cache.example.com`.
    pub group: String,
    pub group_short: String,
    pub version: String,
    pub kind: String,
    pub kind_lower: String,
    pub kind_snake: String,
    pub plural: String,
    pub namespaced: bool,
    /// This version stores the kind's objects.
    pub storage: bool,
    pub api_module: String,
    pub controller_module: String,
    /// The sample's file name under `config/samples/`.
    pub sample: String,
    /// The type webhooks and a built-in kind's controller are registered for: the root type,
    /// or a built-in kind's marker type.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// The Rust type of the objects.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object_path: Option<String>,
}

/// A deployed image (`create api --image`): absent options are `none`.
#[derive(Clone, Debug, Serialize)]
pub struct ImageVars {
    pub image: String,
    pub container_port: Option<u16>,
    pub container_command: Vec<String>,
    pub run_as_user: Option<i64>,
    /// The manager's environment variable that overrides the image, `MEMCACHED_IMAGE`.
    pub image_env: String,
    pub workload: Workload,
}

/// A kind version's webhooks, this version being the hub of a conversion.
#[derive(Clone, Debug, Serialize)]
pub struct WebhookVars {
    pub api_dir: String,
    /// The kind version's module of admission webhooks under `src/webhook/`.
    pub module: String,
    /// The line of `tests/webhooks.rs` that reads the sample, at column 8.
    pub e2e_sample_let: String,
    pub hub: String,
    pub hub_module: String,
    /// The kind is one Kubernetes serves.
    pub builtin: bool,
    /// A built-in kind's module imports, in the order rustfmt sorts them, so a module rop
    /// wrote stays byte for byte its own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub builtin_uses: Option<Vec<String>>,
    /// The domain a built-in kind's webhook names take.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub webhook_domain: Option<String>,
}

/// A spoke version of a conversion, for its conversion file and round-trip test.
#[derive(Clone, Debug, Serialize)]
pub struct SpokeVars {
    pub spoke: String,
    pub spoke_module: String,
    pub spoke_dir: String,
    /// The line of `tests/webhooks.rs` that reads the spoke's sample, at column 8.
    pub e2e_sample_let: String,
    /// `type Hub = <the hub's type>;` and `type Spoke = ...;` at column 4 of `tests/webhooks.rs`.
    pub hub_alias: String,
    pub spoke_alias: String,
    /// The round-trip test's line that reads the spoke's sample, at column 8 of
    /// `src/webhook/mod.rs` (4 in the fragment).
    pub sample_let: String,
    /// The line that parses it.
    pub object_let: String,
    /// The `use` paths of the round-trip test, in rustfmt's order.
    pub test_uses: Vec<String>,
}

impl TemplateContext {
    /// The context of a project-wide file (`init`, `edit`).
    pub fn project(project: &Project, header: &str) -> TemplateContext {
        TemplateContext {
            project: ProjectVars {
                project_name: project.project_name.clone(),
                project_crate: project.project_name.replace('-', "_"),
                api_crate: project.api_crate(),
                domain: project.domain.clone(),
                repo: project.repo.clone(),
                namespaced_manager: project.namespaced,
                header: header.to_string(),
            },
            init: None,
            kind: None,
            image: None,
            webhook: None,
            spoke: None,
        }
    }

    /// The context of kind version `k`'s files; `builtin` is the kind Kubernetes serves that
    /// `k` stands for, if any.
    pub fn kind(
        project: &Project,
        k: &KindNames,
        builtin: Option<&Builtin>,
        namespaced: bool,
        storage: bool,
        header: &str,
    ) -> TemplateContext {
        let mut context = TemplateContext::project(project, header);
        context.kind = Some(KindVars {
            group: k.full_group.clone(),
            group_short: k.group.clone(),
            version: k.version.clone(),
            kind: k.kind.clone(),
            kind_lower: k.lower.clone(),
            kind_snake: k.snake.clone(),
            plural: k.plural.clone(),
            namespaced,
            storage,
            api_module: k.api_module(),
            controller_module: k.controller_module(),
            sample: k.sample(),
            target: builtin.map(|_| k.marker_type()),
            object_path: builtin.map(Builtin::rust_path),
        });
        context
    }

    /// This context with the deploy-image options of kind `k`.
    pub fn with_image(mut self, image: &DeployImage, k: &KindNames) -> TemplateContext {
        self.image = Some(ImageVars {
            image: image.image.clone(),
            container_port: image.container_port,
            container_command: image.container_command.clone(),
            run_as_user: image.run_as_user,
            image_env: format!("{}_IMAGE", k.snake.to_uppercase()),
            workload: image.workload,
        });
        self
    }

    /// The context of kind version `k`'s webhooks (a webhook object is namespaced as its kind
    /// is; the version is the hub); with `spoke`, that spoke's files.
    pub fn webhook(
        project: &Project,
        k: &KindNames,
        builtin: Option<&Builtin>,
        header: &str,
        spoke: Option<&str>,
    ) -> TemplateContext {
        let custom = || project.find(&k.group, &k.version, &k.kind).and_then(|r| r.api.as_ref());
        let namespaced = builtin.map_or_else(|| custom().is_none_or(|api| api.namespaced), Builtin::namespaced);
        let mut context = TemplateContext::kind(project, k, builtin, namespaced, true, header);
        if let Some(kind) = &mut context.kind {
            kind.target.get_or_insert_with(|| k.kind.clone());
            kind.object_path.get_or_insert_with(|| format!("{}::{}::{}", project.api_crate(), k.api_module(), k.kind));
        }
        context.webhook = Some(WebhookVars {
            api_dir: k.api_dir(),
            module: k.webhook_module(),
            e2e_sample_let: e2e_sample_let(&k.sample()),
            hub: k.version.clone(),
            hub_module: k.api_module(),
            builtin: builtin.is_some(),
            builtin_uses: builtin.map(|b| {
                let mut uses = vec![b.rust_path(), format!("{}::builtin::{}", project.api_crate(), k.marker_type())];
                uses.sort();
                uses
            }),
            webhook_domain: builtin.map(|_| project.domain.clone()),
        });
        let api_crate = project.api_crate();
        context.spoke = spoke.map(|version| {
            let names = k.in_version(project, version);
            let at_column_8 = |text: String| text.replace('\n', "\n    ");
            let path = format!("\"../../config/samples/{}\"", names.sample());
            let object = format!("object: {}", k.kind);
            SpokeVars {
                spoke: version.to_string(),
                spoke_module: names.api_module(),
                spoke_dir: names.api_dir(),
                e2e_sample_let: e2e_sample_let(&names.sample()),
                hub_alias: at_column(
                    4,
                    layout::type_alias(4, "Hub", &format!("{api_crate}::{}::{}", k.api_module(), k.kind)),
                ),
                spoke_alias: at_column(
                    4,
                    layout::type_alias(4, "Spoke", &format!("{api_crate}::{}::{}", names.api_module(), k.kind)),
                ),
                sample_let: at_column_8(layout::let_call(8, "sample", "include_str!", &path)),
                object_let: at_column_8(layout::let_call(8, &object, "testing::sample", "sample")),
                test_uses: sorted_uses([
                    format!("{api_crate}::{}::{}", names.api_module(), k.kind),
                    "rop::webhook::testing".to_string(),
                ]),
            }
        });
        context
    }

    /// The variables for tera.
    pub fn to_tera(&self) -> tera::Context {
        tera::Context::from_serialize(self).expect("a template context serialises to a map")
    }
}

/// `text`, a layout at `column` whose lines after the first are indented relative to it, with
/// those lines moved to the column: the fragment holding it is inserted at column 0.
fn at_column(column: usize, text: String) -> String {
    text.replace('\n', &format!("\n{}", " ".repeat(column)))
}

/// `let sample = include_str!("../config/samples/<file>");` at column 8 of `tests/webhooks.rs`.
/// `paths` as rustfmt orders `use` items of plain paths: by their text, which for lower-case
/// crate names and `::` is the order of its version sort.
fn sorted_uses<const N: usize>(mut paths: [String; N]) -> Vec<String> {
    paths.sort();
    paths.into()
}

fn e2e_sample_let(file: &str) -> String {
    let path = format!("\"../config/samples/{file}\"");
    at_column(8, layout::let_call(8, "sample", "include_str!", &path))
}
