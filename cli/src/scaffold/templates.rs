//! The built-in templates (`templates/` of the rop source tree), embedded in the binary so an
//! installed `rop` needs no source tree, rendered with tera.

use std::path::Path;

use anyhow::Context as _;
use include_dir::{Dir, include_dir};
use tera::{Context, Tera};

/// The folder of a project whose files override built-in templates of the same name.
pub const OVERRIDES: &str = ".rop/templates";

static TEMPLATES: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/../templates");

/// Every embedded template, loaded once.
pub struct Templates {
    tera: Tera,
}

impl Templates {
    /// Loads every built-in template (named by its path under `templates/`), then the
    /// project's own overrides: a file `.rop/templates/<name>` in `root` replaces built-in
    /// template `<name>` (for example `.rop/templates/api/src/controller/kind.rs.tera` changes
    /// every controller `create api` writes from then on).
    ///
    /// # Errors
    /// An override that is not UTF-8 or does not parse as a tera template.
    ///
    /// # Panics
    /// When a built-in template does not parse: a bug in rop, caught by its tests.
    pub fn load(root: &Path) -> anyhow::Result<Templates> {
        let mut tera = Tera::default();
        // `{% filter attributes %}#[rop(...)]{% endfilter %}`: attributes laid out as rustfmt would.
        tera.register_filter(
            "attributes",
            |value: &tera::Value, _: &std::collections::HashMap<String, tera::Value>| {
                let text = tera::try_get_value!("attributes", "value", String, value);
                Ok(tera::Value::String(super::layout::attributes(&text)))
            },
        );
        // `{% filter signatures %}...{% endfilter %}`: function signatures laid out as rustfmt would.
        tera.register_filter(
            "signatures",
            |value: &tera::Value, _: &std::collections::HashMap<String, tera::Value>| {
                let text = tera::try_get_value!("signatures", "value", String, value);
                Ok(tera::Value::String(super::layout::signatures(&text)))
            },
        );
        let mut files = Vec::new();
        collect(&TEMPLATES, &mut files);
        let sources: Vec<(String, &str)> = files
            .iter()
            .map(|f| {
                let path = f.path().to_string_lossy().replace('\\', "/");
                (path, f.contents_utf8().expect("templates are UTF-8"))
            })
            .collect();
        tera.add_raw_templates(sources).expect("built-in templates parse");
        tera.autoescape_on(vec![]);
        let overrides = root.join(OVERRIDES);
        let mut stack = vec![overrides.clone()];
        let mut found = Vec::new();
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else { continue };
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                } else {
                    found.push(path);
                }
            }
        }
        found.sort();
        for path in found {
            let name =
                path.strip_prefix(&overrides).expect("under the overrides folder").to_string_lossy().replace('\\', "/");
            let shown = format!("{OVERRIDES}/{name}");
            let text = std::fs::read_to_string(&path).with_context(|| format!("cannot read template {shown}"))?;
            if tera.get_template_names().all(|n| n != name) {
                anyhow::bail!(
                    "{shown} overrides no built-in template: its path under {OVERRIDES}/ must be a built-in template's, such as api/src/controller/kind.rs.tera"
                );
            }
            tera.add_raw_template(&name, &text)
                .map_err(|e| anyhow::anyhow!("template {shown} does not parse: {}", chain(&e)))?;
        }
        Ok(Templates { tera })
    }

    /// Renders template `name` (a path under `templates/`).
    ///
    /// # Errors
    /// A variable the template needs is missing from `context`.
    pub fn render(&self, name: &str, context: &Context) -> anyhow::Result<String> {
        self.tera.render(name, context).map_err(|e| anyhow::anyhow!("rendering template {name}: {}", chain(&e)))
    }

    /// Names of the templates under `prefix/`, sorted.
    pub fn names_under(&self, prefix: &str) -> Vec<String> {
        let prefix = format!("{prefix}/");
        let mut names: Vec<String> =
            self.tera.get_template_names().filter(|n| n.starts_with(&prefix)).map(str::to_string).collect();
        names.sort();
        names
    }
}

fn collect<'a>(dir: &'a Dir<'a>, out: &mut Vec<&'a include_dir::File<'a>>) {
    out.extend(dir.files());
    for sub in dir.dirs() {
        collect(sub, out);
    }
}

/// An error with its causes, `outer: cause: root cause`.
fn chain(e: &dyn std::error::Error) -> String {
    let mut message = e.to_string();
    let mut source = e.source();
    while let Some(inner) = source {
        message.push_str(&format!(": {inner}"));
        source = inner.source();
    }
    message
}
