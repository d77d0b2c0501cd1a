//! The book's commands page is the CLI's own help: docs/reference/commands.md is what
//! `rop markdown-help` prints from the clap definitions, so a flag added, renamed or
//! documented anew changes the page in the same commit. `ROP_BLESS=1` rewrites the page.

mod common;

use std::path::Path;

#[test]
fn the_commands_page_is_the_cli_help() {
    let page = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/reference/commands.md");
    let reference = common::rop_ok(&std::env::temp_dir(), &["markdown-help"]);
    if std::env::var_os("ROP_BLESS").is_some() {
        std::fs::write(&page, &reference).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&page).unwrap_or_default();
    pretty_assertions::assert_eq!(
        committed,
        reference,
        "docs/reference/commands.md differs from `rop markdown-help`: run `ROP_BLESS=1 cargo test -p rop-cli --test command_reference`"
    );
}

#[test]
fn hidden_commands_stay_out_of_the_reference() {
    let reference = common::rop_ok(&std::env::temp_dir(), &["markdown-help"]);
    let headings: Vec<&str> = reference.lines().filter(|line| line.starts_with("## ")).collect();
    assert!(headings.contains(&"## `rop create api`"), "{headings:#?}");
    for hidden in ["## `rop markdown-help`", "## `rop create controller`"] {
        assert!(!headings.contains(&hidden), "{hidden} is listed: {headings:#?}");
    }
}

#[test]
fn shell_completions_do_not_offer_the_reference() {
    for shell in ["bash", "zsh", "fish"] {
        let script = common::rop_ok(&std::env::temp_dir(), &["completion", shell]);
        assert!(!script.contains("markdown-help"), "{shell} completion offers markdown-help");
    }
}
