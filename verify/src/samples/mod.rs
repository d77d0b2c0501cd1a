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
mod embedded;
mod formats;
mod listtype;
mod messages;
mod name;
mod openapi;
mod path;
mod prune;

mod schema;
mod strfmt;
mod target;

use serde_json::Value;

use crate::documents::{VerifyError, yaml_documents};
use crate::report::Finding;
use crate::report::Report;
use crate::rules::Rule;

pub(crate) use path::ROOT;

/// The errors the API server finds in `default` as the `default` of the schema node `schema`
/// (apiextensions' `ValidateDefaults`, after its pruning check), in its order, each step only
/// when the one before found nothing:
///
/// 1. an embedded resource's type and object metadata ([`embedded`]), as `defaults.invalid`;
/// 2. the node's OpenAPI schema with everything below it, formats included, as
///    `sample.schema` findings; `x-kubernetes-int-or-string` alone does not constrain the type
///    (a default is checked against the node's structural schema, where only an explicit
///    `anyOf` does);
/// 3. the CEL rules at and below the node ([`cel::default_errors`]), as `sample.cel`.
///
/// Paths are relative to the default (`(root)` for the default itself, then `x`, `[0].x`);
/// messages name the default itself `""`, as the server's do. `cel_spent` is the run-time
/// cost budget already used, by the rules of the defaults checked before.
pub(crate) fn default_errors(default: &Value, schema: &Value, cel_spent: &mut u64) -> Vec<Finding> {
    let default = &as_sent(default);
    let mut report = Report::default();
    let resource = prune::is_true(schema, "x-kubernetes-embedded-resource");
    embedded::check(default, schema, &path::Path::default(), resource, Rule::DefaultsInvalid, &mut report);
    let mut found = report.into_findings();
    if found.is_empty() {
        let mut report = Report::default();
        schema::validate_named(default, &without_int_or_string(schema), "", &mut report);
        found = report.into_findings();
    }
    if found.is_empty() {
        found = cel::default_errors(default, schema, cel_spent);
    }
    found
}

/// The errors in the type and object metadata of `object`, an embedded resource (apiextensions'
/// `objectmeta.Validate`), with paths relative to it (`metadata.name`, `kind`).
pub(crate) fn embedded_resource_errors(object: &Value) -> Vec<Finding> {
    let mut report = Report::default();
    let schema =
        serde_json::json!({"x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true});
    embedded::check(object, &schema, &path::Path::default(), true, Rule::DefaultsInvalid, &mut report);
    report.into_findings()
}

/// `value` as kubectl sends it: Go's JSON encoder writes an integral float (`5.0` in YAML) as
/// an integer (`5`), which the server then decodes as an `int64`; floats beyond that range stay
/// floats.
fn as_sent(value: &Value) -> Value {
    const INT64_LIMIT: f64 = 9_223_372_036_854_775_808.0;
    match value {
        Value::Number(n) if n.is_f64() => match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f.abs() < INT64_LIMIT => Value::from(f as i64),
            _ => value.clone(),
        },
        Value::Array(items) => Value::Array(items.iter().map(as_sent).collect()),
        Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), as_sent(v))).collect()),
        other => other.clone(),
    }
}

/// `schema` without its `x-kubernetes-int-or-string` markers.
fn without_int_or_string(schema: &Value) -> Value {
    match schema {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| *k != "x-kubernetes-int-or-string")
                .map(|(k, v)| (k.clone(), without_int_or_string(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_int_or_string).collect()),
        other => other.clone(),
    }
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
    let mut object = as_sent(object);
    name::generate(&mut object);
    prune::prune(&mut object, root, &mut report);
    defaults::apply(&mut object, root);
    // The CRD's defaults reached the server through kubectl as well.
    let object = as_sent(&object);
    embedded::check(&object, root, &path::Path::default(), false, Rule::SampleSchema, &mut report);
    let type_error = schema::validate(&object, root, &mut report);
    listtype::check(&object, root, &mut report);
    let blocking = type_error || report.has_blocking_error();
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
