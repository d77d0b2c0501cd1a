//! A warning on `Option` fields that serde writes as `null` when they are `None`.
//!
//! rop's schemas leave optional fields out of `nullable`, as controller-gen does, and the API
//! server drops a `null` for a non-nullable field on create and update, but server-side apply
//! refuses it with a 422 (`spec.x in body must be of type string: "null"`, measured on
//! kube-apiserver 1.37 in testenv/tests/derive_crds.rs). A type that is applied must leave
//! `None` out. A proc macro has no warning API on stable Rust, so the warning is the
//! deprecation of a constant it uses, placed on the field.

use proc_macro2::TokenStream;
use quote::{format_ident, quote_spanned};
use syn::Field;
use syn::spanned::Spanned;

use crate::schema_attrs::attr_has;

fn is_option(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(p) if p.qself.is_none() && p.path.segments.last().is_some_and(|s| s.ident == "Option"))
}

/// Whether serde writes `null` for the field when it is `None` (no custom serializer says
/// otherwise), and the schema does not allow it.
fn written_as_null(field: &Field) -> bool {
    is_option(&field.ty)
        && !attr_has(
            &field.attrs,
            "serde",
            &["skip_serializing_if", "skip", "skip_serializing", "flatten", "serialize_with", "with"],
        )
        && !attr_has(&field.attrs, "rop", &["nullable", "schemaless", "preserve_unknown_fields"])
}

/// One warning per named field among `fields` that serde writes as `null`, pointing at it.
pub fn warnings<'a>(fields: impl IntoIterator<Item = &'a Field>) -> TokenStream {
    let mut tokens = TokenStream::new();
    for field in fields.into_iter().filter(|f| written_as_null(f)) {
        let Some(ident) = &field.ident else { continue };
        let name = ident.to_string();
        // A field with `#[serde(default)]` already takes only the missing key (serde refuses a
        // second `default`).
        let add = if attr_has(&field.attrs, "serde", &["default"]) {
            "skip_serializing_if = \"Option::is_none\" to the #[serde(...)] of"
        } else {
            "#[serde(default, skip_serializing_if = \"Option::is_none\")] to"
        };
        let note = format!(
            "`{name}` is an Option that serde writes as `null` when it is None, and server-side apply refuses `null` for a field that is not nullable (422 \"must be of type ...: \\\"null\\\"\"): add {add} `{name}`, or #[rop(nullable)] if `null` must be kept"
        );
        let constant = format_ident!("option_field_written_as_null", span = ident.span());
        tokens.extend(quote_spanned! {field.ty.span()=>
            const _: () = {
                #[deprecated(note = #note)]
                #[allow(non_upper_case_globals)]
                const #constant: () = ();
                #constant
            };
        });
    }
    tokens
}
