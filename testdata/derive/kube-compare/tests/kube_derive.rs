//! kube-derive 5 beside rop on the derive corpus. For every kind both derives get the same Rust
//! spec type; rop's CRD must pass `rop_verify` with no error, and kube-derive's outcome
//! (panic in `crd()`, a CRD the API server would refuse, or a valid CRD) must be the one
//! recorded in `EXPECTED`, with which of the two is right and why.
// The corpus writes some `Option`s as `null` on purpose (the API server's handling of `null`
// is part of what it checks); the derive's warning about them is expected.
#![allow(deprecated)]

use std::collections::BTreeSet;

use serde_json::Value;

mod rop_side {
    use std::collections::{BTreeMap, BTreeSet};

    use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
    use rop::__private::kube_core::CustomResourceExt;
    use rop::JsonSchema;
    use serde::{Deserialize, Serialize};
    use serde_json::Value;

    include!("../../rop_corpus.rs");

    pub fn crds() -> Vec<Value> {
        corpus_crds().into_iter().map(|c| serde_json::to_value(c).unwrap()).collect()
    }
}

mod kube_side {
    use std::collections::{BTreeMap, BTreeSet};

    use rop::JsonSchema;
    use serde::{Deserialize, Serialize};
    use serde_json::Value;

    macro_rules! corpus {
        ($kind:literal, [$($extra:tt)*], $(#[$attr:meta])* pub struct $name:ident $body:tt) => {
            #[derive(kube_derive::CustomResource)]
            #[kube(group = "corpus.rop.dev", version = "v1", kind = $kind, namespaced, $($extra)*)]
            #[kube(crates(
                kube_core = "::kube_core",
                k8s_openapi = "::k8s_openapi",
                schemars = "::schemars",
                serde = "::serde",
                serde_json = "::serde_json"
            ))]
            $(#[$attr])*
            pub struct $name $body
        };
        ($kind:literal, $(#[$attr:meta])* pub struct $name:ident $body:tt) => {
            corpus!($kind, [], $(#[$attr])* pub struct $name $body);
        };
    }

    include!("../../corpus.rs");

    type Crd = k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
    type Kind = (&'static str, fn() -> Crd);

    /// kube-derive's CRD of each kind, or its panic message.
    pub fn crds() -> Vec<(String, Result<Value, String>)> {
        use kube_core::CustomResourceExt;
        let each: Vec<Kind> = vec![
            ("Scalar", Scalar::crd),
            ("Optional", Optional::crd),
            ("Rename", Rename::crd),
            ("Skip", Skip::crd),
            ("ContainerDefault", ContainerDefault::crd),
            ("UnitEnum", UnitEnum::crd),
            ("ExternallyTagged", ExternallyTagged::crd),
            ("MixedEnum", MixedEnum::crd),
            ("InternallyTagged", InternallyTagged::crd),
            ("InternallyTaggedUnit", InternallyTaggedUnit::crd),
            ("AdjacentlyTagged", AdjacentlyTagged::crd),
            ("UntaggedStruct", UntaggedStruct::crd),
            ("UntaggedIntOrString", UntaggedIntOrString::crd),
            ("UntaggedMixed", UntaggedMixed::crd),
            ("Flatten", Flatten::crd),
            ("FlattenMap", FlattenMap::crd),
            ("FlattenEnum", FlattenEnum::crd),
            ("FreeForm", FreeForm::crd),
            ("Recursive", Recursive::crd),
            ("Tuple", Tuple::crd),
            ("Collection", Collection::crd),
            ("KnownType", KnownType::crd),
            ("Newtype", Newtype::crd),
            ("ScalarVariant", ScalarVariant::crd),
            ("WithStatus", WithStatus::crd),
            ("Validation", Validation::crd),
            ("Presence", Presence::crd),
            ("Cel", Cel::crd),
            ("Extension", Extension::crd),
            ("IntKey", IntKey::crd),
            ("NestedOption", NestedOption::crd),
            ("Generic", Generic::crd),
            ("OptionalEnum", OptionalEnum::crd),
        ];
        let quiet = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let out = each
            .into_iter()
            .map(|(kind, crd)| {
                let result = std::panic::catch_unwind(crd)
                    .map(|c| serde_json::to_value(c).unwrap())
                    .map_err(|p| p.downcast_ref::<String>().cloned().unwrap_or_else(|| "panic".into()));
                (kind.to_string(), result)
            })
            .collect();
        std::panic::set_hook(quiet);
        out
    }
}

/// What kube-derive 5 does with a kind.
#[derive(Debug, PartialEq, Eq)]
enum Kube {
    /// `crd()` panics.
    Panics,
    /// A CRD the API server refuses: the `rop verify` rules it breaks.
    Refused(&'static [&'static str]),
    /// A CRD the API server accepts.
    Accepted,
}

/// Per kind: kube-derive's outcome, and which CRD is right and why.
const EXPECTED: &[(&str, Kube, &str)] = &[
    ("Scalar", Kube::Accepted, "both right; kube-derive adds no root apiVersion/kind/metadata properties"),
    (
        "Optional",
        Kube::Accepted,
        "both accepted; rop leaves Option out of nullable as controller-gen does, kube-derive marks it nullable",
    ),
    ("Rename", Kube::Accepted, "both right: serde renames are schemars' work"),
    ("Skip", Kube::Accepted, "both right"),
    (
        "ContainerDefault",
        Kube::Accepted,
        "both right with schemars' JsonSchema (kube's KubeSchema fails to compile here, #1805)",
    ),
    (
        "UnitEnum",
        Kube::Accepted,
        "both accepted; for an Option<unit enum> kube-derive writes nullable and a null in the enum, rop neither (as controller-gen)",
    ),
    ("ExternallyTagged", Kube::Accepted, "both right: one property per variant, oneOf of required"),
    (
        "MixedEnum",
        Kube::Panics,
        "rop: unit and data variants have no single JSON type, so the field keeps unknown fields; kube-derive panics in crd()",
    ),
    (
        "InternallyTagged",
        Kube::Panics,
        "rop: one object with every variant's fields, the tag an enum, oneOf branches per variant; kube-derive panics",
    ),
    (
        "InternallyTaggedUnit",
        Kube::Panics,
        "rop: the tag is an enum of the variants; kube-derive panics on two or more variants",
    ),
    ("AdjacentlyTagged", Kube::Panics, "rop: tag enum plus content; kube-derive panics"),
    ("UntaggedStruct", Kube::Accepted, "both right: merged properties, anyOf of required lists"),
    (
        "UntaggedIntOrString",
        Kube::Refused(&["structural.missing-type"]),
        "rop: an untagged i64 | String is an int-or-string; kube-derive's anyOf branches leave the node without a type",
    ),
    (
        "UntaggedMixed",
        Kube::Accepted,
        "rop keeps unknown fields (a string or an object); kube-derive hoists the object's fields and drops the string, so a string value is refused",
    ),
    ("Flatten", Kube::Accepted, "both right"),
    ("FlattenMap", Kube::Accepted, "both right: the parent keeps unknown fields"),
    ("FlattenEnum", Kube::Accepted, "both right"),
    (
        "FreeForm",
        Kube::Refused(&["structural.missing-type"]),
        "rop: serde_json::Value keeps unknown fields; kube-derive emits an empty schema",
    ),
    (
        "Recursive",
        Kube::Refused(&["schema.unsupported-keyword", "structural.missing-type"]),
        "rop: recursion stops in an object that keeps unknown fields; kube-derive leaves a dangling $ref",
    ),
    (
        "Tuple",
        Kube::Refused(&["schema.items-tuple"]),
        "rop: an array of exactly two items; kube-derive emits the tuple form of items",
    ),
    (
        "Collection",
        Kube::Accepted,
        "rop marks a set of strings x-kubernetes-list-type: set; kube-derive drops uniqueItems",
    ),
    (
        "KnownType",
        Kube::Accepted,
        "both accepted; rop gives controller-gen's short schemas (ObjectMeta just an object, Condition with its validations), kube-derive inlines k8s-openapi's",
    ),
    ("Newtype", Kube::Accepted, "both right"),
    ("ScalarVariant", Kube::Accepted, "both right; rop keeps the enum's schema under Option, as it did not before"),
    ("WithStatus", Kube::Accepted, "both right"),
    (
        "Validation",
        Kube::Accepted,
        "rop applies its markers; kube-derive sees only schemars' range/length/regex (rop's need its JsonSchema derive)",
    ),
    ("Presence", Kube::Accepted, "rop applies required/optional/nullable/default; kube-derive has no such attributes"),
    ("Cel", Kube::Accepted, "rop writes the CEL rules; kube-derive needs KubeSchema's own attributes for them"),
    (
        "Extension",
        Kube::Accepted,
        "rop writes the list/map/struct types and the other extensions; kube-derive needs KubeSchema or schema_with",
    ),
    (
        "IntKey",
        Kube::Refused(&["schema.unsupported-keyword"]),
        "rop: integer keys become additionalProperties; kube-derive keeps patternProperties, which the API server does not support",
    ),
    ("NestedOption", Kube::Accepted, "both accepted"),
    ("Generic", Kube::Accepted, "rop applies the generic type's markers; kube-derive has no such attributes"),
    (
        "OptionalEnum",
        Kube::Panics,
        "rop: each enum keeps the schema it has without Option; kube-derive panics in crd()",
    ),
];

fn errors(crd: &Value) -> BTreeSet<&'static str> {
    rop_verify::verify_crd(crd).into_iter().filter(|f| f.is_error()).map(|f| f.rule.id()).collect()
}

#[test]
fn rop_and_kube_derive_on_the_corpus() {
    let rop = rop_side::crds();
    let kube = kube_side::crds();
    assert_eq!(rop.len(), kube.len());
    assert_eq!(kube.len(), EXPECTED.len());
    assert!(kube.len() >= 30);
    let mut mismatches = Vec::new();
    for ((rop_crd, (kind, kube_crd)), (expected_kind, expected, _why)) in rop.iter().zip(&kube).zip(EXPECTED) {
        assert_eq!(kind, expected_kind);
        assert_eq!(rop_crd["spec"]["names"]["kind"], Value::from(kind.as_str()));
        let rop_errors = errors(rop_crd);
        if !rop_errors.is_empty() {
            mismatches.push(format!("{kind}: rop's CRD breaks {rop_errors:?}"));
        }
        let outcome = match kube_crd {
            Err(_) => Kube::Panics,
            Ok(crd) => {
                let found = errors(crd);
                if found.is_empty() {
                    Kube::Accepted
                } else {
                    let rules: Vec<&'static str> = found.into_iter().collect();
                    Kube::Refused(Box::leak(rules.into_boxed_slice()))
                }
            }
        };
        if outcome != *expected {
            mismatches.push(format!("{kind}: kube-derive {outcome:?}, recorded {expected:?}"));
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}
