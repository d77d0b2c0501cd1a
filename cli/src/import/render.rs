//! The Rust source of one imported kind version: the spec (with the kind's `#[rop(...)]`
//! keys), the status and every type below them, formatted by rustfmt when it is installed.

use std::fmt::Write as _;

use super::idents;
use super::kind::KindVersion;
use super::literal::string;
use super::types::{Field, Type};

/// The file `api/src/<version>/<kind>.rs` for `kv`, `header` (the copyright lines) first.
pub fn file(kv: &KindVersion, header: &str, source: &str) -> String {
    let mut out = String::from(header);
    let _ = writeln!(
        out,
        "//! The `{}` kind, version `{}` of `{}`, imported from `{source}` by `rop import`.",
        kv.kind, kv.version, kv.group
    );
    if kv.types_only {
        out.push_str("//!\n//! Types of a kind this project uses and does not own: the manifests generator does not list\n//! it, so `rop generate` writes no CRD for it. Doc comments are the CRD's descriptions.\n");
    } else {
        out.push_str("//!\n//! Doc comments are the CRD's descriptions. Edit the types, then run `make manifests`.\n");
    }
    out.push_str(
        "\n// Descriptions are kept as the CRD wrote them, which is not always the Markdown clippy and\n// rustdoc expect; types follow the schema, nested maps and lists included.\n",
    );
    out.push_str("#![allow(clippy::doc_lazy_continuation, clippy::doc_overindented_list_items, clippy::tabs_in_doc_comments, clippy::type_complexity)]\n");
    out.push_str("#![allow(rustdoc::bare_urls, rustdoc::broken_intra_doc_links, rustdoc::invalid_html_tags)]\n\n");
    let uses = &kv.types.uses;
    if uses.contains("BTreeMap") {
        out.push_str("use std::collections::BTreeMap;\n\n");
    }
    out.push_str("use rop::{CustomResource, JsonSchema};\n");
    if uses.contains("IntOrString") {
        out.push_str("use rop::k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;\n");
    }
    out.push_str("use serde::{Deserialize, Serialize};\n");
    if uses.contains("Value") {
        out.push_str("use serde_json::Value;\n");
    }
    for (i, t) in kv.types.types.iter().enumerate() {
        out.push('\n');
        if i == 0 {
            spec(&mut out, kv, t);
        } else {
            ty(&mut out, t);
        }
    }
    out
}

fn spec(out: &mut String, kv: &KindVersion, t: &Type) {
    let mut keys = vec![
        format!("group = {}", string(&kv.group)),
        format!("version = {}", string(&kv.version)),
        format!("kind = {}", string(&kv.kind)),
        format!("plural = {}", string(&kv.plural)),
    ];
    keys.extend(kv.crd_keys.iter().cloned());
    let mut lines = vec![
        "#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]".to_string(),
        format!("#[rop({})]", keys.join(", ")),
    ];
    lines.extend(kv.crd_lists.iter().map(|key| format!("#[rop({key})]")));
    if kv.repeats_column_setting {
        // clippy's duplicated_attributes reads one `key = "value"` in two attributes of an
        // item (two printer columns of type string) as a mistake.
        lines.insert(0, "#[allow(clippy::duplicated_attributes)]".to_string());
    }
    write_type(out, t, &lines);
}

fn ty(out: &mut String, t: &Type) {
    let derive = if t.variants.is_empty() {
        "#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]"
    } else {
        "#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, JsonSchema)]"
    };
    write_type(out, t, &[derive.to_string()]);
}

fn write_type(out: &mut String, t: &Type, head: &[String]) {
    let mut schemars = t.schemars.clone();
    if let Some(description) = doc(out, "", t.doc.as_deref()) {
        schemars.insert(0, description);
    }
    for line in head {
        let _ = writeln!(out, "{line}");
    }
    attrs(out, "", &t.rop, &schemars);
    if t.variants.is_empty() {
        let camel = t.fields.iter().filter(|f| idents::camel_case_gives(&f.ident, &f.json)).count();
        let rename_all = camel > 0;
        if rename_all {
            out.push_str("#[serde(rename_all = \"camelCase\")]\n");
        }
        let _ = writeln!(out, "pub struct {} {{", t.name);
        for f in &t.fields {
            field(out, f, rename_all);
        }
        out.push_str("}\n");
    } else {
        let _ = writeln!(out, "pub enum {} {{", t.name);
        for (variant, json) in &t.variants {
            if variant != json {
                let _ = writeln!(out, "    #[serde(rename = {})]", string(json));
            }
            let _ = writeln!(out, "    {variant},");
        }
        out.push_str("}\n");
    }
}

fn field(out: &mut String, f: &Field, rename_all: bool) {
    let mut schemars = f.schemars.clone();
    if let Some(description) = doc(out, "    ", f.doc.as_deref()) {
        schemars.insert(0, description);
    }
    let mut serde = Vec::new();
    let as_is = if rename_all {
        idents::camel_case_gives(&f.ident, &f.json)
    } else {
        f.ident.trim_start_matches("r#") == f.json
    };
    if !as_is {
        serde.push(format!("rename = {}", string(&f.json)));
    }
    if f.optional {
        serde.push("default, skip_serializing_if = \"Option::is_none\"".into());
    }
    if !serde.is_empty() {
        let _ = writeln!(out, "    #[serde({})]", serde.join(", "));
    }
    attrs(out, "    ", &f.rop, &schemars);
    let ty = if f.optional || f.nullable_required { format!("Option<{}>", f.ty) } else { f.ty.clone() };
    let _ = writeln!(out, "    pub {}: {ty},", f.ident);
}

fn attrs(out: &mut String, indent: &str, rop: &[String], schemars: &[String]) {
    if !schemars.is_empty() {
        let _ = writeln!(out, "{indent}#[schemars({})]", schemars.join(", "));
    }
    if !rop.is_empty() {
        let _ = writeln!(out, "{indent}#[rop({})]", rop.join(", "));
    }
}

/// Writes `///` lines for a description; returns the `description = ...` key for
/// `#[schemars(...)]` instead when doc comments would not give it back exactly (schemars trims
/// the text and reads a leading `#` as a title) or rustdoc would read code in it.
fn doc(out: &mut String, indent: &str, text: Option<&str>) -> Option<String> {
    let text = text?;
    let exact = !text.is_empty()
        && text.trim() == text
        && !text.starts_with('#')
        && !text.contains('\r')
        && text.lines().all(|l| l.trim_end() == l)
        && !text.contains("*/")
        // Rustdoc would run a fenced or indented block as a doctest (`cargo test` fails).
        && !text.contains("```")
        && !text.contains("~~~")
        && !text.lines().any(|l| l.starts_with("    ") || l.starts_with('\t'));
    if exact {
        for line in text.split('\n') {
            if line.is_empty() {
                let _ = writeln!(out, "{indent}///");
            } else {
                let _ = writeln!(out, "{indent}/// {line}");
            }
        }
        None
    } else {
        Some(format!("description = {}", string(text)))
    }
}
