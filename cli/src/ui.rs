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

/// The `s` of a plural noun for `n` things: `format!("{n} file{}", plural(n))`.
pub fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
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

/// A step that may take more than a few seconds (a build, a download), shown as it runs: on a
/// terminal an indicatif spinner, or a byte bar when the size is known; off a terminal (CI
/// logs, pipes) a line when it starts, `<message>: still running (<seconds> s)` every
/// [`HEARTBEAT`], and one with the elapsed time when it ends, so a log never goes silent for
/// minutes. `--quiet` hides all of it.
pub struct Step {
    bar: indicatif::ProgressBar,
    message: String,
    started: std::time::Instant,
    lines: bool,
    /// Off a terminal: the thread that prints a line every [`HEARTBEAT`] until the step ends
    /// (dropping the sender ends it).
    heartbeat: Option<(std::sync::mpsc::Sender<()>, std::thread::JoinHandle<()>)>,
}

/// How often a step off a terminal says it is still running.
pub const HEARTBEAT: std::time::Duration = std::time::Duration::from_secs(30);

impl Step {
    /// Starts a step described by `message` ("building the manifests generator").
    pub fn start(message: &str) -> Step {
        Step::with_bar(message, None)
    }

    /// Starts a step that moves `total` bytes (a download): a byte bar on a terminal.
    pub fn bytes(message: &str, total: Option<u64>) -> Step {
        Step::with_bar(message, Some(total))
    }

    fn with_bar(message: &str, bytes: Option<Option<u64>>) -> Step {
        let terminal = std::io::stderr().is_terminal();
        let bar = if quiet() || !terminal {
            indicatif::ProgressBar::hidden()
        } else if let Some(Some(total)) = bytes {
            let bar = indicatif::ProgressBar::new(total);
            if let Ok(style) = indicatif::ProgressStyle::with_template(
                "{msg} {wide_bar} {bytes}/{total_bytes} ({bytes_per_sec}, {eta})",
            ) {
                bar.set_style(style);
            }
            bar
        } else {
            indicatif::ProgressBar::new_spinner()
        };
        bar.set_message(message.to_string());
        bar.enable_steady_tick(std::time::Duration::from_millis(120));
        let lines = !quiet() && !terminal;
        let started = std::time::Instant::now();
        let heartbeat = lines.then(|| {
            eprintln!("{message} ...");
            let (stop, stopped) = std::sync::mpsc::channel::<()>();
            let message = message.to_string();
            let thread = std::thread::spawn(move || {
                while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(HEARTBEAT) {
                    eprintln!("{message}: still running ({} s)", started.elapsed().as_secs());
                }
            });
            (stop, thread)
        });
        Step { bar, message: message.to_string(), started, lines, heartbeat }
    }

    /// Prints `line` on stderr without garbling the spinner.
    pub fn println(&self, line: &str) {
        self.bar.suspend(|| eprintln!("{line}"));
    }

    /// Adds `bytes` to a byte bar.
    pub fn advance(&self, bytes: u64) {
        self.bar.inc(bytes);
    }

    /// Ends the step; off a terminal prints `<message>: <outcome> (<seconds> s)`.
    pub fn finish(mut self, outcome: &str) {
        self.bar.finish_and_clear();
        if let Some((stop, thread)) = self.heartbeat.take() {
            drop(stop);
            let _ = thread.join();
        }
        if self.lines {
            eprintln!("{}: {outcome} ({:.1} s)", self.message, self.started.elapsed().as_secs_f64());
        }
    }
}
