//! `rop testenv install`: the test API server's binaries, etcd and kube-apiserver, for the
//! tests a project runs against a real server (`tests/<kind>_controller.rs`), the way
//! kubebuilder's `make test` fetches them with setup-envtest.
//!
//! The binaries are built from source through the Go module proxy by the script that rop's own
//! tests use (`scripts/install-testenv.sh`, embedded in the binary), into
//! `~/.cache/rop-testenv/bin` where rop-testenv finds them, or into `--dir`.

use std::path::PathBuf;
use std::process::Command;

use anyhow::{Context as _, bail};
use clap::{Args, Subcommand};

/// The install script, as rop's repository has it.
const INSTALL_SCRIPT: &str = include_str!("../../../scripts/install-testenv.sh");

/// `rop testenv ...`.
#[derive(Debug, Subcommand)]
pub enum TestenvCommand {
    /// Build and cache etcd and kube-apiserver (3.6.16 and 1.37.2) for the tests that need a real
    /// API server; needs Go 1.26 or newer.
    #[command(after_help = "Example:\n  rop testenv install && cargo test")]
    Install(InstallArgs),
}

/// `rop testenv install`.
#[derive(Debug, Args)]
pub struct InstallArgs {
    /// Install into this folder instead of `$ROP_TESTENV_DIR` or `~/.cache/rop-testenv/bin`
    /// (then point `ROP_TESTENV_DIR` at it when running the tests).
    #[arg(long)]
    pub dir: Option<PathBuf>,
}

/// Runs the command.
///
/// # Errors
/// No `bash` on the machine, or the binaries are not cached and cannot be built (no Go, no
/// network: the script's output says why).
pub fn run(command: &TestenvCommand) -> anyhow::Result<()> {
    let TestenvCommand::Install(args) = command;
    // The script says when it builds (and needs Go); a cached install only prints the versions.
    let mut script = Command::new("bash");
    script.arg("-c").arg(INSTALL_SCRIPT).arg("rop testenv install");
    if let Some(dir) = &args.dir {
        script.arg(dir);
    }
    let status = script.status().context("cannot run bash, which runs the install script")?;
    if !status.success() {
        bail!("installing the test API server failed (its output above says why)");
    }
    Ok(())
}
