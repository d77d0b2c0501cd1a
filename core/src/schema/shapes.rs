//! Rewrites of the shapes schemars emits that are not structural: options, tuples, `allOf`
//! from flattening, every serde enum representation, empty schemas and free-form maps.

use serde_json::{Map, Value, json};

use super::markers::{FACTS_KEY, FIELD_KEY, TYPE_KEY};
use super::unstructured;

/// `base` with every key of `top` over it: a field's own keywords (its doc comment, its
/// markers) beat its type's. Recorded markers and validation rules of both are kept, the
/// type's first; properties and required fields of both are kept (an internally tagged
/// variant adds its tag to the variant's struct this way).
pub(crate) fn overlay(mut base: Map<String, Value>, top: Map<String, Value>) -> Map<String, Value> {
    for (key, value) in top {
        match (key.as_str(), base.get_mut(&key), value) {
            (TYPE_KEY | FIELD_KEY | "x-kubernetes-validations", Some(Value::Array(existing)), Value::Array(more)) => {
                existing.extend(more);
            }
            (FACTS_KEY | "properties", Some(Value::Object(existing)), Value::Object(more)) => existing.extend(more),
            ("required", Some(Value::Array(existing)), Value::Array(more)) => {
                for name in more {
                    if !existing.contains(&name) {
                        existing.push(name);
                    }
                }
            }
            (_, _, value) => {
                base.insert(key, value);
            }
        }
    }
    base
}

/// What a `$ref` to a type that is being inlined becomes: the recursion stops in an object
/// (or any value) that keeps unknown fields, which the API server accepts.
pub(crate) fn recursion_point(definition: &Value) -> Map<String, Value> {
    let mut map = Map::new();
    if let Some(description) = definition.get("description") {
        map.insert("description".into(), description.clone());
    }
    if definition.get("type") == Some(&json!("object")) || definition.get("properties").is_some() {
        map.insert("type".into(), "object".into());
    }
    map.insert("x-kubernetes-preserve-unknown-fields".into(), true.into());
    map
}

/// Rewrites one node whose children are already structural.
pub(crate) fn make_structural(map: &mut Map<String, Value>) {
    single_type(map);
    map.remove("nullable");
    let mut collapsed = false;
    for key in ["anyOf", "oneOf"] {
        collapsed |= drop_null_branches(map, key);
    }
    if collapsed {
        // An `Option` of a schema that is structural already (its alternatives merged, with
        // only their constraints left in `oneOf`): merging again would lose it.
        free_form(map);
        return;
    }
    tuple(map);
    unique_items(map);
    merge_all_of(map);
    for key in ["oneOf", "anyOf"] {
        if map.contains_key(key) {
            merge_alternatives(map, key);
        }
    }
    free_form(map);
}

/// After markers: a node with no type gets the one its keywords imply, or keeps unknown fields.
pub(crate) fn fill_type(map: &mut Map<String, Value>) {
    if map.contains_key("type")
        || is_true(map, "x-kubernetes-int-or-string")
        || is_true(map, "x-kubernetes-preserve-unknown-fields")
    {
        return;
    }
    if map.contains_key("properties") || map.contains_key("additionalProperties") {
        map.insert("type".into(), "object".into());
    } else if map.contains_key("items") {
        map.insert("type".into(), "array".into());
    } else if let Some(t) = map.get("enum").and_then(|e| enum_type(e)) {
        map.insert("type".into(), t.into());
    } else {
        map.insert("x-kubernetes-preserve-unknown-fields".into(), true.into());
    }
}

fn is_true(map: &Map<String, Value>, key: &str) -> bool {
    map.get(key) == Some(&Value::Bool(true))
}

fn enum_type(values: &Value) -> Option<&'static str> {
    let values = values.as_array()?;
    let type_of = |v: &Value| match v {
        Value::String(_) => Some("string"),
        Value::Bool(_) => Some("boolean"),
        Value::Number(n) if n.is_i64() || n.is_u64() => Some("integer"),
        Value::Number(_) => Some("number"),
        _ => None,
    };
    let first = type_of(values.first()?)?;
    values.iter().all(|v| type_of(v) == Some(first)).then_some(first)
}

/// `type: [T, "null"]` (an `Option<T>` of a plain type) → `type: T`.
fn single_type(map: &mut Map<String, Value>) {
    let Some(Value::Array(types)) = map.get("type") else { return };
    let types: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
    match types.as_slice() {
        [one] => {
            map.insert("type".into(), one.clone());
        }
        _ => {
            map.remove("type");
            let branches: Vec<Value> = types.into_iter().map(|t| json!({ "type": t })).collect();
            map.insert("anyOf".into(), Value::Array(branches));
        }
    }
}

