//! `rop testenv install`: the test API server's binaries, etcd and kube-apiserver, for the
//! tests a project runs against a real server (`tests/<kind>_controller.rs`), the way
//! kubebuilder's `make test` fetches them with setup-envtest.
//!
//! In order: binaries already there (the install folder, `$KUBEBUILDER_ASSETS`,
//! setup-envtest's store) are used as they are; else envtest's archive is downloaded from
//! controller-tools' release index (see [`crate::envtest`]); else, when the download fails,
//! both are built from source through the Go module proxy by the script rop's own tests use
//! (`scripts/install-testenv.sh`, embedded in the binary). The install folder is `--dir`, else
//! `$ROP_TESTENV_DIR`, else `~/.cache/rop-testenv/bin`, where rop-testenv looks.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context as _, bail};
use clap::{Args, Subcommand, ValueEnum};

use crate::envtest::{self, Platform, Source, Wanted};
use crate::ui;

/// The install script, as rop's repository has it.
const INSTALL_SCRIPT: &str = include_str!("../../../scripts/install-testenv.sh");

/// The Kubernetes release rop's runtime is built for (k8s-openapi's `v1_37`): any patch of it.
const KUBERNETES_MINOR: &str = "1.37";

/// `rop testenv ...`.
#[derive(Debug, Subcommand)]
pub enum TestenvCommand {
    /// Download (or, failing that, build) and cache etcd and kube-apiserver for the tests that
    /// need a real API server.
    #[command(
        after_help = "Binaries already in the install folder, in $KUBEBUILDER_ASSETS or in setup-envtest's store \
are used as they are. Otherwise envtest's archive for Kubernetes 1.37 is downloaded from controller-tools' release \
index (as setup-envtest does) and its SHA-512 checked; if that fails, both are built from source (needs Go 1.26 or \
newer, about 8 minutes once).\n\nExamples:\n  rop testenv install && cargo test\n  rop testenv install --index \
https://mirror.example/envtest-releases.yaml\n  rop testenv install --from build"
    )]
    Install(InstallArgs),
}

/// Where the binaries come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum From {
    /// Download; build from source if the download fails.
    Auto,
    /// Download only: a failed download is an error.
    Download,
    /// Build from source only (needs Go).
    Build,
}

/// `rop testenv install`.
#[derive(Debug, Args)]
pub struct InstallArgs {
    /// Install into this folder instead of `$ROP_TESTENV_DIR` or `~/.cache/rop-testenv/bin`
    /// (then point `ROP_TESTENV_DIR` at it when running the tests).
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// Download, build, or download and build if that fails.
    #[arg(long, value_enum, default_value_t = From::Auto)]
    pub from: From,
    /// The envtest release index to download from (a mirror of controller-tools'
    /// `envtest-releases.yaml`).
    #[arg(long, env = "ROP_TESTENV_INDEX", default_value = envtest::index::DEFAULT_INDEX_URL)]
    pub index: String,
    /// The Kubernetes release to download: MAJOR.MINOR for its newest patch, or MAJOR.MINOR.PATCH.
    #[arg(long, env = "ROP_TESTENV_KUBERNETES_VERSION", default_value = KUBERNETES_MINOR, value_parser = Wanted::parse)]
    pub kubernetes_version: Wanted,
}

