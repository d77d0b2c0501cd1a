//! `rop_verify::samples` against a CRD from the wild: cert-manager's `Certificate`
//! (`shared/testdata/crds-in-the-wild`), with a valid and an invalid Certificate of ours.

use rop_verify::Severity::{self, Error, Warning};
use rop_verify::samples::validate_yaml;

const CRD: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/testdata/crds-in-the-wild/cert-manager_Certificate.yaml");
const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../testdata/samples/cert-manager");

fn crds() -> Option<Vec<serde_json::Value>> {
    let Ok(text) = std::fs::read_to_string(CRD) else {
        eprintln!("skipping: {CRD} is absent (the shared test data is not checked out)");
        return None;
    };
    Some(rop_verify::yaml_documents(&text).unwrap().into_iter().map(|(_, d)| d).collect())
}

fn findings(crds: &[serde_json::Value], file: &str) -> Vec<(usize, Severity, &'static str, String, String)> {
    let text = std::fs::read_to_string(format!("{DIR}/{file}")).unwrap();
    validate_yaml(crds, &text)
        .unwrap()
        .into_iter()
        .map(|(i, f)| (i, f.severity, f.rule.id(), f.path, f.message))
        .collect()
}

#[test]
fn valid_certificate() {
    let Some(crds) = crds() else { return };
    assert_eq!(findings(&crds, "certificate-good.yaml"), vec![]);
}

#[test]
fn invalid_certificate() {
    let Some(crds) = crds() else { return };
    let f = |s, r, p: &str, m: &str| (0, s, r, p.to_string(), m.to_string());
    pretty_assertions::assert_eq!(
        findings(&crds, "certificate-bad.yaml"),
        vec![
            f(Warning, "sample.pruned", "spec.dnsName", "pruned: unknown field \"spec.dnsName\""),
            f(Error, "sample.schema", "spec.secretName", "Required value"),
            f(Error, "sample.schema", "spec.issuerRef.name", "Required value"),
            f(
                Error,
                "sample.schema",
                "spec.privateKey.algorithm",
                "Unsupported value: \"DSA\": supported values: \"RSA\", \"ECDSA\", \"Ed25519\""
            ),
            f(
                Error,
                "sample.schema",
                "spec.revisionHistoryLimit",
                "Invalid value: \"string\": spec.revisionHistoryLimit in body must be of type integer: \"string\""
            ),
        ]
    );
}
