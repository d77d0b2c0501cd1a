//! `rop alpha generate`: re-scaffolds a whole project from its PROJECT file into a new folder
//! with the current rop, as kubebuilder's `alpha generate` does, so a user can diff the two
//! trees and carry their code over to the new scaffold.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use super::args::KindArgs;
use super::create_api::{self, CreateApiArgs};
use super::create_webhook::{self, CreateWebhookArgs};
use super::init::{self, Settings};
use crate::cargo_manifest::{self, RopDependency};
use crate::project::{Project, Resource};
use crate::scaffold::kind::KindNames;
use crate::scaffold::{deploy_image, resource};
use crate::ui;

/// Flags of `rop alpha generate`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  rop alpha generate --output-dir ../memcached-operator-next\n  diff -r . ../memcached-operator-next"
)]
pub struct AlphaGenerateArgs {
    /// The project to read (its PROJECT file, Rust file header and rop dependency).
    #[arg(long, default_value = ".")]
    pub input_dir: PathBuf,
    /// A new or empty folder to write the fresh scaffold into.
    #[arg(long)]
    pub output_dir: PathBuf,
}

/// The `rop = ...` dependency of the input project's workspace Cargo.toml.
fn rop_dependency(input: &Path) -> anyhow::Result<RopDependency> {
    let manifest = cargo_manifest::read(input).context("cannot read the input project's Cargo.toml")?;
    RopDependency::of(&manifest).ok_or_else(|| anyhow::anyhow!("Cargo.toml of the input project has no `rop = ...` workspace dependency: add it back, e.g. rop = {{ version = \"0.1\" }}"))
}

/// The SPDX license of the input project's crates, or empty.
fn license(input: &Path) -> String {
    cargo_manifest::read(input).ok().and_then(|m| cargo_manifest::workspace_package(&m, "license")).unwrap_or_default()
}

/// Runs `rop alpha generate`.
///
/// # Errors
/// No valid PROJECT in the input, an output folder that is not empty, or any error of the
/// replayed `init` / `create api` commands.
pub fn run(cwd: &Path, args: &AlphaGenerateArgs) -> anyhow::Result<()> {
    let input = cwd.join(&args.input_dir);
    let output = cwd.join(&args.output_dir);
    let project = Project::load(&input)?;
    if output.exists() && std::fs::read_dir(&output).map(|mut d| d.next().is_some()).unwrap_or(true) {
        bail!("{} is not empty: give --output-dir a new or empty folder", args.output_dir.display());
    }
    let settings = Settings {
        project: Project { resources: vec![], multigroup: false, plugins: Default::default(), ..project.clone() },
        header: resource::header_of(&input),
        license: license(&input),
        rop_dependency: rop_dependency(&input)?,
    };
    let existed = output.exists();
    std::fs::create_dir_all(&output).with_context(|| format!("cannot create {}", args.output_dir.display()))?;
    if let Err(e) = replay(&input, &output, &settings, &project) {
        // Leave nothing half-written: the folder goes back to how it was (absent or empty).
        if existed {
            for entry in std::fs::read_dir(&output).into_iter().flatten().flatten() {
                let path = entry.path();
                let _ = if path.is_dir() { std::fs::remove_dir_all(&path) } else { std::fs::remove_file(&path) };
            }
        } else {
            std::fs::remove_dir_all(&output).ok();
        }
        return Err(e);
    }
    ui::info(&format!(
        "Re-scaffolded {} with {} resource(s) into {}.\nNext: compare with `diff -r --exclude=.git {} {}` and move your code over",
        project.project_name,
        project.resources.len(),
        args.output_dir.display(),
        args.input_dir.display(),
        args.output_dir.display()
    ));
    Ok(())
}

