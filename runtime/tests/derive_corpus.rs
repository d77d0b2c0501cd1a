//! The derive corpus (testdata/derive/corpus.rs): every kind's CRD is checked against its
//! golden file under testdata/derive/expected/ (`ROP_BLESS=1` rewrites them).
//! verify/tests/derive_crds.rs verifies them, and testenv/tests/derive_crds.rs creates them on a
//! real API server.
// The corpus writes some `Option`s as `null` on purpose (the API server's handling of `null`
// is part of what it checks); the derive's warning about them is expected.
#![allow(deprecated)]

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

/// Unit and data variants with schemars' own derive, which rop cannot see at compile time.
#[derive(Serialize, Deserialize, schemars::JsonSchema)]
pub enum Selector {
    AllCaptured,
    Named(Vec<String>),
}

/// A string or a struct, untagged: no derive can tell a newtype's JSON type.
#[derive(Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum NameOrRef {
    Name(String),
    Ref(BTreeMap<String, String>),
}

/// Strings or numbers only: one JSON type per value is not needed for int-or-string.
#[derive(Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum PortOrName {
    Number(i64),
    Name(String),
}

#[derive(Serialize, Deserialize, JsonSchema)]
pub struct Selections {
    pub selector: Selector,
    pub selectors: Vec<Selector>,
    pub by_name: BTreeMap<String, NameOrRef>,
    pub maybe: Option<NameOrRef>,
    /// Accepted on the field.
    #[rop(preserve_unknown_fields)]
    pub accepted: NameOrRef,
    pub port: PortOrName,
}

/// Every node that keeps unknown fields because its values have several JSON types is
/// reported with its path, type and shapes, except where a marker accepts it; the schema is
/// the same as without the check.
#[test]
fn unstructured_nodes_are_reported_unless_accepted() {
    let (schema, found) = rop::schema::structural_schema_checked::<Selections>("spec");
    assert_eq!(schema, rop::schema::structural_schema_for::<Selections>());
    assert!(!schema.to_string().contains("x-rop"), "{schema}");
    let node = |path: &str, rust_type: &str, shapes: &[&str]| rop::schema::Unstructured {
        path: path.into(),
        rust_type: Some(rust_type.into()),
        shapes: shapes.iter().map(|s| s.to_string()).collect(),
    };
    assert_eq!(
        found,
        vec![
            node("spec.by_name[*]", "NameOrRef", &["string", "object"]),
            node("spec.maybe", "NameOrRef", &["string", "object"]),
            node("spec.selector", "Selector", &["string", "object"]),
            node("spec.selectors[*]", "Selector", &["string", "object"]),
        ]
    );
    assert_eq!(
        found[2].to_string(),
        "spec.selector: `Selector` is written as a string or an object (serde's form of its variants), and a CRD schema node has one type, so the API server would keep any value there unvalidated"
    );
    // The corpus's mixed enums carry #[rop(preserve_unknown_fields)]: nothing to report.
    assert_eq!(rop::schema::structural_schema_checked::<MixedEnumSpec>("spec").1, vec![]);
    assert_eq!(rop::schema::structural_schema_checked::<UntaggedMixedSpec>("spec").1, vec![]);
}
