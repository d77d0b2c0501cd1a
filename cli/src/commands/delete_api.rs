//! `rop delete api`: removes what `rop create api` added for one kind in one version — its
//! files (if unchanged since rop wrote them, or with `--force`), its marker insertions, its
//! PROJECT entry, and its generated CRD when no other version of the kind remains.

use std::collections::HashSet;
use std::path::Path;

use anyhow::bail;

use super::args::KindArgs;
use crate::project::{self, Project};
use crate::scaffold::builtin_marker;
use crate::scaffold::deploy_image;
use crate::scaffold::kind::KindNames;
use crate::scaffold::markers;
use crate::scaffold::plan::{self, Change, IfExists, Plan};
use crate::scaffold::resource::{self, ApiOptions};
use crate::scaffold::templates::Templates;
use crate::ui;

/// Flags of `rop delete api`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:\n  rop delete api --group cache --version v1alpha1 --kind Memcached --dry-run")]
pub struct DeleteApiArgs {
    #[command(flatten)]
    pub api: KindArgs,
    /// Delete the kind's files even if they were edited since rop wrote them.
    #[arg(long)]
    pub force: bool,
    /// Keep the kind's controller, which this version carries, and make it reconcile
    /// VERSION of the kind instead: its `use` lines and its test's sample move there.
    #[arg(long, value_name = "VERSION", value_parser = clap::builder::NonEmptyStringValueParser::new())]
    pub move_controller_to: Option<String>,
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
    let Some(index) = project.position(&args.api.group, &args.api.version, &args.api.kind) else {
        let listed: Vec<String> =
            project.resources.iter().map(|r| format!("{}/{} {}", r.group, r.version, r.kind)).collect();
        bail!(
            "PROJECT has no API {}/{} {}; it has: {}",
            args.api.group,
            args.api.version,
            args.api.kind,
            if listed.is_empty() { "none".to_string() } else { listed.join(", ") }
        );
    };
    let (group, kind, version) = (&args.api.group, &args.api.kind, &args.api.version);
    if project.resources[index].webhooks.is_some() {
        bail!(
            "{group}/{version} {kind} has webhooks: delete them first with `rop delete webhook --group {group} --version {version} --kind {kind}`"
        );
    }
    if let Some(hub) = project.resources.iter().find(|r| {
        &r.group == group && &r.kind == kind && r.webhooks.as_ref().is_some_and(|w| w.spoke.contains(version))
    }) {
        bail!(
            "{group}/{version} {kind} is a spoke of the conversion webhook of {}: delete its conversion first with `rop delete webhook --group {group} --version {} --kind {kind} --conversion --spoke {version}`",
            hub.version,
            hub.version
        );
    }
    let heir = controller_heir(root, &project, index, args.move_controller_to.as_deref())?;
    let mut removed = project.resources.remove(index);
    let k = KindNames::of(&project, &removed);
    let mut plan = Plan::new(root);
    // The heir's index once the deleted entry is out.
    if let Some(heir) = heir.map(|h| if h > index { h - 1 } else { h }) {
        project.resources[heir].controller = true;
        removed.controller = false;
        let to = KindNames::of(&project, &project.resources[heir]);
        move_controller(root, &mut plan, &project, &k, &to)?;
    }
    let namespaced = removed.api.as_ref().is_none_or(|a| a.namespaced);
    let header = resource::header_of(root);
    let templates = Templates::load(root)?;
    // A kind created with `--image` was written from the deploy-image templates.
    let image = deploy_image::recorded(&project, &k.group, &k.version, &k.kind)?
        .map(|options| deploy_image::DeployImage::from_options(&options))
        .transpose()?;
    // The types file was written with or without `storage`; either is rop's own text.
    let [scaffold, unstored] = [true, false].map(|storage| {
        let options = ApiOptions {
            resource: removed.api.is_some(),
            controller: removed.controller,
            namespaced,
            storage,
            image: image.as_ref(),
            header: &header,
        };
        resource::describe(&project, &k, &options)
    });
    deploy_image::record(&mut project, &k, None)?;

