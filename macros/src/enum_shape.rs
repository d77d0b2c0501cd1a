//! Enums whose values have no single JSON type under serde's default (external) tagging: a
//! unit variant is written as a string (`"Off"`), any other variant as a one-key object
//! (`{"Fixed": 3}`). A structural schema gives every node one type (apiextensions' structural
//! schema rule), so such an enum can only be a node that keeps unknown fields, which the API
//! server neither validates nor prunes. `#[derive(rop::JsonSchema)]` refuses it unless the
//! enum says it accepts that (`#[rop(preserve_unknown_fields)]` or `#[rop(schemaless)]`).
//!
//! Other representations are left to the schema builder (`rop::schema`), which also reports
//! a mix it finds at `rop generate`: an untagged enum's newtype variant is as wide as its inner
//! type, which a derive cannot see.

use syn::{Attribute, DataEnum, DeriveInput, Fields};

use crate::schema_attrs::{Parsed, attr_has};

/// Whether any `#[serde(...)]` among `attrs` has one of `keys`.
fn serde_has(attrs: &[Attribute], keys: &[&str]) -> bool {
    attr_has(attrs, "serde", keys)
}

/// The error for an externally tagged `data` with unit and data variants, unless `markers`
/// accept a node that keeps unknown fields.
pub fn mixed_external(input: &DeriveInput, data: &DataEnum, markers: &Parsed) -> Option<syn::Error> {
    if serde_has(&input.attrs, &["tag", "untagged"])
        || markers.has("preserve_unknown_fields")
        || markers.has("schemaless")
    {
        return None;
    }
    let written = data.variants.iter().filter(|v| !serde_has(&v.attrs, &["skip", "skip_deserializing", "untagged"]));
    let (units, others): (Vec<_>, Vec<_>) = written.partition(|v| matches!(v.fields, Fields::Unit));
    let (first_unit, first_other) = (units.first()?, others.first()?);
    let name = &input.ident;
    Some(syn::Error::new(
        first_unit.ident.span(),
        format!(
            "enum `{name}` mixes unit variants (`{unit}`) with data variants (`{other}`): serde writes the first as a string and the second as an object, and a CRD schema node has one type, so the API server would keep any value here unvalidated. \
             Make every value an object: tag the enum (`#[serde(tag = \"type\")]`), which keeps `{unit}` as it is and needs every data variant to hold a struct (one that wraps a string, number or list takes a named field: `Variant {{ value: T }}`); or give the unit variants a body (`{unit} {{}}`). \
             Or accept an unvalidated field: `#[rop(preserve_unknown_fields)]` on `{name}`",
            unit = first_unit.ident,
            other = first_other.ident,
        ),
    ))
}

/// Whether `ty` is written as something other than a JSON object: a string, number, bool,
/// list, tuple or `Option` of one, by its last path segment (a named struct or map type is
/// taken to be an object).
fn not_an_object(ty: &syn::Type) -> bool {
    const SCALARS: [&str; 21] = [
        "String", "str", "bool", "char", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128",
        "usize", "f32", "f64", "Vec", "VecDeque", "BTreeSet",
    ];
    match ty {
        syn::Type::Reference(r) => not_an_object(&r.elem),
        syn::Type::Array(_) | syn::Type::Slice(_) | syn::Type::Tuple(_) => true,
        syn::Type::Path(p) => p.path.segments.last().is_some_and(|s| {
            SCALARS.contains(&s.ident.to_string().as_str()) || s.ident == "HashSet" || s.ident == "Option"
        }),
        _ => false,
    }
}

/// The error for an internally tagged `data` (`#[serde(tag = "...")]` without `content`) with
/// a variant that wraps a value serde cannot put the tag into (`Named(Vec<String>)`): serde
/// fails on it at run time, and the schema has no place for the value.
pub fn internally_tagged_newtype(input: &DeriveInput, data: &DataEnum) -> Option<syn::Error> {
    if !serde_has(&input.attrs, &["tag"]) || serde_has(&input.attrs, &["content", "untagged"]) {
        return None;
    }
    let name = &input.ident;
    data.variants.iter().filter(|v| !serde_has(&v.attrs, &["skip", "untagged"])).find_map(|v| {
        let Fields::Unnamed(fields) = &v.fields else { return None };
        let only = fields.unnamed.first().filter(|_| fields.unnamed.len() == 1)?;
        not_an_object(&only.ty).then(|| {
            let variant = &v.ident;
            let ty = quote::ToTokens::to_token_stream(&only.ty).to_string().replace(' ', "");
            syn::Error::new(
                variant.span(),
                format!(
                    "variant `{variant}` of the internally tagged enum `{name}` (#[serde(tag = ...)]) wraps a `{ty}`, which has no object to put the tag in: serde refuses to write it, and the CRD schema has no place for it. Give the value a name: `{variant} {{ value: {ty} }}`"
                ),
            )
        })
    })
}
