//! Compile errors of `#[derive(rop::JsonSchema)]` and of schema markers on a spec: each UI
//! test under tests/ui/markers/ has its exact expected message in the `.stderr` beside it
//! (`TRYBUILD=overwrite cargo test -p rop --test derive_ui` rewrites them).

#[test]
fn schema_marker_errors() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/markers/*.rs");
}
