//! Parsing `#[rop(...)]` schema markers on types, fields and list items into the
//! `rop::schema::Marker` values the runtime applies. Every key is checked here, so a
//! misspelled, misplaced or conflicting marker is a compile error pointing at it.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use syn::ext::IdentExt;
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;
use syn::{Expr, Ident, LitBool, LitInt, LitStr, Token, Type};

use crate::keys::{self, Family};
use crate::suggest;

/// Where a marker list is written; some keys only make sense in some places.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Place {
    Type,
    Field,
    Items,
}

impl Place {
    fn name(self) -> &'static str {
        match self {
            Place::Type => "a type",
            Place::Field => "a field",
            Place::Items => "items(...)",
        }
    }
}

/// Flag keys: the key, its `Marker` variant, and the keys it conflicts with.
const FLAGS: [(&str, &str, &[&str]); 7] = [
    ("exclusive_minimum", "ExclusiveMinimum", &[]),
    ("exclusive_maximum", "ExclusiveMaximum", &[]),
    ("nullable", "Nullable", &[]),
    ("int_or_string", "IntOrString", &["type_"]),
    ("preserve_unknown_fields", "PreserveUnknownFields", &[]),
    ("embedded_resource", "EmbeddedResource", &[]),
    ("schemaless", "Schemaless", &[]),
];

/// Keys another attribute already spells, and the spelling to use instead.
const ELSEWHERE: [(&[&str], &str); 12] = [
    (&["minimum", "maximum", "min", "max", "range"], "#[schemars(range(min = ..., max = ...))]"),
    (
        &["min_length", "max_length", "min_items", "max_items", "length"],
        "#[schemars(length(min = ..., max = ...))] (strings: minLength/maxLength; lists: minItems/maxItems)",
    ),
    (&["pattern", "regex"], "#[schemars(regex(pattern = r\"...\"))]"),
    (&["title"], "#[schemars(title = \"...\")]"),
    (&["description", "doc"], "a doc comment (`/// ...`) or #[schemars(description = \"...\")]"),
    (&["example"], "#[schemars(example = ...)]"),
    (
        &["unique_items"],
        "#[rop(list_type = \"set\")]: the API server refuses `uniqueItems: true` and checks sets with x-kubernetes-list-type",
    ),
    (&["enum", "enumeration"], "#[rop(enum_values = [...])], or a Rust enum"),
    (&["list_map_key"], "#[rop(list_map_keys = [\"...\"])]"),
    (&["x_validation", "xvalidation", "cel", "rule"], "#[rop(validation(rule = \"...\", message = \"...\"))]"),
    (&["pruning", "preserve_unknown"], "#[rop(preserve_unknown_fields)]"),
    (&["type"], "#[rop(type_ = \"...\")]"),
];

fn elsewhere(key: &str) -> Option<&'static str> {
    ELSEWHERE.iter().find(|(keys, _)| keys.contains(&key)).map(|(_, spelling)| *spelling)
}

/// The key of another attribute that `key` misspells (`min_lenght`), when it is not closer to
/// one of rop's own keys (schema markers or kind-level keys), with the spelling to use.
fn misspelled_elsewhere(key: &str) -> Option<(&'static str, &'static str)> {
    if suggest::closest(key, keys::on_spec_type()).is_some() {
        return None;
    }
    let meant = suggest::closest(key, ELSEWHERE.iter().flat_map(|(keys, _)| keys.iter().copied()))?;
    Some((meant, elsewhere(meant)?))
}

/// What a marker list says, beyond its markers: for the checks across keys and fields.
#[derive(Default)]
pub struct Parsed {
    /// `rop::schema::Marker` expressions, in source order.
    pub markers: Vec<TokenStream>,
    /// The fields named in one-of markers, with their spans.
    pub one_of_fields: Vec<Ident>,
    /// Where `optional` is written, if it is.
    pub optional: Option<Span>,
    seen: Vec<String>,
    list_type: Option<(String, Span)>,
    list_map_keys: Option<Span>,
}

