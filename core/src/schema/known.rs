//! Schemas of the Kubernetes types controller-gen knows by name (`pkg/crd/known_types.go`),
//! matched by the schema name k8s-openapi gives each type.
//!
//! k8s-openapi describes these types with their long upstream descriptions and, for
//! `ObjectMeta`, every field; controller-gen writes the short schemas below (`ObjectMeta` as
//! with its `generateEmbeddedObjectMeta` option), which keep CRDs
//! small and give `Quantity` and `IntOrString` the `anyOf` the API server's tools expect.
//! `Condition` gets the validations of `metav1.Condition`'s own markers, which k8s-openapi's
//! schema lacks.

use serde_json::{Map, Value, json};

const META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.";

/// The pattern controller-gen gives `resource.Quantity`.
pub(crate) const QUANTITY_PATTERN: &str = r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$";

/// The schema for the type named `name`, if it is one of the known ones.
pub(crate) fn schema(name: &str) -> Option<Map<String, Value>> {
    let value = match name {
        "io.k8s.apimachinery.pkg.apis.meta.v1.Time" | "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime" => {
            json!({ "type": "string", "format": "date-time" })
        }
        "io.k8s.apimachinery.pkg.api.resource.Quantity" => json!({
            "anyOf": [{ "type": "integer" }, { "type": "string" }],
            "pattern": QUANTITY_PATTERN,
            "x-kubernetes-int-or-string": true,
        }),
        "io.k8s.apimachinery.pkg.util.intstr.IntOrString" => json!({
            "anyOf": [{ "type": "integer" }, { "type": "string" }],
            "x-kubernetes-int-or-string": true,
        }),
        "io.k8s.apimachinery.pkg.runtime.RawExtension" => {
            json!({ "type": "object", "x-kubernetes-preserve-unknown-fields": true })
        }
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON" => {
            json!({ "x-kubernetes-preserve-unknown-fields": true })
        }
        _ if name == format!("{META}ObjectMeta") => embedded_object_meta(),
        _ if name == format!("{META}Condition") => condition(),
        "io.k8s.api.core.v1.ObjectReference" => object_reference(),
        _ => return None,
    };
    match value {
        Value::Object(map) => Some(map),
        _ => None,
    }
}

/// An `ObjectMeta` inside a spec (a `PodTemplateSpec`'s, an embedded object's): the name,
/// namespace, labels, annotations and finalizers a user may set there, as controller-gen writes
/// it with `crd:generateEmbeddedObjectMeta=true`. Without these properties the API server would
/// prune the labels a user puts on a pod template. The root's own `metadata` is not this: the
/// API server validates it itself (`crd::root_schema` writes `{type: object}`).
fn embedded_object_meta() -> Value {
    let strings = json!({ "type": "object", "additionalProperties": { "type": "string" } });
    json!({
        "type": "object",
        "properties": {
            "annotations": strings,
            "finalizers": { "type": "array", "items": { "type": "string" } },
            "labels": strings,
            "name": { "type": "string" },
            "namespace": { "type": "string" },
        },
    })
}

/// `metav1.Condition` with the validations of its markers, as controller-gen emits it.
fn condition() -> Value {
    json!({
        "description": "Condition contains details for one aspect of the current state of this API Resource.",
        "type": "object",
        "properties": {
            "lastTransitionTime": {
                "description": "lastTransitionTime is the last time the condition transitioned from one status to another.\nThis should be when the underlying condition changed.  If that is not known, then using the time when the API field changed is acceptable.",
                "format": "date-time",
                "type": "string"
            },
            "message": {
                "description": "message is a human readable message indicating details about the transition.\nThis may be an empty string.",
                "maxLength": 32768,
                "type": "string"
            },
            "observedGeneration": {
                "description": "observedGeneration represents the .metadata.generation that the condition was set based upon.\nFor instance, if .metadata.generation is currently 12, but the .status.conditions[x].observedGeneration is 9, the condition is out of date\nwith respect to the current state of the instance.",
                "format": "int64",
                "minimum": 0,
                "type": "integer"
            },
            "reason": {
                "description": "reason contains a programmatic identifier indicating the reason for the condition's last transition.\nProducers of specific condition types may define expected values and meanings for this field,\nand whether the values are considered a guaranteed API.\nThe value should be a CamelCase string.\nThis field may not be empty.",
                "maxLength": 1024,
                "minLength": 1,
                "pattern": "^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$",
                "type": "string"
            },
            "status": {
                "description": "status of the condition, one of True, False, Unknown.",
                "enum": ["True", "False", "Unknown"],
                "type": "string"
            },
            "type": {
                "description": "type of condition in CamelCase or in foo.example.com/CamelCase.",
                "maxLength": 316,
                "pattern": "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$",
                "type": "string"
            }
        },
        "required": ["lastTransitionTime", "message", "reason", "status", "type"]
    })
}

/// `corev1.ObjectReference`: its seven string fields, and atomic (its `+structType=atomic`).
fn object_reference() -> Value {
    let field = |description: &str| json!({ "description": description, "type": "string" });
    json!({
        "description": "ObjectReference contains enough information to let you inspect or modify the referred object.",
        "type": "object",
        "properties": {
            "apiVersion": field("API version of the referent."),
            "fieldPath": field("If referring to a piece of an object instead of an entire object, this string\nshould contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2].\nFor example, if the object reference is to a container within a pod, this would take on a value like:\n\"spec.containers{name}\" (where \"name\" refers to the name of the container that triggered\nthe event) or if no container name is specified \"spec.containers[2]\" (container with\nindex 2 in this pod). This syntax is chosen only to have some well-defined way of\nreferencing a part of an object."),
            "kind": field("Kind of the referent.\nMore info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"),
            "name": field("Name of the referent.\nMore info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names"),
            "namespace": field("Namespace of the referent.\nMore info: https://kubernetes.io/docs/concepts/overview/working-with-objects/namespaces/"),
            "resourceVersion": field("Specific resourceVersion to which this reference is made, if any.\nMore info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#concurrency-control-and-consistency"),
            "uid": field("UID of the referent.\nMore info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#uids")
        },
        "x-kubernetes-map-type": "atomic"
    })
}
