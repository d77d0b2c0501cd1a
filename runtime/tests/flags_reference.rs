//! The book's page of the manager's flags is their own help: docs/reference/manager-flags.md is
//! what clap says of `rop::manager::Options`, flattened into a project's flags as the scaffold's
//! `src/main.rs` does, so a flag added, renamed or documented anew changes the page in the same
//! commit. `ROP_BLESS=1` rewrites the page.

use std::path::Path;

/// A generated manager's command line: the project's `Args` holds the manager's flags.
#[derive(clap::Parser)]
#[command(
    name = "manager",
    about = "The operator's manager: its controllers and webhooks, and the flags every rop manager takes"
)]
struct Args {
    #[command(flatten)]
    manager: rop::manager::Options,
}

fn reference() -> String {
    let options = clap_markdown::MarkdownOptions::new()
        .title("The manager's flags".to_string())
        .show_footer(false)
        .show_table_of_contents(false);
    format!("{}\n", clap_markdown::help_markdown_custom::<Args>(&options).trim_end())
}

#[test]
fn the_flags_page_is_the_managers_help() {
    let page = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/reference/manager-flags.md");
    let reference = reference();
    if std::env::var_os("ROP_BLESS").is_some() {
        std::fs::write(&page, &reference).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&page).unwrap_or_default();
    pretty_assertions::assert_eq!(
        committed,
        reference,
        "docs/reference/manager-flags.md differs from the flags' help: run `ROP_BLESS=1 cargo test -p rop --features manager,v1_37 --test flags_reference`"
    );
}
