//! A scaffold described as data before anything is rendered or written: each file a template
//! with its path, its context and what to do if the file exists, and each edit of an existing
//! file an insertion at a `+rop:scaffold:` marker. Commands build a [`Scaffold`];
//! the plan (`Plan::apply`) renders and plans it in one place, and the `delete`
//! commands read the same description to know what to take out.

use std::rc::Rc;

use super::context::TemplateContext;
use super::templates::Templates;

/// How a planned file treats an existing file at its path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IfExists {
    /// Refuse unless `--force` (user-owned files: types, reconcilers, webhook modules).
    Refuse,
    /// Replace (files rop owns, or files already read and extended at markers).
    Overwrite,
    /// Leave an existing file alone, and report it kept (a README or .gitignore the
    /// repository already has).
    Keep,
    /// Write the file only when it is absent; an existing one (on disk or planned) stays out of
    /// the plan. Files several kinds share: a version module, the webhook Service.
    Skip,
}

/// A file rendered from a template.
#[derive(Clone, Debug)]
pub struct FileSpec {
    /// Path relative to the project root.
    pub path: String,
    /// Template name under `templates/` (or a project's `.rop/templates/`).
    pub template: String,
    /// What the template is rendered with.
    pub context: Rc<TemplateContext>,
    pub if_exists: IfExists,
}

impl FileSpec {
    /// The file's content.
    ///
    /// # Errors
    /// The template does not render (a variable it needs is missing).
    pub fn render(&self, templates: &Templates) -> anyhow::Result<String> {
        templates.render(&self.template, &self.context.to_tera())
    }
}

/// Lines inserted before a `+rop:scaffold:<marker>` line of a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Insert {
    pub path: String,
    pub marker: String,
    /// The text inserted, already rendered: short, and compared as text by the `delete`
    /// commands to find and take out what `create` put in.
    pub fragment: String,
    /// A line (trimmed) whose presence in the file means the fragment is there already in
    /// another form (a built-in kind's marker type the user gave doc comments): then it is
    /// not inserted.
    pub unless_line: Option<String>,
}

impl Insert {
    /// `fragment` before `marker` in `path`.
    pub fn new(path: &str, marker: &str, fragment: impl Into<String>) -> Insert {
        Insert { path: path.into(), marker: marker.into(), fragment: fragment.into(), unless_line: None }
    }
}

/// What a command adds: its files, its insertions (in order: a file's skeleton before the
/// fragments that go into it), and the attributes it puts on a type in user code.
#[derive(Clone, Debug, Default)]
pub struct Scaffold {
    pub files: Vec<FileSpec>,
    pub inserts: Vec<Insert>,
    /// `#[rop(...)]` lines for the type the command is about: a kind's spec type, or a
    /// built-in kind's marker type.
    pub attributes: Vec<String>,
}

impl Scaffold {
    /// Adds a file from `template` at `path`.
    pub fn file(
        &mut self,
        path: impl Into<String>,
        template: &str,
        context: &Rc<TemplateContext>,
        if_exists: IfExists,
    ) {
        self.files.push(FileSpec { path: path.into(), template: template.into(), context: context.clone(), if_exists });
    }

    /// Adds an insertion of `fragment` before `marker` in `path`, once: a `use` line two
    /// webhooks of a kind need is one insertion, which `delete` takes out once.
    pub fn insert(&mut self, path: &str, marker: &str, fragment: impl Into<String>) {
        let insert = Insert::new(path, marker, fragment);
        if !self
            .inserts
            .iter()
            .any(|i| i.path == insert.path && i.marker == insert.marker && i.fragment == insert.fragment)
        {
            self.inserts.push(insert);
        }
    }

    /// Adds everything `other` describes, after what this one does.
    pub fn extend(&mut self, other: Scaffold) {
        self.files.extend(other.files);
        self.inserts.extend(other.inserts);
        self.attributes.extend(other.attributes);
    }
}
