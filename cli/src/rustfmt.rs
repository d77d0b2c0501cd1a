//! Formatting Rust files before they are written, as kubebuilder runs goimports on the Go
//! files it edits: templates and marker insertions then always give `cargo fmt`-clean code.
//!
//! All files of a command go through one rustfmt process (each start costs ~15 ms).

use std::path::Path;
use std::process::{Command, Stdio};

/// Formats `sources` (Rust file contents) in place with one `rustfmt --edition 2024` run (with
/// the project's rustfmt.toml, if any, found from `root`). The program is `$RUSTFMT` when set,
/// as cargo does, else `rustfmt`. When rustfmt is missing or fails, the texts stay as they
/// are and `false` is returned, so the caller can say so.
pub fn format_all(root: &Path, sources: &mut [&mut String]) -> bool {
    if sources.is_empty() {
        return true;
    }
    let dir = std::env::temp_dir().join(format!("rop-fmt-{}-{:?}", std::process::id(), std::thread::current().id()));
    let result = (|| -> Option<()> {
        std::fs::create_dir_all(&dir).ok()?;
        let files: Vec<_> = (0..sources.len()).map(|i| dir.join(format!("f{i}.rs"))).collect();
        for (file, source) in files.iter().zip(sources.iter()) {
            std::fs::write(file, source.as_bytes()).ok()?;
        }
        let mut cmd = Command::new(std::env::var_os("RUSTFMT").unwrap_or_else(|| "rustfmt".into()));
        // The files are formatted out of their tree: `mod x;` must not send rustfmt looking for x.rs.
        cmd.args(["--edition", "2024", "--quiet", "--config", "skip_children=true"]);
        if root.join("rustfmt.toml").is_file() || root.join(".rustfmt.toml").is_file() {
            cmd.arg("--config-path").arg(root);
        }
        let status = cmd.args(&files).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null()).status().ok()?;
        if !status.success() {
            return None;
        }
        let formatted: Vec<String> = files.iter().map(std::fs::read_to_string).collect::<Result<_, _>>().ok()?;
        for (source, text) in sources.iter_mut().zip(formatted) {
            **source = text;
        }
        Some(())
    })();
    std::fs::remove_dir_all(&dir).ok();
    // Should this rustfmt refuse the batch, format file by file through stdin instead.
    result.is_some() || sources.iter_mut().all(|source| format_one(root, source))
}

/// Formats one text through rustfmt's stdin; `false` when rustfmt is missing or fails.
fn format_one(root: &Path, source: &mut String) -> bool {
    use std::io::Write;
    let mut cmd = Command::new(std::env::var_os("RUSTFMT").unwrap_or_else(|| "rustfmt".into()));
    cmd.args(["--edition", "2024", "--quiet"]);
    if root.join("rustfmt.toml").is_file() || root.join(".rustfmt.toml").is_file() {
        cmd.arg("--config-path").arg(root);
    }
    let Ok(mut child) = cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn() else {
        return false;
    };
    let written = child.stdin.take().is_some_and(|mut stdin| stdin.write_all(source.as_bytes()).is_ok());
    match child.wait_with_output() {
        Ok(out) if written && out.status.success() => match String::from_utf8(out.stdout) {
            Ok(text) => {
                *source = text;
                true
            }
            Err(_) => false,
        },
        _ => false,
    }
}
