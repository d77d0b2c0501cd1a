//! `rop edit`: changes project-wide settings after `init`, as kubebuilder's `edit` does.
//! A flag left out keeps the PROJECT's value.

use std::path::Path;

use anyhow::bail;

use crate::project::{self, Project};
use crate::scaffold::context::TemplateContext;
use crate::scaffold::plan::{self, Change, IfExists, Plan};
use crate::scaffold::templates::Templates;
use crate::ui;

fn bool_flag() -> clap::builder::ValueParser {
    clap::builder::BoolishValueParser::new().into()
}

/// Flags of `rop edit`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example, a manager that watches only its own namespace, with a Role:\n  rop edit --namespaced\n\nExample, new APIs in api/src/<group>/<version>/:\n  rop edit --multigroup"
)]
pub struct EditArgs {
    /// Allow several API groups: APIs created from now on go to api/src/<group>/<version>/
    /// (existing ones stay where they are).
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_parser = bool_flag())]
    pub multigroup: Option<bool>,
    /// Namespace-scoped manager: it watches only WATCH_NAMESPACE (the namespace it runs in),
    /// with a Role and RoleBinding instead of a ClusterRole and ClusterRoleBinding.
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_parser = bool_flag())]
    pub namespaced: Option<bool>,
    /// Rewrite config/manager/manager.yaml and config/rbac/role_binding.yaml even if edited.
    #[arg(long)]
    pub force: bool,
    /// Print what would change, and change nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// The manifests that depend on `namespaced`, rendered for `project`.
const NAMESPACED_FILES: [&str; 2] = ["config/manager/manager.yaml", "config/rbac/role_binding.yaml"];

fn render_init_file(templates: &Templates, project: &Project, file: &str) -> anyhow::Result<String> {
    // Neither manifest has Rust code, so no copyright header.
    templates.render(&format!("init/{file}"), &TemplateContext::project(project, "").to_tera())
}

/// Runs `rop edit` in the project at `root`.
///
/// # Errors
/// Outside a project, no flag given, a multigroup project with several groups turned back,
/// `--namespaced` while a cluster-scoped kind has a controller, edited manifests without
/// `--force`, or a failed write; nothing is changed on error.
pub fn run(root: &Path, args: &EditArgs) -> anyhow::Result<()> {
    let old = Project::load(root)?;
    if args.multigroup.is_none() && args.namespaced.is_none() {
        bail!("nothing to edit: pass --multigroup[=false] and/or --namespaced[=false]");
    }
    let mut new = old.clone();
    if let Some(multigroup) = args.multigroup {
        let groups: std::collections::BTreeSet<&str> =
            old.resources.iter().filter(|r| !r.core).map(|r| r.group.as_str()).collect();
        if !multigroup && groups.len() > 1 {
            bail!(
                "the project has {} groups ({}): it stays multigroup; delete the APIs of all but one group first",
                groups.len(),
                groups.into_iter().collect::<Vec<_>>().join(", ")
            );
        }
        new.multigroup = multigroup;
    }
    if let Some(namespaced) = args.namespaced {
        let cluster_scoped = old.cluster_scoped_controllers();
        if namespaced && !old.namespaced && !cluster_scoped.is_empty() {
            bail!(
                "the manager cannot watch only its namespace: {} cluster-scoped, and a namespace-scoped manager's Role grants nothing on cluster-scoped kinds; keep the manager watching every namespace, or remove {} with `rop delete api` (its types, sample and roles go too: see `--dry-run`) and create a custom kind again with `--controller=false`",
                match cluster_scoped.as_slice() {
                    [one] => format!("the controller of {one} is"),
                    many => format!("the controllers of {} are", many.join(", ")),
                },
                if cluster_scoped.len() == 1 { "that kind" } else { "those kinds" }
            );
        }
        new.namespaced = namespaced;
    }
    let templates = Templates::load(root)?;
    let mut plan = Plan::new(root);
    if new.namespaced != old.namespaced {
        for file in NAMESPACED_FILES {
            let as_scaffolded = render_init_file(&templates, &old, file)?;
            let on_disk = plan.current(file)?.unwrap_or_default();
            let if_exists = if on_disk == as_scaffolded { IfExists::Overwrite } else { IfExists::Refuse };
            plan.file(file, render_init_file(&templates, &new, file)?, if_exists);
        }
    }
    plan.file(project::FILE, new.to_text(), IfExists::Overwrite);

    let Some(entries) = plan.finish(args.force, args.dry_run, "rop edit would write")? else { return Ok(()) };
    let changed: Vec<_> = entries.into_iter().filter(|e| e.change != Change::Unchanged).collect();
    if !changed.is_empty() {
        ui::info(&plan::summary(&changed));
    }
    if new == old {
        ui::info("Nothing changed: the project already has these settings");
    } else if new.namespaced != old.namespaced {
        ui::info(if new.namespaced {
            "The manager now watches only its own namespace (WATCH_NAMESPACE), and `rop create api` refuses controllers for cluster-scoped kinds.\nNext: run `rop generate` to write config/rbac/role.yaml as a Role"
        } else {
            "The manager now watches every namespace.\nNext: run `rop generate` to write config/rbac/role.yaml as a ClusterRole"
        });
    }
    if new.multigroup != old.multigroup {
        ui::info(if new.multigroup {
            "Next: `rop create api` puts new APIs under api/src/<group>/<version>/ (existing ones stay where they are)"
        } else {
            "Next: `rop create api` puts new APIs under api/src/<version>/"
        });
    }
    Ok(())
}
