//! `rop verify -` on any input: the CRD reader (YAML streams, JSON, `v1/List`,
//! `CustomResourceDefinitionList`) and the verifier on every CRD found; then, as `rop generate`
//! checks `config/samples/`, the sample validator on every document of the same input against
//! those CRDs (schema, defaults, pruning, CEL evaluation). Nothing may panic or hang; an input
//! without a CRD must say what it held, and every finding must have a message.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

fuzz_target!(init: common::quiet_caught_parser_panics(), |data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(input) = rop_verify::crd_documents(text) else { return };
    if input.crds.is_empty() {
        assert!(!input.held().is_empty(), "an input without CRDs must say what it held");
        return;
    }
    let mut crds = Vec::new();
    for found in &input.crds {
        for finding in rop_verify::verify_crd(&found.crd) {
            assert!(!finding.message.is_empty(), "a finding without a message: {finding:?}");
        }
        crds.push(found.crd.clone());
    }
    for (_, finding) in rop_verify::samples::validate_yaml(&crds, text).unwrap_or_default() {
        assert!(!finding.message.is_empty(), "a finding without a message: {finding:?}");
    }
});
