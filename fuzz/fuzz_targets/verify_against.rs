//! `rop verify --against`: two revisions of a set of CRDs, OLD and NEW, separated by a line
//! `#~new~#`. CRDs are matched by `metadata.name` as the command does; one that NEW lacks gets
//! the removed-CRD finding. Without the separator the input is compared with itself, which
//! must find nothing: a revision never breaks itself.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use rop_verify::compat::{CompatOptions, compare_crds, crd_removed};
use serde_json::Value;

const SEPARATOR: &str = "\n#~new~#\n";

fn crds(text: &str) -> Option<Vec<Value>> {
    let input = rop_verify::crd_documents(text).ok()?;
    Some(input.crds.into_iter().map(|found| found.crd).collect())
}

fn name(crd: &Value) -> Option<&str> {
    crd.pointer("/metadata/name").and_then(Value::as_str)
}

fuzz_target!(init: common::quiet_caught_parser_panics(), |data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (old_text, new_text) = text.split_once(SEPARATOR).unwrap_or((text, text));
    let (Some(old), Some(new)) = (crds(old_text), crds(new_text)) else { return };
    for options in [CompatOptions::default(), CompatOptions { alpha_may_break: true }] {
        for old_crd in &old {
            match new.iter().find(|n| name(n) == name(old_crd)) {
                Some(new_crd) => {
                    let findings = compare_crds(old_crd, new_crd, &options);
                    if old_text == new_text && old_crd == new_crd {
                        assert!(findings.is_empty(), "a CRD compared with itself: {findings:#?}");
                    }
                }
                None => {
                    let _ = crd_removed(name(old_crd).unwrap_or_default());
                }
            }
        }
    }
});