fn is_null_branch(branch: &Value) -> bool {
    branch.get("type") == Some(&json!("null"))
        || branch.get("enum") == Some(&json!([null]))
        || branch.get("const") == Some(&Value::Null)
}

/// `anyOf: [X, null]` (an `Option` of a named type) → `X`, the node's own keys over it; true
/// when that happened.
fn drop_null_branches(map: &mut Map<String, Value>, key: &str) -> bool {
    if let Some(Value::Array(values)) = map.get_mut("enum") {
        values.retain(|v| !v.is_null());
    }
    let Some(Value::Array(branches)) = map.get_mut(key) else { return false };
    let had_null = branches.iter().any(is_null_branch);
    branches.retain(|b| !is_null_branch(b));
    match branches.len() {
        0 => {
            map.remove(key);
            false
        }
        1 => {
            let Some(Value::Array(mut branches)) = map.remove(key) else { return false };
            if let Value::Object(inner) = branches.remove(0) {
                let outer = std::mem::take(map);
                *map = overlay(inner, outer);
            }
            had_null
        }
        _ => false,
    }
}

/// A tuple (`prefixItems`, or `items` as a list) → an array of exactly that many items, whose
/// item schema is the elements' if they agree, else one that keeps unknown fields.
fn tuple(map: &mut Map<String, Value>) {
    let elements = match (map.remove("prefixItems"), map.get("items")) {
        (Some(Value::Array(elements)), _) => elements,
        (_, Some(Value::Array(_))) => match map.remove("items") {
            Some(Value::Array(elements)) => elements,
            _ => return,
        },
        _ => return,
    };
    let count = elements.len();
    let item = match elements.first() {
        Some(first) if elements.iter().all(|e| same_ignoring_description(e, first)) => first.clone(),
        _ => json!({ "x-kubernetes-preserve-unknown-fields": true }),
    };
    map.insert("type".into(), "array".into());
    map.insert("items".into(), item);
    map.insert("minItems".into(), count.into());
    map.insert("maxItems".into(), count.into());
}

/// `uniqueItems: true` (a `BTreeSet`/`HashSet`) is refused by the API server (quadratic to
/// check); a set of scalars is `x-kubernetes-list-type: set` instead, which the server checks
/// and server-side apply merges. Sets of objects stay plain lists.
fn unique_items(map: &mut Map<String, Value>) {
    if map.remove("uniqueItems") != Some(Value::Bool(true)) {
        return;
    }
    let scalar = map
        .get("items")
        .and_then(|i| i.get("type"))
        .and_then(Value::as_str)
        .is_some_and(|t| matches!(t, "string" | "integer" | "number" | "boolean"));
    if scalar {
        map.insert("x-kubernetes-list-type".into(), "set".into());
    }
}

/// `allOf` (schemars' way of flattening several enums into one struct): each branch's
/// properties and required fields move up; what is left of each branch stays as a
/// value-only constraint.
fn merge_all_of(map: &mut Map<String, Value>) {
    let Some(Value::Array(branches)) = map.remove("allOf") else { return };
    let mut rest = Vec::new();
    for branch in branches {
        let Value::Object(mut branch) = branch else { continue };
        if let Some(Value::Object(props)) = branch.remove("properties") {
            let target = map.entry("properties").or_insert_with(|| json!({}));
            if let Value::Object(target) = target {
                for (name, schema) in props {
                    target.entry(name).or_insert(schema);
                }
            }
            map.entry("type").or_insert_with(|| "object".into());
        }
        if let Some(Value::Array(required)) = branch.remove("required") {
            let target = map.entry("required").or_insert_with(|| json!([]));
            if let Value::Array(target) = target {
                for r in required {
                    if !target.contains(&r) {
                        target.push(r);
                    }
                }
            }
        }
        if is_true(&branch, "x-kubernetes-preserve-unknown-fields") {
            map.insert("x-kubernetes-preserve-unknown-fields".into(), true.into());
        }
        let constraint: Map<String, Value> =
            branch.into_iter().filter(|(k, _)| matches!(k.as_str(), "oneOf" | "anyOf")).collect();
        if !constraint.is_empty() {
            rest.push(Value::Object(constraint));
        }
    }
    match rest.len() {
        0 => {}
        1 => {
            if let Some(Value::Object(only)) = rest.pop() {
                for (key, value) in only {
                    map.entry(key).or_insert(value);
                }
            }
        }
        _ => {
            map.insert("allOf".into(), Value::Array(rest));
        }
    }
}

#[derive(PartialEq)]
enum Kind {
    Object,
    Array,
    Scalar(String),
    IntOrString,
    Unknown,
}

impl Kind {
    fn name(&self) -> String {
        match self {
            Kind::Object => "object".into(),
            Kind::Array => "array".into(),
            Kind::Scalar(t) => t.clone(),
            Kind::IntOrString => "int-or-string".into(),
            Kind::Unknown => "any".into(),
        }
    }
}

