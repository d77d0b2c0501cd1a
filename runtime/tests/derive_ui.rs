//! Compile errors of `#[derive(rop::JsonSchema)]`, of schema markers on a spec and of webhook
//! attributes (tests/ui/newcomer/ holds the mistakes a first-time user made: one error each,
//! naming the fix): each UI test under tests/ui/ has its exact expected message in the `.stderr`
//! beside it (`TRYBUILD=overwrite cargo test -p rop --test derive_ui` rewrites them).

#[test]
fn schema_marker_errors() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/markers/*.rs");
    cases.compile_fail("tests/ui/webhooks/*.rs");
    cases.compile_fail("tests/ui/newcomer/*.rs");
    cases.compile_fail("tests/ui/controllers/*.rs");
}
