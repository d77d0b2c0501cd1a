//! `rop import crd`: every version of every CRD in the input turned into Rust types. The
//! conversion is the CLI's own (`cli/src/import`, whose schema-to-Rust files depend on nothing
//! else of the CLI, included here by path since the CLI is a binary crate). What it renders
//! must parse as a Rust file whenever it renders anything.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use serde_json::Value;

#[path = "../../cli/src/import"]
#[allow(dead_code)]
mod import {
    pub mod idents;
    pub mod kind;
    pub mod literal;
    pub mod render;
    pub mod types;
}

/// What the command checks before it renders a CRD: the API server would accept it, and its
/// kind and versions can name Rust items (`check_names` in `cli/src/import/mod.rs`; the full
/// kind check is `cli/src/names.rs`, of which only the part that decides the syntax matters
/// here).
fn importable(crd: &Value) -> bool {
    let kind = crd.pointer("/spec/names/kind").and_then(Value::as_str).unwrap_or_default();
    let camel = kind.starts_with(|c: char| c.is_ascii_uppercase()) && kind.chars().all(|c| c.is_ascii_alphanumeric());
    let errors = rop_verify::verify_crd(crd).into_iter().any(|f| f.severity == rop_verify::Severity::Error);
    camel && kind != "Self" && !errors
}

fn version_is_identifier(version: &str) -> bool {
    version.starts_with(|c: char| c.is_ascii_lowercase())
        && version.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

fuzz_target!(init: common::quiet_caught_parser_panics(), |data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(input) = rop_verify::crd_documents(text) else { return };
    for found in input.crds.iter().filter(|found| importable(&found.crd)) {
        let versions = found.crd.pointer("/spec/versions").and_then(Value::as_array).cloned().unwrap_or_default();
        for version in versions.iter().filter(|v| v["name"].as_str().is_some_and(version_is_identifier)) {
            for types_only in [false, true] {
                let Ok(kv) = import::kind::read(&found.crd, version, "fuzz.yaml", types_only) else { continue };
                let source = import::render::file(&kv, "// header\n", "fuzz.yaml");
                if let Err(e) = syn::parse_file(&source) {
                    panic!("import rendered Rust that does not parse: {e}\n{source}");
                }
            }
        }
    }
});
