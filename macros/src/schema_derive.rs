//! `#[derive(rop::JsonSchema)]`: schemars' derive, plus `#[rop(...)]` schema markers.
//!
//! A derive cannot change the item it is on, so this one writes a private copy of it (same
//! fields, same `serde`/`schemars`/doc attributes) with each `#[rop(...)]` turned into a
//! schemars `transform` that records its markers, derives schemars' `JsonSchema` on the copy,
//! and implements `JsonSchema` for the real type by delegating to the copy. The runtime applies
//! the recorded markers (`rop::schema`).

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Attribute, Data, DeriveInput, Fields};

use crate::schema_attrs::{self, Place};

/// Attributes schemars reads, copied onto the private copy.
fn copied(attrs: &[Attribute]) -> Vec<&Attribute> {
    const KEEP: [&str; 7] = ["doc", "serde", "schemars", "validate", "garde", "cfg", "deprecated"];
    attrs.iter().filter(|a| KEEP.iter().any(|k| a.path().is_ident(k))).collect()
}

fn combine(errors: &mut Option<syn::Error>, e: syn::Error) {
    match errors {
        Some(all) => all.combine(e),
        None => *errors = Some(e),
    }
}

fn has_container_default(attrs: &[Attribute]) -> bool {
    attrs.iter().filter(|a| a.path().is_ident("serde")).any(|a| {
        let mut found = false;
        let _ = a.parse_nested_meta(|meta| {
            if meta.path.is_ident("default") && !meta.input.peek(syn::Token![=]) {
                found = true;
            }
            schema_attrs::skip_value(&meta)
        });
        found
    })
}

