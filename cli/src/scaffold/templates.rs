//! The built-in templates (`templates/` of the rop source tree), embedded in the binary so an
//! installed `rop` needs no source tree, rendered with tera.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::path::Path;

use anyhow::Context as _;
use include_dir::{Dir, include_dir};
use tera::{Context, Tera};

/// The folder of a project whose files override built-in templates of the same name.
pub const OVERRIDES: &str = ".rop/templates";

static TEMPLATES: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/../templates");

/// The embedded templates, each group (`init/`, `api/`, `webhook/`, `helm/`, with `partials/`,
/// which the others include) parsed the first time one of its templates is rendered: a
/// command renders one or two groups, and parsing all of them took half of a `create api`.
pub struct Templates {
    tera: RefCell<Tera>,
    /// The groups parsed so far.
    parsed: RefCell<BTreeSet<String>>,
    /// The names of the project's overrides, parsed at load (their built-ins are never parsed).
    overridden: BTreeSet<String>,
}

impl Templates {
    /// Prepares the built-in templates (named by their path under `templates/`; parsed when
    /// first needed), then loads the project's own overrides: a file `.rop/templates/<name>` in
    /// `root` replaces built-in template `<name>` (for example
    /// `.rop/templates/api/src/controller/kind.rs.tera` changes every controller `create api`
    /// writes from then on).
    ///
    /// # Errors
    /// An override that is not UTF-8, names no built-in template, or does not parse as a tera
    /// template.
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
        tera.autoescape_on(vec![]);
        let built_in: BTreeSet<String> = built_in().map(|(name, _)| name).collect();
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
        let mut overridden = BTreeSet::new();
        for path in found {
            let name =
                path.strip_prefix(&overrides).expect("under the overrides folder").to_string_lossy().replace('\\', "/");
            let shown = format!("{OVERRIDES}/{name}");
            let text = std::fs::read_to_string(&path).with_context(|| format!("cannot read template {shown}"))?;
            if !built_in.contains(&name) {
                anyhow::bail!(
                    "{shown} overrides no built-in template: its path under {OVERRIDES}/ must be a built-in template's, such as api/src/controller/kind.rs.tera"
                );
            }
            tera.add_raw_template(&name, &text)
                .map_err(|e| anyhow::anyhow!("template {shown} does not parse: {}", chain(&e)))?;
            overridden.insert(name);
        }
        Ok(Templates { tera: RefCell::new(tera), parsed: RefCell::new(BTreeSet::new()), overridden })
    }

    /// Renders template `name` (a path under `templates/`).
    ///
    /// # Errors
    /// A variable the template needs is missing from `context`.
    ///
    /// # Panics
    /// When a built-in template does not parse: a bug in rop, caught by its tests.
    pub fn render(&self, name: &str, context: &Context) -> anyhow::Result<String> {
        self.parse(group(name));
        self.tera
            .borrow()
            .render(name, context)
            .map_err(|e| anyhow::anyhow!("rendering template {name}: {}", chain(&e)))
    }

    /// Names of the templates under `prefix/`, sorted.
    pub fn names_under(&self, prefix: &str) -> Vec<String> {
        let prefix = format!("{prefix}/");
        let mut names: Vec<String> = built_in().map(|(name, _)| name).filter(|n| n.starts_with(&prefix)).collect();
        names.sort();
        names
    }

    /// Parses the built-in templates of `group`, and of `partials`, unless they are already.
    fn parse(&self, group: &str) {
        for group in [PARTIALS, group] {
            if !self.parsed.borrow_mut().insert(group.to_string()) {
                continue;
            }
            let sources: Vec<(String, &str)> =
                built_in().filter(|(name, _)| self::group(name) == group && !self.overridden.contains(name)).collect();
            self.tera.borrow_mut().add_raw_templates(sources).expect("built-in templates parse");
        }
    }
}

/// The group the templates other templates include.
const PARTIALS: &str = "partials";

/// The group of template `name`: its first folder.
fn group(name: &str) -> &str {
    name.split_once('/').map_or(name, |(group, _)| group)
}

/// Every built-in template: its name (its path under `templates/`) and text.
fn built_in() -> impl Iterator<Item = (String, &'static str)> {
    let mut files = Vec::new();
    collect(&TEMPLATES, &mut files);
    files.into_iter().map(|f| {
        let path = f.path().to_string_lossy().replace('\\', "/");
        (path, f.contents_utf8().expect("templates are UTF-8"))
    })
}

fn collect(dir: &'static Dir<'static>, out: &mut Vec<&'static include_dir::File<'static>>) {
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
