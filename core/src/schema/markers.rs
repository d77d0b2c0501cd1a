//! Schema markers: what `#[rop(...)]` on a type, field or variant says about its schema.
//!
//! `#[derive(rop::JsonSchema)]` turns each `#[rop(...)]` into a list of [`Marker`]s and hands it
//! to schemars as a `transform` ([`TypeMarkers`] on the type, [`FieldMarkers`] on a field). The
//! transforms only record the list under a private extension key; [`super::structural_schema_for`]
//! applies it once the schema is structural, where the final shape of every node is known (an
//! `Option` folded, a `$ref` inlined, an enum merged). Each marker is the counterpart of a
//! controller-gen marker; docs/markers.md has the table.

use schemars::Schema;
use schemars::transform::Transform;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// Extension key under which a type's markers travel until they are applied.
pub(crate) const TYPE_KEY: &str = "x-rop-type";
/// Extension key under which a field's markers travel until they are applied.
pub(crate) const FIELD_KEY: &str = "x-rop-field";
/// Extension key of the facts a field's markers leave for its parent object.
pub(crate) const FACTS_KEY: &str = "x-rop-facts";

/// `reason` of an `x-kubernetes-validations` rule: the field error type the API server reports
/// (apiextensions `ValidationRule.reason`; anything else is refused by the server).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Reason {
    /// A malformed value (apimachinery `field.ErrorTypeInvalid`); the API server's default when
    /// a rule gives no `reason`.
    FieldValueInvalid,
    /// A well-formed value that the current conditions do not permit (`field.ErrorTypeForbidden`).
    FieldValueForbidden,
    /// A required value that is not set (`field.ErrorTypeRequired`).
    FieldValueRequired,
    /// A value that must be unique and is not (`field.ErrorTypeDuplicate`).
    FieldValueDuplicate,
}

/// One `x-kubernetes-validations` entry (controller-gen `+kubebuilder:validation:XValidation`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Rule {
    /// The CEL expression; `self` is the value of the node, `oldSelf` its previous value.
    pub rule: String,
    /// The error message when the rule is false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// A CEL expression giving the error message (it wins over `message`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_expression: Option<String>,
    /// The field error type reported; the API server's default is `FieldValueInvalid`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<Reason>,
    /// The JSON path, relative to the node, the error is reported at (e.g. `.spec.replicas`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field_path: Option<String>,
    /// Evaluate the rule on create too, with `oldSelf` an empty optional (transition rules
    /// otherwise only run on update).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub optional_old_self: bool,
}

/// The three "one of" constraints on a struct's fields (controller-gen
/// `+kubebuilder:validation:ExactlyOneOf` / `AtMostOneOf` / `AtLeastOneOf`), emitted as the
/// same CEL rules and messages controller-gen writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum OneOf {
    /// Exactly one of the fields is set (`ExactlyOneOf`).
    Exactly,
    /// At most one of the fields is set (`AtMostOneOf`).
    AtMost,
    /// At least one of the fields is set (`AtLeastOneOf`).
    AtLeast,
}

