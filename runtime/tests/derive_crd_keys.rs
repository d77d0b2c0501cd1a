//! CRD-level keys: selectable fields, CRD labels and annotations, skipped versions, the
//! description cap and rules on the root (controller-gen's selectablefield, metadata,
//! skipversion, maxDescLen and XValidation on the kind's type).

use kube_core::CustomResourceExt;
use rop::crd::{MergeError, merge};
use rop::{CustomResource as _, JsonSchema};
use serde::{Deserialize, Serialize};
use serde_json::json;

mod v1 {
    use super::*;

    /// Widget is a thing with a very long description that goes on and on past the cap.
    #[derive(rop::CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[rop(group = "example.com", version = "v1", kind = "Widget", storage)]
    #[rop(selectable_field = ".spec.color", label("team", "blue"), annotation("owner", "ops"))]
    #[rop(max_desc_len = 20)]
    pub struct WidgetSpec {
        /// Short.
        pub color: String,
        /// A description longer than twenty bytes.
        pub size: i32,
    }
}

mod v2 {
    use super::*;

    #[derive(rop::CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[rop(group = "example.com", version = "v2", kind = "Widget", skip_version)]
    #[rop(label("team", "red"), max_desc_len = 0)]
    pub struct WidgetSpec {
        /// Dropped.
        pub color: String,
    }
}

mod rooted {
    use super::*;

    include!("../../testdata/derive/root_rule.rs");
}

#[test]
fn root_rules_sit_on_the_root_of_the_schema() {
    let crd = serde_json::to_value(rooted::RootRule::crd()).unwrap();
    let schema = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
    assert_eq!(
        schema["x-kubernetes-validations"],
        json!([
            {"rule": "self.metadata.name.size() <= 20", "message": "names are at most 20 characters"},
            {
                "rule": "self.spec.replicas <= 5 || self.metadata.name.startsWith('big-')",
                "message": "only big- objects may have more than 5 replicas",
                "reason": "FieldValueForbidden",
                "fieldPath": ".spec.replicas",
            },
        ])
    );
    assert!(schema["properties"]["spec"].get("x-kubernetes-validations").is_none());
}

#[test]
fn selectable_fields_labels_and_annotations() {
    let crd = serde_json::to_value(v1::Widget::crd()).unwrap();
    assert_eq!(crd["metadata"]["labels"], json!({"team": "blue"}));
    assert_eq!(crd["metadata"]["annotations"], json!({"owner": "ops"}));
    assert_eq!(crd["spec"]["versions"][0]["selectableFields"], json!([{"jsonPath": ".spec.color"}]));
}

#[test]
fn descriptions_are_capped_at_a_word_boundary() {
    let crd = serde_json::to_value(v1::Widget::crd()).unwrap();
    let schema = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
    assert_eq!(schema["description"], "Widget is the...");
    assert_eq!(schema["properties"]["spec"]["description"], "Widget is a thing...");
    assert_eq!(schema["properties"]["spec"]["properties"]["color"]["description"], "Short.");
    assert_eq!(schema["properties"]["spec"]["properties"]["size"]["description"], "A description...");
    let crd = serde_json::to_value(v2::Widget::crd()).unwrap();
    let schema = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
    assert!(!schema.to_string().contains("description"));
}

#[test]
fn a_skipped_version_leaves_the_merged_crd() {
    // v2's label differs from v1's, but v2 is skipped before labels are merged.
    let merged = merge(vec![v1::Widget::version_crd(), v2::Widget::version_crd()]).unwrap();
    let names: Vec<&str> = merged[0].spec.versions.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, ["v1"]);
    assert_eq!(merged[0].metadata.annotations.as_ref().unwrap().len(), 1);
    // On its own, a skipped version is still a CRD with that one version.
    assert_eq!(v2::Widget::crd().spec.versions[0].name, "v2");
    assert_eq!(v2::Widget::crd().metadata.annotations, None);
}

#[test]
fn skipping_every_version_is_an_error() {
    let err = merge(vec![v2::Widget::version_crd()]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "kind Widget.example.com has #[rop(skip_version)] on every version (v2): keep at least one version"
    );
    assert!(matches!(err, MergeError::AllVersionsSkipped { .. }));
}

#[test]
fn conflicting_labels_across_versions_are_an_error() {
    let mut other = v2::Widget::custom_resource_definition();
    other.metadata.annotations = None;
    let err = merge(vec![v1::Widget::custom_resource_definition(), other]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "versions of widgets.example.com disagree on CRD label values (label(...)): every version of a kind must give the same CRD label values (label(...))"
    );
}
