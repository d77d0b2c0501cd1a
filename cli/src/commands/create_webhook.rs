//! `rop create webhook`: defaulting, validating and conversion webhooks for a kind version,
//! with their server registrations, tests, manifests and certificates (kubebuilder's
//! `create webhook`, with its rules for the flags).

use std::path::Path;

use anyhow::bail;

use super::args::KindArgs;
use crate::builtin;
use crate::names;
use crate::project::{self, Project, Resource, Webhooks};
use crate::rust_source;
use crate::scaffold::kind::KindNames;
use crate::scaffold::plan::{self, IfExists, Plan};
use crate::scaffold::resource;
use crate::scaffold::spec::Scaffold;
use crate::scaffold::templates::Templates;
use crate::scaffold::webhook::{self, AttributeTarget};
use crate::ui;

/// Flags of `rop create webhook`.
#[derive(Debug, clap::Args)]
#[command(
    mut_arg("version", |a| a.help("API version of the kind the webhooks are for, e.g. `v1`; with --conversion, the hub")),
    mut_arg("kind", |a| a.help("Kind, e.g. `Memcached`; it must have been created with `rop create api`")),
    after_help = "Example:
  rop create webhook --group cache --version v1alpha1 --kind Memcached \\
      --defaulting --programmatic-validation
  rop create webhook --group cache --version v1 --kind Memcached \\
      --conversion --spoke v1alpha1,v2")]
