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

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

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
    /// The envtest release index to download from: a URL or a file path (a mirror of
    /// controller-tools' `envtest-releases.yaml`, whose `selfLink`s may be URLs or paths too).
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
/// Go, no network: the message or the script's output says why); `$KUBEBUILDER_ASSETS` names
/// a folder without them; the install folder cannot be written.
pub fn run(command: &TestenvCommand) -> anyhow::Result<()> {
    let TestenvCommand::Install(args) = command;
    let wanted = args.kubernetes_version;
    let chosen =
        args.dir.clone().or_else(|| std::env::var_os("ROP_TESTENV_DIR").filter(|d| !d.is_empty()).map(PathBuf::from));
    let dir = match &chosen {
        Some(dir) => tidy(&std::path::absolute(dir).unwrap_or_else(|_| dir.clone())),
        None => default_dir()?,
    };
    if dir.exists() && !dir.is_dir() {
        bail!("cannot install into {}: it is a file, not a folder; pass --dir with a folder", dir.display());
    }
    envtest::remove_abandoned(&dir);
    let index = if args.index.is_empty() { envtest::index::DEFAULT_INDEX_URL } else { args.index.as_str() };
    let given = args.dir.is_some()
        && std::env::var_os("ROP_TESTENV_DIR").is_none_or(|d| std::path::absolute(&d).is_ok_and(|d| tidy(&d) != dir));
    // The build makes one release; asking for another is for the download alone.
    let pinned = pinned_release();
    let buildable = pinned.is_some_and(|release| wanted.matches(release));
    if args.from == From::Build && !buildable {
        bail!(
            "the build from source makes Kubernetes {} only; --kubernetes-version {wanted} is for downloads (drop `--from build`)",
            pinned.map_or_else(|| "?".to_string(), |r| r.to_string())
        );
    }

    // Binaries already there need nothing: rop-testenv looks in these places too, in this order.
    if chosen.is_none()
        && args.from != From::Build
        && let Some(found) = elsewhere(wanted)?
    {
        ui::info(&format!("{found}: nothing to install"));
        return Ok(());
    }
    if args.from != From::Build
        && let Some(archive) = envtest::installed(&dir).filter(|a| envtest::names_release(a, wanted))
    {
        ui::detail(&format!("{} holds etcd and kube-apiserver from {archive}", dir.display()));
        return print_versions(&dir, given);
    }
    if args.from == From::Auto && buildable && built_and_current(&dir) {
        return build(&dir, given);
    }
    // Binaries put there by hand (setup-envtest's folder, a copy) are used as they are, as
    // rop-testenv uses them; neither stamp says where they came from.
    if args.from == From::Auto && unstamped(&dir) && envtest::holds_both(&dir) {
        ui::detail(&format!(
            "{} holds etcd and kube-apiserver that rop did not install: used as they are",
            dir.display()
        ));
        return print_versions(&dir, given);
    }
    if args.from != From::Build {
        let Some(platform) = Platform::current() else {
            if args.from == From::Download || !buildable {
                bail!(
                    "envtest publishes no binaries for {}/{}: run `rop testenv install --from build`",
                    std::env::consts::OS,
                    std::env::consts::ARCH
                );
            }
            return build(&dir, given);
        };
        let source = Source { index_url: index.to_string(), wanted, platform };
        match envtest::install(&source, &dir) {
            Ok(archive) => {
                ui::detail(&format!("installed etcd and kube-apiserver from {} ({})", archive.name, archive.url));
                if !Wanted::parse(KUBERNETES_MINOR).is_ok_and(|minor| minor.matches(archive.release)) {
                    ui::warning(&format!(
                        "installed Kubernetes {}: rop's runtime and rop-testenv are built for {KUBERNETES_MINOR}, and rop-testenv finds other releases only through ROP_TESTENV_DIR or KUBEBUILDER_ASSETS",
                        archive.release
                    ));
                }
                return print_versions(&dir, given);
            }
            Err(err @ envtest::DownloadError::Write { .. }) => bail!("cannot install into {}: {err}", dir.display()),
            Err(err @ envtest::DownloadError::Location { .. }) => bail!("cannot download the test API server: {err}"),
            Err(err) if args.from == From::Download || !buildable => {
                let build = if buildable { ", a build from source with `--from build` (needs Go)" } else { "" };
                bail!(
                    "cannot download the test API server: {err}. Other ways: an index on a mirror or on disk with --index (or ROP_TESTENV_INDEX){build}, or ROP_TESTENV_DIR pointing at a folder that holds etcd and kube-apiserver"
                );
            }
            Err(err) => ui::warning(&format!(
                "cannot download the test API server: {err}. Building it from source instead, which needs Go 1.26 or newer and takes about 8 minutes once"
            )),
        }
    }
    build(&dir, given)
}

/// `path` without `.` and `..` components (`std::path::absolute` keeps `..`).
fn tidy(path: &Path) -> PathBuf {
    let mut tidied = PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                tidied.pop();
            }
            other => tidied.push(other),
        }
    }
    tidied
}

/// Whether `dir` has neither a download's stamp nor the build's.
fn unstamped(dir: &Path) -> bool {
    [envtest::STAMP, ".etcd.version", ".kube-apiserver.version"].iter().all(|stamp| !dir.join(stamp).exists())
}

/// `~/.cache/rop-testenv/bin`.
fn default_dir() -> anyhow::Result<PathBuf> {
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .context("HOME is not set, so there is no default install folder: pass --dir or set ROP_TESTENV_DIR")?;
    Ok(Path::new(&home).join(".cache/rop-testenv/bin"))
}

