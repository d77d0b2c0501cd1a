//! `rop init`: a new project in the current directory.

use std::path::{Path, PathBuf};
use std::rc::Rc;

use anyhow::bail;

use crate::cargo_manifest::RopDependency;
use crate::names;
use crate::project::{self, Project};
use crate::scaffold::context::{InitVars, TemplateContext};
use crate::scaffold::plan::{self, IfExists, Plan};
use crate::scaffold::spec::Scaffold;
use crate::scaffold::templates::Templates;
use crate::ui;

/// Flags of `rop init`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:\n  rop init --domain example.com --repo github.com/example/memcached-operator")]
pub struct InitArgs {
    /// Domain of the project's API groups: group `cache` becomes `cache.<domain>`.
    #[arg(long, default_value = "my.domain")]
    pub domain: String,
    /// Source repository of the project, e.g. github.com/example/memcached-operator.
    #[arg(long)]
    pub repo: Option<String>,
    /// Project name (a DNS-1123 label); defaults to the directory name.
    #[arg(long)]
    pub project_name: Option<String>,
    /// Copyright owner written in the header of generated Rust files.
    #[arg(long, default_value = "")]
    pub owner: String,
    /// License of the generated project.
    #[arg(long, value_enum, default_value_t = License::Apache2)]
    pub license: License,
    /// Path of the rop runtime crate the project depends on (default: the checkout this rop was built from).
    #[arg(long, conflicts_with = "rop_version")]
    pub rop_path: Option<PathBuf>,
    /// Version of the rop runtime crate from crates.io, instead of a path dependency.
    #[arg(long)]
    pub rop_version: Option<String>,
    /// Put APIs under api/src/<group>/<version>/, so the project can hold several groups.
    #[arg(long)]
    pub multigroup: bool,
    /// Namespace-scoped manager: watches only WATCH_NAMESPACE, with a Role and RoleBinding.
    #[arg(long)]
    pub namespaced: bool,
    /// Replace files the folder already has (other than a project's own), losing their content.
    #[arg(long)]
    pub force: bool,
    /// Print the files that would be written, and write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// Files a repository often starts with; `init` keeps them rather than refusing.
const KEPT: [&str; 3] = ["README.md", ".gitignore", "LICENSE"];

/// Files whose presence shows that a directory already holds a project.
const PROJECT_FILES: [&str; 4] = [project::FILE, "Cargo.toml", "Makefile", "src/main.rs"];

/// The Cargo dependency on the rop runtime crate.
/// A relative `--rop-path` is kept relative to the project root (so a copy of the runtime
/// inside the project, say `vendor/runtime`, goes with it into a container build); the default
/// and absolute paths are written absolute. A `--rop-version` is written as given, a
/// requirement in cargo's syntax (`0.1.0` is `^0.1.0`); rop-testenv gets the same one
/// ([`RopDependency::testenv`]), and rop's crates share one version, so both resolve to one release.
fn rop_dependency(root: &Path, args: &InitArgs) -> anyhow::Result<RopDependency> {
    if let Some(relative) = args.rop_path.as_ref().filter(|p| p.is_relative()) {
        check_rop_crates(&relative.display().to_string(), &root.join(relative))?;
        if relative.components().any(|c| c == std::path::Component::ParentDir) {
            crate::ui::warning(&format!(
                "--rop-path {} leads out of the project by a relative path, which an image build (make docker-build) cannot follow: its build context is the project. Give an absolute path (make docker-context copies it into the build context) or a copy inside the project",
                relative.display()
            ));
        }
        return Ok(RopDependency::path(&relative.to_string_lossy().replace('\\', "/")));
    }
    if let Some(version) = &args.rop_version {
        // Checked here, not at the project's first build, so that a mistyped version is reported
        // against the flag and never written into Cargo.toml (nor breaks its TOML).
        if let Err(e) = semver::VersionReq::parse(version) {
            bail!("--rop-version {version:?} is not a version requirement: {e}");
        }
        return Ok(RopDependency::version(version));
    }
    let path = match &args.rop_path {
        Some(p) => p.clone(),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime"),
    };
    let path = path.canonicalize().map_err(|_| {
        anyhow::anyhow!(
            "the rop runtime crate is not at {}: pass --rop-path <checkout>/runtime or --rop-version <version>",
            path.display()
        )
    })?;
    check_rop_crates(&path.display().to_string(), &path)?;
    Ok(RopDependency::path(&path.to_string_lossy().replace('\\', "/")))
}

/// Checks that `dir` (`shown` in messages: the path as the user gave it) is rop's runtime crate
/// with rop-testenv beside it, as in a checkout (`<checkout>/runtime`, `<checkout>/testenv`):
/// the project depends on both by path ([`RopDependency::testenv`]), and a folder without them
/// would give a Cargo.toml cargo cannot load.
///
/// # Errors
/// `dir` holds no Cargo.toml, another package than `rop`, or has no `rop-testenv` beside it.
fn check_rop_crates(shown: &str, dir: &Path) -> anyhow::Result<()> {
    let package = |dir: &Path| {
        crate::cargo_manifest::read(dir).ok().and_then(|m| m.get("package")?.get("name")?.as_str().map(str::to_string))
    };
    match package(dir) {
        Some(name) if name == "rop" => {}
        Some(name) => bail!(
            "{shown} holds the package {name:?}, not rop's runtime crate: --rop-path must point at <checkout>/runtime"
        ),
        None => bail!("{shown} has no Cargo.toml: --rop-path must point at the rop runtime crate (<checkout>/runtime)"),
    }
    let testenv = dir.join("../testenv");
    if package(&testenv).as_deref() != Some("rop-testenv") {
        let beside = Path::new(shown).parent().map_or_else(|| "testenv".into(), |p| p.join("testenv"));
        bail!(
            "{shown} has no rop-testenv beside it ({}/Cargo.toml): a project's tests depend on it; give the runtime folder of a whole rop checkout, or copy its testenv folder there too",
            beside.display()
        );
    }
    Ok(())
}

/// Runs `rop init` in `root`.
///
/// # Errors
/// An invalid name, a directory that already holds a project, or a failed write (nothing is
/// left half-written).
pub fn run(root: &Path, args: &InitArgs) -> anyhow::Result<()> {
    if let Some(found) = PROJECT_FILES.iter().find(|f| root.join(f).exists()) {
        bail!(
            "{} already holds a project ({found} exists): run `rop init` in an empty directory, or use `rop create api` to extend this one",
            root.display()
        );
    }
    let dir_name = root.file_name().map(|n| n.to_string_lossy().to_lowercase()).unwrap_or_default();
    let project_name = args.project_name.clone().unwrap_or(dir_name);
    if let Err(e) = names::check_project_name(&project_name) {
        if args.project_name.is_none() {
            bail!("{e} (without --project-name, the project is named after its folder)");
        }
        return Err(e.into());
    }
    names::check_domain(&args.domain)?;
    let repo = args.repo.clone().unwrap_or_else(|| format!("github.com/example/{project_name}"));
    let project = Project::new(&args.domain, &project_name, &repo, args.multigroup, args.namespaced);

    let settings = Settings {
        project,
        header: super::header(args.license, &args.owner),
        license: args.license.spdx().unwrap_or_default().to_string(),
        rop_dependency: rop_dependency(root, args)?,
    };
    scaffold(root, &settings, args.force, args.dry_run)
}

/// The license of a new project (`--license`): its crates' `license` field and the header of
/// its Rust files.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum License {
    /// Apache License 2.0, kubebuilder's default.
    Apache2,
    /// No license: no `license` field, no header.
    None,
}