/// Whether serde accepts an object without `field`: an `Option`, a `#[serde(default)]` (or
/// `default = "..."`, `skip`, `skip_deserializing`) field, or any field of a
/// `#[serde(default)]` struct.
fn serde_may_omit(field: &syn::Field, container_default: bool) -> bool {
    let option = matches!(&field.ty, syn::Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Option"));
    let defaulted = schema_attrs::attr_has(&field.attrs, "serde", &["default", "skip", "skip_deserializing"]);
    option || defaulted || container_default
}

/// The markers of one field, as the field attributes of the copy; `members` are the fields a
/// one-of marker of the type names.
fn field_attrs(
    field: &syn::Field,
    index: usize,
    members: &[syn::Ident],
    container_default: bool,
    errors: &mut Option<syn::Error>,
) -> TokenStream {
    let ty = schema_attrs::field_default_type(&field.ty);
    let mut markers = Vec::new();
    match schema_attrs::parse(&field.attrs, Place::Field, &ty, &|_| false) {
        Ok((parsed, _)) => {
            // The API server would store objects without the field, which the operator then
            // cannot read (`missing field`).
            if let Some(span) = parsed.optional.filter(|_| !serde_may_omit(field, container_default)) {
                let name = field.ident.as_ref().map_or_else(|| index.to_string(), ToString::to_string);
                combine(
                    errors,
                    syn::Error::new(
                        span,
                        format!(
                            "`{name}` is optional in the schema but serde requires it, so objects without it would not deserialize: add #[serde(default)] to the field (its type needs a Default), or make it an Option<...>"
                        ),
                    ),
                );
            }
            markers = parsed.markers;
        }
        Err(e) => combine(errors, e),
    }
    let name = field.ident.as_ref().map(ToString::to_string).unwrap_or_else(|| index.to_string());
    if members.iter().any(|m| *m == name) {
        markers.push(quote!(::rop::schema::Marker::RustName(::std::string::String::from(#name))));
    }
    let mut attrs = Vec::new();
    let mut validation = Vec::new();
    for attr in copied(&field.attrs) {
        if ["schemars", "validate", "garde"].iter().any(|k| attr.path().is_ident(k)) {
            match schema_attrs::take_schemars_validation(attr) {
                Ok((rest, found)) => {
                    attrs.extend(rest);
                    validation.extend(found);
                }
                Err(e) => combine(errors, e),
            }
        } else {
            attrs.push(quote!(#attr));
        }
    }
    validation.append(&mut markers);
    let markers = validation;
    if markers.is_empty() {
        quote!(#(#attrs)*)
    } else {
        quote!(#(#attrs)* #[schemars(transform = ::rop::schema::markers::FieldMarkers(::std::vec![#(#markers),*]))])
    }
}

fn fields_of(
    fields: &Fields,
    members: &[syn::Ident],
    container_default: bool,
    errors: &mut Option<syn::Error>,
) -> TokenStream {
    let each = fields.iter().enumerate().map(|(i, f)| {
        let attrs = field_attrs(f, i, members, container_default, errors);
        let (vis, ident, ty) = (&f.vis, &f.ident, &f.ty);
        match ident {
            Some(ident) => quote!(#attrs #vis #ident: #ty),
            None => quote!(#attrs #vis #ty),
        }
    });
    match fields {
        Fields::Named(_) => quote!({ #(#each),* }),
        Fields::Unnamed(_) => quote!(( #(#each),* )),
        Fields::Unit => quote!(),
    }
}

/// Expands `#[derive(rop::JsonSchema)]`. `kind_key` says which container keys belong to
/// `#[derive(CustomResource)]`.
pub fn expand(input: &DeriveInput, kind_key: &dyn Fn(&str) -> bool) -> syn::Result<TokenStream> {
    let ident = &input.ident;
    let mut errors = None;
    let self_ty = {
        let (_, ty_generics, _) = input.generics.split_for_impl();
        quote!(#ident #ty_generics)
    };
    let (container, kind_key_span) = match schema_attrs::parse(&input.attrs, Place::Type, &self_ty, kind_key) {
        Ok(parsed) => parsed,
        Err(e) => {
            combine(&mut errors, e);
            Default::default()
        }
    };
    // Kind-level keys are `#[derive(CustomResource)]`'s: on any other type they would do
    // nothing, so the type must be a spec (the error points at the first such key).
    let kind_spec = kind_key_span.map(|span| {
        let (_, ty_generics, _) = input.generics.split_for_impl();
        let here = syn::Ident::new(&ident.to_string(), span);
        let self_ty = quote!(#here #ty_generics);
        quote::quote_spanned! {span=>
            const _: fn() = || {
                fn kind_level_keys_need_derive_custom_resource<T: ?::core::marker::Sized + ::rop::__private::KindSpec>() {}
                kind_level_keys_need_derive_custom_resource::<#self_ty>();
            };
        }
    });
    let members = container.one_of_fields.clone();
    let field_names: Vec<String> = match &input.data {
        Data::Struct(s) => s.fields.iter().filter_map(|f| f.ident.as_ref().map(ToString::to_string)).collect(),
        _ => Vec::new(),
    };
    for member in &members {
        if !field_names.contains(&member.to_string()) {
            combine(
                &mut errors,
                syn::Error::new(
                    member.span(),
                    format!(
                        "`{member}` is not a field of `{ident}`: one-of markers name fields of the struct they are on"
                    ),
                ),
            );
        }
    }
    let mirror = format_ident!("__RopSchema{}", ident);
    let body = match &input.data {
        Data::Struct(s) => {
            let fields = fields_of(&s.fields, &members, has_container_default(&input.attrs), &mut errors);
            let generics = &input.generics;
            let where_clause = &input.generics.where_clause;
            match s.fields {
                Fields::Named(_) => quote!(struct #mirror #generics #where_clause #fields),
                _ => quote!(struct #mirror #generics #fields #where_clause;),
            }
        }
        Data::Enum(e) => {
            if let Some(mixed) = crate::enum_shape::mixed_external(input, e, &container) {
                combine(&mut errors, mixed);
            }
            if let Some(newtype) = crate::enum_shape::internally_tagged_newtype(input, e) {
                combine(&mut errors, newtype);
            }
            let variants = e.variants.iter().map(|v| {
                if let Some(attr) = v.attrs.iter().find(|a| a.path().is_ident("rop")) {
                    combine(
                        &mut errors,
                        syn::Error::new_spanned(
                            attr,
                            format!(
                                "#[rop(...)] on variant `{}` has no schema node of its own: put the markers on the variant's fields, or on the enum",
                                v.ident
                            ),
                        ),
                    );
                }
                let attrs = copied(&v.attrs);
                let name = &v.ident;
                let fields = fields_of(&v.fields, &[], false, &mut errors);
                let discriminant = v.discriminant.as_ref().map(|(eq, d)| quote!(#eq #d));
                quote!(#(#attrs)* #name #fields #discriminant)
            });
            let variants: Vec<TokenStream> = variants.collect();
            let generics = &input.generics;
            let where_clause = &input.generics.where_clause;
            quote!(enum #mirror #generics #where_clause { #(#variants),* })
        }
        Data::Union(u) => {
            return Err(syn::Error::new(
                u.union_token.span,
                "unions have no JSON form: use a struct or an enum for a custom resource's schema",
            ));
        }
    };
    if let Some(e) = errors {
        return Err(e);
    }
    let generics = &input.generics;
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let attrs = copied(&input.attrs);
    let type_markers = &container.markers;
    let transform = (!type_markers.is_empty())
        .then(|| quote!(#[schemars(transform = ::rop::schema::markers::TypeMarkers(::std::vec![#(#type_markers),*]))]));
    // Keep the type's own name for schemars (definitions, titles), unless the user renamed it.
    let renamed = input.attrs.iter().any(|a| {
        (a.path().is_ident("serde") || a.path().is_ident("schemars"))
            && a.meta.require_list().is_ok_and(|l| l.tokens.to_string().contains("rename ="))
    });
    let rename = (!renamed && generics.params.is_empty()).then(|| {
        let name = ident.to_string();
        quote!(#[schemars(rename = #name)])
    });
    let default_impl = match (&input.data, has_container_default(&input.attrs)) {
        (Data::Struct(s), true) => {
            let moves = s.fields.iter().enumerate().map(|(i, f)| match &f.ident {
                Some(name) => quote!(#name: value.#name),
                None => {
                    let index = syn::Index::from(i);
                    quote!(#index: value.#index)
                }
            });
            // `Mirror { 0: value.0 }` is valid for tuple structs too.
            let construct = quote!(#mirror { #(#moves),* });
            Some(quote! {
                impl #impl_generics ::core::default::Default for #mirror #ty_generics #where_clause {
                    fn default() -> Self {
                        let value: #ident #ty_generics = ::core::default::Default::default();
                        #construct
                    }
                }
            })
        }
        _ => None,
    };
    let schemars = quote!(::rop::__private::schemars);
    let mut bounded = generics.clone();
    for param in bounded.type_params_mut() {
        param.bounds.push(syn::parse_quote!(#schemars::JsonSchema));
    }
    let (impl_bounded, _, where_bounded) = bounded.split_for_impl();
    let checked = quote!(impl #impl_bounded ::rop::schema::RopJsonSchema for #ident #ty_generics #where_bounded {});
    // A spec's fields are `#[derive(CustomResource)]`'s to warn about, once.
    let null_warnings = match (&input.data, kind_key_span) {
        (_, Some(_)) => TokenStream::new(),
        (Data::Struct(s), None) => crate::null_option::warnings(&s.fields),
        (Data::Enum(e), None) => crate::null_option::warnings(e.variants.iter().flat_map(|v| &v.fields)),
        (Data::Union(_), None) => TokenStream::new(),
    };
    let conditions = conditions_impl(input);
    let delegation = if generics.params.is_empty() {
        // Through `rop::__private::Mirror`: when schemars' derive fails on the mirror, its error
        // stays the only one (see there).
        let mirror_of = quote!((&::rop::__private::Mirror::<#mirror>(::core::marker::PhantomData)));
        quote! {
            impl #schemars::JsonSchema for #ident {
                fn schema_name() -> ::std::borrow::Cow<'static, str> {
                    use ::rop::__private::{MirrorFailed as _, MirrorSchema as _};
                    #mirror_of.schema_name()
                }
                fn schema_id() -> ::std::borrow::Cow<'static, str> {
                    use ::rop::__private::{MirrorFailed as _, MirrorSchema as _};
                    #mirror_of.schema_id()
                }
                fn inline_schema() -> bool {
                    use ::rop::__private::{MirrorFailed as _, MirrorSchema as _};
                    #mirror_of.inline_schema()
                }
                fn json_schema(generator: &mut #schemars::SchemaGenerator) -> #schemars::Schema {
                    use ::rop::__private::{MirrorFailed as _, MirrorSchema as _};
                    #mirror_of.json_schema(generator)
                }
            }
        }
    } else {
        quote! {
            impl #impl_bounded #schemars::JsonSchema for #ident #ty_generics #where_bounded {
                fn schema_name() -> ::std::borrow::Cow<'static, str> {
                    <#mirror #ty_generics as #schemars::JsonSchema>::schema_name()
                }
                fn schema_id() -> ::std::borrow::Cow<'static, str> {
                    <#mirror #ty_generics as #schemars::JsonSchema>::schema_id()
                }
                fn inline_schema() -> bool {
                    <#mirror #ty_generics as #schemars::JsonSchema>::inline_schema()
                }
                fn json_schema(generator: &mut #schemars::SchemaGenerator) -> #schemars::Schema {
                    <#mirror #ty_generics as #schemars::JsonSchema>::json_schema(generator)
                }
            }
        }
    };
    Ok(quote! {
        #null_warnings
        #conditions
        #[allow(deprecated, non_camel_case_types, non_snake_case, clippy::all)]
        const _: () = {
            #[derive(#schemars::JsonSchema)]
            #[schemars(crate = "::rop::__private::schemars")]
            #rename
            #(#attrs)*
            #transform
            #[allow(dead_code)]
            #body

            #default_impl

            #delegation

            #checked
        };
        #kind_spec
    })
}

/// `rop::conditions::HasConditions` for a struct with a field `conditions` of type
/// `Vec<Condition>` or `Option<Vec<Condition>>` (by the last segment of each path: the derive
/// sees no types), delegating to the field's own implementation, so a list of something else
/// named `Condition` is an error at the field.
fn conditions_impl(input: &DeriveInput) -> Option<TokenStream> {
    let Data::Struct(data) = &input.data else { return None };
    let field = data.fields.iter().find(|f| f.ident.as_ref().is_some_and(|i| i == "conditions"))?;
    let list = argument_of(&field.ty, "Option").unwrap_or(&field.ty);
    let element = argument_of(list, "Vec")?;
    let syn::Type::Path(element) = element else { return None };
    if element.path.segments.last()?.ident != "Condition" {
        return None;
    }
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let trait_ = quote_spanned!(field.ty.span()=> ::rop::conditions::HasConditions);
    let condition = quote!(::rop::__private::k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition);
    Some(quote! {
        impl #impl_generics ::rop::conditions::HasConditions for #ident #ty_generics #where_clause {
            fn conditions(&self) -> &[#condition] {
                #trait_::conditions(&self.conditions)
            }
            fn conditions_mut(&mut self) -> &mut ::std::vec::Vec<#condition> {
                #trait_::conditions_mut(&mut self.conditions)
            }
            fn remove_condition(&mut self, type_: &str) -> bool {
                #trait_::remove_condition(&mut self.conditions, type_)
            }
        }
    })
}

/// `T` when `ty` is `<wrapper><T>` (any path ending in `wrapper`, one type argument).
fn argument_of<'a>(ty: &'a syn::Type, wrapper: &str) -> Option<&'a syn::Type> {
    let syn::Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    if last.ident != wrapper {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else { return None };
    match args.args.first()? {
        syn::GenericArgument::Type(inner) if args.args.len() == 1 => Some(inner),
        _ => None,
    }
}

/// Implementations of `JsonSchema` and `RopJsonSchema` for a type whose derive failed: they are
/// never called (the crate does not compile), and they keep the compiler from adding errors
/// about the missing traits to the one that says what is wrong.
pub fn stand_in(input: &DeriveInput) -> TokenStream {
    let ident = &input.ident;
    let schemars = quote!(::rop::__private::schemars);
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    quote! {
        impl #impl_generics #schemars::JsonSchema for #ident #ty_generics #where_clause {
            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                ::core::unreachable!()
            }
            fn json_schema(_: &mut #schemars::SchemaGenerator) -> #schemars::Schema {
                ::core::unreachable!()
            }
        }
        impl #impl_generics ::rop::schema::RopJsonSchema for #ident #ty_generics #where_clause {}
    }
}
