//! `rop create api`: a new kind (or a new version of a kind) with its types, controller,
//! sample, roles and PROJECT entry, inserted at scaffold markers.

use std::path::Path;

use anyhow::bail;

use super::args::KindArgs;
use crate::builtin::{self, Builtin};
use crate::names;
use crate::project::{self, Api, Project};
use crate::scaffold::builtin_marker;
use crate::scaffold::deploy_image::{self, DeployImage};
use crate::scaffold::kind::KindNames;
use crate::scaffold::plan::{self, IfExists, Plan};
use crate::scaffold::resource::{self, ApiOptions};
use crate::scaffold::templates::Templates;
use crate::ui;

/// Parses `--flag`, `--flag=true` and `--flag=false` as kubebuilder accepts them.
fn bool_flag() -> clap::builder::ValueParser {
    clap::builder::BoolishValueParser::new().into()
}

/// Flags of `rop create api`.
#[derive(Debug, clap::Args)]
#[command(
    mut_arg("group", |a| a.help("API group without the domain, e.g. `cache` (the CRD's group is `cache.<domain>`)")),
    // `mut_arg` moves an argument to the end of the usage line: all three, to keep their order.
    mut_arg("version", |a| a),
    mut_arg("kind", |a| a.help("Kind, UpperCamelCase, e.g. `Memcached`")),
    after_help = "Example:\n  rop create api --group cache --version v1alpha1 --kind Memcached\n\nExample, a controller that runs an image as a Deployment per object:\n  rop create api --group cache --version v1alpha1 --kind Memcached \\\n      --image memcached:1.6.26-alpine --image-container-port 11211 \\\n      --image-container-command memcached,-m=64,-o,modern,-v \\\n      --run-as-user 1001\n\nExample, a controller for a kind Kubernetes serves:\n  rop create api --group core --version v1 --kind ServiceAccount \\\n      --resource=false"
)]
pub struct CreateApiArgs {
    #[command(flatten)]
    pub api: KindArgs,
    /// Plural resource name (default: the English plural of the lower-cased kind).
    #[arg(long)]
    pub plural: Option<String>,
    /// Namespace-scoped kind; `--namespaced=false` for a cluster-scoped one.
    #[arg(long, default_value = "true", num_args = 0..=1, default_missing_value = "true", value_parser = bool_flag())]
    pub namespaced: bool,
    /// Scaffold the types; `--resource=false` adds only a controller, for an existing kind or a
    /// kind Kubernetes serves (`--group core --version v1 --kind ServiceAccount`).
    #[arg(long, default_value = "true", num_args = 0..=1, default_missing_value = "true", value_parser = bool_flag())]
    pub resource: bool,
    /// Scaffold a controller (reconciler) for the kind.
    #[arg(long, default_value = "true", num_args = 0..=1, default_missing_value = "true", value_parser = bool_flag())]
    pub controller: bool,
    /// Container image the controller runs for every object, as a Deployment the object owns
    /// (kubebuilder's deploy-image plugin), e.g. `memcached:1.6.26-alpine`.
    #[arg(long, value_name = "IMAGE")]
    pub image: Option<String>,
    /// Port the image's container listens on (1–65535); becomes the spec's `containerPort`.
    #[arg(long, value_name = "PORT", allow_hyphen_values = true)]
    pub image_container_port: Option<String>,
    /// The image's command, words separated by commas, e.g. `memcached,-m=64,-o,modern,-v`.
    #[arg(long, value_name = "COMMAND")]
    pub image_container_command: Option<String>,
    /// User id the image's container runs as (not 0: it never runs as root); without it, the
    /// image's own user, which must not be root.
    #[arg(long, value_name = "UID", allow_hyphen_values = true)]
    pub run_as_user: Option<String>,
    /// What runs the image (with `--image`): `deployment` (the default), or `statefulset` for
    /// replicas with a stable name and volume each, a headless Service, a PodDisruptionBudget
    /// and an update rolled one ordinal at a time, each Pod awaited by a readiness probe on
    /// `--image-container-port`.
    #[arg(long, value_name = "WORKLOAD")]
    pub workload: Option<String>,
    /// Overwrite the kind's types, controller and sample if they exist (their edits are lost).
    #[arg(long)]
    pub force: bool,
    /// Print the files that would be written, and write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

impl CreateApiArgs {
    /// The deploy-image options (`--image` and its companions), checked.
    fn deploy_image(&self) -> anyhow::Result<Option<DeployImage>> {
        let flags = deploy_image::Flags {
            image: self.image.as_deref(),
            container_port: self.image_container_port.as_deref(),
            container_command: self.image_container_command.as_deref(),
            run_as_user: self.run_as_user.as_deref(),
            workload: self.workload.as_deref(),
        };
        DeployImage::from_flags(flags, self.namespaced, self.resource, self.controller)
    }
}

fn check(project: &Project, args: &CreateApiArgs) -> anyhow::Result<KindNames> {
    names::check_group(&args.api.group, &project.domain)?;
    names::check_version(&args.api.version)?;
    if let Some(warning) = names::version_warning(&args.api.version) {
        ui::warning(&warning);
    }
    names::check_kind(&args.api.kind)?;
    let lower = args.api.kind.to_lowercase();
    let plural = args.plural.clone().unwrap_or_else(|| names::pluralize(&lower));
    names::check_plural(&plural)?;
    let builtin_group = if args.api.group == "core" { "" } else { args.api.group.as_str() };
    if !args.resource
        && project.find(&args.api.group, &args.api.version, &args.api.kind).is_none()
        && builtin::KINDS.iter().any(|b| b.group == builtin_group)
    {
        bail!(
            "{}/{} {} is not a built-in kind rop scaffolds controllers for; it knows {}",
            args.api.group,
            args.api.version,
            args.api.kind,
            builtin::listed()
        );
    }
    if !project.multigroup
        && let Some(other) = project.resources.iter().find(|r| !r.core && !r.external && r.group != args.api.group)
    {
        bail!(
            "this project already has group \"{}\" and is not multigroup: use --group {}, or run `rop edit --multigroup` first to add group \"{}\"",
            other.group,
            other.group,
            args.api.group
        );
    }
    for r in project.resources.iter().filter(|r| !r.core && r.group == args.api.group) {
        if r.kind == args.api.kind && r.plural != plural {
            bail!(
                "kind {} already has plural \"{}\" in version {}: every version of a kind has the same plural, use --plural {}",
                r.kind,
                r.plural,
                r.version,
                r.plural
            );
        }
        if r.kind != args.api.kind && r.plural == plural {
            bail!(
                "plural \"{plural}\" is already the plural of kind {} in group {}: pass another --plural",
                r.kind,
                r.full_group()
            );
        }
        if r.kind == args.api.kind
            && r.version != args.api.version
            && let Some(api) = &r.api
            && api.namespaced != args.namespaced
        {
            let flag = if api.namespaced { "--namespaced" } else { "--namespaced=false" };
            bail!(
                "kind {} is {} in version {}: every version of a kind has the same scope, pass {flag}",
                r.kind,
                if api.namespaced { "namespaced" } else { "cluster-scoped" },
                r.version
            );
        }
    }
    let existing = project.find(&args.api.group, &args.api.version, &args.api.kind);
    if existing.is_some() && args.resource && !args.force {
        bail!(
            "API {}/{} {} already exists in PROJECT: pass --force to scaffold its types and controller again (their edits are lost)",
            args.api.group,
            args.api.version,
            args.api.kind
        );
    }
    if args.controller && !args.force && existing.is_some_and(|r| r.controller) {
        bail!(
            "{}/{} {} already has a controller: pass --force to scaffold it again (its edits are lost)",
            args.api.group,
            args.api.version,
            args.api.kind
        );
    }
    if !args.resource && existing.and_then(|r| r.api.as_ref()).is_none() {
        bail!(
            "--resource=false needs existing types for {}/{} {}: run `rop create api` without --resource=false first",
            args.api.group,
            args.api.version,
            args.api.kind
        );
    }
    if args.controller
        && let Some(other) = project.resources.iter().find(|r| {
            r.group == args.api.group && r.kind == args.api.kind && r.version != args.api.version && r.controller
        })
    {
        bail!(
            "kind {} already has a controller (scaffolded with version {}): one controller reconciles every version, pass --controller=false",
            args.api.kind,
            other.version
        );
    }
    Ok(KindNames::new(project, &args.api.group, &args.api.version, &args.api.kind, &plural))
}

/// Runs `rop create api` in the project at `root`.
///
/// # Errors
/// Outside a project, invalid names, an existing kind without `--force`, a controller for a
/// cluster-scoped kind in a namespace-scoped project, a missing scaffold marker, or a failed
/// write; in every case nothing is changed on disk.
pub fn run(root: &Path, args: &CreateApiArgs) -> anyhow::Result<()> {
    // The flags alone can be wrong: say so before looking at the project.
    let image = args.deploy_image()?;
    let mut project = Project::load(root)?;
    project.check_tree(root)?;
    if image.is_some()
        && let Some(other) = project
            .resources
            .iter()
            .find(|r| r.group == args.api.group && r.kind == args.api.kind && r.version != args.api.version)
    {
        bail!(
            "--image scaffolds a kind's controller, and kind {} already has version {}: create {} without --image",
            args.api.kind,
            other.version,
            args.api.version
        );
    }
    let builtin = builtin::find(&args.api.group, &args.api.version, &args.api.kind).filter(|_| !args.resource);
    // A controller added to an existing kind (`--resource=false`) has that kind's scope.
    let existing = project.find(&args.api.group, &args.api.version, &args.api.kind).and_then(|r| r.api.as_ref());
    let namespaced = match (builtin, existing) {
        (Some(b), _) => b.namespaced(),
        (None, Some(api)) if !args.resource => api.namespaced,
        (None, _) => args.namespaced,
    };
    let cluster_scoped = !namespaced;
    // Before the built-in kinds' branch, which would scaffold a controller regardless.
    if !args.resource && !args.controller {
        bail!("--resource=false and --controller=false leave nothing to scaffold: drop one of them");
    }
    if project.namespaced && args.controller && cluster_scoped {
        bail!(
            "the manager watches only its own namespace (`rop edit --namespaced`), and its Role grants nothing on cluster-scoped kinds: {} cannot have a controller here; {}run `rop edit --namespaced=false` first",
            args.api.kind,
            // A built-in kind's entry is its controller: without one there is nothing to add.
            if builtin.is_some() { "" } else { "pass --controller=false for its types alone, or " }
        );
    }
    if let Some(b) = builtin {
        return create_builtin_controller(root, args, project, b);
    }
    let k = check(&project, args)?;
    // The first version of a kind is its storage version; later versions leave it there.
    let other_versions =
        project.resources.iter().any(|r| r.group == k.group && r.kind == k.kind && r.version != k.version);
    if args.resource && other_versions && !args.dry_run {
        ui::warning(&format!(
            "{}/{}.rs starts from the template, not from the kind's other versions: copy the fields over, and keep the versions convertible: {}",
            k.api_dir(),
            k.snake,
            match project.resources.iter().find(|r| {
                !r.core && r.group == k.group && r.kind == k.kind && r.webhooks.as_ref().is_some_and(|w| w.conversion)
            }) {
                Some(hub) => format!(
                    "add it to the kind's conversion with `rop create webhook --group {} --version {} --kind {} --conversion --spoke {}`",
                    k.group, hub.version, k.kind, k.version
                ),
                None => format!(
                    "without a conversion webhook the API server converts an object only by rewriting its apiVersion (fields the other version lacks are pruned); to convert field by field: `rop create webhook --group {} --version {} --kind {} --conversion --spoke {}`",
                    k.group,
                    super::create_webhook::storage_version(root, &project, &k.group, &k.kind)
                        .map_or("<storage version>", |r| r.version.as_str()),
                    k.kind,
                    k.version
                ),
            }
        ));
    }
    let mut plan = Plan::new(root);
    let options = ApiOptions {
        resource: args.resource,
        controller: args.controller,
        namespaced: args.namespaced,
        storage: !other_versions,
        image: image.as_ref(),
        header: &resource::header_of(root),
    };
    plan.apply(&resource::describe(&project, &k, &options), &Templates::load(root)?)?;

    let path = format!("{}::{}::{}", project.api_crate(), k.api_module(), k.kind);
    let api = Api { crd_version: "v1".into(), namespaced: args.namespaced };
    project.record_api((&k.group, &k.version, &k.kind), &k.plural, path, api, args.controller);
    if args.resource {
        deploy_image::record(&mut project, &k, image.as_ref())?;
    }
    plan.file(project::FILE, project.to_text(), IfExists::Overwrite);

    let changes = plan.finish(args.force, args.dry_run, "rop create api would write")?;
    if let Some(changes) = &changes {
        ui::info(&plan::summary(changes));
    }
    // A dry run says them too: they are about the options, which a dry run is for trying.
    for warning in image.iter().flat_map(DeployImage::warnings) {
        ui::warning(&warning);
    }
    if changes.is_none() {
        return Ok(());
    }
    ui::info(&format!("Next: edit {}/{}.rs, then run `make manifests`", k.api_dir(), k.snake));
    Ok(())
}

/// `rop create api --resource=false` for a kind Kubernetes serves, as kubebuilder scaffolds it
/// for core types: no types, the kind's marker type in api/src/builtin.rs with
/// `#[rop(controller)]` (its RBAC comes from there), and a controller watching the kind.
fn create_builtin_controller(
    root: &Path,
    args: &CreateApiArgs,
    mut project: Project,
    b: &Builtin,
) -> anyhow::Result<()> {
    let (group, version, kind) = (&args.api.group, &args.api.version, &args.api.kind);
    if let Some(plural) = &args.plural
        && plural != b.plural
    {
        bail!("the plural of {kind} is \"{}\" ({} says so): drop --plural {plural}", b.plural, b.object);
    }
    if project.find_core(group, version, kind).is_some_and(|r| r.controller) && !args.force {
        bail!(
            "{group}/{version} {kind} already has a controller: pass --force to scaffold it again (its edits are lost)"
        );
    }
    let resource = project.list_builtin(group, version, kind, b);
    resource.controller = true;
    let resource = resource.clone();
    let k = KindNames::of(&project, &resource);
    let mut plan = Plan::new(root);
    let options = ApiOptions {
        resource: false,
        controller: true,
        namespaced: b.namespaced(),
        storage: true,
        image: None,
        header: &resource::header_of(root),
    };
    plan.apply(&resource::describe(&project, &k, &options), &Templates::load(root)?)?;
    let mut marker_file = plan.current(builtin_marker::FILE)?.unwrap_or_default();
    for attribute in builtin_marker::CONTROLLER {
        marker_file = builtin_marker::add_attribute(&marker_file, &k, attribute)?;
    }
    plan.edit(builtin_marker::FILE, marker_file);
    plan.file(project::FILE, project.to_text(), IfExists::Overwrite);

    let Some(changes) = plan.finish(args.force, args.dry_run, "rop create api would write")? else { return Ok(()) };
    ui::info(&plan::summary(&changes));
    ui::info(&format!(
        "Next: fill in src/controller/{}.rs, name what it owns or watches in #[rop(...)] on {} in {}, then run `make manifests`",
        k.controller_module(),
        k.marker_type(),
        builtin_marker::FILE
    ));
    Ok(())
}