impl License {
    /// The SPDX identifier, `None` for no license.
    pub fn spdx(self) -> Option<&'static str> {
        match self {
            License::Apache2 => Some("Apache-2.0"),
            License::None => None,
        }
    }
}

/// What a new project is made from: its PROJECT, the header of its Rust files, the SPDX
/// license of its crates (empty for none) and its dependency on the rop runtime.
pub struct Settings {
    pub project: Project,
    pub header: String,
    pub license: String,
    pub rop_dependency: RopDependency,
}

/// Writes a new project into `root` from `settings` (or, with `dry_run`, prints the plan).
///
/// # Errors
/// A template that does not render, or a failed write (nothing is left half-written).
pub fn scaffold(root: &Path, settings: &Settings, force: bool, dry_run: bool) -> anyhow::Result<()> {
    let project = &settings.project;
    let project_name = &project.project_name;
    let templates = Templates::load(root)?;
    let mut context = TemplateContext::project(project, &settings.header);
    context.init = Some(InitVars {
        license: settings.license.clone(),
        rop_dependency: settings.rop_dependency.to_string(),
        rop_testenv_dependency: settings.rop_dependency.testenv().to_string(),
        rop_crates: settings.rop_dependency.crates_folder(),
    });
    let context = Rc::new(context);

    let mut scaffold = Scaffold::default();
    for name in templates.names_under("init") {
        let relative = name.trim_start_matches("init/");
        let path = match relative.rsplit_once('/') {
            Some((dir, file)) => format!("{dir}/{}", output_name(file)),
            None => output_name(relative),
        };
        // A repository created with a README or .gitignore keeps them.
        let if_exists = if KEPT.contains(&path.as_str()) { IfExists::Keep } else { IfExists::Refuse };
        scaffold.file(path, &name, &context, if_exists);
    }
    let mut plan = Plan::new(root);
    plan.apply(&scaffold, &templates)?;
    plan.file(project::FILE, project.to_text(), IfExists::Refuse);

    let Some(changes) = plan.finish(force, dry_run, "rop init would write")? else { return Ok(()) };
    ui::info(&plan::summary(&changes));
    ui::info(&format!(
        "Project {project_name} is ready.\nNext: add a kind with `rop create api --group <group> --version <version> --kind <Kind>`"
    ));
    Ok(())
}

/// Template file names stand for dot files with a leading `_` (`_gitignore` → `.gitignore`),
/// so they do not act on the rop source tree itself; `.tera` suffixes are dropped.
fn output_name(file: &str) -> String {
    let file = file.strip_suffix(".tera").unwrap_or(file);
    match file.strip_prefix('_') {
        Some(rest) => format!(".{rest}"),
        None => file.to_string(),
    }
}
