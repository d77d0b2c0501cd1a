//! A project's workspace Cargo.toml, read as TOML (`toml_edit`, so that a value taken from it
//! is written back as its author laid it out), and the dependency on rop's crates it holds.

use std::fmt;
use std::path::Path;

use toml_edit::{DocumentMut, InlineTable, Item, Value};

/// The file name, at the project root.
pub const FILE: &str = "Cargo.toml";

/// `root`'s Cargo.toml, parsed.
///
/// # Errors
/// The file cannot be read, or is not TOML.
pub fn read(root: &Path) -> anyhow::Result<DocumentMut> {
    let text = std::fs::read_to_string(root.join(FILE))?;
    Ok(text.parse::<DocumentMut>()?)
}

/// The string `[workspace.package] <key>` of `manifest` (`version`, `license`), if it has one.
pub fn workspace_package(manifest: &DocumentMut, key: &str) -> Option<String> {
    manifest.get("workspace")?.get("package")?.get(key)?.as_str().map(str::to_string)
}

/// How a project depends on the rop runtime crate: the inline table after `rop =` in its
/// `[workspace.dependencies]`, `{ path = "..." }` or `{ version = "..." }` (with whatever else
/// its author added there). rop's crates share one version and one checkout, so the
/// dependencies on rop-testenv and the staging of rop's crates for an image build follow from it.
#[derive(Clone, Debug)]
pub struct RopDependency(InlineTable);

impl RopDependency {
    /// The crate at `path` (`/` separators, relative to the project or absolute).
    pub fn path(path: &str) -> RopDependency {
        RopDependency::with("path", path)
    }

    /// The release that matches `requirement` (cargo's syntax: `0.1.0` is `^0.1.0`).
    pub fn version(requirement: &str) -> RopDependency {
        RopDependency::with("version", requirement)
    }

    fn with(key: &str, value: &str) -> RopDependency {
        let mut table = InlineTable::new();
        table.insert(key, Value::from(value));
        RopDependency(table)
    }

    /// The `rop` entry of `manifest`'s `[workspace.dependencies]`, as written there (an inline
    /// table, a dotted table or a bare version requirement).
    pub fn of(manifest: &DocumentMut) -> Option<RopDependency> {
        let item = manifest.get("workspace")?.get("dependencies")?.get("rop")?;
        let mut table = match item {
            Item::Value(Value::String(version)) => return Some(RopDependency::version(version.value())),
            Item::Value(Value::InlineTable(table)) => table.clone(),
            Item::Table(table) => table.clone().into_inline_table(),
            _ => return None,
        };
        // The space after `rop =` belongs to the line, not to the value written elsewhere.
        table.decor_mut().clear();
        Some(RopDependency(table))
    }

    /// The path of the runtime crate, when it is a path dependency.
    fn path_value(&self) -> Option<&str> {
        self.0.get("path").and_then(Value::as_str)
    }

    /// The dependency on rop-testenv that goes with this one: the same version, or the
    /// `testenv` folder beside the runtime crate's folder (`<checkout>/runtime` →
    /// `<checkout>/testenv`, `vendor/runtime` → `vendor/testenv`).
    pub fn testenv(&self) -> RopDependency {
        let mut table = self.0.clone();
        if let Some(path) = self.path_value() {
            let parent = path.rsplit_once('/').map_or("", |(parent, _)| parent);
            let testenv = if parent.is_empty() { "testenv".to_string() } else { format!("{parent}/testenv") };
            table.insert("path", Value::from(testenv));
        }
        RopDependency(table)
    }

    /// The folder holding rop's crates when the runtime is an absolute path (`/src/rop/runtime`
    /// → `/src/rop`), which `make docker-context` stages into the image's build context; empty
    /// for a version or a path inside the project, which the build context already has.
    pub fn crates_folder(&self) -> String {
        match self.path_value().filter(|p| p.starts_with('/')).and_then(|p| p.rsplit_once('/')) {
            // `/runtime`: the crates are in the root folder.
            Some(("", _)) => "/".to_string(),
            Some((parent, _)) => parent.to_string(),
            None => String::new(),
        }
    }
}

impl fmt::Display for RopDependency {
    /// The TOML value, `{ path = "/src/rop/runtime" }`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_crates_outside_the_project_are_staged_for_the_image() {
        for (rop, crates) in [
            (RopDependency::path("/src/rop/runtime"), "/src/rop"),
            (RopDependency::path("vendor/runtime"), ""),
            (RopDependency::version("0.1.0"), ""),
        ] {
            assert_eq!(rop.crates_folder(), crates, "{rop}");
        }
    }

    #[test]
    fn testenv_goes_beside_the_runtime() {
        for (rop, testenv) in [
            (RopDependency::path("/src/rop/runtime"), r#"{ path = "/src/rop/testenv" }"#),
            (RopDependency::path("vendor/runtime"), r#"{ path = "vendor/testenv" }"#),
            (RopDependency::path("runtime"), r#"{ path = "testenv" }"#),
            (RopDependency::version("0.1.0"), r#"{ version = "0.1.0" }"#),
        ] {
            assert_eq!(rop.testenv().to_string(), testenv);
        }
    }

    #[test]
    fn reads_the_dependency_as_its_author_wrote_it() {
        let manifest: DocumentMut =
            "[workspace.dependencies]\nrop = { version = \"0.1\",  features = [\"otel\"] } # pinned\n".parse().unwrap();
        assert_eq!(RopDependency::of(&manifest).unwrap().to_string(), r#"{ version = "0.1",  features = ["otel"] }"#);
        let dotted: DocumentMut = "[workspace.dependencies.rop]\npath = \"/r/runtime\"\n".parse().unwrap();
        assert_eq!(RopDependency::of(&dotted).unwrap().crates_folder(), "/r");
    }
}