fn kind_of(branch: &Map<String, Value>) -> Kind {
    if is_true(branch, "x-kubernetes-int-or-string") {
        return Kind::IntOrString;
    }
    match branch.get("type").and_then(Value::as_str) {
        Some("object") => Kind::Object,
        Some("array") => Kind::Array,
        Some(t) => Kind::Scalar(t.to_string()),
        None if branch.contains_key("properties") => Kind::Object,
        None => Kind::Unknown,
    }
}

/// `oneOf`/`anyOf` of full schemas (enum variants) → one structural node.
fn merge_alternatives(map: &mut Map<String, Value>, key: &str) {
    let Some(Value::Array(branches)) = map.remove(key) else { return };
    let branches: Vec<Map<String, Value>> = branches
        .into_iter()
        .map(|b| match b {
            Value::Object(b) => b,
            _ => Map::new(),
        })
        .collect();
    let kinds: Vec<Kind> = branches.iter().map(kind_of).collect();
    let own = match map.get("type").and_then(Value::as_str) {
        Some("object") => Some(Kind::Object),
        _ => None,
    };
    let all = |k: &Kind| kinds.iter().all(|x| x == k) && own.as_ref().is_none_or(|o| o == k);
    if all(&Kind::Object) {
        merge_objects(map, key, branches);
    } else if all(&Kind::Array) {
        let first = branches[0].get("items").cloned().unwrap_or(Value::Null);
        let same = branches.iter().all(|b| b.get("items").is_some_and(|i| same_ignoring_description(i, &first)));
        map.insert("type".into(), "array".into());
        map.insert("items".into(), if same { first } else { json!({ "x-kubernetes-preserve-unknown-fields": true }) });
    } else if let Some(Kind::Scalar(t)) = kinds.first()
        && own.is_none()
        && all(&Kind::Scalar(t.clone()))
    {
        map.insert("type".into(), t.clone().into());
        merge_scalar_keywords(map, &branches);
    } else if own.is_none()
        && kinds.iter().all(|k| {
            matches!(k, Kind::IntOrString)
                || *k == Kind::Scalar("integer".into())
                || *k == Kind::Scalar("string".into())
        })
    {
        map.remove("type");
        map.remove("format");
        let values = union_enums(&branches);
        map.insert("anyOf".into(), json!([{ "type": "integer" }, { "type": "string" }]));
        map.insert("x-kubernetes-int-or-string".into(), true.into());
        if let Some(values) = values {
            map.insert("enum".into(), Value::Array(values));
        }
    } else {
        // Variants of different JSON types (a unit variant beside data variants, a string
        // beside a struct): no single structural type describes them.
        map.retain(|k, _| matches!(k.as_str(), "description" | "title" | TYPE_KEY | FIELD_KEY | FACTS_KEY));
        map.insert("x-kubernetes-preserve-unknown-fields".into(), true.into());
        let mut shapes: Vec<String> = kinds.iter().map(Kind::name).collect();
        if let Some(own) = &own {
            shapes.insert(0, own.name());
        }
        unstructured::mark(map, shapes);
    }
}

/// The enum values of all branches together, if each branch has an `enum`.
fn union_enums(branches: &[Map<String, Value>]) -> Option<Vec<Value>> {
    let mut values: Vec<Value> = Vec::new();
    for branch in branches {
        for v in branch.get("enum")?.as_array()? {
            if !values.contains(v) {
                values.push(v.clone());
            }
        }
    }
    Some(values)
}

/// Unit variants (one branch each when they carry doc comments) → one `enum`; other keywords
/// survive only where every branch agrees.
fn merge_scalar_keywords(map: &mut Map<String, Value>, branches: &[Map<String, Value>]) {
    if let Some(values) = union_enums(branches) {
        map.insert("enum".into(), Value::Array(values));
    }
    let first = &branches[0];
    for (key, value) in first {
        if matches!(key.as_str(), "type" | "enum" | "description" | "title") {
            continue;
        }
        if branches.iter().all(|b| b.get(key) == Some(value)) {
            map.entry(key.clone()).or_insert_with(|| value.clone());
        }
    }
}

