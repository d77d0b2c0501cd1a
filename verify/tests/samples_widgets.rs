//! `rop_verify::samples` on `testdata/samples/widgets.example.com.yaml`: every `bad/<case>.yaml` gives
//! exactly the findings listed here, and its twin `good/<case>.yaml` gives none.

use rop_verify::Severity::{self, Error, Warning};
use rop_verify::samples::{validate_object, validate_yaml};
use serde_json::{Value, json};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../testdata/samples");

const SUBDOMAIN: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or \
'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is \
'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

const CEL_SKIPPED: (Severity, &str, &str, &str) = (
    Warning,
    "sample.cel-unevaluated",
    "(root)",
    "some validation rules were not checked because the object was invalid; correct the existing errors to complete \
     validation",
);

fn read(path: &str) -> Value {
    let text = std::fs::read_to_string(format!("{DIR}/{path}")).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_yaml::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn crd() -> Value {
    read("widgets.example.com.yaml")
}

/// The findings of `object` as (severity, rule, path, message).
fn findings(crd: &Value, object: &Value) -> Vec<(Severity, &'static str, String, String)> {
    validate_object(crd, object).into_iter().map(|f| (f.severity, f.rule.id(), f.path, f.message)).collect()
}

fn expect(case: &str, expected: &[(Severity, &str, &str, &str)]) {
    let crd = crd();
    let got = findings(&crd, &read(&format!("bad/{case}.yaml")));
    let want: Vec<_> = expected.iter().map(|(s, r, p, m)| (*s, *r, p.to_string(), m.to_string())).collect::<Vec<_>>();
    pretty_assertions::assert_eq!(got, want, "bad/{case}.yaml");
    let good = findings(&crd, &read(&format!("good/{case}.yaml")));
    assert!(good.is_empty(), "good/{case}.yaml: {good:#?}");
}

#[test]
fn every_bad_case_has_a_test_and_a_good_twin() {
    let mut bad: Vec<String> = std::fs::read_dir(format!("{DIR}/bad"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    bad.sort();
    let source = include_str!("samples_widgets.rs");
    for name in &bad {
        assert!(std::path::Path::new(&format!("{DIR}/good/{name}")).exists(), "good/{name} missing");
        let case = name.trim_end_matches(".yaml");
        assert!(source.contains(&format!("\"{case}\",")), "no test for bad/{name}");
    }
    assert!(bad.len() >= 15);
}

#[test]
fn wrong_version() {
    expect(
        "wrong-version",
        &[(
            Error,
            "sample.version",
            "apiVersion",
            "Invalid value: \"example.com/v2\": no matches for kind \"Widget\" in version \"example.com/v2\": the CRD \
             has no version \"v2\" (served: \"example.com/v1\")",
        )],
    );
}

#[test]
fn unserved_version() {
    expect(
        "unserved-version",
        &[(
            Error,
            "sample.version",
            "apiVersion",
            "Invalid value: \"example.com/v1beta1\": no matches for kind \"Widget\" in version \
             \"example.com/v1beta1\": version \"v1beta1\" is not served (served: \"example.com/v1\")",
        )],
    );
}

#[test]
fn kind_mismatch() {
    expect("kind-mismatch", &[(Error, "sample.kind", "kind", "Invalid value: \"Gadget\": must be Widget")]);
}

#[test]
fn missing_name() {
    expect(
        "missing-name",
        &[(Error, "sample.name", "metadata.name", "Required value: name or generateName is required"), CEL_SKIPPED],
    );
}

#[test]
fn bad_name() {
    let message = format!("Invalid value: \"Bad_Name\": {SUBDOMAIN}");
    expect("bad-name", &[(Error, "sample.name", "metadata.name", &message)]);
}

#[test]
fn unknown_field_is_pruned_with_a_warning() {
    expect("unknown-field", &[(Warning, "sample.pruned", "spec.colour", "pruned: unknown field \"spec.colour\"")]);
}

#[test]
fn missing_required() {
    expect("missing-required", &[(Error, "sample.schema", "spec.size", "Required value"), CEL_SKIPPED]);
}

#[test]
fn null_at_a_non_nullable_field_is_dropped_before_required() {
    expect("null-required", &[(Error, "sample.schema", "spec.size", "Required value"), CEL_SKIPPED]);
}

#[test]
fn wrong_type() {
    expect(
        "wrong-type",
        &[
            (
                Error,
                "sample.schema",
                "spec.size",
                "Invalid value: \"string\": spec.size in body must be of type integer: \"string\"",
            ),
            CEL_SKIPPED,
        ],
    );
}

#[test]
fn minimum() {
    expect(
        "minimum",
        &[(
            Error,
            "sample.schema",
            "spec.size",
            "Invalid value: 0: spec.size in body should be greater than or equal to 1",
        )],
    );
}

#[test]
fn maximum() {
    expect(
        "maximum",
        &[(
            Error,
            "sample.schema",
            "spec.size",
            "Invalid value: 11: spec.size in body should be less than or equal to 10",
        )],
    );
}

#[test]
fn exclusive_maximum() {
    expect(
        "exclusive-maximum",
        &[(Error, "sample.schema", "spec.ratio", "Invalid value: 1.5: spec.ratio in body should be less than 1.5")],
    );
}

#[test]
fn max_length() {
    expect(
        "max-length",
        &[(Error, "sample.schema", "spec.image", "Too long: may not be more than 20 bytes"), CEL_SKIPPED],
    );
}

#[test]
fn pattern() {
    expect(
        "pattern",
        &[(
            Error,
            "sample.schema",
            "spec.image",
            "Invalid value: \"Nginx\": spec.image in body should match '^[a-z0-9./:-]+$'",
        )],
    );
}

#[test]
fn list_map_duplicate() {
    expect("list-map-duplicate", &[(Error, "sample.duplicate", "spec.env[2]", "Duplicate value: {\"name\":\"A\"}")]);
}

#[test]
fn list_set_duplicate() {
    expect("list-set-duplicate", &[(Error, "sample.duplicate", "spec.aliases[2]", "Duplicate value: \"web\"")]);
}

#[test]
fn enum_value() {
    expect(
        "enum",
        &[
            (Error, "sample.schema", "spec.mode", "Unsupported value: \"Turbo\": supported values: \"Fast\", \"Safe\""),
            CEL_SKIPPED,
        ],
    );
}

#[test]
fn int_or_string() {
    expect(
        "int-or-string",
        &[
            (
                Error,
                "sample.schema",
                "spec.port",
                "Invalid value: \"boolean\": spec.port in body must be of type integer,string: \"boolean\"",
            ),
            CEL_SKIPPED,
        ],
    );
}

#[test]
fn nullable() {
    expect(
        "nullable",
        &[
            (
                Error,
                "sample.schema",
                "spec.tags[1]",
                "Invalid value: \"null\": spec.tags[1] in body must be of type string: \"null\"",
            ),
            CEL_SKIPPED,
        ],
    );
}

#[test]
fn formats() {
    expect(
        "format",
        &[
            // The API server's own words and place for an int32 overflow (Kubernetes 1.37).
            (
                Error,
                "sample.schema",
                "(root)",
                "Invalid value: \"\": Checked value must be of type integer with format int32 in spec.count",
            ),
            (
                Error,
                "sample.schema",
                "spec.since",
                "Invalid value: \"yesterday\": spec.since in body must be of type date-time: \"yesterday\"",
            ),
        ],
    );
}

#[test]
fn item_required() {
    expect("item-required", &[(Error, "sample.schema", "spec.items[0].name", "Required value"), CEL_SKIPPED]);
}

#[test]
fn cel_rule_false() {
    expect("cel-false", &[(Error, "sample.cel", "spec.window", "Invalid value: failed rule: self.start < self.end")]);
}

#[test]
fn cel_rule_at_the_root_sees_the_name() {
    expect(
        "cel-root",
        &[(Error, "sample.cel", "(root)", "Invalid value: the name of a Widget has at most 40 characters")],
    );
}

#[test]
fn default_applied_then_validated() {
    expect(
        "default-then-validated",
        &[(Error, "sample.cel", "spec.minReplicas", "Invalid value: minReplicas must not exceed maxReplicas")],
    );
}

#[test]
fn cel_rule_the_crate_cannot_evaluate_is_a_warning() {
    expect(
        "cel-unevaluated",
        &[(
            Warning,
            "sample.cel-unevaluated",
            "spec.homepage",
            "rule \"isURL(self)\" cannot be evaluated: Undeclared reference to 'isURL'; the API server evaluates it \
             on create",
        )],
    );
}

/// `spec.mode` is required and has `default: Safe`: the samples leave it out and pass. Without
/// the default, the same object fails `Required value`.
#[test]
fn a_default_fills_a_required_field() {
    let mut crd = crd();
    let object = read("good/minimum.yaml");
    assert!(object.pointer("/spec/mode").is_none());
    assert_eq!(findings(&crd, &object), vec![]);
    let mode = crd.pointer_mut("/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/mode").unwrap();
    mode.as_object_mut().unwrap().remove("default");
    assert_eq!(
        findings(&crd, &object),
        vec![
            (Error, "sample.schema", "spec.mode".to_string(), "Required value".to_string()),
            (CEL_SKIPPED.0, CEL_SKIPPED.1, CEL_SKIPPED.2.to_string(), CEL_SKIPPED.3.to_string()),
        ]
    );
}

#[test]
fn generate_name_gives_cel_a_name() {
    let object = read("good/missing-name.yaml");
    assert_eq!(object.pointer("/metadata/generateName"), Some(&json!("sample-")));
    assert_eq!(findings(&crd(), &object), vec![]);
}

#[test]
fn metadata_keeps_only_object_meta_fields() {
    let mut object = read("good/minimum.yaml");
    object["metadata"]["colour"] = json!("blue");
    object["metadata"]["labels"] = json!({"app": "widget"});
    assert_eq!(
        findings(&crd(), &object),
        vec![(
            Warning,
            "sample.pruned",
            "metadata.colour".to_string(),
            "pruned: unknown field \"metadata.colour\"".to_string()
        )]
    );
}

#[test]
fn namespace_on_a_cluster_scoped_kind() {
    let mut crd = crd();
    crd["spec"]["scope"] = json!("Cluster");
    assert_eq!(
        findings(&crd, &read("good/minimum.yaml")),
        vec![(
            Error,
            "sample.name",
            "metadata.namespace".to_string(),
            "Forbidden: not allowed on this type".to_string()
        )]
    );
}

#[test]
fn yaml_stream_matches_documents_to_crds() {
    let mut stream = String::new();
    for path in ["good/minimum.yaml", "bad/minimum.yaml", "bad/kind-mismatch.yaml", "bad/wrong-version.yaml"] {
        stream.push_str(&std::fs::read_to_string(format!("{DIR}/{path}")).unwrap());
        stream.push_str("---\n");
    }
    stream.push_str("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: Not_Checked}\n---\n");
    stream.push_str("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [a.yaml]\n");
    let got: Vec<(usize, &str, String)> =
        validate_yaml(&[crd()], &stream).unwrap().into_iter().map(|(i, f)| (i, f.rule.id(), f.path)).collect();
    assert_eq!(
        got,
        vec![(1, "sample.schema", "spec.size".to_string()), (3, "sample.version", "apiVersion".to_string())],
        "the Gadget (2), the ConfigMap (4) and the Kustomization (5) have no CRD"
    );
    assert!(validate_yaml(&[crd()], "a: [").is_err());
}

/// A pattern in Go's syntax with an inline flag (`(?i)`, as prometheus-operator's CRDs write
/// them): JSON Schema's ECMA-262 check would refuse the schema; the API server compiles it.
#[test]
fn go_pattern_with_an_inline_flag() {
    let mut crd = crd();
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["image"]["pattern"] =
        json!("^(?i)(abort|warn)?$");
    let mut object = read("good/pattern.yaml");
    object["spec"]["image"] = json!("ABORT");
    assert_eq!(validate_object(&crd, &object), vec![]);
    object["spec"]["image"] = json!("stop");
    let findings: Vec<String> =
        validate_object(&crd, &object).iter().map(|f| format!("{}: {}", f.path, f.message)).collect();
    assert_eq!(
        findings,
        ["spec.image: Invalid value: \"stop\": spec.image in body should match '^(?i)(abort|warn)?$'"]
    );
}