pub struct CreateWebhookArgs {
    #[command(flatten)]
    pub api: KindArgs,
    /// A defaulting (mutating) webhook: a `Defaulter` that fills in fields.
    #[arg(long)]
    pub defaulting: bool,
    /// A validating webhook: a `Validator` for create, update and delete.
    #[arg(long)]
    pub programmatic_validation: bool,
    /// A conversion webhook with --version as the hub (it must be the storage version).
    #[arg(long)]
    pub conversion: bool,
    /// With --conversion: the other versions, converted to and from the hub (comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub spoke: Vec<String>,
    /// With --defaulting: the URL path of the webhook (default /mutate-<group>-<version>-<kind>).
    #[arg(long)]
    pub defaulting_path: Option<String>,
    /// With --programmatic-validation: the URL path (default /validate-<group>-<version>-<kind>).
    #[arg(long)]
    pub validation_path: Option<String>,
    /// Scaffold webhook types the kind already has again: what rop wrote of them and is
    /// missing comes back (a type you edited is refused: remove it first).
    #[arg(long)]
    pub force: bool,
    /// Print the files that would be written, and write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// Checks a custom webhook path: absolute, no spaces, not the conversion path.
fn check_path(flag: &str, path: &str) -> anyhow::Result<()> {
    if !path.starts_with('/') || path.chars().any(|c| c.is_whitespace() || c == '"' || c == '\\') {
        bail!("{flag} \"{path}\" is not a URL path: start it with '/' and leave out spaces and quotes");
    }
    // The API server takes a webhook path whose segments are DNS-1123 subdomains.
    if path != "/" && !path[1..].split('/').all(rop::names::is_dns1123_subdomain) {
        bail!(
            "{flag} \"{path}\": each segment of a webhook path must be lower-case letters, digits, '-' and '.', as the API server requires, e.g. /mutate-memcached"
        );
    }
    if path == "/convert" {
        bail!("{flag} \"/convert\" is the conversion webhook's path: choose another");
    }
    Ok(())
}

/// The webhook types the kind version has after this command, checked against what it has.
fn check(root: &Path, project: &Project, args: &CreateWebhookArgs) -> anyhow::Result<(Resource, Webhooks, Webhooks)> {
    if !args.spoke.is_empty() && !args.conversion {
        bail!("--spoke names the versions of a conversion webhook: add --conversion, or drop --spoke");
    }
    if !args.defaulting && !args.programmatic_validation && !args.conversion {
        bail!("rop create webhook needs at least one of --defaulting, --programmatic-validation and --conversion");
    }
    if args.conversion && builtin::find(&args.api.group, &args.api.version, &args.api.kind).is_some() {
        bail!(
            "{} is a built-in kind: the API server converts its versions itself; --conversion is for kinds of this project",
            args.api.kind
        );
    }
    if args.conversion && args.spoke.is_empty() {
        let others: Vec<&str> = project
            .resources
            .iter()
            .filter(|r| {
                !r.core && r.group == args.api.group && r.kind == args.api.kind && r.version != args.api.version
            })
            .map(|r| r.version.as_str())
            .collect();
        if others.is_empty() {
            bail!(
                "--conversion needs --spoke with the other versions of {}, and it has none yet: add one with `rop create api --group {} --version <version> --kind {} --controller=false`",
                args.api.kind,
                args.api.group,
                args.api.kind
            );
        }
        bail!("--conversion needs --spoke with the other versions of {}: --spoke {}", args.api.kind, others.join(","));
    }
    match (&args.defaulting_path, args.defaulting) {
        (Some(_), false) => bail!("--defaulting-path is for a defaulting webhook: add --defaulting, or drop it"),
        (Some(path), true) => check_path("--defaulting-path", path)?,
        _ => {}
    }
    match (&args.validation_path, args.programmatic_validation) {
        (Some(_), false) => {
            bail!("--validation-path is for a validating webhook: add --programmatic-validation, or drop it")
        }
        (Some(path), true) => check_path("--validation-path", path)?,
        _ => {}
    }
    let custom = project.find(&args.api.group, &args.api.version, &args.api.kind).filter(|r| r.api.is_some());
    let resource = match (custom, builtin::find(&args.api.group, &args.api.version, &args.api.kind)) {
        (Some(resource), _) => resource.clone(),
        (None, Some(b)) => {
            if args.conversion {
                bail!(
                    "{} is a built-in kind: the API server converts its versions itself; --conversion is for kinds of this project",
                    args.api.kind
                );
            }
            project
                .find_core(&args.api.group, &args.api.version, &args.api.kind)
                .cloned()
                .unwrap_or_else(|| Resource::builtin(&args.api.group, &args.api.version, &args.api.kind, b))
        }
        (None, None) => {
            names::check_group(&args.api.group, &project.domain)?;
            names::check_version(&args.api.version)?;
            names::check_kind(&args.api.kind)?;
            bail!(
                "no API {}/{} {} in PROJECT: webhooks are for kinds created with rop (run `rop create api --group {} --version {} --kind {}` first) and for the built-in kinds {}",
                args.api.group,
                args.api.version,
                args.api.kind,
                args.api.group,
                args.api.version,
                args.api.kind,
                builtin::listed()
            );
        }
    };
    let old = resource.webhooks.clone().unwrap_or_default();
    // New spokes join an existing conversion without --force; naming a spoke it has is a rerun.
    let only_new_spokes = args.conversion && args.spoke.iter().all(|s| !old.spoke.contains(s));
    for (asked, has, which, flag) in [
        (args.defaulting, old.defaulting, "defaulting", "--defaulting"),
        (args.programmatic_validation, old.validation, "validating", "--programmatic-validation"),
        (args.conversion && !only_new_spokes, old.conversion, "conversion", "--conversion"),
    ] {
        if asked && has && !args.force {
            bail!(
                "{}/{} {} already has a {which} webhook: pass --force with {flag} to scaffold that one again (remove its type first if you edited it; other webhook types keep theirs)",
                args.api.group,
                args.api.version,
                args.api.kind
            );
        }
    }
    if args.conversion && !resource.core {
        check_hub_is_storage(root, project, &resource)?;
    }
    for spoke in &args.spoke {
        names::check_version(spoke)?;
        if spoke == &args.api.version {
            bail!("--spoke {spoke} is the hub version itself: list the other versions of {}", args.api.kind);
        }
        if project.find(&args.api.group, spoke, &args.api.kind).and_then(|r| r.api.as_ref()).is_none() {
            bail!(
                "--spoke {spoke}: {} has no version {spoke} in PROJECT; create it first with `rop create api --group {} --version {spoke} --kind {} --controller=false`",
                args.api.kind,
                args.api.group,
                args.api.kind
            );
        }
        if let Some(other) = project.resources.iter().find(|r| {
            r.group == args.api.group
                && r.kind == args.api.kind
                && r.version != args.api.version
                && r.webhooks.as_ref().is_some_and(|w| w.conversion)
        }) {
            // After `storage` moved, the old hub is no hub any more (the manager refuses it);
            // the way out is to move the conversion webhook.
            if marked_storage(root, project, other) == Some(false) {
                bail!(
                    "{kind} converts through hub {old}, which is no longer its storage version ({new} is): the hub of a conversion is the storage version, so move the webhook: `rop delete webhook --group {group} --version {old} --kind {kind} --conversion` (edited conversion code needs --force there: keep a copy of it), then run this again",
                    kind = args.api.kind,
                    old = other.version,
                    new = args.api.version,
                    group = args.api.group,
                );
            }
            bail!(
                "{} already converts through hub {}: a kind has one hub, pass --version {}",
                args.api.kind,
                other.version,
                other.version
            );
        }
    }
    let new = Webhooks {
        webhook_version: "v1".into(),
        defaulting: args.defaulting,
        validation: args.programmatic_validation,
        conversion: args.conversion,
        spoke: args.spoke.clone(),
        defaulting_path: args.defaulting_path.clone(),
        validation_path: args.validation_path.clone(),
    };
    let mut all = old.clone();
    all.webhook_version = "v1".into();
    all.defaulting |= new.defaulting;
    all.validation |= new.validation;
    all.conversion |= new.conversion;
    for spoke in &new.spoke {
        if !all.spoke.contains(spoke) {
            all.spoke.push(spoke.clone());
        }
    }
    if args.defaulting {
        all.defaulting_path = new.defaulting_path.clone();
    }
    if args.programmatic_validation {
        all.validation_path = new.validation_path.clone();
    }
    Ok((resource, new, all))
}

/// Whether the types file of `r` (under `root`) marks its version `storage` in a `#[rop(...)]`;
/// `None` when it cannot be read or parsed.
fn marked_storage(root: &Path, project: &Project, r: &Resource) -> Option<bool> {
    let k = KindNames::of(project, r);
    let text = std::fs::read_to_string(root.join(format!("{}/{}.rs", k.api_dir(), k.snake))).ok()?;
    crate::rust_source::rop_flag(&text, "storage")
}

/// The version of `group`/`kind` whose types file marks it `storage`, if one does.
pub(crate) fn storage_version<'p>(root: &Path, project: &'p Project, group: &str, kind: &str) -> Option<&'p Resource> {
    project
        .resources
        .iter()
        .filter(|r| !r.core && r.group == group && r.kind == kind)
        .find(|r| marked_storage(root, project, r) == Some(true))
}

