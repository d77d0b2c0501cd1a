//! A plan: every file a command will create or change, computed in full before anything is
//! written. Writing goes through temporary files renamed into place, so a failure part-way
//! leaves the tree as it was.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use super::fs::{Disk, Filesystem};
use super::markers;
use super::spec::{Insert, Scaffold};
use super::templates::Templates;

/// What happens to one file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    Create,
    Update,
    /// The file is removed (`delete api`).
    Delete,
    Unchanged,
    /// The file exists and is left as it is ([`IfExists::Keep`]).
    Kept,
    /// The file exists, differs, and is the user's: only `--force` replaces it.
    Refused,
}

/// One planned file as checked against the disk.
#[derive(Clone, Debug)]
pub struct Entry {
    pub path: String,
    pub change: Change,
    /// The content on disk now, if the file exists.
    pub old: Option<String>,
    /// The content after the plan; `None` for a deletion.
    pub new: Option<String>,
}

pub use super::spec::IfExists;

#[derive(Clone, Debug)]
struct Planned {
    /// `None` removes the file.
    content: Option<String>,
    if_exists: IfExists,
    /// For a removal: the content rop wrote; any other content is the user's.
    expected: Option<String>,
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
        self.files.insert(path.into(), Planned { content: Some(content), if_exists, expected: None });
    }

    /// Plans new content for `path`, keeping what was planned for the case that it exists: an
    /// edit (a marker insertion) of a file this plan creates is refused if that file is, and
    /// an edit of a file on disk overwrites it.
    pub fn edit(&mut self, path: impl Into<String>, content: String) {
        let path = path.into();
        let if_exists = self.files.get(&path).map(|p| p.if_exists).unwrap_or(IfExists::Overwrite);
        self.files.insert(path, Planned { content: Some(content), if_exists, expected: None });
    }

    /// Plans the removal of `path`. When `expected` is given and the file holds anything else
    /// (the user edited it), the removal is refused unless `force`.
    pub fn remove(&mut self, path: impl Into<String>, expected: Option<String>) {
        let if_exists = if expected.is_some() { IfExists::Refuse } else { IfExists::Overwrite };
        self.files.insert(path.into(), Planned { content: None, if_exists, expected });
    }

    /// The content `path` will have after the plan: planned, else on disk, else `None`.
    ///
    /// # Errors
    /// The file exists but cannot be read.
    pub fn current(&self, path: &str) -> anyhow::Result<Option<String>> {
        if let Some(p) = self.files.get(path) {
            return Ok(p.content.clone());
        }
        let full = self.root.join(path);
        if !full.exists() {
            return Ok(None);
        }
        fs::read_to_string(&full).map(Some).with_context(|| format!("cannot read {path}"))
    }

    /// Plans every file and insertion of `scaffold`: each file rendered with `templates` (one
    /// marked [`IfExists::Skip`] only when it is absent), then each insertion into its file as
    /// planned so far.
    ///
    /// # Errors
    /// A template that does not render, or an insertion whose file is missing or has no such
    /// scaffold marker.
    pub fn apply(&mut self, scaffold: &Scaffold, templates: &Templates) -> anyhow::Result<()> {
        for f in &scaffold.files {
            if f.if_exists == IfExists::Skip && self.current(&f.path)?.is_some() {
                continue;
            }
            self.file(&f.path, f.render(templates)?, f.if_exists);
        }
        for i in &scaffold.inserts {
            self.insert(i)?;
        }
        Ok(())
    }

    /// Plans insertion `i` into its file (as planned so far, else as on disk), unless the file
    /// has its `unless_line`.
    ///
    /// # Errors
    /// The file is missing, or has no such scaffold marker.
    pub fn insert(&mut self, i: &Insert) -> anyhow::Result<()> {
        let current = self.current(&i.path)?.ok_or_else(|| {
            anyhow::anyhow!(
                "{} is missing; rop adds code to it at `+rop:scaffold:{}`: restore it from version control or a fresh `rop init`",
                i.path,
                i.marker
            )
        })?;
        if !i.unless_line.as_ref().is_some_and(|line| current.lines().any(|l| l.trim() == line)) {
            self.edit(&i.path, markers::insert(&i.path, &current, &i.marker, &i.fragment)?);
        }
        Ok(())
    }

    /// Each planned file with what will happen to it, checked against the disk.
    ///
    /// # Errors
    /// A planned path exists but cannot be read (a directory, no permission).
    pub fn check(&self, force: bool) -> anyhow::Result<Vec<Entry>> {
        let mut entries = Vec::new();
        for (path, planned) in &self.files {
            let full = self.root.join(path);
            let old = if full.exists() {
                Some(fs::read_to_string(&full).with_context(|| format!("{path} exists but cannot be read as a file"))?)
            } else {
                None
            };
            let change = match (&old, &planned.content) {
                (None, None) => Change::Unchanged,
                (None, Some(_)) => Change::Create,
                (Some(old), None) if !force && planned.expected.as_ref().is_some_and(|e| e != old) => Change::Refused,
                (Some(_), None) => Change::Delete,
                (Some(old), Some(new)) if old == new => Change::Unchanged,
                (Some(_), Some(_)) if planned.if_exists == IfExists::Keep => Change::Kept,
                // A file planned as `Skip` exists only if something else created it meanwhile.
                (Some(_), Some(_)) if matches!(planned.if_exists, IfExists::Refuse | IfExists::Skip) && !force => {
                    Change::Refused
                }
                (Some(_), Some(_)) => Change::Update,
            };
            entries.push(Entry { path: path.clone(), change, old, new: planned.content.clone() });
        }
        Ok(entries)
    }

    /// The end of every scaffolding command: with `dry_run` prints `<heading>:` and the dry-run report and returns `None` (failing
    /// like the real run when files are refused); otherwise writes and returns what changed.
    ///
    /// # Errors
    /// As [`Plan::write`], and refused files in a dry run.
    ///
    /// Planned Rust files are written as they are: templates and fragments are already in
    /// rustfmt's default layout, so no formatter process runs (see `cli/tests/formatted.rs`).
    pub fn finish(self, force: bool, dry_run: bool, heading: &str) -> anyhow::Result<Option<Vec<Entry>>> {
        if dry_run {
            let entries = self.check(force)?;
            crate::ui::info(&format!("{heading}:\n{}", dry_run_report(&entries)));
            ensure_nothing_refused(&entries)?;
            return Ok(None);
        }
        self.write(force).map(Some)
    }

    /// Checks, then writes every created or changed file with the real disk.
    ///
    /// # Errors
    /// Refused files (without `force`), or an I/O error; in both cases the tree is as it was.
    pub fn write(&self, force: bool) -> anyhow::Result<Vec<Entry>> {
        self.write_with(force, &mut Disk)
    }

    /// Writes through `disk`: first every file to a temporary file beside its target (creating
    /// missing directories), then renames them into place. If any step fails, everything done
    /// so far is undone: renamed files get their old content back (or are removed), temporary
    /// files and created directories are removed, so the tree is byte-for-byte as before.
    ///
    /// # Errors
    /// As [`Plan::write`].
    pub fn write_with(&self, force: bool, disk: &mut dyn Filesystem) -> anyhow::Result<Vec<Entry>> {
        let entries = self.check(force)?;
        ensure_nothing_refused(&entries)?;
        let mut created_dirs: Vec<PathBuf> = Vec::new();
        let mut temps: Vec<(PathBuf, PathBuf, Option<&str>)> = Vec::new();
        let mut backups: Vec<(PathBuf, PathBuf)> = Vec::new();
        let mut renamed = 0;
        let result = (|| -> anyhow::Result<()> {
            for entry in entries.iter().filter(|e| matches!(e.change, Change::Create | Change::Update)) {
                let new = entry.new.as_deref().expect("created and updated files have content");
                let target = self.root.join(&entry.path);
                let dir = target.parent().expect("planned paths have a parent").to_path_buf();
                let mut missing = Vec::new();
                let mut d = dir.as_path();
                while !d.exists() {
                    missing.push(d.to_path_buf());
                    d = d.parent().unwrap_or(Path::new("/"));
                }
                for m in missing.into_iter().rev() {
                    disk.create_dir(&m).with_context(|| format!("cannot create directory for {}", entry.path))?;
                    created_dirs.push(m);
                }
                let name = target.file_name().expect("planned paths name a file").to_string_lossy();
                let temp = dir.join(format!(".{name}.rop-tmp"));
                disk.write(&temp, new.as_bytes()).with_context(|| format!("cannot write {}", entry.path))?;
                temps.push((temp, target, entry.old.as_deref()));
            }
            for (temp, target, _) in &temps {
                disk.rename(temp, target).with_context(|| format!("cannot move {} into place", target.display()))?;
                renamed += 1;
            }
            // Deleted files are first moved aside, so a later failure can bring them back.
            for entry in entries.iter().filter(|e| e.change == Change::Delete) {
                let target = self.root.join(&entry.path);
                let name = target.file_name().expect("planned paths name a file").to_string_lossy();
                let backup = target.with_file_name(format!(".{name}.rop-del"));
                disk.rename(&target, &backup).with_context(|| format!("cannot delete {}", entry.path))?;
                backups.push((backup, target));
            }
            Ok(())
        })();
        if let Err(e) = result {
            for (backup, target) in backups.iter().rev() {
                disk.rename(backup, target).ok();
            }
            for (i, (temp, target, old)) in temps.iter().enumerate() {
                if i < renamed {
                    match old {
                        Some(old) => disk.write(target, old.as_bytes()).ok(),
                        None => disk.remove_file(target).ok(),
                    };
                } else {
                    disk.remove_file(temp).ok();
                }
            }
            for dir in created_dirs.iter().rev() {
                disk.remove_dir(dir).ok();
            }
            return Err(e);
        }
        for (backup, target) in &backups {
            disk.remove_file(backup).ok();
            // Folders the deletion emptied go too (api/src/<version>/ after its last kind).
            let mut dir = target.parent();
            while let Some(d) = dir.filter(|d| d.starts_with(&self.root) && *d != self.root) {
                if disk.remove_dir(d).is_err() {
                    break;
                }
                dir = d.parent();
            }
        }
        Ok(entries)
    }
}

