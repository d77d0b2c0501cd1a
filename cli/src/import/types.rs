//! One version's `openAPIV3Schema` turned into Rust types: a struct per object with
//! properties, an enum per string enum, and every schema keyword as the `#[rop(...)]`,
//! `#[schemars(...)]` or `#[serde(...)]` attribute that gives it back (docs/markers.md). A
//! keyword no attribute gives is kept as written with `#[rop(raw_schema = "...")]`, and what
//! not even that can say is reported as a [`Loss`]: nothing is dropped silently.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::idents;
use super::literal::{bound, json_literal, number, string};

/// A schema keyword at a path that the imported types do not give back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loss {
    /// JSON path of the schema node, e.g. `.spec.versions[v1].schema.openAPIV3Schema.properties.spec`.
    pub path: String,
    /// What is lost, e.g. `metadata's properties (name: maxLength)`.
    pub what: String,
}

/// A field of a generated struct.
#[derive(Clone, Debug, Default)]
pub struct Field {
    /// The JSON property name.
    pub json: String,
    /// The Rust identifier (`r#type`, `secret_name`).
    pub ident: String,
    /// The Rust type, `Option<...>` included.
    pub ty: String,
    /// Not in the parent's `required`: an `Option` left out when `None`.
    pub optional: bool,
    /// Required and nullable: an `Option` written as `null` when `None`.
    pub nullable_required: bool,
    pub doc: Option<String>,
    /// `#[rop(...)]` keys.
    pub rop: Vec<String>,
    /// `#[schemars(...)]` keys.
    pub schemars: Vec<String>,
}

/// A generated struct (an object schema with properties) or unit enum (a string enum).
#[derive(Clone, Debug, Default)]
pub struct Type {
    pub name: String,
    pub doc: Option<String>,
    pub rop: Vec<String>,
    pub schemars: Vec<String>,
    /// Struct fields; empty for an enum.
    pub fields: Vec<Field>,
    /// Enum variants `(Rust name, JSON value)`; empty for a struct.
    pub variants: Vec<(String, String)>,
}

/// How a schema node is written where it is used: its Rust type and the attributes that
/// describe it on the field (or, for a list's items, inside `items(...)`/`inner(...)`).
#[derive(Clone, Debug, Default)]
struct Node {
    ty: String,
    doc: Option<String>,
    rop: Vec<String>,
    schemars: Vec<String>,
}

/// The types of one version, built from its schema.
#[derive(Debug, Default)]
pub struct Types {
    /// Generated types in file order (the spec first).
    pub types: Vec<Type>,
    pub losses: Vec<Loss>,
    /// Names used so far, so that new ones are unique in the file.
    taken: BTreeSet<String>,
    /// Uses the file needs: `BTreeMap`, `Value`, `IntOrString`.
    pub uses: BTreeSet<&'static str>,
}

impl Types {
    /// Reserves names the derive defines (the kind, its list) so generated types avoid them.
    pub fn reserve(&mut self, names: &[String]) {
        self.taken.extend(names.iter().cloned());
    }

    /// The struct `name` for object schema `schema` at `path` (the spec or the status), with
    /// its markers on the struct. Returns the object's description, which the caller places.
    pub fn root_struct(&mut self, name: &str, schema: &Map<String, Value>, path: &str) -> Option<String> {
        self.taken.insert(name.to_string());
        let mut s = schema.clone();
        let doc = take_str(&mut s, "description");
        if s.get("type").and_then(Value::as_str) == Some("object") {
            s.remove("type");
        } else {
            self.loss(path, "the spec or status is not `type: object`");
        }
        self.object(name.to_string(), s, path);
        doc
    }

    fn loss(&mut self, path: &str, what: impl Into<String>) {
        self.losses.push(Loss { path: path.to_string(), what: what.into() });
    }

