//! The built-in templates (`templates/` of the rop source tree), embedded in the binary so an
//! installed `rop` needs no source tree, rendered with tera.

use include_dir::{Dir, include_dir};
use tera::{Context, Tera};

static TEMPLATES: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/../templates");

/// Every embedded template, loaded once.
pub struct Templates {
    tera: Tera,
}

impl Templates {
    /// Loads every file under `templates/` as a tera template named by its relative path.
    ///
    /// # Panics
    /// When a built-in template does not parse: a bug in rop, caught by its tests.
    pub fn load() -> Templates {
        let mut tera = Tera::default();
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
        Templates { tera }
    }

    /// Renders template `name` (a path under `templates/`).
    ///
    /// # Errors
    /// A variable the template needs is missing from `context`.
    pub fn render(&self, name: &str, context: &Context) -> anyhow::Result<String> {
        self.tera.render(name, context).map_err(|e| {
            let mut message = format!("rendering template {name}: {e}");
            let mut source = std::error::Error::source(&e);
            while let Some(inner) = source {
                message.push_str(&format!(": {inner}"));
                source = inner.source();
            }
            anyhow::anyhow!(message)
        })
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
