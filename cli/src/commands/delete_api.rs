//! `rop delete api`: removes what `rop create api` added for one kind in one version — its
//! files (if unchanged since rop wrote them, or with `--force`), its marker insertions, its
//! PROJECT entry, and its generated CRD when no other version of the kind remains.

use std::collections::HashSet;
use std::path::Path;

use anyhow::bail;

use crate::project::{self, Project};
use crate::scaffold::builtin_marker;
use crate::scaffold::deploy_image;
use crate::scaffold::markers;
use crate::scaffold::plan::{self, Change, IfExists, Plan};
use crate::scaffold::resource::{self, KindNames};
use crate::scaffold::templates::Templates;
use crate::ui;

/// Flags of `rop delete api`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:\n  rop delete api --group cache --version v1alpha1 --kind Memcached --dry-run")]
pub struct DeleteApiArgs {
    /// API group without the domain, e.g. `cache`.
    #[arg(long)]
    pub group: String,
    /// API version, e.g. `v1alpha1`.
    #[arg(long)]
    pub version: String,
    /// Kind, e.g. `Memcached`.
    #[arg(long)]
    pub kind: String,
    /// Delete the kind's files even if they were edited since rop wrote them.
    #[arg(long)]
    pub force: bool,
    /// Print what would be deleted or changed, and change nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// Runs `rop delete api` in the project at `root`.
///
/// # Errors
/// Outside a project, an API that PROJECT does not list, files edited since rop wrote them
/// (without `--force`), or a failed write; in every case nothing is changed on disk.
pub fn run(root: &Path, args: &DeleteApiArgs) -> anyhow::Result<()> {
    let mut project = Project::load(root)?;
    let Some(index) = project
        .resources
        .iter()
        .position(|r| r.group == args.group && r.version == args.version && r.kind == args.kind)
    else {
        let listed: Vec<String> =
            project.resources.iter().map(|r| format!("{}/{} {}", r.group, r.version, r.kind)).collect();
        bail!(
            "PROJECT has no API {}/{} {}; it has: {}",
            args.group,
            args.version,
            args.kind,
            if listed.is_empty() { "none".to_string() } else { listed.join(", ") }
        );
    };
    let (group, kind, version) = (&args.group, &args.kind, &args.version);
    if project.resources[index].webhooks.is_some() {
        bail!(
            "{group}/{version} {kind} has webhooks: delete them first with `rop delete webhook --group {group} --version {version} --kind {kind}`"
        );
    }
    if let Some(hub) = project.resources.iter().find(|r| {
        &r.group == group && &r.kind == kind && r.webhooks.as_ref().is_some_and(|w| w.spoke.contains(version))
    }) {
        bail!(
            "{group}/{version} {kind} is a spoke of the conversion webhook of {}: delete that first with `rop delete webhook --group {group} --version {} --kind {kind} --conversion`",
            hub.version,
            hub.version
        );
    }
    let removed = project.resources.remove(index);
    let k = KindNames::of(&project, &removed);
    let namespaced = removed.api.as_ref().is_none_or(|a| a.namespaced);
    let header = resource::header_of(root);
    let templates = Templates::load(root)?;
    let scaffold = resource::describe(&project, &k, removed.api.is_some(), removed.controller, &|_| true);
    // A kind created with `--image` was written from the deploy-image templates.
    let image = deploy_image::recorded(&project, &k.group, &k.version, &k.kind)?
        .map(|options| deploy_image::DeployImage::from_options(&options))
        .transpose()?;
    deploy_image::record(&mut project, &k, None)?;
    let mut plan = Plan::new(root);

    // Files and fragments other resources still need (the roles of a kind with other
    // versions, a shared version module line, the CRD entry of the kind) stay.
    let mut needed_files = HashSet::new();
    let mut needed = HashSet::new();
    for r in &project.resources {
        let other = KindNames::of(&project, r);
        let s = resource::describe(&project, &other, r.api.is_some(), r.controller, &|_| true);
        needed_files.extend(s.files.into_iter().map(|f| f.path));
        needed.extend(s.inserts.into_iter().map(|i| (i.path, i.fragment)));
    }
    for f in scaffold.files.iter().filter(|f| !needed_files.contains(&f.path)) {
        let Some(on_disk) = plan.current(&f.path)? else { continue };
        // The types file was written with or without `storage`; either is rop's own text.
        let mut variants = Vec::new();
        for storage in [true, false] {
            let mut context = k.context(&project, namespaced, storage, &header);
            let mut template = f.template.as_str();
            if let Some(image) = &image {
                image.add_to(&mut context, &k);
                template = image.template(template);
            }
            variants.push(templates.render(template, &context)?);
        }
        let expected = variants.iter().find(|v| **v == on_disk).unwrap_or(&variants[0]).clone();
        plan.remove(&f.path, Some(expected));
    }

    if removed.core
        && let Some(current) = plan.current(builtin_marker::FILE)?
    {
        // Out first, so that the marker's block is rop's fragment again.
        let mut text = builtin_marker::CONTROLLER
            .iter()
            .fold(current, |text, attribute| builtin_marker::remove_attribute(&text, &k, attribute));
        // The kind has no webhooks (refused above), so nothing else uses its marker type; one
        // with attributes of the user's (`owns(...)`) is not rop's block and goes whole.
        let block = scaffold.inserts.iter().find(|i| i.path == builtin_marker::FILE);
        if block.is_some_and(|b| markers::remove(&text, &b.fragment) == text)
            && text.lines().any(|l| l.trim() == builtin_marker::anchor(&k))
        {
            if !args.force {
                bail!(
                    "{}: the marker type {} was edited since rop wrote it: pass --force to delete it with its edits",
                    builtin_marker::FILE,
                    builtin_marker::target(&k)
                );
            }
            text = builtin_marker::remove_item(&text, &k);
        }
        plan.file(builtin_marker::FILE, text, IfExists::Overwrite);
    }
    for i in &scaffold.inserts {
        if needed.contains(&(i.path.clone(), i.fragment.clone())) {
            continue;
        }
        if let Some(current) = plan.current(&i.path)? {
            plan.file(&i.path, markers::remove(&current, &i.fragment), IfExists::Overwrite);
        }
    }

    // The version module goes with its last kind, and (multigroup) the group module with its
    // last version, if nothing but rop's text is left in them.
    let context = k.context(&project, namespaced, true, &header);
    let version_in_use =
        project.resources.iter().any(|r| r.group == k.group && r.version == k.version && r.api.is_some());
    let group_in_use = project.resources.iter().any(|r| r.group == k.group && r.api.is_some());
    let mut modules = vec![(format!("{}/mod.rs", k.api_dir()), "api/api/src/version/mod.rs.tera", version_in_use)];
    if k.multigroup {
        modules.push((format!("api/src/{}/mod.rs", k.group_module()), "api/api/src/group/mod.rs.tera", group_in_use));
    }
    for (module, template, in_use) in modules {
        if removed.api.is_none() || in_use {
            continue;
        }
        if let Some(left) = plan.current(&module)? {
            // Compared without layout: a module the user ran `cargo fmt` over is still rop's own.
            if markers::same_code(&left, &templates.render(template, &context)?) {
                plan.remove(&module, None);
            }
        }
    }

    // The marker file goes with its last marker type, if nothing but rop's text is left in it.
    if removed.core
        && let Some(left) = plan.current(builtin_marker::FILE)?
        && markers::same_code(&left, &templates.render(builtin_marker::TEMPLATE, &context)?)
    {
        plan.remove(builtin_marker::FILE, None);
    }

    // The generated CRD holds every version of the kind: it goes with the last one.
    let kind_remains = project.resources.iter().any(|r| r.group == k.group && r.kind == k.kind && r.api.is_some());
    let crd = format!("config/crd/bases/{}_{}.yaml", k.full_group, k.plural);
    if removed.api.is_some() && !kind_remains && root.join(&crd).is_file() {
        plan.remove(&crd, None);
    }

    plan.file(project::FILE, project.to_text(), IfExists::Overwrite);

    let Some(entries) = plan.finish(args.force, args.dry_run, "rop delete api would change")? else { return Ok(()) };
    let changed: Vec<_> = entries.into_iter().filter(|e| e.change != Change::Unchanged).collect();
    ui::info(&plan::summary(&changed));
    ui::info("Next: run `rop generate` to update config/crd and config/rbac/role.yaml");
    Ok(())
}
