//! Validation of custom objects (a project's `config/samples/*.yaml`) against the CRD that
//! `rop generate` produced, without a cluster: what the API server
//! (`k8s.io/apiextensions-apiserver`, `pkg/registry/customresource`) does to a custom object on
//! create, in its order.
//!
//! 1. **Version and kind** (`sample.version`, `sample.kind`): `apiVersion` must name a served
//!    version of the CRD's group, `kind` its `spec.names.kind`.
//! 2. **Name** (`sample.name`): `metadata.name` or `metadata.generateName`, a DNS-1123
//!    subdomain; a namespace only on namespaced kinds.
//! 3. **Pruning** (`sample.pruned`, a warning): fields the schema does not declare are dropped
//!    (R61), unless `x-kubernetes-preserve-unknown-fields`.
//! 4. **Defaulting**: `null`s at non-nullable fields without a default are dropped (R62), then
//!    every `default` is applied to absent fields under an existing parent (R60).
//! 5. **OpenAPI v3 validation** (`sample.schema`) of the defaulted object against the version's
//!    `openAPIV3Schema`, through the `jsonschema` crate, with the API server's messages.
//! 6. **CEL** (`sample.cel`, `sample.cel-unevaluated`): every `x-kubernetes-validations` rule
//!    without `oldSelf`, with `self` bound to the value at its node.
//!
//! Paths use the API server's notation for custom objects (`spec.size`,
//! `spec.items[0].name`); a finding about the whole object has the path `(root)`.
//!
//! ```
//! let crd: serde_json::Value = serde_yaml::from_str(r#"
//! apiVersion: apiextensions.k8s.io/v1
//! kind: CustomResourceDefinition
//! metadata: {name: widgets.example.com}
//! spec:
//!   group: example.com
//!   names: {kind: Widget, plural: widgets}
//!   scope: Namespaced
//!   versions:
//!   - name: v1
//!     served: true
//!     storage: true
//!     schema:
//!       openAPIV3Schema:
//!         type: object
//!         properties:
//!           spec: {type: object, properties: {size: {type: integer, minimum: 1}}}
//! "#).unwrap();
//! let widget = serde_json::json!({
//!     "apiVersion": "example.com/v1", "kind": "Widget",
//!     "metadata": {"name": "w"}, "spec": {"size": 0},
//! });
//! let findings = rop_verify::samples::validate_object(&crd, &widget);
//! assert_eq!(findings[0].rule, rop_verify::Rule::SampleSchema);
//! assert_eq!(findings[0].path, "spec.size");
//! assert_eq!(findings[0].message, "Invalid value: 0: spec.size in body should be greater than or equal to 1");
//! ```

mod cel;
mod cel_value;
mod defaults;
mod formats;
mod listtype;
mod messages;
mod name;
mod openapi;
mod path;
mod prune;

mod schema;
mod target;

use serde_json::Value;

use crate::documents::{VerifyError, yaml_documents};
use crate::report::Finding;
use crate::report::Report;
use crate::rules::Rule;

/// Why the CEL rules of `schema` (a node of a CRD's schema) refuse `default` as its default, in
/// the API server's words, or `None`; used by the CRD check `defaults.cel`.
pub(crate) fn refuse_default_by_rules(default: &Value, schema: &Value) -> Option<String> {
    cel::refuse_default(default, schema)
}

/// Validates one custom object against `crd` (an `apiextensions.k8s.io/v1`
/// `CustomResourceDefinition`) as the API server does on create: version and kind, object
/// name, pruning of unknown fields, defaulting, OpenAPI v3 schema validation of the defaulted
/// object, then the `x-kubernetes-validations` CEL rules. Errors mean the API server would
/// refuse the object; warnings (pruned fields, rules that could not be evaluated here) mean it
/// would accept it, perhaps not as written.
pub fn validate_object(crd: &Value, object: &Value) -> Vec<Finding> {
    let mut report = Report::default();
    let Some(target) = target::check(crd, object, &mut report) else {
        return report.into_findings();
    };
    name::check(object, target.namespaced, &mut report);
    let Some(root) = target.schema else {
        return report.into_findings();
    };
    let mut object = object.clone();
    name::generate(&mut object);
    prune::prune(&mut object, root, &mut report);
    defaults::apply(&mut object, root);
    let blocking = schema::validate(&object, root, &mut report);
    listtype::check(&object, root, &mut report);
    if blocking && cel::has_rules(root) {
        report.add(
            Rule::SampleCelUnevaluated,
            path::ROOT,
            "some validation rules were not checked because the object was invalid; correct the existing errors to \
             complete validation",
            "fix the type errors above",
        );
    } else if !blocking {
        cel::validate(&object, root, &mut report);
    }
    report.into_findings()
}

/// Validates every custom object in a YAML stream with [`validate_object`]. Each document is
/// matched to the CRD in `crds` whose `spec.group` is the group of its `apiVersion` and whose
/// `spec.names.kind` is its `kind` (the API server's REST mapping; the version is then checked
/// against that CRD's versions). Documents with no matching CRD, and kustomize
/// `Kustomization` documents, are skipped. Each finding comes with the 0-based index of its
/// document in the stream.
pub fn validate_yaml(crds: &[Value], text: &str) -> Result<Vec<(usize, Finding)>, VerifyError> {
    let mut out = Vec::new();
    for (index, doc) in yaml_documents(text)? {
        if target::is_kustomization(&doc) {
            continue;
        }
        if let Some(crd) = crds.iter().find(|crd| target::matches(crd, &doc)) {
            out.extend(validate_object(crd, &doc).into_iter().map(|f| (index, f)));
        }
    }
    Ok(out)
}
