//! `rop generate` (alias `rop manifests`): build and run the project's manifests generator,
//! then write the CRDs and RBAC it reports under `config/`.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::{Context, bail};

use crate::project::Project;
use crate::scaffold::plan::{self, Change, IfExists, Plan};
use crate::ui;

/// Flags of `rop generate`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  rop generate          # write config/crd/bases/*.yaml and config/rbac/role.yaml\n  rop generate --check  # in CI: fail if those files are out of date"
)]
pub struct GenerateArgs {
    /// Write nothing; exit non-zero if any generated file would change.
    #[arg(long)]
    pub check: bool,
}

/// Builds and runs `cargo run -p <project>-api --bin manifests`, showing a spinner; returns
/// its stdout (the bundle JSON).
fn run_generator(root: &Path, project: &Project) -> anyhow::Result<String> {
    let package = format!("{}-api", project.project_name);
    let spinner = if ui::quiet() { indicatif::ProgressBar::hidden() } else { indicatif::ProgressBar::new_spinner() };
    ui::detail(&format!("running `cargo run --quiet --package {package} --bin manifests` in {}", root.display()));
    spinner
        .set_message(format!("building and running the manifests generator (cargo run -p {package} --bin manifests)"));
    spinner.enable_steady_tick(Duration::from_millis(120));
    let output = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["run", "--quiet", "--package", &package, "--bin", "manifests"])
        .current_dir(root)
        .stdin(Stdio::null())
        .output()
        .context("cannot run cargo: is the Rust toolchain installed and on PATH?")?;
    spinner.finish_and_clear();
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        bail!("the manifests generator failed to build or run; cargo said:\n{}", stderr.trim_end());
    }
    String::from_utf8(output.stdout).context("the manifests generator printed something that is not UTF-8")
}

/// Runs `rop generate` in the project at `root`.
///
/// # Errors
/// Outside a project, a generator that fails to build, versions that cannot merge, a failed
/// write, or (with `--check`) files that are out of date.
pub fn run(root: &Path, args: &GenerateArgs) -> anyhow::Result<()> {
    let project = Project::load(root)?;
    let stdout = run_generator(root, &project)?;
    let bundle: rop::manifests::Bundle = serde_json::from_str(stdout.trim()).with_context(|| {
        format!("the manifests generator printed something that is not a manifests bundle: {:.200}", stdout.trim())
    })?;
    let files = rop::manifests::assemble(&bundle, project.namespaced)?;
    let mut plan = Plan::new(root);
    for file in files {
        plan.file(file.path, file.content, IfExists::Overwrite);
    }
    if args.check {
        let entries = plan.check(true)?;
        let stale: Vec<&str> =
            entries.iter().filter(|e| e.change != Change::Unchanged).map(|e| e.path.as_str()).collect();
        if stale.is_empty() {
            ui::info("generated manifests are up to date");
            return Ok(());
        }
        bail!("generated manifests are out of date: {}; run `rop generate` and commit the result", stale.join(", "));
    }
    let changes = plan.write(true)?;
    ui::info(&plan::summary(&changes));
    ui::info("Next: `make install` to install the CRDs, or `make deploy IMG=<image>` to deploy the operator");
    Ok(())
}
