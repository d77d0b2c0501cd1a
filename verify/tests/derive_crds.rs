//! What the derive makes passes the verifier with no error: every kind of the derive corpus
//! (testdata/derive/corpus.rs) and the example at the top of docs/markers.md.
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

/// The example of docs/markers.md, in a module of its own: the corpus has a `Port` too.
mod docs_example {
    use rop::{CustomResource, JsonSchema};
    use serde::{Deserialize, Serialize};

    include!("../../testdata/derive/docs_example.rs");
}

/// `name: rule path: message` for each error finding of `crd`.
fn errors(crd: &CustomResourceDefinition) -> Vec<String> {
    let value = serde_json::to_value(crd).unwrap();
    rop_verify::verify_crd(&value)
        .into_iter()
        .filter(|f| f.is_error())
        .map(|f| format!("{}: {} {}: {}", crd.metadata.name.as_deref().unwrap_or("?"), f.rule, f.path, f.message))
        .collect()
}

#[test]
fn every_corpus_crd_passes_verify() {
    let crds = corpus_crds();
    assert!(crds.len() >= 30, "{}", crds.len());
    let failures: Vec<String> = crds.iter().flat_map(errors).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_documented_example_passes_verify() {
    assert_eq!(errors(&docs_example::CronJob::crd()), Vec::<String>::new());
}
