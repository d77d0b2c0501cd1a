//! `#[derive(CustomResource)]` for rop.
//!
//! Put it on a `FooSpec` type with `#[rop(group = "...", version = "...", kind = "Foo", ...)]`;
//! it emits the root type `Foo { metadata, spec, status }` and implements
//! `kube::Resource`, `kube::core::CustomResourceExt`, `HasSpec`/`HasStatus` and
//! `rop::CustomResource` for it. The expansion is thin: CRD and RBAC assembly live in the `rop`
//! runtime crate, compiled once. See the `rop` crate's documentation for every attribute.

#![deny(missing_docs)]

mod attrs;
mod builtin;
mod crd_keys;
mod enum_shape;
mod expand;
mod keys;
mod names;
mod null_option;
mod schema_attrs;
mod schema_derive;
mod selector;
mod spec_markers;
mod suggest;
mod webhook;

use proc_macro::TokenStream;

/// Derives a Kubernetes custom resource from its spec type. See the crate documentation.
#[proc_macro_derive(CustomResource, attributes(rop))]
pub fn derive_custom_resource(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    match attrs::parse(&input) {
        Ok(kind) => {
            let mut tokens = expand::expand(&input, &kind);
            tokens.extend(spec_markers::require_rop_schema(&input));
            if let syn::Data::Struct(spec) = &input.data {
                tokens.extend(null_option::warnings(&spec.fields));
            }
            tokens.into()
        }
        Err(e) => {
            // The spec still counts as deriving CustomResource, so `#[derive(rop::JsonSchema)]`
            // adds no second, misleading error about its kind-level keys.
            let spec = &input.ident;
            let error = e.into_compile_error();
            quote::quote!(#error impl ::rop::__private::KindSpec for #spec {}).into()
        }
    }
}

/// `schemars::JsonSchema`'s derive, plus `#[rop(...)]` schema markers on the type, its fields
/// and its variants' fields: the Rust spelling of controller-gen's `+kubebuilder:validation`,
/// `+listType`, `+default`, ... markers. See the `rop` crate's `schema` module.
#[proc_macro_derive(JsonSchema, attributes(rop, schemars, serde, validate, garde))]
pub fn derive_json_schema(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    schema_derive::expand(&input, &spec_markers::is_kind_key)
        .unwrap_or_else(|e| {
            // The type still implements the traits, so one mistake in a marker is one error,
            // not that plus "JsonSchema is not implemented" wherever the type is used.
            let mut tokens = e.into_compile_error();
            tokens.extend(schema_derive::stand_in(&input));
            tokens
        })
        .into()
}

/// Admission webhooks for a built-in kind (apps/v1 Deployment, v1 Pod, ...) on a marker type:
/// `#[rop(group = "apps", version = "v1", kind = "Deployment", plural = "deployments",
/// object = "rop::k8s_openapi::api::apps::v1::Deployment")]` and one or two `webhook(...)` (each
/// with a `name`). Implements `rop::WebhookTarget`. See the `rop` crate's documentation.
#[proc_macro_derive(BuiltinKind, attributes(rop))]
pub fn derive_builtin_kind(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    builtin::derive(&input).unwrap_or_else(syn::Error::into_compile_error).into()
}