/// One schema marker. The macro builds these; the names follow the OpenAPI keyword or
/// Kubernetes extension they set.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Marker {
    /// `minimum`, from `#[schemars(range(min = ...))]`.
    Minimum(f64),
    /// `maximum`, from `#[schemars(range(max = ...))]`.
    Maximum(f64),
    /// From `#[schemars(length(min = ...))]`: `minLength` on a string or int-or-string,
    /// `minItems` on a list, `minProperties` on a map.
    MinLength(u64),
    /// The `max` counterpart of [`Marker::MinLength`].
    MaxLength(u64),
    /// `#[schemars(length(equal = ...))]`: both bounds.
    EqualLength(u64),
    /// `pattern`, from `#[schemars(regex(pattern = ...))]`.
    Pattern(String),
    /// `exclusiveMinimum: true` (the bound itself comes from `#[schemars(range(min = ...))]`).
    ExclusiveMinimum,
    /// `exclusiveMaximum: true`.
    ExclusiveMaximum,
    /// `multipleOf`.
    MultipleOf(f64),
    /// `minProperties`.
    MinProperties(u64),
    /// `maxProperties`.
    MaxProperties(u64),
    /// `enum`: the allowed values, as JSON.
    Enum(Vec<Value>),
    /// `format`.
    Format(String),
    /// `type`, replacing the derived one (controller-gen `validation:Type`).
    Type(String),
    /// Markers for the list's elements (controller-gen `validation:items:...`).
    Items(Vec<Marker>),
    /// The field is in its parent's `required` list whatever its Rust type says.
    Required,
    /// The field is not in its parent's `required` list.
    Optional,
    /// `nullable: true`.
    Nullable,
    /// `default`, a JSON value.
    Default(Value),
    /// One `x-kubernetes-validations` rule.
    Validation(Rule),
    /// `self == oldSelf` (controller-gen `+k8s:immutable`); an optional field also gets a rule
    /// on its parent that it cannot be removed once set.
    Immutable,
    /// A one-of constraint over the named Rust fields of this struct.
    OneOf(OneOf, Vec<String>),
    /// The Rust name of the field, so that one-of constraints find its JSON name.
    RustName(String),
    /// `x-kubernetes-int-or-string: true` with `anyOf: [integer, string]`.
    IntOrString,
    /// Schema keywords set as written (a JSON object), after the node is structural and the
    /// other markers are applied: what no marker says (`oneOf` of required lists, `not`,
    /// `externalDocs`), kept by `rop import` so a CRD round-trips. `rop verify` still judges
    /// the result.
    RawSchema(Map<String, Value>),
    /// `x-kubernetes-preserve-unknown-fields: true`.
    PreserveUnknownFields,
    /// `x-kubernetes-embedded-resource: true` (and `type: object`).
    EmbeddedResource,
    /// Drop the derived schema (controller-gen `validation:Schemaless`); other markers on the
    /// same item then describe the value.
    Schemaless,
    /// `x-kubernetes-list-type`: `atomic`, `set` or `map`.
    ListType(String),
    /// `x-kubernetes-list-map-keys`.
    ListMapKeys(Vec<String>),
    /// `x-kubernetes-map-type`: `atomic` or `granular`.
    MapType(String),
    /// controller-gen `+structType`; the API server only knows `x-kubernetes-map-type`, which is
    /// what controller-gen writes for it too.
    StructType(String),
}

/// The schemars transform `#[derive(rop::JsonSchema)]` puts on a type with `#[rop(...)]`.
pub struct TypeMarkers(pub Vec<Marker>);

/// The schemars transform `#[derive(rop::JsonSchema)]` puts on a field with `#[rop(...)]`.
pub struct FieldMarkers(pub Vec<Marker>);

fn record(schema: &mut Schema, key: &str, markers: &[Marker]) {
    let list = serde_json::to_value(markers).expect("markers are plain data");
    let map = schema.ensure_object();
    match map.get_mut(key) {
        Some(Value::Array(existing)) => existing.extend(list.as_array().into_iter().flatten().cloned()),
        _ => {
            map.insert(key.into(), list);
        }
    }
}

impl Transform for TypeMarkers {
    fn transform(&mut self, schema: &mut Schema) {
        record(schema, TYPE_KEY, &self.0);
    }
}

impl Transform for FieldMarkers {
    fn transform(&mut self, schema: &mut Schema) {
        record(schema, FIELD_KEY, &self.0);
    }
}

/// Takes the markers recorded under `key` off `node`.
pub(crate) fn take(node: &mut Map<String, Value>, key: &str) -> Vec<Marker> {
    match node.remove(key) {
        Some(value) => serde_json::from_value(value).expect("markers were recorded by rop"),
        None => Vec::new(),
    }
}

/// What a field's markers tell its parent object.
#[derive(Default, Serialize, Deserialize)]
pub(crate) struct Facts {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub immutable: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rust_name: Option<String>,
}