/// Runs the command.
///
/// # Errors
/// The binaries are not there and cannot be downloaded (with `--from download`) or built (no
/// Go, no network: the message or the script's output says why).
pub fn run(command: &TestenvCommand) -> anyhow::Result<()> {
    let TestenvCommand::Install(args) = command;
    let chosen =
        args.dir.clone().or_else(|| std::env::var_os("ROP_TESTENV_DIR").filter(|d| !d.is_empty()).map(PathBuf::from));
    let dir = match &chosen {
        Some(dir) => dir.clone(),
        None => default_dir()?,
    };

    // Binaries already there need nothing: rop-testenv looks in these places too.
    if chosen.is_none()
        && args.from != From::Build
        && let Some(found) = elsewhere(args.kubernetes_version)
    {
        ui::info(&format!("{found}: nothing to install"));
        return Ok(());
    }
    if args.from != From::Build
        && let Some(archive) = envtest::installed(&dir).filter(|a| envtest::names_release(a, args.kubernetes_version))
    {
        ui::detail(&format!("{} holds etcd and kube-apiserver from {archive}", dir.display()));
        return print_versions(&dir);
    }
    if args.from != From::Build && !built_and_current(&dir) {
        let Some(platform) = Platform::current() else {
            if args.from == From::Download {
                bail!(
                    "envtest publishes no binaries for {}/{}: run `rop testenv install --from build`",
                    std::env::consts::OS,
                    std::env::consts::ARCH
                );
            }
            return build(&dir);
        };
        let source = Source { index_url: args.index.clone(), wanted: args.kubernetes_version, platform };
        match envtest::install(&source, &dir) {
            Ok(archive) => {
                ui::detail(&format!("installed etcd and kube-apiserver from {} ({})", archive.name, archive.url));
                return print_versions(&dir);
            }
            Err(err) if args.from == From::Download => {
                bail!(
                    "cannot download the test API server: {err}. Other ways: a copy of envtest-releases.yaml with --index (or ROP_TESTENV_INDEX), a build from source with `--from build` (needs Go), or ROP_TESTENV_DIR pointing at a folder that holds etcd and kube-apiserver"
                );
            }
            Err(err) => ui::warning(&format!(
                "cannot download the test API server ({err}); building it from source instead, which needs Go 1.26 or newer and about 8 minutes once"
            )),
        }
    }
    build(&dir)
}

/// `~/.cache/rop-testenv/bin`.
fn default_dir() -> anyhow::Result<PathBuf> {
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .context("HOME is not set, so there is no default install folder: pass --dir or set ROP_TESTENV_DIR")?;
    Ok(Path::new(&home).join(".cache/rop-testenv/bin"))
}

/// Binaries rop-testenv finds without an install: `$KUBEBUILDER_ASSETS`, or setup-envtest's
/// store for the wanted release. Returns what to say about them.
fn elsewhere(wanted: Wanted) -> Option<String> {
    let holds_both = |dir: &Path| envtest::BINARIES.iter().all(|b| dir.join(b).is_file());
    if let Some(assets) = std::env::var_os("KUBEBUILDER_ASSETS").filter(|a| !a.is_empty()).map(PathBuf::from)
        && holds_both(&assets)
    {
        return Some(format!("etcd and kube-apiserver are in $KUBEBUILDER_ASSETS ({})", assets.display()));
    }
    let folder = envtest::setup_envtest_folder(wanted, &Platform::current()?)?;
    Some(format!(
        "setup-envtest's store holds etcd and kube-apiserver in {}, where rop-testenv finds them",
        folder.display()
    ))
}

/// Whether the build script's stamps in `dir` name the versions it pins (its own warm path).
fn built_and_current(dir: &Path) -> bool {
    let pinned = |variable: &str| {
        let prefix = format!("{variable}=\"");
        INSTALL_SCRIPT.lines().find_map(|line| line.strip_prefix(&prefix)?.strip_suffix('"').map(str::to_string))
    };
    let stamp = |binary: &str| {
        std::fs::read_to_string(dir.join(format!(".{binary}.version"))).ok().map(|s| s.trim().to_string())
    };
    envtest::BINARIES.iter().all(|b| dir.join(b).is_file())
        && stamp("etcd").is_some_and(|v| Some(v) == pinned("ETCD_VERSION"))
        && stamp("kube-apiserver").is_some_and(|v| Some(v) == pinned("K8S_VERSION"))
}

/// Runs the build script into `dir` (which prints the versions).
fn build(dir: &Path) -> anyhow::Result<()> {
    let mut script = Command::new("bash");
    script.arg("-c").arg(INSTALL_SCRIPT).arg("rop testenv install").arg(dir);
    let status = script.status().context("cannot run bash, which runs the install script")?;
    if !status.success() {
        bail!("installing the test API server failed (its output above says why)");
    }
    Ok(())
}

/// Prints the folder and what each binary says its version is, as the build script does.
fn print_versions(dir: &Path) -> anyhow::Result<()> {
    ui::info(&format!("bin dir: {}", dir.display()));
    for binary in envtest::BINARIES {
        let path = dir.join(binary);
        let output =
            Command::new(&path).arg("--version").output().with_context(|| format!("cannot run {}", path.display()))?;
        if !output.status.success() {
            bail!(
                "{} --version failed: the binary is not usable on this machine ({})",
                path.display(),
                String::from_utf8_lossy(&output.stderr).trim()
            );
        }
        let text = String::from_utf8_lossy(&output.stdout);
        ui::info(text.lines().next().unwrap_or_default());
    }
    Ok(())
}
