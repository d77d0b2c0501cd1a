//! The derive corpus (testdata/derive/corpus.rs): every kind's CRD is checked against its
//! golden file under testdata/derive/expected/ (`ROP_BLESS=1` rewrites them).
//! verify/tests/derive_crds.rs verifies them, and testenv/tests/derive_crds.rs creates them on a
//! real API server.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube_core::CustomResourceExt;
use rop::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

include!("../../testdata/derive/rop_corpus.rs");

fn expected_dir() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata/derive/expected")
}

#[test]
fn crds_match_golden_files() {
    let bless = std::env::var_os("ROP_BLESS").is_some();
    let mut mismatched = Vec::new();
    for crd in corpus_crds() {
        let name = crd.metadata.name.clone().unwrap();
        let path = expected_dir().join(format!("{name}.yaml"));
        let actual = rop::yaml::document(&crd).unwrap();
        if bless {
            std::fs::create_dir_all(expected_dir()).unwrap();
            std::fs::write(&path, &actual).unwrap();
        }
        let expected = std::fs::read_to_string(&path).unwrap_or_default();
        if expected != actual {
            mismatched.push(name);
        }
    }
    assert!(mismatched.is_empty(), "CRDs differ from testdata/derive/expected (ROP_BLESS=1 rewrites): {mismatched:?}");
}

#[test]
fn corpus_has_at_least_thirty_kinds() {
    assert!(corpus_crds().len() >= 30, "{}", corpus_crds().len());
}

/// No private key of the marker machinery reaches a CRD.
#[test]
fn no_private_keys_in_any_crd() {
    for crd in corpus_crds() {
        let text = serde_json::to_string(&crd).unwrap();
        assert!(!text.contains("x-rop"), "{}", crd.metadata.name.unwrap());
    }
    let schema = rop::schema::structural_schema_for::<ExtensionsSpec>().to_string();
    assert!(!schema.contains("x-rop"), "{schema}");
}

/// A type marked immutable.
#[derive(Serialize, Deserialize, JsonSchema)]
#[rop(immutable)]
pub struct Frozen {
    pub a: String,
}

#[derive(Serialize, Deserialize, JsonSchema)]
pub struct Holder {
    pub list: Vec<Frozen>,
    pub one: Option<Frozen>,
}

/// A type-level marker applies wherever the type is used; the rule that an optional field
/// cannot be removed once set goes to the parent, and list items leave nothing behind.
#[test]
fn type_level_immutable_in_lists_and_optional_fields() {
    let frozen = serde_json::json!({
        "description": "A type marked immutable.",
        "properties": {"a": {"type": "string"}},
        "required": ["a"],
        "type": "object",
        "x-kubernetes-validations": [{"message": "field is immutable", "rule": "self == oldSelf"}],
    });
    assert_eq!(
        rop::schema::structural_schema_for::<Holder>(),
        serde_json::json!({
            "properties": {"list": {"items": frozen, "type": "array"}, "one": frozen},
            "required": ["list"],
            "type": "object",
            "x-kubernetes-validations": [
                {"message": "field one is immutable once set", "rule": "!has(oldSelf.one) || has(self.one)"}
            ],
        })
    );
}
