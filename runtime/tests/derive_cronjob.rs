//! controller-gen's own golden CronJob CRD as the oracle: the CronJob test types of
//! controller-tools, written with rop's attributes (testdata/derive/cronjob.rs), must give the
//! same CRD, compared as parsed structures, value by value. The differences that remain are
//! deliberate and listed in `ALLOWED` with their reason (docs/markers.md explains each); a new
//! difference, or an allowed one that went away, fails the test.
// The Go types' optional pointers are plain `Option`s here, written as `null` when `None`;
// the derive's warning about that is expected in a port kept close to the Go source.
#![allow(deprecated)]

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::{Value, json};

include!("../../testdata/derive/cronjob.rs");

fn golden() -> Option<Value> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/testdata/controller-gen/testdata.kubebuilder.io_cronjobs.yaml");
    let text = std::fs::read_to_string(path).ok()?;
    Some(serde_yaml::from_str(&text).expect("the golden CRD is YAML"))
}

fn rop_crd() -> Value {
    use rop::CustomResource as _;
    let crds = rop::crd::merge(vec![
        v1::CronJob::custom_resource_definition(),
        v1beta1::CronJob::custom_resource_definition(),
        v1beta2::CronJob::custom_resource_definition(),
    ])
    .expect("the three versions merge");
    assert_eq!(crds.len(), 1);
    serde_json::to_value(&crds[0]).unwrap()
}

