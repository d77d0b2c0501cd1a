//! From schemars output to a structural OpenAPI v3 schema.
//!
//! The API server requires CRD schemas to be *structural* (apiextensions rule "structural
//! schema"): every node has a `type` (or `x-kubernetes-int-or-string` /
//! `x-kubernetes-preserve-unknown-fields`), no `$ref`, no `definitions`, and `anyOf`/`oneOf`/
//! `allOf` branches only constrain values. schemars writes JSON Schema; [`structural_schema_for`]
//! asks it for OpenAPI 3 output with named types as `$ref`s, then builds the structural schema
//! node by node:
//!
//! - `$ref`s are inlined; the Kubernetes types controller-gen knows by name (Time, MicroTime,
//!   Quantity, IntOrString, RawExtension, nested ObjectMeta, ObjectReference, Condition) get
//!   controller-gen's schemas (module `known`); a type reached again inside itself (a recursive type)
//!   becomes an object that keeps unknown fields;
//! - `Option<T>` is `T`, left out of `required`, and **not** `nullable` (controller-gen does not
//!   mark optional fields nullable either; the API server drops a `null` sent for a
//!   non-nullable field, R62). `#[rop(nullable)]` asks for `nullable: true`;
//! - every serde enum representation becomes one structural node (module `shapes`): unit enums a
//!   string `enum`, tagged and untagged enums of structs one object with the variants' fields
//!   and `oneOf`/`anyOf` branches that only say which fields are required, `i64 | String` an
//!   int-or-string, anything else a node that keeps unknown fields, which
//!   [`structural_schema_checked`] reports unless the author accepted it (module
//!   [`unstructured`]);
//! - `serde_json::Value` and other empty schemas keep unknown fields; tuples become arrays;
//!   a flattened map makes its parent keep unknown fields;
//! - the `#[rop(...)]` markers recorded by `#[derive(rop::JsonSchema)]` are applied
//!   ([`markers`]).

pub(crate) mod known;
pub mod markers;
pub(crate) mod shapes;
pub mod unstructured;

use std::collections::BTreeMap;

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use schemars::transform::{ReplaceConstValue, ReplaceUnevaluatedProperties, SetSingleExample};
use serde_json::{Map, Value, json};

use markers::{FACTS_KEY, FIELD_KEY, TYPE_KEY};

pub use markers::{Marker, OneOf, Reason, Rule};
pub use unstructured::Unstructured;

/// Implemented by `#[derive(rop::JsonSchema)]`: the type's `#[rop(...)]` schema markers are
/// applied by [`structural_schema_for`]. `#[derive(CustomResource)]` requires it of a spec whose
/// fields carry markers, so that markers are never silently ignored.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has #[rop(...)] schema markers, but its JsonSchema is not rop's",
    label = "derive `rop::JsonSchema` instead of `schemars::JsonSchema` on `{Self}`",
    note = "schemars' derive ignores #[rop(...)]; rop's derive is a drop-in replacement that applies them"
)]
pub trait RopJsonSchema: JsonSchema {}

/// The structural schema of `T`, as JSON (a `JSONSchemaProps` object).
///
/// Settings: OpenAPI 3 dialect, no `$schema`, no `$ref` or definitions in the result. The
/// root's `title` (the Rust type name) is dropped, since it means nothing to a Kubernetes user.
/// A node no structural type describes keeps unknown fields; [`structural_schema_checked`]
/// also says where such nodes are.
pub fn structural_schema_for<T: JsonSchema>() -> Value {
    structural_schema_checked::<T>("").0
}

/// [`structural_schema_for`], and the nodes of it that keep unknown fields only because serde
/// writes their values as more than one JSON type ([`Unstructured`]; not those whose type or
/// field accepts it with `#[rop(preserve_unknown_fields)]` or `#[rop(schemaless)]`). `root_path`
/// starts their paths (`spec` gives `spec.mode`).
pub fn structural_schema_checked<T: JsonSchema>(root_path: &str) -> (Value, Vec<Unstructured>) {
    let generator = SchemaSettings::openapi3()
        .with(|s| {
            s.inline_subschemas = false;
            s.meta_schema = None;
            s.definitions_path = "/$defs".into();
            s.transforms = vec![
                Box::new(ReplaceUnevaluatedProperties::default()),
                Box::new(SetSingleExample::default()),
                Box::new(ReplaceConstValue::default()),
            ];
        })
        .into_generator();
    let mut root = generator.into_root_schema_for::<T>().to_value();
    let definitions = match root.as_object_mut().and_then(|r| r.remove("$defs")) {
        Some(Value::Object(defs)) => defs.into_iter().collect(),
        _ => BTreeMap::new(),
    };
    if let Value::Object(map) = &mut root {
        map.remove("title");
    }
    let mut resolver = Resolver { definitions, stack: Vec::new() };
    let mut value = resolver.resolve(root);
    drop_facts(&mut value);
    let mut found = Vec::new();
    unstructured::take(&mut value, root_path, &mut found);
    (value, found)
}