/// Refuses a hub that is not the kind's storage version (the conversion webhook converts
/// through the version the API server stores) when another version of the kind, a spoke or
/// not, is marked `storage`.
fn check_hub_is_storage(root: &Path, project: &Project, hub: &Resource) -> anyhow::Result<()> {
    if marked_storage(root, project, hub) != Some(false) {
        return Ok(());
    }
    if let Some(storage) = storage_version(root, project, &hub.group, &hub.kind) {
        bail!(
            "{} is not the storage version of {}, {} is (its #[rop(...)] says `storage`): the hub of a conversion is the storage version; pass --version {} and the others as --spoke, or move `storage` to {} first",
            hub.version,
            hub.kind,
            storage.version,
            storage.version,
            hub.version
        );
    }
    Ok(())
}

/// `text` (a kind's types file) with `attributes` just above the `anchor` line (`pub struct
/// <Kind>Spec`, or a built-in kind's `pub struct <Kind><Version>;`), each
/// unless an attribute for the same webhook type is there already. A mutating webhook's
/// attribute goes above a validating one's, so the order does not depend on the commands'.
///
/// Every other line stays byte for byte as it was (its indentation, its line ending): the
/// attribute line gets the anchor's indentation and line ending, and nothing reformats the file.
fn add_attributes(target: &AttributeTarget, text: &str, attributes: &[String]) -> anyhow::Result<String> {
    let (path, anchor) = (&target.file, &target.declaration);
    let mut lines: Vec<String> = text.split_inclusive('\n').map(str::to_string).collect();
    for attribute in attributes {
        let compact: String = attribute.chars().filter(|c| !c.is_whitespace()).collect();
        let which = compact.split(['(', ',', ')']).nth(2).unwrap_or_default();
        let found = rust_source::type_attributes(&lines.concat(), &target.type_name).map_err(|e| {
            anyhow::anyhow!(
                "{path} does not parse as Rust{}: {e}: fix it, then run the command again",
                rust_source::error_place(&e)
            )
        })?;
        let Some(found) = found else {
            bail!(
                "{path} has no `{anchor}` line to put the webhook attribute on: add {attribute} to your spec type yourself, or restore the line"
            );
        };
        if found.webhooks.iter().any(|w| w.which == which) {
            continue;
        }
        let mut at = found.declaration;
        if which == "mutating"
            && let Some(validating) = found.webhooks.iter().find(|w| w.which == "validating")
        {
            at = validating.first;
        }
        let new: Vec<String> = attribute.lines().map(|l| like_line(&lines[at], l)).collect();
        lines.splice(at..at, new);
    }
    Ok(lines.concat())
}

/// `content` as a line beside `line`: with its indentation and its line ending (`\n` when it
/// has none, the last line of a file without a final newline).
fn like_line(line: &str, content: &str) -> String {
    let indent: String = line.chars().take_while(|c| *c == ' ' || *c == '\t').collect();
    let ending = if line.ends_with("\r\n") { "\r\n" } else { "\n" };
    format!("{indent}{content}{ending}")
}

/// Applies `scaffold` to `plan`: its files and fragments, then its attributes on `target`.
pub fn apply(
    plan: &mut Plan,
    scaffold: &Scaffold,
    templates: &Templates,
    target: &AttributeTarget,
) -> anyhow::Result<()> {
    plan.apply(scaffold, templates)?;
    if !scaffold.attributes.is_empty() {
        let file = &target.file;
        let current = plan.current(file)?.ok_or_else(|| anyhow::anyhow!("{file} is missing: restore it"))?;
        plan.edit(file, add_attributes(target, &current, &scaffold.attributes)?);
    }
    Ok(())
}