/// What neither side is compared on: descriptions (doc text is the author's), controller-gen's
/// version annotation, and the upstream JobSpec under `jobTemplate.spec` (controller-tools
/// vendors an older Kubernetes than k8s-openapi's).
fn normalise(crd: &mut Value) {
    fn strip_descriptions(node: &mut Value) {
        match node {
            Value::Object(map) => {
                map.remove("description");
                for (key, child) in map.iter_mut() {
                    if !matches!(key.as_str(), "default" | "example" | "enum") {
                        strip_descriptions(child);
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(strip_descriptions),
            _ => {}
        }
    }
    if let Some(annotations) = crd.pointer_mut("/metadata/annotations").and_then(Value::as_object_mut) {
        annotations.remove("controller-gen.kubebuilder.io/version");
    }
    if let Some(versions) = crd.pointer_mut("/spec/versions").and_then(Value::as_array_mut) {
        for version in versions {
            let schema = version.pointer_mut("/schema/openAPIV3Schema").unwrap();
            strip_descriptions(schema);
            if let Some(job) = schema.pointer_mut("/properties/spec/properties/jobTemplate/properties/spec") {
                *job = json!("<upstream JobSpec>");
            }
        }
    }
}

/// Every place where `a` (rop) and `b` (controller-gen) differ, by path, versions named by
/// their name rather than their index.
fn diff(path: &str, a: Option<&Value>, b: Option<&Value>, out: &mut BTreeMap<String, String>) {
    match (a, b) {
        (Some(Value::Object(x)), Some(Value::Object(y))) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for key in keys {
                diff(&format!("{path}/{key}"), x.get(key), y.get(key), out);
            }
        }
        (Some(Value::Array(x)), Some(Value::Array(y))) if path.ends_with("/versions") && x.len() == y.len() => {
            for (vx, vy) in x.iter().zip(y) {
                diff(&format!("{path}/{}", vx["name"].as_str().unwrap_or("?")), Some(vx), Some(vy), out);
            }
        }
        (Some(Value::Number(x)), Some(Value::Number(y))) if x.as_f64() == y.as_f64() => {}
        (x, y) if x == y => {}
        (x, y) => {
            let show = |v: Option<&Value>| v.map_or("(absent)".to_string(), |v| v.to_string());
            out.insert(path.to_string(), format!("rop {} / controller-gen {}", show(x), show(y)));
        }
    }
}

const V1: &str = "/spec/versions/v1/schema/openAPIV3Schema/properties";

/// The deliberate differences, by path under the v1 schema's `properties` (or the whole CRD
/// when it starts with `/`), each with its reason.
const ALLOWED: &[(&str, &str)] = &[
    // rop always requires `spec`, as kubebuilder v4 projects mark it +required; controller-gen's
    // test type has `spec,omitempty`.
    ("/spec/versions/v1/schema/openAPIV3Schema/required", "spec is required"),
    ("/spec/versions/v1beta1/schema/openAPIV3Schema/required", "spec is required"),
    ("/spec/versions/v1beta2/schema/openAPIV3Schema/required", "spec is required"),
    // Every rop kind has a spec type; controller-gen's v1beta2 test type has none.
    ("/spec/versions/v1beta2/schema/openAPIV3Schema/properties/spec", "a kind always has a spec"),
    ("/spec/versions/v1beta1/schema/openAPIV3Schema/properties/status", "the status subresource has a status schema"),
    ("/spec/versions/v1beta2/schema/openAPIV3Schema/properties/status", "the status subresource has a status schema"),
    // An embedded ObjectMeta keeps the labels and annotations a user sets on a template, as
    // controller-gen does with crd:generateEmbeddedObjectMeta=true; its golden file is without.
    (
        "spec/properties/jobTemplate/properties/metadata/properties",
        "embedded ObjectMeta as with generateEmbeddedObjectMeta=true",
    ),
    // Go's `int` has no format; Rust integers always have a width.
    ("spec/properties/array/items/format", "Rust integers carry their width"),
    ("spec/properties/associativeList/items/properties/secondary/format", "Rust integers carry their width"),
    ("spec/properties/enumSlice/items/format", "Rust integers carry their width"),
    ("spec/properties/forbiddenInt/format", "Rust integers carry their width"),
    ("spec/properties/intWithValidations/format", "Rust integers carry their width"),
    ("spec/properties/k8sAssociativeList/items/properties/secondary/format", "Rust integers carry their width"),
    ("spec/properties/k8sNestedAssociativeList/items/properties/secondary/format", "Rust integers carry their width"),
    ("spec/properties/nestedassociativeList/items/properties/secondary/format", "Rust integers carry their width"),
    // f64 is a double.
    ("spec/properties/float64WithValidations/format", "f64 is format double"),
    ("spec/properties/floatWithValidations/format", "f64 is format double"),
    // A Rust array has a length the schema states.
    ("spec/properties/array/maxItems", "Rust arrays state their length"),
    ("spec/properties/array/minItems", "Rust arrays state their length"),
    ("spec/properties/arrayUsingCompositeLiteral/maxItems", "Rust arrays state their length"),
    ("spec/properties/arrayUsingCompositeLiteral/minItems", "Rust arrays state their length"),
    // A field-level bound and a type-level one of the same kind: the field's wins, instead of
    // controller-gen's allOf of both (which its users report as a CEL-cost problem).
    ("spec/properties/fieldLevelAliasOverride/allOf", "the field's bound wins, no allOf"),
    ("spec/properties/fieldLevelAliasOverride/maxLength", "the field's bound wins, no allOf"),
    ("spec/properties/fieldLevelAliasOverride/minLength", "the field's bound wins, no allOf"),
    ("spec/properties/fieldLevelLocalDeclarationOverride/allOf", "the field's bound wins, no allOf"),
    ("spec/properties/fieldLevelLocalDeclarationOverride/minLength", "the field's bound wins, no allOf"),
];

#[test]
fn cronjob_matches_controller_gen() {
    let Some(mut expected) = golden() else {
        eprintln!("skipped: ../shared/testdata/controller-gen is not beside the checkout");
        return;
    };
    let mut actual = rop_crd();
    normalise(&mut actual);
    normalise(&mut expected);
    let mut found = BTreeMap::new();
    diff("", Some(&actual), Some(&expected), &mut found);
    let allowed: BTreeMap<String, &str> = ALLOWED
        .iter()
        .map(|(path, why)| {
            let full = if path.starts_with('/') { path.to_string() } else { format!("{V1}/{path}") };
            (full, *why)
        })
        .collect();
    let unexpected: Vec<String> =
        found.iter().filter(|(p, _)| !allowed.contains_key(*p)).map(|(p, d)| format!("{p}: {d}")).collect();
    let gone: Vec<&String> = allowed.keys().filter(|p| !found.contains_key(*p)).collect();
    assert!(
        unexpected.is_empty() && gone.is_empty(),
        "differences from controller-gen that are not allowed:\n{}\nallowed differences that no longer occur:\n{:?}",
        unexpected.join("\n"),
        gone
    );
}

/// The parts of the comparison that must not be vacuous: the golden file has the three
/// versions, and rop's CRD has the v1 fields.
#[test]
fn comparison_covers_every_field() {
    let Some(expected) = golden() else {
        eprintln!("skipped: ../shared/testdata/controller-gen is not beside the checkout");
        return;
    };
    let count = |crd: &Value| {
        crd.pointer("/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties")
            .and_then(Value::as_object)
            .map_or(0, |p| p.len())
    };
    assert_eq!(count(&expected), 98);
    assert_eq!(count(&rop_crd()), 98);
}