    /// A struct `name` from an object schema whose `type` is already taken off.
    fn object(&mut self, name: String, mut s: Map<String, Value>, path: &str) {
        let properties = match s.remove("properties") {
            Some(Value::Object(p)) => p,
            _ => Map::new(),
        };
        let required: BTreeSet<String> = match s.remove("required") {
            Some(Value::Array(r)) => r.iter().filter_map(|v| v.as_str().map(String::from)).collect(),
            _ => BTreeSet::new(),
        };
        let at = self.types.len();
        self.types.push(Type { name: name.clone(), ..Type::default() });
        let mut taken = BTreeSet::new();
        let mut fields = Vec::new();
        for (json, child) in &properties {
            let child_path = format!("{path}.properties.{json}");
            let Some(child) = child.as_object() else {
                self.loss(&child_path, "a property that is not a schema");
                continue;
            };
            let ident = idents::field(json, &mut taken);
            let hint = [name.as_str(), json.as_str()];
            let node = self.node(child, &child_path, &hint);
            let optional = !required.contains(json);
            let nullable = node.rop.iter().any(|r| r == "nullable");
            let mut field = Field {
                json: json.clone(),
                ident,
                ty: node.ty,
                optional,
                nullable_required: false,
                doc: node.doc,
                rop: node.rop,
                schemars: node.schemars,
            };
            if !optional && nullable {
                // `null` must survive both ways: an `Option` the parent still requires, written
                // as `null` when it is `None`.
                field.rop.insert(0, "required".into());
                field.nullable_required = true;
            }
            fields.push(field);
        }
        for missing in required.iter().filter(|r| !properties.contains_key(*r)) {
            self.loss(path, format!("`required` names `{missing}`, which is not a property"));
        }
        let mut t = std::mem::take(&mut self.types[at]);
        t.fields = fields;
        self.markers(&mut s, path, &mut t.rop, &mut t.schemars, Kind::Struct);
        self.types[at] = t;
    }

