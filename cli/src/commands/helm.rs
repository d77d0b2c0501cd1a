//! `rop helm`: the project's Helm chart in `dist/chart/`, made from `kubectl kustomize
//! config/default` (kubebuilder's `edit --plugins=helm/v2-alpha`). Run it again after `rop
//! generate` or an edit of config/: the templates follow; Chart.yaml, values.yaml,
//! `_helpers.tpl`, NOTES.txt and .helmignore stay as the user left them unless `--force`.

use std::path::{Component, Path};

use anyhow::bail;

use crate::cargo_manifest;
use crate::chart;
use crate::project::Project;
use crate::scaffold::plan::{self, Change, IfExists, Plan};
use crate::scaffold::templates::Templates;
use crate::ui;

/// Flags of `rop helm`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  rop helm                      # writes dist/chart/\n  helm lint dist/chart\n  helm install <project> dist/chart --namespace <project>-system \\\n      --create-namespace"
)]
pub struct HelmArgs {
    /// The chart's folder, inside the project.
    #[arg(long, default_value = "dist/chart")]
    pub output_dir: String,
    /// Also write Chart.yaml, values.yaml, templates/_helpers.tpl, templates/NOTES.txt and
    /// .helmignore again, and replace templates that `rop helm` did not write.
    #[arg(long)]
    pub force: bool,
    /// Print what would change, and change nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// Runs `rop helm` in the project at `root`.
///
/// # Errors
/// Outside a project, an output folder outside it, kubectl missing or failing on
/// config/default, a template of the user's in the way (without `--force`), or a failed write;
/// nothing is changed on error.
pub fn run(root: &Path, args: &HelmArgs) -> anyhow::Result<()> {
    let project = Project::load(root)?;
    let dir = Path::new(&args.output_dir);
    let inside = dir.components().all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
    if dir.is_absolute() || !inside || !dir.components().any(|c| matches!(c, Component::Normal(_))) {
        bail!(
            "--output-dir \"{}\" is not a folder inside the project: give a relative path such as dist/chart",
            args.output_dir
        );
    }
    // A folder with other files in it (the project's own, or a chart's templates/) is not a
    // chart's: writing there would mix the two.
    let full = root.join(dir);
    let holds_files = std::fs::read_dir(&full).is_ok_and(|mut entries| entries.next().is_some());
    if holds_files && !full.join("Chart.yaml").is_file() {
        bail!(
            "--output-dir {} holds files but no Chart.yaml, so it is not a chart's folder: give a new or empty folder, such as dist/chart",
            args.output_dir
        );
    }
    let dir = args.output_dir.trim_end_matches('/');
    let templates = Templates::load(root)?;
    let chart = chart::build(root, &project.project_name, &app_version(root), &templates)?;
    if !chart.names_follow_release {
        ui::warning(
            "config/default/kustomization.yaml has no namePrefix: the chart's objects keep their own names whatever the release is called, so two releases (or two operators) in one cluster take the same cluster-wide names; put `namePrefix: <project>-` back",
        );
    }

    let mut plan = Plan::new(root);
    let mut written = std::collections::BTreeSet::new();
    for (path, text) in &chart.templates {
        let path = format!("{dir}/{path}");
        // A file of the user's at a template's path is replaced only with --force.
        let ours = plan.current(&path)?.is_none_or(|old| old.starts_with(chart::HEADER));
        plan.file(path.clone(), text.clone(), if ours { IfExists::Overwrite } else { IfExists::Refuse });
        written.insert(path);
    }
    for path in stale_templates(root, &format!("{dir}/templates"))? {
        if !written.contains(&path) {
            plan.remove(path, None);
        }
    }
    for (path, text) in &chart.skeleton {
        plan.file(format!("{dir}/{path}"), text.clone(), if args.force { IfExists::Overwrite } else { IfExists::Keep });
    }

    let Some(entries) = plan.finish(args.force, args.dry_run, "rop helm would write")? else { return Ok(()) };
    let changed: Vec<_> = entries.iter().filter(|e| e.change != Change::Unchanged).cloned().collect();
    if !changed.is_empty() {
        ui::info(&plan::summary(&changed));
    }
    let values = format!("{dir}/values.yaml");
    if let Some(kept) = entries.iter().find(|e| e.path == values && e.change == Change::Kept) {
        let missing = chart::missing_values(kept.old.as_deref().unwrap_or_default(), &chart);
        for line in &missing {
            ui::warning(&format!("{values}: {line}"));
        }
        if !missing.is_empty() {
            ui::info(&format!(
                "{values} is yours and was kept: add what it lacks, or run `rop helm --force` to write it again"
            ));
        }
    }
    ui::info(&format!(
        "Next: `helm lint {dir}`, then `helm install {name} {dir} --namespace {name}-system --create-namespace`",
        name = project.project_name
    ));
    Ok(())
}

/// The files under `folder` that `rop helm` wrote (they start with [`chart::HEADER`]), by path
/// relative to `root`: those no object needs any more are removed.
fn stale_templates(root: &Path, folder: &str) -> anyhow::Result<Vec<String>> {
    let mut found = Vec::new();
    let mut stack = vec![root.join(folder)];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries {
            let path = entry?.path();
            if path.is_dir() {
                stack.push(path);
            } else if std::fs::read_to_string(&path).is_ok_and(|text| text.starts_with(chart::HEADER)) {
                let relative = path.strip_prefix(root).expect("under the project").to_string_lossy().replace('\\', "/");
                found.push(relative);
            }
        }
    }
    found.sort();
    Ok(found)
}

/// The version in the project's Cargo.toml (`[workspace.package] version`), the chart's
/// appVersion; `0.1.0` (what `rop init` writes) when it cannot be read.
fn app_version(root: &Path) -> String {
    let manifest = cargo_manifest::read(root).ok();
    manifest.and_then(|m| cargo_manifest::workspace_package(&m, "version")).unwrap_or_else(|| "0.1.0".to_string())
}