/// A number literal, possibly negative: `2`, `-0.5`.
fn number(meta: &ParseNestedMeta) -> syn::Result<TokenStream> {
    let value = meta.value()?;
    let negative = value.peek(Token![-]);
    if negative {
        value.parse::<Token![-]>()?;
    }
    let lit: syn::Lit = value.parse()?;
    let n: f64 = match &lit {
        syn::Lit::Int(i) => i.base10_parse::<i64>()? as f64,
        syn::Lit::Float(f) => f.base10_parse::<f64>()?,
        _ => return Err(syn::Error::new(lit.span(), "expected a number")),
    };
    let n = if negative { -n } else { n };
    Ok(quote!(#n))
}

fn count(meta: &ParseNestedMeta) -> syn::Result<u64> {
    meta.value()?.parse::<LitInt>()?.base10_parse::<u64>()
}

fn string(meta: &ParseNestedMeta) -> syn::Result<LitStr> {
    meta.value()?.parse::<LitStr>()
}

fn one_of_values(lit: &LitStr, allowed: &[&str], key: &str) -> syn::Result<String> {
    let value = lit.value();
    if allowed.contains(&value.as_str()) {
        Ok(value)
    } else {
        Err(syn::Error::new(lit.span(), format!("{key} \"{value}\" is not one of {}", allowed.join(", "))))
    }
}

/// `["a", "b"]`, or one string `"a"` for a list of one.
fn strings(meta: &ParseNestedMeta) -> syn::Result<Vec<LitStr>> {
    let value = meta.value()?;
    // One string stands for a list of one: `list_map_keys = "name"`.
    if value.peek(LitStr) {
        return Ok(vec![value.parse()?]);
    }
    let content;
    syn::bracketed!(content in value);
    Ok(content.parse_terminated(|p| p.parse::<LitStr>(), Token![,])?.into_iter().collect())
}

/// `[1, "a", true, -2.5]` → the JSON values, as `serde_json::Value` expressions.
fn json_values(meta: &ParseNestedMeta) -> syn::Result<Vec<TokenStream>> {
    let value = meta.value()?;
    let content;
    syn::bracketed!(content in value);
    let items = content.parse_terminated(
        |p| {
            let negative = p.peek(Token![-]);
            if negative {
                p.parse::<Token![-]>()?;
            }
            let lit: syn::Lit = p.parse()?;
            let json = match (&lit, negative) {
                (syn::Lit::Str(s), false) => {
                    let s = s.value();
                    quote!(::rop::__private::serde_json::Value::from(#s))
                }
                (syn::Lit::Bool(b), false) => {
                    let b = b.value;
                    quote!(::rop::__private::serde_json::Value::from(#b))
                }
                (syn::Lit::Int(i), _) => {
                    let n = i.base10_parse::<i64>()?;
                    let n = if negative { -n } else { n };
                    quote!(::rop::__private::serde_json::Value::from(#n))
                }
                (syn::Lit::Float(f), _) => {
                    let n = f.base10_parse::<f64>()?;
                    let n = if negative { -n } else { n };
                    quote!(::rop::__private::serde_json::Value::from(#n))
                }
                _ => return Err(syn::Error::new(lit.span(), "expected a string, integer, number or bool literal")),
            };
            Ok(json)
        },
        Token![,],
    )?;
    Ok(items.into_iter().collect())
}

fn parse_rule(meta: &ParseNestedMeta) -> syn::Result<TokenStream> {
    let rule = rule_value(meta)?;
    Ok(quote!(::rop::schema::Marker::Validation(#rule)))
}

/// `validation(rule = "...", ...)` (or `root_validation(...)`) as a `rop::schema::Rule`
/// expression.
pub fn rule_value(meta: &ParseNestedMeta) -> syn::Result<TokenStream> {
    let what = meta.path.get_ident().map_or_else(|| "validation".to_string(), ToString::to_string);
    let span = meta.path.span();
    let (mut rule, mut message, mut message_expression, mut reason, mut field_path) = (None, None, None, None, None);
    let mut optional_old_self = false;
    meta.parse_nested_meta(|inner| {
        let key = inner.path.get_ident().map(ToString::to_string).unwrap_or_default();
        match key.as_str() {
            "rule" => rule = Some(string(&inner)?),
            "message" => message = Some(string(&inner)?),
            "message_expression" => message_expression = Some(string(&inner)?),
            "reason" => {
                let lit = string(&inner)?;
                const REASONS: [&str; 4] =
                    ["FieldValueInvalid", "FieldValueForbidden", "FieldValueRequired", "FieldValueDuplicate"];
                let value = one_of_values(&lit, &REASONS, "reason")?;
                let variant = Ident::new(&value, lit.span());
                reason = Some(quote!(::rop::schema::Reason::#variant));
            }
            "field_path" => {
                let lit = string(&inner)?;
                if !lit.value().starts_with('.') {
                    return Err(syn::Error::new(
                        lit.span(),
                        format!("field_path \"{}\" must start with '.', e.g. \".spec.replicas\"", lit.value()),
                    ));
                }
                field_path = Some(lit);
            }
            "optional_old_self" => {
                optional_old_self =
                    if inner.input.peek(Token![=]) { inner.value()?.parse::<LitBool>()?.value } else { true };
            }
            _ => {
                let expected = suggest::expected(&key, Family::Rule);
                return Err(inner.error(format!("unknown key `{key}` in {what}(...): {expected}")));
            }
        }
        Ok(())
    })?;
    let Some(rule) = rule else {
        return Err(syn::Error::new(span, format!("{what}(...) needs `rule = \"<CEL expression>\"`")));
    };
    if rule.value().trim().is_empty() {
        return Err(syn::Error::new(
            rule.span(),
            "validation rule is empty: write a CEL expression such as \"self > 0\"",
        ));
    }
    let opt = |v: Option<LitStr>| match v {
        Some(v) => quote!(::core::option::Option::Some(::std::string::String::from(#v))),
        None => quote!(::core::option::Option::None),
    };
    let (message, message_expression, field_path) = (opt(message), opt(message_expression), opt(field_path));
    let reason =
        reason.map(|r| quote!(::core::option::Option::Some(#r))).unwrap_or(quote!(::core::option::Option::None));
    Ok(quote!(::rop::schema::Rule {
        rule: ::std::string::String::from(#rule),
        message: #message,
        message_expression: #message_expression,
        reason: #reason,
        field_path: #field_path,
        optional_old_self: #optional_old_self,
    }))
}

/// The type a field's `default = ...` must have: the field's type, or `T` of an `Option<T>`.
fn default_type(ty: &Type) -> &Type {
    if let Type::Path(path) = ty
        && let Some(last) = path.path.segments.last()
        && last.ident == "Option"
        && let syn::PathArguments::AngleBracketed(args) = &last.arguments
        && let Some(syn::GenericArgument::Type(inner)) = args.args.first()
    {
        return inner;
    }
    ty
}

impl Parsed {
    /// Whether `key` was given (a flag such as `preserve_unknown_fields`, or any keyed marker).
    pub fn has(&self, key: &str) -> bool {
        self.seen.iter().any(|k| k == key)
    }

    fn once(&mut self, key: &str, span: Span, conflicts: &[&str]) -> syn::Result<()> {
        if self.seen.iter().any(|k| k == key) {
            return Err(syn::Error::new(span, format!("`{key}` is given twice: keep one")));
        }
        if let Some(other) = self.seen.iter().find(|k| conflicts.contains(&k.as_str())) {
            return Err(syn::Error::new(span, format!("`{key}` conflicts with `{other}` on the same item: keep one")));
        }
        self.seen.push(key.to_string());
        Ok(())
    }

    /// Parses one key of a schema marker list. `ty` is the type a `default` must have.
    pub fn key(&mut self, meta: &ParseNestedMeta, place: Place, ty: &TokenStream) -> syn::Result<()> {
        let key = meta.path.get_ident().map(ToString::to_string).unwrap_or_default();
        let span = meta.path.span();
        let m = |tokens: TokenStream| quote!(::rop::schema::Marker::#tokens);
        let only = |places: &[Place]| -> syn::Result<()> {
            if places.contains(&place) {
                Ok(())
            } else {
                let allowed: Vec<&str> = places.iter().map(|p| p.name()).collect();
                Err(syn::Error::new(
                    span,
                    format!("`{key}` cannot be used on {}: it belongs on {}", place.name(), allowed.join(" or ")),
                ))
            }
        };
        if let Some((_, variant, conflicts)) = FLAGS.iter().find(|(k, _, _)| *k == key) {
            self.once(&key, span, conflicts)?;
            let variant = Ident::new(variant, span);
            self.markers.push(m(quote!(#variant)));
            return Ok(());
        }
        let marker = match key.as_str() {
            "multiple_of" => {
                self.once(&key, span, &[])?;
                let n = number(meta)?;
                m(quote!(MultipleOf(#n)))
            }
            "min_properties" | "max_properties" => {
                self.once(&key, span, &[])?;
                let n = count(meta)?;
                if key == "min_properties" { m(quote!(MinProperties(#n))) } else { m(quote!(MaxProperties(#n))) }
            }
            "enum_values" => {
                self.once(&key, span, &[])?;
                let values = json_values(meta)?;
                if values.is_empty() {
                    return Err(syn::Error::new(span, "enum_values needs at least one value"));
                }
                m(quote!(Enum(::std::vec![#(#values),*])))
            }
            "format" => {
                self.once(&key, span, &[])?;
                let f = string(meta)?;
                m(quote!(Format(::std::string::String::from(#f))))
            }
            "type_" => {
                self.once(&key, span, &["int_or_string"])?;
                let lit = string(meta)?;
                let t = one_of_values(&lit, &["string", "integer", "number", "boolean", "object", "array"], "type_")?;
                m(quote!(Type(::std::string::String::from(#t))))
            }
            "items" => {
                self.once(&key, span, &[])?;
                only(&[Place::Type, Place::Field])?;
                let mut inner = Parsed::default();
                meta.parse_nested_meta(|item| inner.key(&item, Place::Items, &quote!(_)))?;
                inner.check()?;
                let markers = &inner.markers;
                m(quote!(Items(::std::vec![#(#markers),*])))
            }
            "required" | "optional" => {
                only(&[Place::Field])?;
                self.once(&key, span, &["required", "optional"])?;
                if key == "required" {
                    m(quote!(Required))
                } else {
                    self.optional = Some(span);
                    m(quote!(Optional))
                }
            }
            "default" => {
                self.once(&key, span, &["default_json"])?;
                only(&[Place::Type, Place::Field])?;
                let expr: Expr = meta.value()?.parse()?;
                m(quote!(Default(
                    ::rop::__private::serde_json::to_value::<#ty>(::core::convert::Into::<#ty>::into(#expr))
                        .expect("the default value serializes to JSON")
                )))
            }
            "default_json" => {
                self.once(&key, span, &["default"])?;
                let lit = string(meta)?;
                if let Err(e) = serde_json::from_str::<serde_json::Value>(&lit.value()) {
                    return Err(syn::Error::new(lit.span(), format!("default_json is not valid JSON: {e}")));
                }
                m(quote!(Default(
                    ::rop::__private::serde_json::from_str(#lit).expect("checked to be JSON at compile time")
                )))
            }
            "raw_schema" => {
                self.once(&key, span, &[])?;
                only(&[Place::Type, Place::Field, Place::Items])?;
                let lit = string(meta)?;
                match serde_json::from_str::<serde_json::Value>(&lit.value()) {
                    Ok(serde_json::Value::Object(_)) => {}
                    Ok(_) => {
                        return Err(syn::Error::new(lit.span(), "raw_schema must be a JSON object of schema keywords"));
                    }
                    Err(e) => return Err(syn::Error::new(lit.span(), format!("raw_schema is not valid JSON: {e}"))),
                }
                m(quote!(RawSchema(
                    ::rop::__private::serde_json::from_str(#lit).expect("checked to be JSON at compile time")
                )))
            }
            "validation" => parse_rule(meta)?,
            "immutable" => {
                self.once(&key, span, &[])?;
                only(&[Place::Type, Place::Field])?;
                m(quote!(Immutable))
            }
            "exactly_one_of" | "at_most_one_of" | "at_least_one_of" => {
                only(&[Place::Type])?;
                let content;
                syn::parenthesized!(content in meta.input);
                let fields = content.parse_terminated(Ident::parse_any, Token![,])?;
                if fields.len() < 2 {
                    return Err(syn::Error::new(span, format!("{key}(...) needs at least two fields")));
                }
                let names: Vec<String> = fields.iter().map(|f| f.to_string()).collect();
                self.one_of_fields.extend(fields);
                let kind = match key.as_str() {
                    "exactly_one_of" => quote!(Exactly),
                    "at_most_one_of" => quote!(AtMost),
                    _ => quote!(AtLeast),
                };
                m(quote!(OneOf(::rop::schema::OneOf::#kind, ::std::vec![#(::std::string::String::from(#names)),*])))
            }
            "list_type" => {
                self.once(&key, span, &[])?;
                let lit = string(meta)?;
                let t = one_of_values(&lit, &["atomic", "set", "map"], "list_type")?;
                self.list_type = Some((t.clone(), lit.span()));
                m(quote!(ListType(::std::string::String::from(#t))))
            }
            "list_map_keys" => {
                self.once(&key, span, &[])?;
                let keys = strings(meta)?;
                if keys.is_empty() {
                    return Err(syn::Error::new(span, "list_map_keys needs at least one key"));
                }
                self.list_map_keys = Some(span);
                m(quote!(ListMapKeys(::std::vec![#(::std::string::String::from(#keys)),*])))
            }
            "map_type" | "struct_type" => {
                self.once(&key, span, &["map_type", "struct_type"])?;
                let lit = string(meta)?;
                let t = one_of_values(&lit, &["atomic", "granular"], &key)?;
                if key == "map_type" {
                    m(quote!(MapType(::std::string::String::from(#t))))
                } else {
                    m(quote!(StructType(::std::string::String::from(#t))))
                }
            }
            _ => {
                let hint = match (elsewhere(&key), misspelled_elsewhere(&key)) {
                    (Some(spelling), _) => format!("unknown schema marker `{key}` in #[rop(...)]: write {spelling}"),
                    (None, Some((meant, spelling))) => {
                        format!(
                            "unknown schema marker `{key}` in #[rop(...)]: did you mean `{meant}`? write {spelling}"
                        )
                    }
                    (None, None) if place == Place::Type => suggest::unknown_type_key(&key),
                    (None, None) => {
                        format!(
                            "unknown schema marker `{key}` in #[rop(...)]: {}",
                            suggest::expected(&key, Family::Schema)
                        )
                    }
                };
                return Err(syn::Error::new(span, hint));
            }
        };
        self.markers.push(marker);
        Ok(())
    }

    /// Checks across keys, once a list is complete.
    pub fn check(&self) -> syn::Result<()> {
        match (&self.list_type, self.list_map_keys) {
            (Some((t, span)), None) if t == "map" => Err(syn::Error::new(
                *span,
                "list_type = \"map\" needs list_map_keys = [\"...\"]: the item fields that identify an entry",
            )),
            (Some((t, _)), Some(span)) if t != "map" => {
                Err(syn::Error::new(span, format!("list_map_keys needs list_type = \"map\", not \"{t}\"")))
            }
            (None, Some(span)) => Err(syn::Error::new(span, "list_map_keys needs list_type = \"map\" beside it")),
            _ => Ok(()),
        }
    }
}

/// Parses every `#[rop(...)]` schema marker among `attrs`. On a type, `skip` says which keys
/// belong to another derive (the kind-level keys of `#[derive(CustomResource)]`) and are left
/// alone. Returns the markers and the span of the first key left alone, if any.
pub fn parse(
    attrs: &[syn::Attribute],
    place: Place,
    ty: &TokenStream,
    skip: &dyn Fn(&str) -> bool,
) -> syn::Result<(Parsed, Option<Span>)> {
    let mut parsed = Parsed::default();
    let mut errors: Option<syn::Error> = None;
    let mut first = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("rop")) {
        let result = attr.parse_nested_meta(|meta| {
            let key = meta.path.get_ident().map(ToString::to_string).unwrap_or_default();
            if skip(&key) {
                first.get_or_insert(meta.path.span());
                return skip_value(&meta);
            }
            parsed.key(&meta, place, ty)
        });
        if let Err(e) = result {
            match &mut errors {
                Some(all) => all.combine(e),
                None => errors = Some(e),
            }
        }
    }
    // Checks across keys only once every key parsed: a misspelled `list_map_keys` is one
    // error, not also "list_type = \"map\" needs list_map_keys".
    if errors.is_none()
        && let Err(e) = parsed.check()
    {
        errors = Some(e);
    }
    match errors {
        Some(e) => Err(e),
        None => Ok((parsed, first)),
    }
}

/// The type a `default = ...` on a field must have.
pub fn field_default_type(ty: &Type) -> TokenStream {
    default_type(ty).to_token_stream()
}

/// Consumes the value of a key that another derive owns: `key`, `key = value` or `key(...)`.
pub fn skip_value(meta: &ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        meta.value()?.parse::<Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        let _content;
        syn::parenthesized!(_content in meta.input);
        let _: TokenStream = _content.parse()?;
    }
    Ok(())
}

/// Whether any `#[name(...)]` among `attrs` has one of `keys` (`serde`, `["skip", "flatten"]`),
/// with or without a value.
pub fn attr_has(attrs: &[syn::Attribute], name: &str, keys: &[&str]) -> bool {
    attrs.iter().filter(|a| a.path().is_ident(name)).any(|a| {
        let mut found = false;
        let _ = a.parse_nested_meta(|meta| {
            found |= keys.iter().any(|k| meta.path.is_ident(k));
            skip_value(&meta)
        });
        found
    })
}

/// Whether `key` is a schema marker a type may carry (so `#[derive(CustomResource)]` leaves it
/// to `#[derive(rop::JsonSchema)]`).
pub fn is_type_key(key: &str) -> bool {
    Family::Schema.contains(key) || elsewhere(key).is_some()
}

/// schemars' own validation attributes (`range`, `length`, `regex`, `email`, `url`, `inner`)
/// taken out of a `#[schemars(...)]` (or `#[validate(...)]`/`#[garde(...)]`) attribute and
/// turned into markers. schemars applies them only where it already knows the type, which a
/// field of a named type (a `$ref`) or of an int-or-string does not have: it would drop them
/// without a word. As markers they apply once the schema is resolved. Returns the attribute
/// without those keys (`None` if nothing is left) and the markers.
pub fn take_schemars_validation(attr: &syn::Attribute) -> syn::Result<(Option<TokenStream>, Vec<TokenStream>)> {
    use syn::punctuated::Punctuated;
    let syn::Meta::List(list) = &attr.meta else { return Ok((Some(attr.to_token_stream()), Vec::new())) };
    let metas = list.parse_args_with(Punctuated::<syn::Meta, Token![,]>::parse_terminated)?;
    let mut kept = Vec::new();
    let mut markers = Vec::new();
    for meta in metas {
        let key = meta.path().get_ident().map(ToString::to_string).unwrap_or_default();
        match (key.as_str(), &meta) {
            ("range" | "length" | "regex" | "inner", syn::Meta::List(inner)) => {
                markers.extend(validation_markers(&key, inner)?);
            }
            ("email", syn::Meta::Path(_)) => {
                markers.push(quote!(::rop::schema::Marker::Format(::std::string::String::from("email"))))
            }
            ("url", syn::Meta::Path(_)) => {
                markers.push(quote!(::rop::schema::Marker::Format(::std::string::String::from("uri"))))
            }
            _ => kept.push(meta),
        }
    }
    let path = &list.path;
    let rest = (!kept.is_empty()).then(|| quote!(#[#path(#(#kept),*)]));
    Ok((rest, markers))
}

fn validation_markers(key: &str, list: &syn::MetaList) -> syn::Result<Vec<TokenStream>> {
    let mut markers = Vec::new();
    if key == "inner" {
        let mut inner = Vec::new();
        list.parse_nested_meta(|meta| {
            let key = meta.path.get_ident().map(ToString::to_string).unwrap_or_default();
            let content;
            syn::parenthesized!(content in meta.input);
            let tokens: TokenStream = content.parse()?;
            let rebuilt = syn::MetaList { path: meta.path.clone(), delimiter: list.delimiter.clone(), tokens };
            inner.extend(validation_markers(&key, &rebuilt)?);
            Ok(())
        })?;
        markers.push(quote!(::rop::schema::Marker::Items(::std::vec![#(#inner),*])));
        return Ok(markers);
    }
    list.parse_nested_meta(|meta| {
        let arg = meta.path.get_ident().map(ToString::to_string).unwrap_or_default();
        let value: Expr = meta.value()?.parse()?;
        let marker = match (key, arg.as_str()) {
            ("range", "min") => quote!(Minimum((#value) as f64)),
            ("range", "max") => quote!(Maximum((#value) as f64)),
            ("length", "min") => quote!(MinLength((#value) as u64)),
            ("length", "max") => quote!(MaxLength((#value) as u64)),
            ("length", "equal") => quote!(EqualLength((#value) as u64)),
            ("regex", "pattern") => quote!(Pattern(::std::string::ToString::to_string(&#value))),
            ("regex", "path") => quote!(Pattern(::std::string::ToString::to_string(&*#value))),
            _ => {
                return Err(meta.error(format!("unknown key `{arg}` in {key}(...)")));
            }
        };
        markers.push(quote!(::rop::schema::Marker::#marker));
        Ok(())
    })?;
    Ok(markers)
}
