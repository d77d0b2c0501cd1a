//! Where `#[derive(CustomResource)]` and `#[derive(rop::JsonSchema)]` meet on a spec type: the
//! kind-level keys belong to the first, the schema markers to the second.

use proc_macro2::{Span, TokenStream};
use quote::quote_spanned;
use syn::spanned::Spanned;
use syn::{Attribute, Data, DeriveInput};

use crate::keys::Family;
use crate::schema_attrs::{is_type_key, skip_value};

/// Whether `key` is one of `#[derive(CustomResource)]`'s kind-level keys.
pub fn is_kind_key(key: &str) -> bool {
    Family::Kind.contains(key)
}

/// The span of the first schema marker among `attrs` (`type_level`: only the keys a type may
/// carry, leaving the kind-level ones).
fn first_marker(attrs: &[Attribute], type_level: bool) -> Option<Span> {
    let mut found = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("rop")) {
        if !type_level {
            return Some(attr.span());
        }
        let _ = attr.parse_nested_meta(|meta| {
            let key = meta.path.get_ident().map(ToString::to_string).unwrap_or_default();
            if found.is_none() && !is_kind_key(&key) && is_type_key(&key) {
                found = Some(meta.path.span());
            }
            skip_value(&meta)
        });
    }
    found
}

/// A spec with schema markers needs rop's `JsonSchema`, not schemars': this asserts it, with
/// the error pointing at the first marker (`rop::schema::RopJsonSchema` says what to do).
pub fn require_rop_schema(input: &DeriveInput) -> TokenStream {
    let mut span = first_marker(&input.attrs, true);
    let fields: Vec<&syn::Field> = match &input.data {
        Data::Struct(s) => s.fields.iter().collect(),
        Data::Enum(e) => e.variants.iter().flat_map(|v| v.fields.iter()).collect(),
        Data::Union(_) => Vec::new(),
    };
    for field in fields {
        span = span.or_else(|| first_marker(&field.attrs, false));
    }
    let Some(span) = span else { return TokenStream::new() };
    let spec = &input.ident;
    quote_spanned! {span=>
        const _: fn() = || {
            fn rop_schema_markers_need_rop_json_schema<T: ?::core::marker::Sized + ::rop::schema::RopJsonSchema>() {}
            rop_schema_markers_need_rop_json_schema::<#spec>();
        };
    }
}
