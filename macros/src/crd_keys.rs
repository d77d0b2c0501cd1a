//! The CRD-level keys of `#[rop(...)]` beyond names and versions: controller-gen's
//! `+kubebuilder:selectablefield`, `+kubebuilder:metadata`, `+kubebuilder:skipversion`,
//! `+kubebuilder:validation:XValidation` on the kind's root type (`root_validation`) and the
//! `crd:maxDescLen` option.

use proc_macro2::TokenStream;
use quote::quote;
use syn::meta::ParseNestedMeta;
use syn::{LitInt, LitStr, Token};

use crate::schema_attrs;

/// CRD-level keys beyond names and versions: `selectable_field`, `label`, `annotation`,
/// `skip_version`, `max_desc_len`, `root_validation`.
#[derive(Default)]
pub struct CrdExtras {
    pub selectable_fields: Vec<String>,
    pub labels: Vec<(String, String)>,
    pub annotations: Vec<(String, String)>,
    pub skip_version: bool,
    pub max_desc_len: Option<usize>,
    /// `status_subresource = false`: a status without the status subresource.
    pub status_subresource: Option<bool>,
    /// `root_validation(...)` rules, as `rop::schema::Rule` expressions.
    pub root_rules: Vec<TokenStream>,
}

/// Parses one of the keys into `extras`: `key` is one of `keys::Family::Crd`.
pub fn parse(extras: &mut CrdExtras, meta: &ParseNestedMeta, key: &str) -> syn::Result<()> {
    match key {
        "selectable_field" => {
            let lit = meta.value()?.parse::<LitStr>()?;
            let path = lit.value();
            if !path.starts_with(".spec.") && !path.starts_with(".status.") && !path.starts_with(".metadata.") {
                return Err(syn::Error::new(
                    lit.span(),
                    format!("selectable_field \"{path}\" must be a JSON path such as \".spec.color\""),
                ));
            }
            extras.selectable_fields.push(path);
        }
        "label" | "annotation" => {
            let content;
            syn::parenthesized!(content in meta.input);
            let name: LitStr = content.parse()?;
            if content.is_empty() {
                return Err(syn::Error::new(
                    name.span(),
                    format!("{key}(\"{}\", \"...\") needs a value", name.value()),
                ));
            }
            content.parse::<Token![,]>()?;
            let value: LitStr = content.parse()?;
            if name.value().is_empty() {
                return Err(syn::Error::new(name.span(), format!("{key}(\"\", ...) needs a key")));
            }
            let list = if key == "label" { &mut extras.labels } else { &mut extras.annotations };
            list.push((name.value(), value.value()));
        }
        "root_validation" => extras.root_rules.push(schema_attrs::rule_value(meta)?),
        "status_subresource" => {
            if extras.status_subresource.is_some() {
                return Err(meta.error("`status_subresource` is given twice in #[rop(...)]: keep one"));
            }
            extras.status_subresource = Some(meta.value()?.parse::<syn::LitBool>()?.value);
        }
        "skip_version" => {
            if extras.skip_version {
                return Err(meta.error("`skip_version` is given twice in #[rop(...)]: keep one"));
            }
            extras.skip_version = true;
        }
        _ => {
            if extras.max_desc_len.is_some() {
                return Err(meta.error("`max_desc_len` is given twice in #[rop(...)]: keep one"));
            }
            extras.max_desc_len = Some(meta.value()?.parse::<LitInt>()?.base10_parse()?);
        }
    }
    Ok(())
}

/// The `CustomResource::root_rules` override for `extras`, if it has rules.
pub fn root_rules(extras: &CrdExtras) -> Option<TokenStream> {
    let rules = &extras.root_rules;
    (!rules.is_empty()).then(|| {
        quote! {
            fn root_rules() -> ::std::vec::Vec<::rop::schema::Rule> {
                ::std::vec![#(#rules),*]
            }
        }
    })
}

/// The `KindDefinition` fields for `extras`.
pub fn definition_fields(extras: &CrdExtras) -> TokenStream {
    let selectable = &extras.selectable_fields;
    let pairs = |list: &[(String, String)]| {
        let items = list.iter().map(|(k, v)| quote!((#k, #v)));
        quote!(&[#(#items),*])
    };
    let labels = pairs(&extras.labels);
    let annotations = pairs(&extras.annotations);
    let skip = extras.skip_version;
    let max = match extras.max_desc_len {
        Some(n) => quote!(::core::option::Option::Some(#n)),
        None => quote!(::core::option::Option::None),
    };
    let status_subresource = extras.status_subresource.unwrap_or(true);
    quote! {
        status_subresource: #status_subresource,
        selectable_fields: &[#(#selectable),*],
        labels: #labels,
        annotations: #annotations,
        skip_version: #skip,
        max_desc_len: #max,
    }
}
