//! `rop`: kubebuilder for Rust. Scaffolds Kubernetes operators that run on kube-rs, and
//! generates their CRD and RBAC manifests from `#[derive(CustomResource)]` types.
//!
//! Exit codes: 0 success; 1 the command failed (bad input it could check, a project problem,
//! a failed build); 2 the command line itself is wrong (unknown flag, missing value).

mod commands;
mod names;
mod project;
mod rustfmt;
mod scaffold;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "rop",
    version,
    about = "Scaffold, generate and verify Kubernetes operators in Rust (kubebuilder for Rust)"
)]
struct Cli {
    #[command(subcommand)]
    command: Commands,
}

#[derive(Debug, Subcommand)]
enum Commands {
    /// Start a new operator project in the current directory.
    Init(commands::init::InitArgs),
    /// Add a resource kind, a webhook, ...
    #[command(subcommand)]
    Create(Create),
    /// Remove what `rop create` added.
    #[command(subcommand)]
    Delete(Delete),
    /// Write the CRDs (config/crd/bases) and RBAC (config/rbac/role.yaml) from the api crate's types.
    #[command(visible_alias = "manifests")]
    Generate(commands::generate::GenerateArgs),
}

#[derive(Debug, Subcommand)]
enum Delete {
    /// Remove a kind in one version: its files (unless edited), marker insertions and PROJECT entry.
    Api(commands::delete_api::DeleteApiArgs),
}

#[derive(Debug, Subcommand)]
enum Create {
    /// Add a kind (or a new version of one): types, controller, sample, roles.
    Api(commands::create_api::CreateApiArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = std::env::current_dir().map_err(anyhow::Error::from).and_then(|root| match &cli.command {
        Commands::Init(args) => commands::init::run(&root, args),
        Commands::Create(Create::Api(args)) => commands::create_api::run(&root, args),
        Commands::Delete(Delete::Api(args)) => commands::delete_api::run(&root, args),
        Commands::Generate(args) => commands::generate::run(&root, args),
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