/// Refuses to add a defaulter or validator to the module at `path` (`module_file` in
/// messages) when the module has one of that name already that is not as rop wrote it (edited,
/// or kept by `delete webhook`): a second one would not compile, and replacing the edited one
/// would lose the user's code.
fn refuse_edited_types(path: &Path, module_file: &str, scaffold: &Scaffold) -> anyhow::Result<()> {
    let Ok(current) = std::fs::read_to_string(path) else { return Ok(()) };
    for insert in scaffold.inserts.iter().filter(|i| i.path == module_file && i.marker == "webhook-impls") {
        let Some(declaration) = insert.fragment.lines().find(|l| l.starts_with("pub struct ")) else { continue };
        let declared = current.lines().any(|line| line.trim() == declaration.trim());
        if declared && crate::scaffold::markers::remove(&current, &insert.fragment) == current {
            bail!(
                "{module_file} has `{declaration}` with code of yours: rop does not scaffold it again over your edits; remove that type and its `impl` (or rename them), then run the command again"
            );
        }
    }
    Ok(())
}

/// Runs `rop create webhook` in the project at `root`.
///
/// # Errors
/// Outside a project, contradicting flags, a kind that does not exist, a webhook type the kind
/// has (without `--force`), a missing scaffold marker, or a failed write; in every case nothing
/// is changed on disk.
pub fn run(root: &Path, args: &CreateWebhookArgs) -> anyhow::Result<()> {
    let mut project = Project::load(root)?;
    project.check_tree(root)?;
    let (resource, new, all) = check(root, &project, args)?;
    if resource.core
        && let Some(b) = builtin::find(&resource.group, &resource.version, &resource.kind)
    {
        project.list_builtin(&resource.group, &resource.version, &resource.kind, b);
    }
    let k = KindNames::of(&project, &resource);
    if resource.core && !args.dry_run {
        // kubebuilder warns of the same: the manager's own Pods can need the webhook to start.
        ui::warning(&format!(
            "a webhook for {} applies to every {} in the cluster, the manager's own too: with failure_policy \"Fail\" a stopped manager blocks them; narrow it with namespace_selector or object_selector in api/src/builtin.rs",
            resource.kind, resource.kind
        ));
    }
    let templates = Templates::load(root)?;
    let header = resource::header_of(root);
    let mut plan = Plan::new(root);
    let target = AttributeTarget::of(&k, resource.core);
    // The webhook module is rendered with every type the kind has after this command when it
    // is new (or forced), and gets only the new types' fragments when rop made it before.
    let module_file = format!("src/webhook/{}.rs", k.webhook_module());
    let had_module = resource.webhooks.as_ref();
    let had_module = had_module.is_some_and(|w| w.defaulting || w.validation);
    // --force re-scaffolds the named types' fragments, never the others' code in the module.
    let fresh_module = !had_module || !root.join(&module_file).is_file();
    let (admission, spokes) = if fresh_module { (&all, &all.spoke) } else { (&new, &new.spoke) };
    let described = Webhooks {
        defaulting: admission.defaulting,
        validation: admission.validation,
        conversion: !spokes.is_empty() && new.conversion,
        spoke: if args.force { all.spoke.clone() } else { spokes.clone() },
        ..all.clone()
    };
    let mut scaffold = webhook::describe(&project, &k, &described, &templates, &header)?;
    if !fresh_module {
        scaffold.files.retain(|f| f.path != module_file);
        refuse_edited_types(&root.join(&module_file), &module_file, &scaffold)?;
    }
    apply(&mut plan, &scaffold, &templates, &target)?;

    let (group, version, kind) = (&resource.group, &resource.version, &resource.kind);
    if let Some(r) = project.find_mut(resource.core, group, version, kind) {
        r.webhooks = Some(all);
    }
    plan.file(project::FILE, project.to_text(), IfExists::Overwrite);

    let Some(changes) = plan.finish(args.force, args.dry_run, "rop create webhook would write")? else {
        return Ok(());
    };
    ui::info(&plan::summary(&changes));
    let mut next = Vec::new();
    if new.defaulting || new.validation {
        next.push(format!("fill in src/webhook/{}.rs", k.webhook_module()));
    }
    if new.conversion {
        next.push(format!(
            "make sure {} is the storage version of {} and fill in the spokes' *_conversion.rs",
            k.version, k.kind
        ));
    }
    next.push("run `make manifests` (to deploy, cert-manager must be in the cluster, or config/default must use config/webhook-self-managed)".into());
    ui::info(&format!("Next: {}", next.join(", then ")));
    Ok(())
}
