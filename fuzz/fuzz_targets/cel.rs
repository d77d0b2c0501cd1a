//! CEL rules (`x-kubernetes-validations`): the input is one expression, placed on the `spec` of
//! a CRD with fields of the types a schema gives CEL (string, int, double, bool, list, set, map,
//! int-or-string, timestamp, duration, object, preserved unknown fields), once as a rule and
//! once as the messageExpression of a rule that fails. The verifier parses, type-checks and
//! estimates it; when it accepts the CRD, the expression is evaluated on an object of that CRD,
//! as `rop generate` does with samples. It may fail by a panic, a hang or running out of
//! memory only: what the verdicts should be is the differential tests' business.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};

fn crd(rule: &str, message_expression: bool) -> Value {
    let mut validation = json!({"rule": rule});
    if message_expression {
        validation = json!({"rule": "false", "messageExpression": rule});
    }
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "names": {"kind": "Widget", "listKind": "WidgetList", "plural": "widgets", "singular": "widget"},
            "scope": "Namespaced",
            "versions": [{
                "name": "v1", "served": true, "storage": true,
                "subresources": {"status": {}},
                "schema": {"openAPIV3Schema": {
                    "type": "object",
                    "properties": {
                        "spec": {
                            "type": "object",
                            "properties": {
                                "s": {"type": "string", "maxLength": 64},
                                "i": {"type": "integer", "format": "int32"},
                                "n": {"type": "number"},
                                "b": {"type": "boolean"},
                                "l": {"type": "array", "maxItems": 8, "items": {"type": "string", "maxLength": 16}},
                                "set": {"type": "array", "x-kubernetes-list-type": "set", "maxItems": 8, "items": {"type": "integer"}},
                                "m": {"type": "object", "maxProperties": 8, "additionalProperties": {"type": "integer"}},
                                "q": {"x-kubernetes-int-or-string": true},
                                "t": {"type": "string", "format": "date-time"},
                                "d": {"type": "string", "format": "duration"},
                                "o": {"type": "object", "properties": {"name": {"type": "string", "maxLength": 16}}},
                                "x": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}
                            },
                            "x-kubernetes-validations": [validation]
                        },
                        "status": {"type": "object", "properties": {"ready": {"type": "boolean"}}}
                    }
                }}
            }]
        }
    })
}

fn object() -> Value {
    json!({
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w", "namespace": "default"},
        "spec": {
            "s": "hello", "i": 3, "n": 1.5, "b": true,
            "l": ["a", "b"], "set": [1, 2], "m": {"a": 1},
            "q": "50%", "t": "2026-12-07T10:00:00Z", "d": "1h30m",
            "o": {"name": "o"}, "x": {"any": [1, "two"]}
        }
    })
}

fuzz_target!(init: common::quiet_caught_parser_panics(), |data: &[u8]| {
    let Ok(rule) = std::str::from_utf8(data) else { return };
    for message_expression in [false, true] {
        let crd = crd(rule, message_expression);
        let findings = rop_verify::verify_crd(&crd);
        if findings.iter().all(|f| f.severity != rop_verify::Severity::Error) {
            let _ = rop_verify::samples::validate_object(&crd, &object());
        }
    }
});
