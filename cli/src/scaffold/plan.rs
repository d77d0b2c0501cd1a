//! A plan: every file a command will create or change, computed in full before anything is
//! written. Writing goes through temporary files renamed into place, so a failure part-way
//! leaves the tree as it was.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

/// What happens to one file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    Create,
    Update,
    Unchanged,
}

/// How a planned file treats an existing file at its path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IfExists {
    /// Refuse unless `--force` (user-owned files: types, reconcilers).
    Refuse,
    /// Replace (files rop owns, or files already read and extended at markers).
    Overwrite,
}

#[derive(Clone, Debug)]
struct Planned {
    content: String,
    if_exists: IfExists,
}

/// The files a command will write, by path relative to the project root.
#[derive(Debug)]
pub struct Plan {
    root: PathBuf,
    files: BTreeMap<String, Planned>,
}

impl Plan {
    pub fn new(root: &Path) -> Plan {
        Plan { root: root.to_path_buf(), files: BTreeMap::new() }
    }

    /// Plans `path` with `content`; a later call for the same path replaces the earlier one.
    pub fn file(&mut self, path: impl Into<String>, content: String, if_exists: IfExists) {
        self.files.insert(path.into(), Planned { content, if_exists });
    }

    /// Passes every planned `.rs` file through `format` (rustfmt); a `None` keeps the text.
    pub fn format_rust(&mut self, format: impl Fn(&str) -> Option<String>) {
        for (path, planned) in self.files.iter_mut() {
            if path.ends_with(".rs")
                && let Some(formatted) = format(&planned.content)
            {
                planned.content = formatted;
            }
        }
    }

    /// The content `path` will have after the plan: planned, else on disk, else `None`.
    ///
    /// # Errors
    /// The file exists but cannot be read.
    pub fn current(&self, path: &str) -> anyhow::Result<Option<String>> {
        if let Some(p) = self.files.get(path) {
            return Ok(Some(p.content.clone()));
        }
        let full = self.root.join(path);
        if !full.exists() {
            return Ok(None);
        }
        fs::read_to_string(&full).map(Some).with_context(|| format!("cannot read {path}"))
    }

    /// Each planned path with what will happen to it.
    ///
    /// # Errors
    /// An existing file would be replaced while its entry says [`IfExists::Refuse`] and `force`
    /// is off; the message names every such file.
    pub fn check(&self, force: bool) -> anyhow::Result<Vec<(String, Change)>> {
        let mut refused = Vec::new();
        let mut changes = Vec::new();
        for (path, planned) in &self.files {
            let full = self.root.join(path);
            let change = match fs::read(&full) {
                Ok(existing) if existing == planned.content.as_bytes() => Change::Unchanged,
                Ok(_) if planned.if_exists == IfExists::Refuse && !force => {
                    refused.push(path.clone());
                    Change::Update
                }
                Ok(_) => Change::Update,
                Err(_) if full.exists() => bail!("{path} exists but cannot be read"),
                Err(_) => Change::Create,
            };
            changes.push((path.clone(), change));
        }
        if !refused.is_empty() {
            bail!(
                "refusing to overwrite {} (already exists and differs): pass --force to replace it, losing its edits",
                refused.join(", ")
            );
        }
        Ok(changes)
    }

    /// Checks, then writes every created or changed file: first all to temporary files beside
    /// their targets, then renames them into place. On any error before the renames, the
    /// temporary files and any directories created for them are removed.
    ///
    /// # Errors
    /// As [`Plan::check`], or an I/O error (read-only directory, full disk), after cleaning up.
    pub fn write(&self, force: bool) -> anyhow::Result<Vec<(String, Change)>> {
        let changes = self.check(force)?;
        let mut created_dirs: Vec<PathBuf> = Vec::new();
        let mut temps: Vec<(PathBuf, PathBuf)> = Vec::new();
        let result = (|| -> anyhow::Result<()> {
            for (path, change) in &changes {
                if *change == Change::Unchanged {
                    continue;
                }
                let target = self.root.join(path);
                let dir = target.parent().expect("planned paths have a parent").to_path_buf();
                let mut missing = Vec::new();
                let mut d = dir.as_path();
                while !d.exists() {
                    missing.push(d.to_path_buf());
                    d = d.parent().unwrap_or(Path::new("/"));
                }
                fs::create_dir_all(&dir).with_context(|| format!("cannot create directory for {path}"))?;
                created_dirs.extend(missing.into_iter().rev());
                let name = target.file_name().expect("planned paths name a file").to_string_lossy();
                let temp = dir.join(format!(".{name}.rop-tmp"));
                fs::write(&temp, &self.files[path].content).with_context(|| format!("cannot write {path}"))?;
                if let Ok(meta) = fs::metadata(&target) {
                    fs::set_permissions(&temp, meta.permissions()).ok();
                }
                temps.push((temp, target));
            }
            Ok(())
        })();
        if let Err(e) = result {
            for (temp, _) in &temps {
                fs::remove_file(temp).ok();
            }
            for dir in created_dirs.iter().rev() {
                fs::remove_dir(dir).ok();
            }
            return Err(e);
        }
        for (temp, target) in &temps {
            fs::rename(temp, target).with_context(|| format!("cannot move {} into place", target.display()))?;
        }
        Ok(changes)
    }
}

/// One line per file: `create`, `update` or `unchanged`, and the path.
pub fn summary(changes: &[(String, Change)]) -> String {
    changes
        .iter()
        .map(|(path, change)| {
            let word = match change {
                Change::Create => "create   ",
                Change::Update => "update   ",
                Change::Unchanged => "unchanged",
            };
            format!("  {word} {path}\n")
        })
        .collect()
}
