//! What rop prints: results on stdout (silenced by `--quiet`), details with `--verbose`,
//! errors and warnings on stderr, coloured only on a terminal and never when `NO_COLOR` is set
//! (<https://no-color.org>).

use std::io::IsTerminal;
use std::sync::atomic::{AtomicU8, Ordering};

const QUIET: u8 = 0;
const NORMAL: u8 = 1;
const VERBOSE: u8 = 2;

static LEVEL: AtomicU8 = AtomicU8::new(NORMAL);

/// Sets the output level from the global `--quiet` / `--verbose` flags.
pub fn set_level(quiet: bool, verbose: bool) {
    let level = if quiet {
        QUIET
    } else if verbose {
        VERBOSE
    } else {
        NORMAL
    };
    LEVEL.store(level, Ordering::Relaxed);
}

/// Whether `--quiet` is on (progress spinners are hidden too).
pub fn quiet() -> bool {
    LEVEL.load(Ordering::Relaxed) == QUIET
}

/// Prints a result line (file summaries, "Next: ..."), unless `--quiet`.
pub fn info(text: &str) {
    if !quiet() {
        out(text);
    }
}

/// Writes `text` (with a final newline) to stdout. A closed pipe (`rop version | head -1`) is
/// not an error worth a panic: the reader has what it wanted.
pub fn out(text: &str) {
    use std::io::Write;
    let newline = if text.ends_with('\n') { "" } else { "\n" };
    let _ = write!(std::io::stdout().lock(), "{text}{newline}");
}

/// Prints a detail line on stderr with `--verbose` only.
pub fn detail(text: &str) {
    if LEVEL.load(Ordering::Relaxed) == VERBOSE {
        eprintln!("{text}");
    }
}

fn colour(code: &str, word: &str) -> String {
    let plain = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()) || !std::io::stderr().is_terminal();
    if plain { word.to_string() } else { format!("\x1b[{code}m{word}\x1b[0m") }
}

/// Prints `warning: <text>` on stderr (shown even with `--quiet`).
pub fn warning(text: &str) {
    eprintln!("{}: {text}", colour("1;33", "warning"));
}

/// Prints `error: <text>` on stderr.
pub fn error(text: &str) {
    eprintln!("{}: {text}", colour("1;31", "error"));
}
