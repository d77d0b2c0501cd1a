//! Helpers the verifier's tests share.

use std::path::{Path, PathBuf};

/// The `.yaml` files directly in `dir`, sorted by name.
///
/// # Panics
/// `dir` cannot be read.
pub fn yaml_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    files
}