/// Binaries rop-testenv finds without an install, as it looks for them: `$KUBEBUILDER_ASSETS`
/// (which must hold both: a folder named there is used or refused, never passed over), or
/// setup-envtest's store when the wanted release is the one rop-testenv looks for there.
/// Returns what to say about them.
fn elsewhere(wanted: Wanted) -> anyhow::Result<Option<String>> {
    if let Some(assets) = std::env::var_os("KUBEBUILDER_ASSETS").filter(|a| !a.is_empty()).map(PathBuf::from) {
        if let Some(missing) = envtest::BINARIES.into_iter().find(|b| !envtest::holds_all(&assets, &[b])) {
            bail!(
                "KUBEBUILDER_ASSETS={} holds no executable {missing}, and rop-testenv would refuse it: point it at a folder holding etcd and kube-apiserver, or unset it to install into ~/.cache/rop-testenv/bin",
                assets.display()
            );
        }
        let assets = tidy(&std::path::absolute(&assets).unwrap_or(assets));
        for binary in envtest::BINARIES {
            envtest::runs(&assets.join(binary)).map_err(|reason| {
                anyhow::anyhow!("KUBEBUILDER_ASSETS={}: its {binary} does not run here ({reason})", assets.display())
            })?;
        }
        return Ok(Some(format!("etcd and kube-apiserver are in $KUBEBUILDER_ASSETS ({})", assets.display())));
    }
    let searched = Wanted::parse(KUBERNETES_MINOR).ok();
    if searched.is_none_or(|minor| minor.major != wanted.major || minor.minor != wanted.minor) {
        return Ok(None);
    }
    let Some(platform) = Platform::current() else { return Ok(None) };
    Ok(envtest::setup_envtest_folder(wanted, &platform).map(|folder| {
        format!(
            "setup-envtest's store holds etcd and kube-apiserver in {}, where rop-testenv finds them",
            folder.display()
        )
    }))
}

/// The value of `VARIABLE="..."` in the build script.
fn pinned(variable: &str) -> Option<String> {
    let prefix = format!("{variable}=\"");
    INSTALL_SCRIPT.lines().find_map(|line| line.strip_prefix(&prefix)?.strip_suffix('"').map(str::to_string))
}

/// The Kubernetes release the build script makes (`K8S_VERSION`).
fn pinned_release() -> Option<envtest::index::Release> {
    envtest::index::parse_release(pinned("K8S_VERSION")?.trim_start_matches('v'))
}

/// Whether the build script's stamps in `dir` name the versions it pins (its own warm path).
fn built_and_current(dir: &Path) -> bool {
    let stamp = |binary: &str| {
        std::fs::read_to_string(dir.join(format!(".{binary}.version"))).ok().map(|s| s.trim().to_string())
    };
    envtest::holds_both(dir)
        && stamp("etcd").is_some_and(|v| Some(v) == pinned("ETCD_VERSION"))
        && stamp("kube-apiserver").is_some_and(|v| Some(v) == pinned("K8S_VERSION"))
}

/// Runs the build script into `dir` (which prints the versions); for a folder given with
/// `--dir`, says how the tests find it.
fn build(dir: &Path, given: bool) -> anyhow::Result<()> {
    let mut script = Command::new("bash");
    script.arg("-c").arg(INSTALL_SCRIPT).arg("rop testenv install").arg(dir);
    let mut child = script.stderr(Stdio::piped()).spawn().context("cannot run bash, which runs the install script")?;
    if let Some(stderr) = child.stderr.take() {
        relay_steps(BufReader::new(stderr));
    }
    let status = child.wait().context("waiting for the install script")?;
    if !status.success() {
        bail!("installing the test API server failed (its output above says why)");
    }
    if given {
        ui::info(&format!("the tests find them with ROP_TESTENV_DIR={}", dir.display()));
    }
    Ok(())
}

/// Passes the build script's stderr through, except its `step:` lines (`go_or_die` in the
/// script: `install-testenv: step: building etcd`, then `install-testenv: step done: ...`),
/// which become [`ui::Step`]s: a spinner on a terminal, a line at each end with the elapsed
/// time and one every half minute off a terminal.
fn relay_steps(stderr: impl BufRead) {
    let mut step: Option<ui::Step> = None;
    for line in stderr.lines() {
        let Ok(line) = line else { break };
        if let Some(what) = line.strip_prefix("install-testenv: step: ") {
            if let Some(previous) = step.take() {
                previous.finish("done");
            }
            step = Some(ui::Step::start(what));
        } else if line.starts_with("install-testenv: step done: ") {
            if let Some(done) = step.take() {
                done.finish("done");
            }
        } else {
            match &step {
                Some(step) => step.println(&line),
                None => eprintln!("{line}"),
            }
        }
    }
    if let Some(failed) = step {
        failed.finish("failed");
    }
}

/// Prints the folder and what each binary says its version is, as the build script does;
/// for a folder given with `--dir`, how the tests find it.
fn print_versions(dir: &Path, given: bool) -> anyhow::Result<()> {
    ui::info(&format!("bin dir: {}", dir.display()));
    for binary in envtest::BINARIES {
        let path = dir.join(binary);
        let version = envtest::runs(&path).map_err(|reason| {
            anyhow::anyhow!(
                "{} does not run here ({reason}): remove {} and run `rop testenv install` again",
                path.display(),
                dir.display()
            )
        })?;
        ui::info(&version);
    }
    if given {
        ui::info(&format!("the tests find them with ROP_TESTENV_DIR={}", dir.display()));
    }
    Ok(())
}
