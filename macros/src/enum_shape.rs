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

use crate::schema_attrs::{Parsed, skip_value};

/// Whether any `#[serde(...)]` among `attrs` has one of `keys`.
fn serde_has(attrs: &[Attribute], keys: &[&str]) -> bool {
    attrs.iter().filter(|a| a.path().is_ident("serde")).any(|a| {
        let mut found = false;
        let _ = a.parse_nested_meta(|meta| {
            found |= keys.iter().any(|k| meta.path.is_ident(k));
            skip_value(&meta)
        });
        found
    })
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
             Make every value an object: give the unit variants a body (`{unit} {{}}`), or tag the enum (`#[serde(tag = \"type\")]`). \
             Or accept an unvalidated field: `#[rop(preserve_unknown_fields)]` on `{name}`",
            unit = first_unit.ident,
            other = first_other.ident,
        ),
    ))
}