fn merge_objects(map: &mut Map<String, Value>, key: &str, branches: Vec<Map<String, Value>>) {
    let mut properties = match map.remove("properties") {
        Some(Value::Object(p)) => p,
        _ => Map::new(),
    };
    let mut remnants: Vec<Map<String, Value>> = Vec::new();
    for mut branch in branches {
        let mut branch_props = match branch.remove("properties") {
            Some(Value::Object(p)) => p,
            _ => Map::new(),
        };
        // An externally tagged variant's doc comment describes its one property. schemars
        // writes tagged enums as `oneOf` and untagged ones as `anyOf`, where a one-field
        // variant's doc comment describes the variant, not the field.
        if key == "oneOf"
            && branch_props.len() == 1
            && let Some(description) = branch.get("description")
            && let Some(Value::Object(only)) = branch_props.values_mut().next()
        {
            only.entry("description").or_insert_with(|| description.clone());
        }
        if is_true(&branch, "x-kubernetes-preserve-unknown-fields") {
            map.insert("x-kubernetes-preserve-unknown-fields".into(), true.into());
        }
        let mut remnant = Map::new();
        if let Some(required) = branch.remove("required") {
            remnant.insert("required".into(), required);
        }
        let mut constraints = Map::new();
        for (name, schema) in branch_props {
            if let Some(values) = schema.get("enum") {
                constraints.insert(name.clone(), json!({ "enum": values }));
            }
            match properties.get_mut(&name) {
                None => {
                    properties.insert(name, schema);
                }
                Some(existing) if same_ignoring_description(existing, &schema) => {}
                Some(existing) if same_except_enum(existing, &schema) => {
                    let merged = union_enums(&[as_map(existing), as_map(&schema)]);
                    if let (Some(values), Value::Object(existing)) = (merged, existing) {
                        existing.insert("enum".into(), Value::Array(values));
                    }
                }
                Some(existing) => {
                    // Two variants give one field different schemas: keep any value there.
                    let mut unknown = Map::new();
                    if let Some(d) = existing.get("description") {
                        unknown.insert("description".into(), d.clone());
                    }
                    unknown.insert("x-kubernetes-preserve-unknown-fields".into(), true.into());
                    *existing = Value::Object(unknown);
                }
            }
        }
        if !constraints.is_empty() {
            remnant.insert("properties".into(), Value::Object(constraints));
        }
        remnants.push(remnant);
    }
    // A constraint equal to the merged property says nothing.
    for remnant in &mut remnants {
        if let Some(Value::Object(constraints)) = remnant.get_mut("properties") {
            constraints.retain(|name, c| properties.get(name).and_then(|p| p.get("enum")) != c.get("enum"));
            if constraints.is_empty() {
                remnant.remove("properties");
            }
        }
    }
    map.insert("type".into(), "object".into());
    map.remove("additionalProperties");
    if !properties.is_empty() {
        map.insert("properties".into(), Value::Object(properties));
    }
    let informative = remnants.iter().all(|r| !r.is_empty()) && remnants.windows(2).any(|w| w[0] != w[1]);
    if informative {
        map.insert(key.into(), Value::Array(remnants.into_iter().map(Value::Object).collect()));
    }
}

fn as_map(value: &Value) -> Map<String, Value> {
    value.as_object().cloned().unwrap_or_default()
}

fn without(value: &Value, keys: &[&str]) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter().filter(|(k, _)| !keys.contains(&k.as_str())).map(|(k, v)| (k.clone(), v.clone())).collect(),
        ),
        other => other.clone(),
    }
}

fn same_ignoring_description(a: &Value, b: &Value) -> bool {
    without(a, &["description"]) == without(b, &["description"])
}

fn same_except_enum(a: &Value, b: &Value) -> bool {
    a.get("enum").is_some()
        && b.get("enum").is_some()
        && without(a, &["description", "enum"]) == without(b, &["description", "enum"])
}

/// `patternProperties` (the keys of a map with integer keys) → `additionalProperties`;
/// `additionalProperties: true` (a map of any values) → values that keep unknown fields;
/// `false` (`deny_unknown_fields`) → nothing (the API server prunes unknown fields anyway);
/// `additionalProperties` beside `properties` (a flattened map) → the node keeps unknown
/// fields, since the two may not be combined.
fn free_form(map: &mut Map<String, Value>) {
    // A map with non-string keys (`BTreeMap<i32, _>`): schemars constrains the key text with
    // `patternProperties`, which the API server does not support; the values' schema stays.
    if let Some(Value::Object(patterns)) = map.remove("patternProperties")
        && let Some((_, values)) = patterns.into_iter().next()
    {
        map.entry("additionalProperties").or_insert(values);
        map.entry("type").or_insert_with(|| "object".into());
    }
    match map.get("additionalProperties") {
        Some(Value::Bool(true)) => {
            map.insert("additionalProperties".into(), json!({ "x-kubernetes-preserve-unknown-fields": true }));
        }
        Some(Value::Bool(false)) => {
            map.remove("additionalProperties");
        }
        _ => {}
    }
    let has_properties = matches!(map.get("properties"), Some(Value::Object(p)) if !p.is_empty());
    if has_properties && map.remove("additionalProperties").is_some() {
        map.insert("x-kubernetes-preserve-unknown-fields".into(), true.into());
    }
}