/// Facts a node leaves for a parent that never reads them (the root, list items, map
/// values) go too: the schema carries no private key.
fn drop_facts(node: &mut Value) {
    match node {
        Value::Object(map) => {
            map.remove(FACTS_KEY);
            map.values_mut().for_each(drop_facts);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_facts),
        _ => {}
    }
}

struct Resolver {
    definitions: BTreeMap<String, Value>,
    /// The definitions being inlined, outermost first: a `$ref` to one of them is recursion.
    stack: Vec<String>,
}

impl Resolver {
    fn resolve(&mut self, node: Value) -> Value {
        let mut map = match node {
            Value::Object(map) => map,
            // `true` (any value, e.g. `serde_json::Value`) and anything else schemars may write.
            _ => return json!({ "x-kubernetes-preserve-unknown-fields": true }),
        };
        if let Some(Value::String(reference)) = map.remove("$ref") {
            let base = self.resolve_ref(&reference);
            let mut merged = shapes::overlay(base, map);
            self.finish(&mut merged);
            return Value::Object(merged);
        }
        self.resolve_children(&mut map);
        shapes::make_structural(&mut map);
        self.finish(&mut map);
        Value::Object(map)
    }

    fn resolve_ref(&mut self, reference: &str) -> Map<String, Value> {
        if reference == "#" {
            // The root type inside itself.
            return shapes::recursion_point(&json!({ "type": "object" }));
        }
        let name = reference.rsplit('/').next().unwrap_or(reference).to_string();
        if let Some(schema) = known::schema(&name) {
            return schema;
        }
        let definition = self.definitions.get(&name).cloned().unwrap_or(Value::Bool(true));
        if self.stack.contains(&name) {
            return shapes::recursion_point(&definition);
        }
        self.stack.push(name);
        let resolved = self.resolve(definition);
        let name = self.stack.pop().unwrap_or_default();
        match resolved {
            Value::Object(mut map) => {
                unstructured::name(&mut map, &name);
                map
            }
            _ => Map::new(),
        }
    }

    fn resolve_children(&mut self, map: &mut Map<String, Value>) {
        for key in ["properties", "patternProperties"] {
            if let Some(Value::Object(props)) = map.get_mut(key) {
                for value in props.values_mut() {
                    *value = self.resolve(value.take());
                }
            }
        }
        for key in ["additionalProperties", "not"] {
            match map.get(key) {
                Some(Value::Bool(_)) | None => {}
                Some(_) => {
                    let child = map.remove(key).unwrap_or_default();
                    map.insert(key.into(), self.resolve(child));
                }
            }
        }
        for key in ["items", "prefixItems", "anyOf", "oneOf", "allOf"] {
            match map.get_mut(key) {
                Some(Value::Array(branches)) => {
                    for value in branches.iter_mut() {
                        *value = self.resolve(value.take());
                    }
                }
                // `items: false` says a tuple has no more elements; `items: true` (schemars'
                // any-value schema, e.g. `Vec<serde_json::Value>`) is resolved like any schema.
                Some(Value::Bool(false)) | None => {}
                Some(value) => *value = self.resolve(value.take()),
            }
        }
    }

    /// Applies the markers recorded on `map` (the type's, then the field's) and the facts its
    /// properties left.
    fn finish(&mut self, map: &mut Map<String, Value>) {
        let type_markers = markers::take(map, TYPE_KEY);
        unstructured::accept(map, &type_markers);
        markers::apply(map, type_markers, false);
        markers::settle_properties(map);
        let field_markers = markers::take(map, FIELD_KEY);
        unstructured::accept(map, &field_markers);
        markers::apply(map, field_markers, true);
        shapes::fill_type(map);
        // controller-gen lists required fields sorted; so does rop, for stable diffs.
        if let Some(Value::Array(required)) = map.get_mut("required") {
            required.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
        }
    }
}
