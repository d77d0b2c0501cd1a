//! The public API of `rop_verify`: documents, ordering, formatting.

use rop_verify::{Finding, RULES, Rule, Severity, is_crd, verify_crd, verify_yaml, yaml_documents};
use serde_json::json;

const GOOD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {size: {type: integer}}}
";

#[test]
fn multi_document_streams_skip_other_kinds_and_keep_indexes() {
    let bad = GOOD.replace("size: {type: integer}", "size: {}");
    let text = format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: x}}\n---\n{GOOD}---\n---\n{bad}");
    let docs = yaml_documents(&text).unwrap();
    assert_eq!(docs.iter().map(|(i, _)| *i).collect::<Vec<_>>(), vec![0, 1, 3]);
    assert_eq!(docs.iter().map(|(_, d)| is_crd(d)).collect::<Vec<_>>(), vec![false, true, true]);
    let findings = verify_yaml(&text).unwrap();
    assert_eq!(
        findings,
        vec![(
            3,
            Finding {
                severity: Severity::Error,
                rule: Rule::StructuralMissingType,
                path: "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[size].type".into(),
                version: Some(0),
                message: "Required value: must not be empty for specified object fields".into(),
                fix: "set type (object, array, string, integer, number or boolean), or x-kubernetes-preserve-unknown-fields: true for free-form data".into(),
                unbounded: Vec::new(),
            }
        )]
    );
}

#[test]
fn display_is_one_line() {
    let crd: serde_json::Value = serde_yaml::from_str(&GOOD.replace("scope: Namespaced", "scope: namespaced")).unwrap();
    let findings = verify_crd(&crd);
    assert_eq!(findings.len(), 1);
    assert_eq!(
        findings[0].to_string(),
        "error[names.scope] spec.scope: Unsupported value: \"namespaced\": supported values: \"Cluster\", \"Namespaced\" (fix: use exactly Namespaced or Cluster (case-sensitive))"
    );
}

#[test]
fn not_an_object() {
    let findings = verify_crd(&json!(["a"]));
    assert_eq!(
        findings.iter().map(|f| (f.rule.id(), f.path.as_str())).collect::<Vec<_>>(),
        vec![("document.not-object", "(document)")]
    );
}

#[test]
fn invalid_yaml_is_an_error() {
    assert!(verify_yaml("a: [").is_err());
}

#[test]
fn deterministic_and_pure() {
    let text = GOOD.replace("size: {type: integer}", "size: {type: int, uniqueItems: true}");
    let first = verify_yaml(&text).unwrap();
    assert_eq!(first, verify_yaml(&text).unwrap());
    assert_eq!(first.iter().map(|(_, f)| f.rule).collect::<Vec<_>>(), vec!["schema.type", "schema.unique-items"]);
}

#[test]
fn rules_are_unique_and_documented() {
    let mut ids: Vec<&str> = RULES.iter().map(|r| r.id).collect();
    ids.sort();
    let before = ids.len();
    ids.dedup();
    assert_eq!(before, ids.len(), "duplicate rule ids");
    for r in RULES {
        assert!(r.id.contains('.') && !r.implements.is_empty() && !r.checks.is_empty(), "{r:?}");
    }
}

#[test]
fn size_warning_between_one_and_one_and_a_half_mib() {
    let mut crd: serde_json::Value = serde_yaml::from_str(GOOD).unwrap();
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["description"] = json!("x".repeat(1_100_000));
    let findings = verify_crd(&crd);
    let got: Vec<_> = findings.iter().map(|f| (f.severity, f.rule.id())).collect();
    assert_eq!(got, vec![(Severity::Warning, "size.etcd"), (Severity::Warning, "size.last-applied")]);
}

/// The reference's "Good" examples (schema fragments under `spec`) produce no error.
#[test]
fn good_examples_from_the_reference_have_no_errors() {
    let fragments = [
        // R45, both int-or-string shapes
        r#"{x-kubernetes-int-or-string: true, anyOf: [{type: integer}, {type: string}], pattern: "^(\\d+|\\d+%)$"}"#,
        r#"{x-kubernetes-int-or-string: true, allOf: [{anyOf: [{type: integer}, {type: string}]}, {pattern: "^a"}]}"#,
        // R46
        "{type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}",
        // R51
        "{type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [containerPort, protocol], items: {type: object, required: [containerPort], properties: {containerPort: {type: integer}, protocol: {type: string, default: TCP}}}}",
        // R70: reserved and escaped names
        r#"{type: object, properties: {namespace: {type: string, maxLength: 10}, a-b: {type: string, maxLength: 10}}, x-kubernetes-validations: [{rule: "self.__namespace__ == 'x' || has(self.a__dash__b)"}]}"#,
        // R71: transition rule on map-list items
        r#"{type: array, maxItems: 4, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [name], items: {type: object, required: [name], properties: {name: {type: string, maxLength: 8}}, x-kubernetes-validations: [{rule: "self == oldSelf", message: immutable}]}}"#,
        // R68: map key field path
        r#"{type: object, properties: {m: {type: object, maxProperties: 4, additionalProperties: {type: string, maxLength: 4}}}, x-kubernetes-validations: [{rule: "true", fieldPath: ".m['k.1']"}]}"#,
        // R74
        r#"{type: array, maxItems: 10, items: {type: string, maxLength: 64}, x-kubernetes-validations: [{rule: "self.all(a, self.all(b, a == b))"}]}"#,
        // R43: junctor fields declared
        "{type: object, properties: {f: {type: string}}, anyOf: [{required: [f]}, {properties: {f: {minLength: 1}}}]}",
        // R42: Istio's oneOf of required sets
        "{type: object, properties: {a: {type: string}, b: {type: string}}, oneOf: [{not: {anyOf: [{required: [a]}, {required: [b]}]}}, {required: [a]}, {required: [b]}]}",
    ];
    for fragment in fragments {
        let text = GOOD.replace(
            "{type: object, properties: {size: {type: integer}}}",
            &format!("{{type: object, properties: {{x: {fragment}}}}}"),
        );
        let errors: Vec<String> =
            verify_yaml(&text).unwrap().into_iter().filter(|(_, f)| f.is_error()).map(|(_, f)| f.to_string()).collect();
        assert_eq!(errors, Vec::<String>::new(), "{fragment}");
    }
    // R63: a root rule may read metadata.name.
    let root_rule = GOOD.replace(
        "        type: object\n        properties:",
        "        type: object\n        x-kubernetes-validations: [{rule: \"size(self.metadata.name) <= 40\", message: name too long}]\n        properties:",
    );
    assert_eq!(verify_yaml(&root_rule).unwrap(), vec![]);
    let labels = root_rule.replace("self.metadata.name", "self.metadata.labels");
    assert_eq!(
        verify_yaml(&labels).unwrap().iter().map(|(_, f)| f.rule).collect::<Vec<_>>(),
        vec!["cel.undefined-field"]
    );
}

#[test]
fn documents_expand_merge_keys_and_skip_a_byte_order_mark() {
    let text = "\u{feff}base: &base {served: true, storage: false}\nversion:\n  <<: *base\n  storage: true\n";
    let docs = yaml_documents(text).unwrap();
    assert_eq!(docs[0].1["version"], json!({"served": true, "storage": true}));
}