/// The error a plan with refused files ends in (and `--dry-run` too, after its report).
///
/// # Errors
/// Names every refused file and how to proceed.
pub fn ensure_nothing_refused(entries: &[Entry]) -> anyhow::Result<()> {
    let refused: Vec<&str> = entries.iter().filter(|e| e.change == Change::Refused).map(|e| e.path.as_str()).collect();
    let deleting = entries.iter().any(|e| e.change == Change::Refused && e.new.is_none());
    if !refused.is_empty() {
        bail!(
            "refusing to {} {} ({}): pass --force to {}, losing its edits",
            if deleting { "delete" } else { "overwrite" },
            refused.join(", "),
            if deleting { "edited since rop wrote it" } else { "already exists and differs" },
            if deleting { "delete it anyway" } else { "replace it" }
        );
    }
    Ok(())
}

/// One line per file: `create`, `update`, `unchanged` or `refused`, and the path.
pub fn summary(entries: &[Entry]) -> String {
    entries.iter().map(|e| format!("  {:<9} {}\n", word(e.change), e.path)).collect()
}

fn word(change: Change) -> &'static str {
    match change {
        Change::Create => "create",
        Change::Update => "update",
        Change::Delete => "delete",
        Change::Unchanged => "unchanged",
        Change::Kept => "keep",
        Change::Refused => "refused",
    }
}

