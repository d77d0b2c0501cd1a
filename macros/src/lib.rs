//! `#[derive(CustomResource)]` for rop.
//!
//! Put it on a `FooSpec` type with `#[rop(group = "...", version = "...", kind = "Foo", ...)]`;
//! it emits the root type `Foo { metadata, spec, status }` and implements
//! `kube::Resource`, `kube::core::CustomResourceExt`, `HasSpec`/`HasStatus` and
//! `rop::CustomResource` for it. The expansion is thin: CRD and RBAC assembly live in the `rop`
//! runtime crate, compiled once. See the `rop` crate's documentation for every attribute.

mod attrs;
mod expand;
mod names;
mod selector;
mod webhook;

use proc_macro::TokenStream;

/// Derives a Kubernetes custom resource from its spec type. See the crate documentation.
#[proc_macro_derive(CustomResource, attributes(rop))]
pub fn derive_custom_resource(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    attrs::parse(&input).map(|kind| expand::expand(&input, &kind)).unwrap_or_else(syn::Error::into_compile_error).into()
}