    /// The Rust type and field attributes for schema `schema`; new structs and enums are named
    /// from `hint` (the parent type and the property).
    fn node(&mut self, schema: &Map<String, Value>, path: &str, hint: &[&str]) -> Node {
        let mut s = schema.clone();
        let mut node = Node { doc: take_str(&mut s, "description"), ..Node::default() };
        let type_ = take_str(&mut s, "type");
        let int_or_string = s.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true));
        let preserve = s.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true));
        let embedded = s.get("x-kubernetes-embedded-resource") == Some(&Value::Bool(true));
        let has_properties = s.get("properties").and_then(Value::as_object).is_some_and(|p| !p.is_empty());
        let kind = match type_.as_deref() {
            _ if int_or_string => {
                s.remove("x-kubernetes-int-or-string");
                if s.get("anyOf") == Some(&serde_json::json!([{"type": "integer"}, {"type": "string"}])) {
                    s.remove("anyOf");
                }
                // Also for `resource.Quantity`'s pattern: k8s-openapi's `Quantity` writes an
                // integer back as a string, and the object would not round-trip.
                self.uses.insert("IntOrString");
                node.ty = "IntOrString".into();
                if type_.is_some() {
                    self.loss(path, "`type` beside `x-kubernetes-int-or-string`");
                }
                Kind::IntOrString
            }
            Some("string") => {
                let values = s.get("enum").and_then(Value::as_array).cloned();
                match values.as_deref().and_then(|v| self.string_enum(v, hint)) {
                    Some(name) => {
                        s.remove("enum");
                        node.ty = name;
                    }
                    None => node.ty = "String".into(),
                }
                Kind::String
            }
            Some("boolean") => {
                node.ty = "bool".into();
                Kind::Scalar
            }
            Some("integer") => {
                match s.get("format").and_then(Value::as_str) {
                    Some("int32") => {
                        s.remove("format");
                        node.ty = "i32".into();
                    }
                    Some("int64") => {
                        s.remove("format");
                        node.ty = "i64".into();
                    }
                    _ => {
                        node.ty = "i64".into();
                        node.rop.push("schemaless".into());
                        node.rop.push("type_ = \"integer\"".into());
                    }
                }
                Kind::Scalar
            }
            Some("number") => {
                match s.get("format").and_then(Value::as_str) {
                    Some("double") => {
                        s.remove("format");
                        node.ty = "f64".into();
                    }
                    Some("float") => {
                        s.remove("format");
                        node.ty = "f32".into();
                    }
                    _ => {
                        node.ty = "f64".into();
                        node.rop.push("schemaless".into());
                        node.rop.push("type_ = \"number\"".into());
                    }
                }
                Kind::Scalar
            }
            Some("array") => {
                let items = s.remove("items");
                match items.as_ref().and_then(Value::as_object) {
                    Some(items) => {
                        let item_hint: Vec<&str> = hint.to_vec();
                        let inner = self.node(items, &format!("{path}.items"), &item_hint);
                        node.ty = format!("Vec<{}>", inner.ty);
                        self.place_items(inner, items, &mut node);
                    }
                    None => {
                        self.uses.insert("Value");
                        node.ty = "Vec<Value>".into();
                        self.loss(path, "an array without `items` (its items are kept as JSON values)");
                    }
                }
                Kind::Array
            }
            Some("object") if has_properties => {
                let name = self.type_name(hint);
                // The field keeps what is about its value (extensions, null, a default); the
                // struct carries the object's own markers.
                let mut field_keys = Map::new();
                for key in
                    ["x-kubernetes-embedded-resource", "x-kubernetes-preserve-unknown-fields", "nullable", "default"]
                {
                    if let Some(v) = s.remove(key) {
                        field_keys.insert(key.into(), v);
                    }
                }
                self.object(name.clone(), s, path);
                self.markers(&mut field_keys, path, &mut node.rop, &mut node.schemars, Kind::Struct);
                node.ty = name;
                return node;
            }
            Some("object") if s.get("additionalProperties").is_some_and(Value::is_object) => {
                let Some(Value::Object(values)) = s.remove("additionalProperties") else { unreachable!() };
                let inner = self.node(&values, &format!("{path}.additionalProperties"), hint);
                self.uses.insert("BTreeMap");
                node.ty = format!("BTreeMap<String, {}>", inner.ty);
                if let Some(inner) = self.attach_to_type(inner)
                    && (!inner.rop.is_empty() || !inner.schemars.is_empty() || inner.doc.is_some())
                {
                    // No attribute describes a map's values: keep their schema as written.
                    node.rop.push(raw_schema("additionalProperties", Value::Object(values)));
                }
                Kind::Object
            }
            Some("object") => {
                self.uses.insert("Value");
                node.ty = "Value".into();
                if embedded {
                    s.remove("x-kubernetes-embedded-resource");
                    node.rop.push("embedded_resource".into());
                }
                if preserve {
                    s.remove("x-kubernetes-preserve-unknown-fields");
                    node.rop.push("preserve_unknown_fields".into());
                    if !embedded {
                        node.rop.push("type_ = \"object\"".into());
                    }
                } else if !embedded {
                    node.rop.push("schemaless".into());
                    node.rop.push("type_ = \"object\"".into());
                }
                Kind::Object
            }
            None if preserve => {
                s.remove("x-kubernetes-preserve-unknown-fields");
                self.uses.insert("Value");
                node.ty = "Value".into();
                Kind::Any
            }
            None => {
                self.uses.insert("Value");
                node.ty = "Value".into();
                node.rop.push("schemaless".into());
                Kind::Any
            }
            Some(other) => {
                self.uses.insert("Value");
                node.ty = "Value".into();
                self.loss(path, format!("`type: {other}` is not an OpenAPI type (kept as a JSON value)"));
                Kind::Any
            }
        };
        self.markers(&mut s, path, &mut node.rop, &mut node.schemars, kind);
        node
    }

    /// Puts the markers of a list's items where the derive reads them: on their struct or
    /// enum when they are one, else in `items(...)` and `inner(...)`.
    fn place_items(&mut self, inner: Node, items: &Map<String, Value>, node: &mut Node) {
        let Some(inner) = self.attach_to_type(inner) else { return };
        let nested = inner.ty.starts_with("Vec<") || inner.ty.starts_with("BTreeMap<");
        let simple = inner.doc.is_none() && !nested && inner.rop.iter().all(|r| !r.starts_with("raw_schema"));
        if simple {
            if !inner.rop.is_empty() {
                node.rop.push(format!("items({})", inner.rop.join(", ")));
            }
            if !inner.schemars.is_empty() {
                node.schemars.push(format!("inner({})", inner.schemars.join(", ")));
            }
        } else if !inner.rop.is_empty() || !inner.schemars.is_empty() || inner.doc.is_some() {
            // A described item, or a list of lists with markers: its schema as written.
            node.rop.push(raw_schema("items", Value::Object(items.clone())));
        }
    }

    /// Moves the description and markers of `inner` onto its generated struct or enum (used
    /// once, so a type-level marker says the same) and returns `None`; other nodes come back.
    fn attach_to_type(&mut self, inner: Node) -> Option<Node> {
        let Some(at) = self.types.iter().position(|t| t.name == inner.ty) else { return Some(inner) };
        let t = &mut self.types[at];
        if t.doc.is_none() {
            t.doc = inner.doc;
        }
        t.rop.extend(inner.rop);
        t.schemars.extend(inner.schemars);
        None
    }

    /// A Rust enum for a string enum's values, or `None` when some value has no variant name.
    fn string_enum(&mut self, values: &[Value], hint: &[&str]) -> Option<String> {
        let strings: Vec<&str> = values.iter().map(Value::as_str).collect::<Option<_>>()?;
        let variants = idents::variants(&strings)?;
        let name = self.type_name(hint);
        let variants = variants.into_iter().zip(strings).map(|(v, s)| (v, s.to_string())).collect();
        self.types.push(Type { name: name.clone(), variants, ..Type::default() });
        Some(name)
    }

    fn type_name(&mut self, hint: &[&str]) -> String {
        idents::type_name(hint, &mut self.taken)
    }

    /// The validation keywords left in `s` as attribute keys; anything else is kept raw with
    /// `extend(...)`.
    fn markers(
        &mut self,
        s: &mut Map<String, Value>,
        path: &str,
        rop: &mut Vec<String>,
        schemars: &mut Vec<String>,
        kind: Kind,
    ) {
        let mut range = Vec::new();
        if let Some(min) = s.remove("minimum") {
            range.push(format!("min = {}", bound(&min)));
        }
        if let Some(max) = s.remove("maximum") {
            range.push(format!("max = {}", bound(&max)));
        }
        if !range.is_empty() {
            schemars.push(format!("range({})", range.join(", ")));
        }
        for (key, flag) in [("exclusiveMinimum", "exclusive_minimum"), ("exclusiveMaximum", "exclusive_maximum")] {
            match s.remove(key) {
                Some(Value::Bool(true)) => rop.push(flag.into()),
                Some(Value::Bool(false)) | None => {}
                Some(other) => {
                    s.insert(key.into(), other);
                }
            }
        }
        if matches!(kind, Kind::Object | Kind::Struct) {
            for (key, marker) in [("minProperties", "min_properties"), ("maxProperties", "max_properties")] {
                if let Some(n) = s.remove(key) {
                    rop.push(format!("{marker} = {}", number(&n)));
                }
            }
        }
        let (min_key, max_key) = match kind {
            Kind::Array => ("minItems", "maxItems"),
            _ => ("minLength", "maxLength"),
        };
        let mut length = Vec::new();
        if let Some(min) = s.remove(min_key) {
            length.push(format!("min = {}", number(&min)));
        }
        if let Some(max) = s.remove(max_key) {
            length.push(format!("max = {}", number(&max)));
        }
        if !length.is_empty() {
            schemars.push(format!("length({})", length.join(", ")));
        }
        if let Some(Value::String(pattern)) = s.remove("pattern") {
            schemars.push(format!("regex(pattern = {})", string(&pattern)));
        }
        if let Some(Value::String(format)) = s.remove("format") {
            rop.push(format!("format = {}", string(&format)));
        }
        if let Some(n) = s.remove("multipleOf") {
            rop.push(format!("multiple_of = {}", number(&n)));
        }
        if let Some(Value::Array(values)) = s.remove("enum") {
            let list: Vec<String> = values.iter().map(json_literal).collect();
            rop.push(format!("enum_values = [{}]", list.join(", ")));
        }
        if s.remove("nullable") == Some(Value::Bool(true)) {
            rop.push("nullable".into());
        }
        if let Some(default) = s.remove("default") {
            rop.push(format!("default_json = {}", string(&default.to_string())));
        }
        if let Some(Value::String(t)) = s.remove("x-kubernetes-list-type") {
            rop.push(format!("list_type = {}", string(&t)));
        }
        if let Some(Value::Array(keys)) = s.remove("x-kubernetes-list-map-keys") {
            let keys: Vec<String> = keys.iter().filter_map(Value::as_str).map(string).collect();
            rop.push(format!("list_map_keys = [{}]", keys.join(", ")));
        }
        if let Some(Value::String(t)) = s.remove("x-kubernetes-map-type") {
            let key = if kind == Kind::Struct { "struct_type" } else { "map_type" };
            rop.push(format!("{key} = {}", string(&t)));
        }
        if s.remove("x-kubernetes-preserve-unknown-fields") == Some(Value::Bool(true)) {
            rop.push("preserve_unknown_fields".into());
        }
        if s.remove("x-kubernetes-embedded-resource") == Some(Value::Bool(true)) {
            rop.push("embedded_resource".into());
        }
        if let Some(Value::Array(rules)) = s.remove("x-kubernetes-validations") {
            for rule in &rules {
                match validation(rule) {
                    Some(v) => rop.push(format!("validation({v})")),
                    None => self.loss(path, format!("an x-kubernetes-validations entry rop cannot read: {rule}")),
                }
            }
        }
        if let Some(Value::String(title)) = s.remove("title") {
            schemars.push(format!("title = {}", string(&title)));
        }
        // What no marker gives (allOf/anyOf/oneOf/not, externalDocs, example, ...): as written.
        let rest = std::mem::take(s);
        if !rest.is_empty() {
            rop.push(format!("raw_schema = {}", string(&Value::Object(rest).to_string())));
        }
    }
}