/// Applies `markers` to `node`. `field` says whether they were written on a field (their
/// validation rules then come before the type's, as controller-gen orders them).
pub(crate) fn apply(node: &mut Map<String, Value>, markers: Vec<Marker>, field: bool) {
    if markers.is_empty() {
        return;
    }
    let mut facts: Facts = node.remove(FACTS_KEY).and_then(|f| serde_json::from_value(f).ok()).unwrap_or_default();
    if markers.contains(&Marker::Schemaless) {
        node.retain(|key, _| key == "description" || key == "title");
    }
    let mut rules = Vec::new();
    let mut one_ofs = Vec::new();
    let raw: Vec<Marker> = markers.iter().filter(|m| matches!(m, Marker::RawSchema(_))).cloned().collect();
    for marker in markers {
        match marker {
            Marker::Minimum(n) => set(node, "minimum", number(n)),
            Marker::Maximum(n) => set(node, "maximum", number(n)),
            Marker::MinLength(n) => set(node, length_key(node, true), n),
            Marker::MaxLength(n) => set(node, length_key(node, false), n),
            Marker::EqualLength(n) => {
                set(node, length_key(node, true), n);
                set(node, length_key(node, false), n);
            }
            Marker::Pattern(p) => set(node, "pattern", p),
            Marker::ExclusiveMinimum => set(node, "exclusiveMinimum", true),
            Marker::ExclusiveMaximum => set(node, "exclusiveMaximum", true),
            Marker::MultipleOf(n) => set(node, "multipleOf", number(n)),
            Marker::MinProperties(n) => set(node, "minProperties", n),
            Marker::MaxProperties(n) => set(node, "maxProperties", n),
            Marker::Enum(values) => set(node, "enum", values),
            Marker::Format(format) => set(node, "format", format),
            Marker::Type(type_) => set_type(node, &type_),
            Marker::Items(inner) => {
                if let Some(Value::Object(items)) = node.get_mut("items") {
                    apply(items, inner, field);
                    items.remove(FACTS_KEY);
                }
            }
            Marker::Required => facts.required = Some(true),
            Marker::Optional => facts.required = Some(false),
            Marker::Nullable => set(node, "nullable", true),
            Marker::Default(value) => set(node, "default", value),
            Marker::Validation(rule) => rules.push(serde_json::to_value(rule).expect("rules are plain data")),
            Marker::Immutable => {
                facts.immutable = true;
                rules.push(json!({ "message": "field is immutable", "rule": "self == oldSelf" }));
            }
            Marker::OneOf(kind, fields) => one_ofs.push((kind, fields)),
            Marker::RustName(name) => facts.rust_name = Some(name),
            Marker::IntOrString => {
                node.remove("type");
                node.remove("format");
                set(node, "anyOf", json!([{ "type": "integer" }, { "type": "string" }]));
                set(node, "x-kubernetes-int-or-string", true);
            }
            Marker::PreserveUnknownFields => set(node, "x-kubernetes-preserve-unknown-fields", true),
            Marker::EmbeddedResource => {
                set(node, "type", "object");
                set(node, "x-kubernetes-embedded-resource", true);
            }
            Marker::Schemaless | Marker::RawSchema(_) => {}
            Marker::ListType(t) => set(node, "x-kubernetes-list-type", t),
            Marker::ListMapKeys(keys) => set(node, "x-kubernetes-list-map-keys", keys),
            Marker::MapType(t) | Marker::StructType(t) => set(node, "x-kubernetes-map-type", t),
        }
    }
    for marker in &raw {
        if let Marker::RawSchema(keys) = marker {
            node.extend(keys.clone());
        }
    }
    if !one_ofs.is_empty() {
        rules.extend(one_ofs.into_iter().map(|(kind, fields)| one_of_rule(node, kind, &fields)));
    }
    if !rules.is_empty() {
        let existing = match node.remove("x-kubernetes-validations") {
            Some(Value::Array(existing)) => existing,
            _ => Vec::new(),
        };
        let all = if field {
            rules.into_iter().chain(existing).collect()
        } else {
            existing.into_iter().chain(rules).collect()
        };
        node.insert("x-kubernetes-validations".into(), Value::Array(all));
    }
    if facts.required.is_some() || facts.immutable || facts.rust_name.is_some() {
        node.insert(FACTS_KEY.into(), serde_json::to_value(facts).expect("facts are plain data"));
    }
}

/// The keyword a length bound sets on `node`: items for a list, properties for a map or
/// object, characters otherwise (strings and int-or-strings, as controller-gen allows).
fn length_key(node: &Map<String, Value>, min: bool) -> &'static str {
    match (node.get("type").and_then(Value::as_str), min) {
        (Some("array"), true) => "minItems",
        (Some("array"), false) => "maxItems",
        (Some("object"), true) => "minProperties",
        (Some("object"), false) => "maxProperties",
        (_, true) => "minLength",
        (_, false) => "maxLength",
    }
}

fn set(node: &mut Map<String, Value>, key: &str, value: impl Into<Value>) {
    node.insert(key.into(), value.into());
}