/// The `--dry-run` report: the summary, then a unified diff of every file that would change
/// (refused ones included, so the user sees what `--force` would lose).
pub fn dry_run_report(entries: &[Entry]) -> String {
    let mut out = summary(entries);
    for e in entries.iter().filter(|e| matches!(e.change, Change::Update | Change::Refused)) {
        let old = e.old.as_deref().unwrap_or("");
        let diff = similar::TextDiff::from_lines(old, e.new.as_deref().unwrap_or(""));
        out.push_str(&format!(
            "{}",
            diff.unified_diff().context_radius(2).header(&format!("a/{}", e.path), &format!("b/{}", e.path))
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::scaffold::fs::FailingDisk;

    fn snapshot(root: &Path) -> BTreeMap<String, Option<String>> {
        let mut out = BTreeMap::new();
        let mut stack = vec![root.to_path_buf()];
        while let Some(dir) = stack.pop() {
            for entry in fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                let rel = path.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                if path.is_dir() {
                    out.insert(format!("{rel}/"), None);
                    stack.push(path);
                } else {
                    out.insert(rel, Some(fs::read_to_string(&path).unwrap()));
                }
            }
        }
        out
    }

    /// A plan that creates files in new nested folders and replaces existing files.
    fn plan(root: &Path) -> Plan {
        fs::create_dir_all(root.join("src")).unwrap();
        fs::write(root.join("src/main.rs"), "old main\n").unwrap();
        fs::write(root.join("PROJECT"), "old project\n").unwrap();
        let mut plan = Plan::new(root);
        plan.file("src/main.rs", "new main\n".into(), IfExists::Overwrite);
        plan.file("PROJECT", "new project\n".into(), IfExists::Overwrite);
        plan.file("api/src/v1/kind.rs", "kind\n".into(), IfExists::Refuse);
        plan.file("config/samples/a.yaml", "a: 1\n".into(), IfExists::Refuse);
        plan
    }

    #[test]
    fn failing_each_operation_in_turn_leaves_the_tree_as_it_was() {
        // Count the operations of a successful run first.
        let tmp = tempfile::tempdir().unwrap();
        let mut counter = FailingDisk { fail_at: usize::MAX, count: 0 };
        plan(tmp.path()).write_with(false, &mut counter).unwrap();
        let total = counter.count;
        assert_eq!(
            total,
            5 + 4 + 4,
            "5 new folders (api, api/src, api/src/v1, config, config/samples), 4 temporary files, 4 renames"
        );

        for fail_at in 0..total {
            let tmp = tempfile::tempdir().unwrap();
            let plan = plan(tmp.path());
            let before = snapshot(tmp.path());
            let err = plan.write_with(false, &mut FailingDisk { fail_at, count: 0 }).unwrap_err();
            assert!(format!("{err:#}").contains("no space left on device (injected)"), "{err:#}");
            assert_eq!(snapshot(tmp.path()), before, "failing operation {fail_at} changed the tree");
        }
    }

    #[test]
    fn refused_files_are_named_and_nothing_is_written() {
        let tmp = tempfile::tempdir().unwrap();
        let plan = plan(tmp.path());
        fs::create_dir_all(tmp.path().join("api/src/v1")).unwrap();
        fs::write(tmp.path().join("api/src/v1/kind.rs"), "user edits\n").unwrap();
        let before = snapshot(tmp.path());
        let err = plan.write(false).unwrap_err();
        assert_eq!(
            err.to_string(),
            "refusing to overwrite api/src/v1/kind.rs (already exists and differs): pass --force to replace it, losing its edits"
        );
        assert_eq!(snapshot(tmp.path()), before);
        let report = dry_run_report(&plan.check(false).unwrap());
        assert!(
            report.starts_with(
                "  update    PROJECT\n  refused   api/src/v1/kind.rs\n  create    config/samples/a.yaml\n  update    src/main.rs\n"
            ),
            "{report}"
        );
        assert!(
            report.contains("--- a/api/src/v1/kind.rs\n+++ b/api/src/v1/kind.rs\n@@ -1 +1 @@\n-user edits\n+kind\n"),
            "{report}"
        );
    }
}
