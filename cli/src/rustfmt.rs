//! Formatting Rust files before they are written, as kubebuilder runs goimports on the Go
//! files it edits: templates and marker insertions then always give `cargo fmt`-clean code.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// `source` formatted by `rustfmt --edition 2024` (with the project's rustfmt.toml, if any,
/// found from `root`), or `None` when rustfmt is not installed or fails: the caller then keeps
/// the unformatted text and says so.
pub fn format(root: &Path, source: &str) -> Option<String> {
    let mut cmd = Command::new("rustfmt");
    cmd.args(["--edition", "2024", "--quiet"]);
    if root.join("rustfmt.toml").is_file() || root.join(".rustfmt.toml").is_file() {
        cmd.arg("--config-path").arg(root);
    }
    let mut child = cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().ok()?;
    child.stdin.take()?.write_all(source.as_bytes()).ok()?;
    let output = child.wait_with_output().ok()?;
    if !output.status.success() {
        return None;
    }
    String::from_utf8(output.stdout).ok()
}