/// `2.0` is written `2`, as controller-gen writes integral bounds.
fn number(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() < 9.0e15 { json!(n as i64) } else { json!(n) }
}

/// `type` replaced; keywords of the old type that the new one cannot carry go with it.
fn set_type(node: &mut Map<String, Value>, type_: &str) {
    node.insert("type".into(), type_.into());
    node.remove("x-kubernetes-int-or-string");
    node.remove("anyOf");
    if type_ != "object" {
        for key in ["properties", "required", "additionalProperties", "minProperties", "maxProperties"] {
            node.remove(key);
        }
    }
    if type_ != "array" {
        for key in ["items", "minItems", "maxItems", "x-kubernetes-list-type", "x-kubernetes-list-map-keys"] {
            node.remove(key);
        }
    }
    if !matches!(type_, "string" | "integer" | "number") {
        node.remove("format");
    }
}

/// The CEL rule controller-gen writes for a one-of constraint, over the JSON names of the
/// fields (found through their [`Marker::RustName`] facts; a field without one keeps its Rust
/// name).
fn one_of_rule(node: &Map<String, Value>, kind: OneOf, fields: &[String]) -> Value {
    let json_names: Vec<String> = fields.iter().map(|rust| json_name(node, rust)).collect();
    let list = json_names.join(" ");
    let (rule, message) = match kind {
        OneOf::Exactly => {
            (format!("{} == 1", counted(&json_names)), format!("exactly one of the fields in [{list}] must be set"))
        }
        OneOf::AtMost => {
            (format!("{} <= 1", counted(&json_names)), format!("at most one of the fields in [{list}] may be set"))
        }
        OneOf::AtLeast => (
            json_names.iter().map(|f| format!("has(self.{f})")).collect::<Vec<_>>().join("||"),
            format!("at least one of the fields in [{list}] must be set"),
        ),
    };
    json!({ "message": message, "rule": rule })
}

fn counted(fields: &[String]) -> String {
    fields.iter().map(|f| format!("(has(self.{f})?1:0)")).collect::<Vec<_>>().join("+")
}

/// The JSON name of the property whose recorded Rust name is `rust`.
fn json_name(node: &Map<String, Value>, rust: &str) -> String {
    let Some(Value::Object(properties)) = node.get("properties") else { return rust.to_string() };
    properties
        .iter()
        .find(|(_, schema)| {
            schema.get(FACTS_KEY).and_then(|f| f.get("rust_name")).and_then(Value::as_str) == Some(rust)
        })
        .map(|(name, _)| name.clone())
        .unwrap_or_else(|| rust.to_string())
}

/// Applies the facts the properties of an object node left: required/optional overrides, and
/// for an optional immutable field the parent rule that it cannot be removed once set
/// (controller-gen writes the same rule and message). The facts are removed.
pub(crate) fn settle_properties(node: &mut Map<String, Value>) {
    let Some(Value::Object(properties)) = node.get_mut("properties") else { return };
    let mut facts = Vec::new();
    for (name, schema) in properties.iter_mut() {
        if let Some(Value::Object(schema)) = Some(schema)
            && let Some(f) = schema.remove(FACTS_KEY)
        {
            facts.push((name.clone(), serde_json::from_value::<Facts>(f).unwrap_or_default()));
        }
    }
    if facts.is_empty() {
        return;
    }
    let mut required: Vec<String> = match node.get("required") {
        Some(Value::Array(list)) => list.iter().filter_map(|v| v.as_str().map(str::to_string)).collect(),
        _ => Vec::new(),
    };
    for (name, f) in &facts {
        match f.required {
            Some(true) if !required.contains(name) => required.push(name.clone()),
            Some(false) => required.retain(|r| r != name),
            _ => {}
        }
    }
    required.sort();
    if required.is_empty() {
        node.remove("required");
    } else {
        node.insert("required".into(), json!(required));
    }
    let mut rules = Vec::new();
    for (name, f) in &facts {
        if f.immutable && !required.contains(name) {
            rules.push(json!({
                "message": format!("field {name} is immutable once set"),
                "rule": format!("!has(oldSelf.{name}) || has(self.{name})"),
            }));
        }
    }
    if !rules.is_empty() {
        match node.get_mut("x-kubernetes-validations") {
            Some(Value::Array(existing)) => existing.extend(rules),
            _ => {
                node.insert("x-kubernetes-validations".into(), Value::Array(rules));
            }
        }
    }
}