/// `init`, then every resource's `create api` in PROJECT order, each in the layout it was
/// created in (single-group kinds of a project later made multigroup stay where they were),
/// and each resource's `create webhook` as soon as the versions it converts exist: a
/// built-in kind's controller and webhooks right where PROJECT lists it.
fn replay(input: &Path, output: &Path, settings: &Settings, project: &Project) -> anyhow::Result<()> {
    init::scaffold(output, settings, false, false)?;
    let mut pending: Vec<&Resource> = Vec::new();
    for r in &project.resources {
        if r.external {
            replay_import(input, output, r)?;
        } else if !r.core {
            let mut current = Project::load(output)?;
            current.multigroup = KindNames::of(project, r).multigroup;
            std::fs::write(output.join(crate::project::FILE), current.to_text())?;
            ui::detail(&format!("replaying create api --group {} --version {} --kind {}", r.group, r.version, r.kind));
            let image = deploy_image::recorded(project, &r.group, &r.version, &r.kind)?;
            let replay = CreateApiArgs {
                api: KindArgs::new(&r.group, &r.version, &r.kind),
                plural: Some(r.plural.clone()),
                namespaced: r.api.as_ref().is_none_or(|a| a.namespaced),
                resource: r.api.is_some(),
                controller: r.controller,
                image: image.as_ref().map(|o| o.image.clone()),
                image_container_port: image.as_ref().and_then(|o| o.container_port.clone()),
                image_container_command: image.as_ref().and_then(|o| o.container_command.clone()),
                run_as_user: image.as_ref().and_then(|o| o.run_as_user.clone()),
                workload: image.and_then(|o| o.workload),
                force: false,
                dry_run: false,
            };
            create_api::run(output, &replay)?;
        } else if r.controller {
            ui::detail(&format!(
                "replaying create api --group {} --version {} --kind {} --resource=false",
                r.group, r.version, r.kind
            ));
            let replay = CreateApiArgs {
                api: KindArgs::new(&r.group, &r.version, &r.kind),
                plural: None,
                namespaced: true,
                resource: false,
                controller: true,
                image: None,
                image_container_port: None,
                image_container_command: None,
                run_as_user: None,
                workload: None,
                force: false,
                dry_run: false,
            };
            create_api::run(output, &replay)?;
        }
        if r.webhooks.is_some() {
            pending.push(r);
        }
        let current = Project::load(output)?;
        let ready = |w: &&Resource| {
            w.webhooks
                .as_ref()
                .is_some_and(|hooks| hooks.spoke.iter().all(|spoke| current.find(&w.group, spoke, &w.kind).is_some()))
        };
        let (now, later): (Vec<&Resource>, Vec<&Resource>) = pending.into_iter().partition(ready);
        pending = later;
        for w in now {
            replay_webhooks(output, w)?;
        }
    }
    for w in pending {
        replay_webhooks(output, w)?;
    }
    let mut done = Project::load(output)?;
    done.multigroup = project.multigroup;
    std::fs::write(output.join(crate::project::FILE), done.to_text())?;
    Ok(())
}

/// `create webhook` with the webhook types PROJECT records for `r`.
/// `rop import crd --types-only` of a consumed kind's version, from the CRD the import kept in
/// the input's `config/crd/external/`.
fn replay_import(input: &Path, output: &Path, r: &Resource) -> anyhow::Result<()> {
    let group = r.full_group();
    let kept = input.join(format!("config/crd/external/{group}_{}.yaml", r.plural));
    if !kept.is_file() {
        bail!(
            "{group}/{} {} is a consumed kind (external in PROJECT) without its CRD in {}: import it again with `rop import crd --types-only FILE` in the project (which keeps it there), then generate",
            r.version,
            r.kind,
            kept.display()
        );
    }
    ui::detail(&format!("replaying import crd --types-only for {group}/{} {}", r.version, r.kind));
    let args = crate::import::ImportCrdArgs {
        files: vec![kept],
        group_version_kinds: vec![format!("{group}/{}/{}", r.version, r.kind)],
        types_only: true,
        force: false,
        dry_run: false,
    };
    crate::import::run(output, output, &args)
}

fn replay_webhooks(output: &Path, r: &Resource) -> anyhow::Result<()> {
    let Some(w) = &r.webhooks else { return Ok(()) };
    ui::detail(&format!("replaying create webhook --group {} --version {} --kind {}", r.group, r.version, r.kind));
    let replay = CreateWebhookArgs {
        api: KindArgs::new(&r.group, &r.version, &r.kind),
        defaulting: w.defaulting,
        programmatic_validation: w.validation,
        conversion: w.conversion,
        spoke: w.spoke.clone(),
        defaulting_path: w.defaulting_path.clone(),
        validation_path: w.validation_path.clone(),
        force: false,
        dry_run: false,
    };
    create_webhook::run(output, &replay)
}