    // Files and fragments other resources still need (the roles of a kind with other
    // versions, a shared version module line, the CRD entry of the kind) stay.
    let mut needed_files = HashSet::new();
    let mut needed = HashSet::new();
    for r in &project.resources {
        let other = KindNames::of(&project, r);
        let options = ApiOptions::of(r, &header);
        let s = resource::describe(&project, &other, &options);
        needed_files.extend(s.files.into_iter().map(|f| f.path));
        needed.extend(s.inserts.into_iter().map(|i| (i.path, i.fragment)));
    }
    // The files several kinds share (the version module, the marker file) go by the rules below.
    let own = scaffold.files.iter().zip(&unstored.files).filter(|(f, _)| f.if_exists != IfExists::Skip);
    for (f, unstored) in own.filter(|(f, _)| !needed_files.contains(&f.path)) {
        let Some(on_disk) = plan.current(&f.path)? else { continue };
        let variants = [f.render(&templates)?, unstored.render(&templates)?];
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
                    k.marker_type()
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
    // A kind an earlier rop scaffolded exports its three types by name.
    let version_mod = format!("{}/mod.rs", k.api_dir());
    if removed.api.is_some()
        && let Some(current) = plan.current(&version_mod)?
        && let Some(kept) = crate::scaffold::layout::without_listed_exports(&current, &k.snake)
    {
        plan.file(&version_mod, kept, IfExists::Overwrite);
    }

    // The version module goes with its last kind, and (multigroup) the group module with its
    // last version, and the marker file with its last marker type, if nothing but rop's text
    // is left in them.
    let version_in_use =
        project.resources.iter().any(|r| r.group == k.group && r.version == k.version && r.api.is_some());
    let group_in_use = project.resources.iter().any(|r| r.group == k.group && r.api.is_some());
    let modules = [
        (format!("{}/mod.rs", k.api_dir()), version_in_use),
        (format!("api/src/{}/mod.rs", k.group_module()), group_in_use),
        (builtin_marker::FILE.to_string(), false),
    ];
    for (module, in_use) in modules {
        // Only the files this kind's scaffold lists: the group module only multigroup, the
        // marker file only for a built-in kind.
        let Some(spec) = scaffold.files.iter().find(|f| f.path == module) else { continue };
        if in_use {
            continue;
        }
        if let Some(left) = plan.current(&module)? {
            // Compared without layout: a module the user ran `cargo fmt` over is still rop's own.
            if markers::same_code(&left, &spec.render(&templates)?) {
                plan.remove(&module, None);
            }
        }
    }

    // The generated CRD holds every version of the kind: it goes with the last one.
    let kind_remains = project.resources.iter().any(|r| r.group == k.group && r.kind == k.kind && r.api.is_some());
    let crd = format!("config/crd/bases/{}_{}.yaml", k.full_group, k.plural);
    if removed.api.is_some() && !kind_remains && root.join(&crd).is_file() {
        plan.remove(&crd, None);
    }
    // A consumed kind's CRD, kept for the tests by `rop import crd --types-only`.
    let external = format!("config/crd/external/{}_{}.yaml", k.full_group, k.plural);
    if removed.external && !kind_remains && root.join(&external).is_file() {
        plan.remove(&external, None);
    }

    plan.file(project::FILE, project.to_text(), IfExists::Overwrite);

    let Some(entries) = plan.finish(args.force, args.dry_run, "rop delete api would change")? else { return Ok(()) };
    let changed: Vec<_> = entries.into_iter().filter(|e| e.change != Change::Unchanged).collect();
    ui::info(&plan::summary(&changed));
    ui::info("Next: run `rop generate` to update config/crd and config/rbac/role.yaml");
    Ok(())
}

/// Where the controller of the kind of `project.resources[index]` goes when that version is
/// deleted: `None` when it has no controller; the index of `to` when it names another version
/// of the kind. A controller on a version that is deleted while the kind keeps others would be
/// deleted with it, so that needs `--move-controller-to`.
fn controller_heir(root: &Path, project: &Project, index: usize, to: Option<&str>) -> anyhow::Result<Option<usize>> {
    let gone = &project.resources[index];
    let others: Vec<(usize, &project::Resource)> = project
        .resources
        .iter()
        .enumerate()
        .filter(|(i, r)| *i != index && r.group == gone.group && r.kind == gone.kind && r.api.is_some())
        .collect();
    let (group, version, kind) = (&gone.group, &gone.version, &gone.kind);
    match to {
        None if !gone.controller || gone.core || others.is_empty() => Ok(None),
        None => {
            let names: Vec<&str> = others.iter().map(|(_, r)| r.version.as_str()).collect();
            // The storage version, where the controller belongs, if one of them is marked so.
            let storage = super::create_webhook::storage_version(root, project, group, kind)
                .filter(|r| &r.version != version)
                .map_or(names[0], |r| r.version.as_str());
            bail!(
                "{group}/{version} {kind} carries the kind's controller, and {kind} keeps {}: deleting the version would delete the controller too. Pass --move-controller-to {storage} to keep it, reconciling that version (its `use` lines and its test's sample move; docs/api-versions.md, section 5)",
                names.join(", "),
            )
        }
        Some(_) if !gone.controller => {
            bail!("--move-controller-to: {group}/{version} {kind} has no controller to move")
        }
        Some(to) if to == version.as_str() => {
            let names: Vec<&str> = others.iter().map(|(_, r)| r.version.as_str()).collect();
            bail!(
                "--move-controller-to {to}: {to} is the version being deleted; name one that {kind} keeps{}",
                if names.is_empty() { String::new() } else { format!(": {}", names.join(", ")) }
            )
        }
        Some(to) => match others.iter().find(|(_, r)| r.version == to) {
            Some((i, _)) => Ok(Some(*i)),
            None => bail!(
                "--move-controller-to {to}: {kind} has no version {to} in PROJECT{}",
                if others.is_empty() {
                    String::new()
                } else {
                    let names: Vec<&str> = others.iter().map(|(_, r)| r.version.as_str()).collect();
                    format!(" (it keeps {})", names.join(", "))
                }
            ),
        },
    }
}

/// Points the controller of `from`'s kind at version `to`: the `use` lines of
/// `src/controller/<kind>.rs` and the sample of `tests/<kind>_controller.rs`, the two places
/// `rop create api` wrote the version into. `owns(...)` and `watches(...)` on the deleted
/// type are the user's to move (a warning says so).
fn move_controller(
    root: &Path,
    plan: &mut Plan,
    project: &Project,
    from: &KindNames,
    to: &KindNames,
) -> anyhow::Result<()> {
    let crate_name = project.api_crate();
    let edits = [
        (
            format!("src/controller/{}.rs", from.snake),
            format!("{crate_name}::{}::", from.api_module()),
            format!("{crate_name}::{}::", to.api_module()),
        ),
        (
            format!("tests/{}_controller.rs", from.snake),
            format!("\"{}\"", from.sample()),
            format!("\"{}\"", to.sample()),
        ),
    ];
    for (path, old, new) in edits {
        let Some(text) = plan.current(&path)? else { continue };
        if text.contains(&old) {
            plan.file(&path, text.replace(&old, &new), IfExists::Overwrite);
        } else {
            ui::warning(&format!("{path} does not name {old}: check that it now uses {new}"));
        }
    }
    let types = root.join(format!("{}/{}.rs", from.api_dir(), from.snake));
    if std::fs::read_to_string(&types).is_ok_and(|t| t.contains("owns(") || t.contains("watches(")) {
        ui::warning(&format!(
            "{}/{}.rs has owns(...) or watches(...), which the controller's watches come from: put them on {}/{}.rs",
            from.api_dir(),
            from.snake,
            to.api_dir(),
            to.snake
        ));
    }
    Ok(())
}
