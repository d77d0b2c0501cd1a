//! `rop`: kubebuilder for Rust. Scaffolds Kubernetes operators that run on kube-rs, and
//! generates their CRD and RBAC manifests from `#[derive(CustomResource)]` types.
//!
//! Exit codes: 0 success; 1 the command failed (bad input it could check, a project problem,
//! a failed build); 2 the command line itself is wrong (unknown flag, missing value).

mod builtin;
mod cargo_manifest;
mod chart;
mod commands;
mod compat;
mod envtest;
mod import;
mod names;
mod project;
mod reference;
mod rust_source;
mod scaffold;
mod ui;

use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "rop",
    version,
    about = "Scaffold, generate and verify Kubernetes operators in Rust (kubebuilder for Rust)"
)]
struct Cli {
    /// Print only errors and warnings.
    #[arg(long, short, global = true, conflicts_with = "verbose", display_order = 1000)]
    quiet: bool,
    /// Also print what rop runs and decides.
    #[arg(long, short, global = true, display_order = 1000)]
    verbose: bool,
    #[command(subcommand)]
    command: Commands,
}

#[derive(Debug, Subcommand)]
enum Commands {
    /// Start a new operator project in the current directory.
    Init(commands::init::InitArgs),
    /// Add a resource kind or webhooks.
    #[command(subcommand)]
    Create(Create),
    /// Bring existing API definitions into the project as Rust types.
    #[command(subcommand)]
    Import(import::ImportCommand),
    /// Change project-wide settings (multigroup layout, namespace-scoped manager).
    Edit(commands::edit::EditArgs),
    /// Remove what `rop create` added.
    #[command(subcommand)]
    Delete(Delete),
    /// Commands that may change.
    #[command(subcommand)]
    Alpha(Alpha),
    /// Print a shell completion script.
    #[command(after_help = "Example:\n  rop completion bash > /etc/bash_completion.d/rop")]
    Completion {
        /// The shell to complete for.
        shell: clap_complete::Shell,
    },
    /// Print rop's version and the Kubernetes versions it generates for.
    Version,
    /// Write the CRDs (config/crd/bases) and RBAC (config/rbac/role.yaml) from the api crate's types.
    #[command(visible_alias = "manifests")]
    Generate(commands::generate::GenerateArgs),
    /// Write the Helm chart (dist/chart) from the kustomize configuration (config/default).
    Helm(commands::helm::HelmArgs),
    /// Check CustomResourceDefinition YAML files against the API server's rules and API conventions.
    Verify(commands::verify::VerifyArgs),
    /// The real API server (etcd and kube-apiserver) that controller tests run against.
    #[command(subcommand)]
    Testenv(commands::testenv::TestenvCommand),
}

#[derive(Debug, Subcommand)]
enum Alpha {
    /// Re-scaffold the project from its PROJECT file into a new folder, to diff and upgrade.
    Generate(commands::alpha_generate::AlphaGenerateArgs),
}

#[derive(Debug, Subcommand)]
enum Delete {
    /// Remove a kind in one version: its files (unless edited), marker insertions and PROJECT entry.
    Api(commands::delete_api::DeleteApiArgs),
    /// Remove a kind version's webhooks (all, or the types named): code, registrations, manifests.
    Webhook(commands::delete_webhook::DeleteWebhookArgs),
}

#[derive(Debug, Subcommand)]
enum Create {
    /// Add a kind (or a new version of one): types, controller, sample, roles.
    Api(commands::create_api::CreateApiArgs),
    /// Add defaulting, validating or conversion webhooks to a kind: server code, tests, manifests.
    Webhook(commands::create_webhook::CreateWebhookArgs),
    /// Not a command: a controller comes with `rop create api`. Said so, with the flags that
    /// scaffold a controller alone, to whoever looks for kubebuilder-era or operator-sdk words.
    #[command(hide = true)]
    Controller {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
        rest: Vec<String>,
    },
}

/// The argument that prints the commands' reference instead of running one: the book's commands
/// page (docs/reference/commands.md) is that output, so `--help` and the page are one text. It
/// is no subcommand of clap's, which shell completions would offer.
const MARKDOWN_HELP: &str = "markdown-help";

fn main() -> ExitCode {
    if std::env::args().nth(1).as_deref() == Some(MARKDOWN_HELP) {
        let options = clap_markdown::MarkdownOptions::new()
            .title("Commands".to_string())
            .show_footer(false)
            .show_table_of_contents(true);
        ui::out(&reference::for_mdbook(&clap_markdown::help_markdown_custom::<Cli>(&options)));
        return ExitCode::SUCCESS;
    }
    let cli = Cli::parse();
    ui::set_level(cli.quiet, cli.verbose);
    let result = std::env::current_dir().map_err(anyhow::Error::from).and_then(|root| match &cli.command {
        Commands::Init(args) => commands::init::run(&root, args),
        Commands::Create(Create::Api(args)) => commands::create_api::run(&project::find_root(&root), args),
        Commands::Create(Create::Webhook(args)) => commands::create_webhook::run(&project::find_root(&root), args),
        Commands::Create(Create::Controller { .. }) => Err(commands::UsageError::new(
            "rop has no `create controller`: a controller comes with `rop create api --group G --version V --kind K` (with its types), or alone with `--resource=false` for a kind that exists already (a built-in kind such as --group apps --version v1 --kind Deployment, or one of another project)",
        )
        .into()),
        Commands::Alpha(Alpha::Generate(args)) => commands::alpha_generate::run(&root, args),
        Commands::Completion { shell } => {
            let mut script = Vec::new();
            clap_complete::generate(*shell, &mut Cli::command(), "rop", &mut script);
            ui::out(&String::from_utf8_lossy(&script));
            Ok(())
        }
        Commands::Version => {
            ui::out(&format!(
                "rop {}\ngenerated projects: kube 5, k8s-openapi 0.29 (Kubernetes 1.37)",
                env!("CARGO_PKG_VERSION")
            ));
            Ok(())
        }
        Commands::Import(import::ImportCommand::Crd(args)) => import::run(&project::find_root(&root), &root, args),
        Commands::Edit(args) => commands::edit::run(&project::find_root(&root), args),
        Commands::Delete(Delete::Api(args)) => commands::delete_api::run(&project::find_root(&root), args),
        Commands::Delete(Delete::Webhook(args)) => commands::delete_webhook::run(&project::find_root(&root), args),
        Commands::Generate(args) => commands::generate::run(&project::find_root(&root), args),
        Commands::Helm(args) => commands::helm::run(&project::find_root(&root), args),
        Commands::Verify(args) => commands::verify::run(&root, args),
        Commands::Testenv(command) => commands::testenv::run(command),
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            ui::error(&format!("{e:#}"));
            if e.downcast_ref::<commands::UsageError>().is_some() { ExitCode::from(2) } else { ExitCode::FAILURE }
        }
    }
}
