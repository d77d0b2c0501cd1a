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

/// Every example line of every command's help fits 78 columns, so a terminal of 80 does not
/// wrap a command in the middle (clap wraps help to the terminal): a pasted first line would
/// run without the flags left on the next.
#[test]
fn help_examples_fit_an_80_column_terminal() {
    let reference = common::rop_ok(&std::env::temp_dir(), &["markdown-help"]);
    let mut in_example = false;
    let mut long = Vec::new();
    for line in reference.lines() {
        match line {
            "```sh" => in_example = true,
            "```" => in_example = false,
            _ if in_example && line.chars().count() + 2 > 80 => long.push(line.to_string()),
            _ => {}
        }
    }
    assert!(long.is_empty(), "example lines wider than 78 columns in --help:\n{}", long.join("\n"));
}
