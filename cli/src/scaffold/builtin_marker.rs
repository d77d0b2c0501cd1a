//! A built-in kind's marker type in `api/src/builtin.rs`: the `#[derive(rop::BuiltinKind)]`
//! struct that carries the project's webhooks for the kind and, with `#[rop(controller)]`, what
//! its controller does. `create webhook` and `create api --resource=false` both add it; each
//! adds its own attributes to it.

use std::rc::Rc;

use super::context::TemplateContext;
use super::kind::KindNames;
use super::layout;
use super::spec::{IfExists, Insert, Scaffold};
use crate::builtin::Builtin;
use crate::project::Project;

/// The file of the marker types.
pub const FILE: &str = "api/src/builtin.rs";

/// Its template, for a project that has none yet.
pub const TEMPLATE: &str = "webhook/api/src/builtin.rs.tera";

/// The scaffold marker the marker types go above.
const MARKER: &str = "builtin-kinds";

/// The attributes that make the marker a kind a controller reconciles (the RBAC rule of the
/// runtime's Events is `rop generate`'s to add, once for the manager).
pub const CONTROLLER: [&str; 1] = ["#[rop(controller)]"];

/// `pub struct DeploymentV1;`: the line the attributes go above.
pub fn anchor(k: &KindNames) -> String {
    format!("pub struct {};", k.marker_type())
}

/// The marker file (written once, for the first built-in kind) and the insertions that declare
/// the marker of `b`, list it in the manifests generator and make the module public. The
/// marker's block goes in only where the file has no such type yet: the user may have given
/// it doc comments or attributes of their own.
pub fn describe(project: &Project, k: &KindNames, b: &Builtin, context: &Rc<TemplateContext>) -> Scaffold {
    let mut s = Scaffold::default();
    s.file(FILE, TEMPLATE, context, IfExists::Skip);
    let target = k.marker_type();
    let name = if b.group.is_empty() {
        format!("{} {}", b.version, b.kind)
    } else {
        format!("{}/{} {}", b.group, b.version, b.kind)
    };
    let block = format!(
        "/// The built-in kind {name}.\n#[derive(rop::BuiltinKind)]\n{}\n{}\n{}\n\n",
        layout::attribute(
            "",
            &format!(
                "#[rop(group = \"{}\", version = \"{}\", kind = \"{}\", plural = \"{}\")]",
                b.group, b.version, b.kind, b.plural
            )
        ),
        layout::attribute("", &format!("#[rop(object = \"{}\")]", b.rust_path())),
        anchor(k),
    );
    s.insert("api/src/lib.rs", "api-versions", "pub mod builtin;");
    s.inserts.push(Insert { unless_line: Some(anchor(k)), ..Insert::new(FILE, MARKER, block) });
    let call = layout::generic_call(
        8,
        "rop::manifests::builtin",
        &format!("{}::builtin::{target}", project.api_crate()),
        "",
        ",",
    );
    s.insert("api/src/bin/manifests.rs", "manifest-kinds", call);
    s
}

/// `text` with `attribute` (one line) right above the marker type of `k`, unless it is among
/// the marker's attributes already.
///
/// # Errors
/// When the file has no such marker type.
pub fn add_attribute(text: &str, k: &KindNames, attribute: &str) -> anyhow::Result<String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let at = position(&lines, k)?;
    let start = lines[..at].iter().rposition(|l| l.trim().is_empty()).map_or(0, |i| i + 1);
    if lines[start..at].iter().any(|l| l.trim() == attribute) {
        return Ok(text.to_string());
    }
    let indent: String = lines[at].chars().take_while(|c| c.is_whitespace()).collect();
    let mut out = lines[..at].concat();
    out.push_str(&format!("{indent}{attribute}\n"));
    out.push_str(&lines[at..].concat());
    Ok(out)
}

/// `text` without the line `attribute` among the attributes of the marker type of `k` (as it
/// is when absent).
pub fn remove_attribute(text: &str, k: &KindNames, attribute: &str) -> String {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let Ok(at) = position(&lines, k) else { return text.to_string() };
    let start = lines[..at].iter().rposition(|l| l.trim().is_empty()).map_or(0, |i| i + 1);
    let Some(line) = (start..at).find(|&i| lines[i].trim() == attribute) else { return text.to_string() };
    let mut out = lines[..line].concat();
    out.push_str(&lines[line + 1..].concat());
    out
}

/// `text` without the marker type of `k`: its doc comments and attributes (the lines above it
/// up to a blank one), its declaration and the blank line after it.
pub fn remove_item(text: &str, k: &KindNames) -> String {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let Ok(at) = position(&lines, k) else { return text.to_string() };
    let start = lines[..at].iter().rposition(|l| l.trim().is_empty()).map_or(0, |i| i + 1);
    let end = if lines.get(at + 1).is_some_and(|l| l.trim().is_empty()) { at + 2 } else { at + 1 };
    let mut out = lines[..start].concat();
    out.push_str(&lines[end..].concat());
    out
}

fn position(lines: &[&str], k: &KindNames) -> anyhow::Result<usize> {
    let anchor = anchor(k);
    lines.iter().position(|l| l.trim() == anchor).ok_or_else(|| {
        anyhow::anyhow!(
            "{FILE} has no `{anchor}` line, the marker type of {}: restore it, then run the command again",
            k.kind
        )
    })
}
