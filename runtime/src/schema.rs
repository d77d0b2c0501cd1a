//! From schemars output to a structural OpenAPI v3 schema.
//!
//! The API server requires CRD schemas to be *structural* (apiextensions rule "structural
//! schema"): every node has a `type` (or `x-kubernetes-int-or-string` /
//! `x-kubernetes-preserve-unknown-fields`), no `$ref`, no `definitions`, and `anyOf`/`oneOf`
//! branches only constrain values. schemars writes JSON Schema; [`structural_schema_for`] asks
//! it for OpenAPI 3 output with every subschema inlined, then rewrites the few shapes the API
//! server refuses.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value};

/// The structural schema of `T`, as JSON (a `JSONSchemaProps` object).
///
/// Settings: OpenAPI 3 dialect, subschemas inlined (no `$ref`), no `$schema`; `Option<T>`
/// becomes `T` with `nullable: true`. The root's `title` (the Rust type name) is dropped,
/// since it means nothing to a Kubernetes user.
pub fn structural_schema_for<T: JsonSchema>() -> Value {
    let generator = SchemaSettings::openapi3()
        .with(|s| {
            s.inline_subschemas = true;
            s.meta_schema = None;
        })
        .with_transform(schemars::transform::AddNullable::default())
        .into_generator();
    let mut value = generator.into_root_schema_for::<T>().to_value();
    if let Value::Object(root) = &mut value {
        root.remove("title");
        root.remove("$defs");
        root.remove("definitions");
    }
    make_structural(&mut value);
    value
}

/// Rewrites shapes schemars emits that are not structural, in place, bottom-up.
///
/// - `anyOf: [X, {nullable: true, ...null}]` (an `Option` of an inlined type) becomes `X` with
///   `nullable: true`: the API server forbids `type` inside `anyOf` branches unless it is also
///   set on the node itself.
fn make_structural(node: &mut Value) {
    let Value::Object(map) = node else { return };
    for key in ["properties", "patternProperties"] {
        if let Some(Value::Object(props)) = map.get_mut(key) {
            props.values_mut().for_each(make_structural);
        }
    }
    for key in ["items", "additionalProperties", "not"] {
        if let Some(child) = map.get_mut(key) {
            make_structural(child);
        }
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(branches)) = map.get_mut(key) {
            branches.iter_mut().for_each(make_structural);
        }
    }
    fold_optional(map);
}

/// `{anyOf: [X, null-branch], ...rest}` → `{...X, ...rest, nullable: true}`.
fn fold_optional(map: &mut Map<String, Value>) {
    let Some(Value::Array(branches)) = map.get("anyOf") else { return };
    if branches.len() != 2 {
        return;
    }
    let inner = match (is_null(&branches[0]), is_null(&branches[1])) {
        (false, true) => &branches[0],
        (true, false) => &branches[1],
        _ => return,
    };
    let Value::Object(inner) = inner.clone() else { return };
    map.remove("anyOf");
    for (key, value) in inner {
        // A field's own doc comment beats the doc comment of its type.
        map.entry(key).or_insert(value);
    }
    map.insert("nullable".into(), Value::Bool(true));
}

fn is_null(branch: &Value) -> bool {
    match branch {
        Value::Object(m) => {
            m.get("type") == Some(&Value::String("null".into()))
                || m.get("enum") == Some(&Value::Array(vec![Value::Null]))
                || m.get("const") == Some(&Value::Null)
        }
        _ => false,
    }
}