/// `raw_schema` setting one keyword to `value` as written.
fn raw_schema(key: &str, value: Value) -> String {
    let mut object = Map::new();
    object.insert(key.into(), value);
    format!("raw_schema = {}", string(&Value::Object(object).to_string()))
}

/// What a schema node is, for the keywords that depend on it (lengths, map types).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    String,
    Scalar,
    IntOrString,
    Array,
    /// A map or a free-form object.
    Object,
    /// A generated struct.
    Struct,
    Any,
}

/// The keys of `validation(...)` for one `x-kubernetes-validations` entry.
pub fn validation(rule: &Value) -> Option<String> {
    let rule = rule.as_object()?;
    let mut keys = vec![format!("rule = {}", string(rule.get("rule")?.as_str()?))];
    for (json, key) in [
        ("message", "message"),
        ("messageExpression", "message_expression"),
        ("reason", "reason"),
        ("fieldPath", "field_path"),
    ] {
        if let Some(value) = rule.get(json) {
            keys.push(format!("{key} = {}", string(value.as_str()?)));
        }
    }
    match rule.get("optionalOldSelf") {
        Some(Value::Bool(true)) => keys.push("optional_old_self".into()),
        Some(Value::Bool(false)) | None => {}
        Some(_) => return None,
    }
    if rule.keys().any(|k| {
        !matches!(k.as_str(), "rule" | "message" | "messageExpression" | "reason" | "fieldPath" | "optionalOldSelf")
    }) {
        return None;
    }
    Some(keys.join(", "))
}

fn take_str(s: &mut Map<String, Value>, key: &str) -> Option<String> {
    match s.remove(key) {
        Some(Value::String(text)) => Some(text),
        Some(other) => {
            s.insert(key.into(), other);
            None
        }
        None => None,
    }
}
