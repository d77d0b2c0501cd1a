//! The document itself: `apiVersion` (R1), field types, and unknown keys (R2).

use serde_json::{Map, Value};

use crate::report::{Report, unknown_keys};
use crate::rules::Rule;

/// R1: only `apiextensions.k8s.io/v1` is served; R2: the top level and `spec` are closed
/// structs. Returns false when the document is not worth checking further (wrong version).
pub(crate) fn check(obj: &Map<String, Value>, report: &mut Report) -> bool {
    let api_version = obj.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    if api_version != "apiextensions.k8s.io/v1" {
        report.add(
            Rule::DocumentApiVersion,
            "apiVersion",
            format!(
                "no matches for kind \"CustomResourceDefinition\" in version {api_version:?}: only apiextensions.k8s.io/v1 is served (v1beta1 was removed in Kubernetes 1.22)"
            ),
            "set apiVersion: apiextensions.k8s.io/v1 and convert the CRD to the v1 shape (per-version schemas)",
        );
        return false;
    }
    // The server decodes the request into its typed CRD first: a field of the wrong type
    // (`maxItems: "ten"`, a string where the rules list goes) fails the whole request.
    let typed = serde_json::from_value::<
        k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition,
    >(whole_floats_as_integers(&Value::Object(obj.clone())));
    if let Err(e) = typed {
        report.add(
            Rule::DocumentType,
            "(document)",
            format!("the document does not decode as a CustomResourceDefinition: {e}"),
            "give the field the type the API defines: numbers for maxItems and maxLength, a list of {rule, message} objects for x-kubernetes-validations, strings for rule and message",
        );
    }
    unknown_keys(obj, &["apiVersion", "kind", "metadata", "spec", "status"], "", report);
    if let Some(spec) = obj.get("spec").and_then(Value::as_object) {
        unknown_keys(
            spec,
            &["group", "names", "scope", "versions", "conversion", "preserveUnknownFields"],
            "spec",
            report,
        );
    }
    if let Some(status) = obj.get("status").and_then(Value::as_object) {
        unknown_keys(
            status,
            &["conditions", "acceptedNames", "storedVersions", "observedGeneration"],
            "status",
            report,
        );
    }
    true
}

/// `10.0` as `10`: kubectl sends YAML numbers through Go's JSON encoder, which writes whole
/// floats without a fraction, so the server sees an integer.
fn whole_floats_as_integers(value: &Value) -> Value {
    match value {
        Value::Number(n) if n.is_f64() => {
            let f = n.as_f64().unwrap_or(f64::NAN);
            if f.fract() == 0.0 && f.abs() < 9.007_199_254_740_992e15 { Value::from(f as i64) } else { value.clone() }
        }
        Value::Array(items) => Value::Array(items.iter().map(whole_floats_as_integers).collect()),
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), whole_floats_as_integers(v))).collect())
        }
        other => other.clone(),
    }
}
