//! `#[derive(BuiltinKind)]`: admission webhooks for a kind Kubernetes itself serves (apps/v1
//! Deployment, v1 Pod, ...), declared on a marker type with the same `webhook(...)` keys as a
//! custom kind's.

use proc_macro2::TokenStream;
use quote::quote;
use syn::meta::ParseNestedMeta;
use syn::{DeriveInput, LitStr, Path};

use crate::expand::expand_webhook;
use crate::names;
use crate::webhook::{self, RawWebhook};

const KEYS: &str = "group, version, kind, plural, object, webhook";

#[derive(Default)]
struct Raw {
    group: Option<LitStr>,
    version: Option<LitStr>,
    kind: Option<LitStr>,
    plural: Option<LitStr>,
    object: Option<Path>,
    webhooks: Vec<RawWebhook>,
}

fn once<T>(slot: &mut Option<T>, value: T, meta: &ParseNestedMeta, key: &str) -> syn::Result<()> {
    if slot.is_some() {
        return Err(meta.error(format!("`{key}` is given twice in #[rop(...)]: keep one")));
    }
    *slot = Some(value);
    Ok(())
}

fn parse_key(raw: &mut Raw, meta: &ParseNestedMeta) -> syn::Result<()> {
    let key = meta.path.get_ident().map(ToString::to_string).unwrap_or_default();
    let string = |meta: &ParseNestedMeta| meta.value()?.parse::<LitStr>();
    match key.as_str() {
        "group" => once(&mut raw.group, string(meta)?, meta, "group"),
        "version" => once(&mut raw.version, string(meta)?, meta, "version"),
        "kind" => once(&mut raw.kind, string(meta)?, meta, "kind"),
        "plural" => once(&mut raw.plural, string(meta)?, meta, "plural"),
        "object" => once(&mut raw.object, string(meta)?.parse::<Path>()?, meta, "object"),
        "webhook" => {
            let parsed = webhook::parse(meta)?;
            if raw.webhooks.iter().any(|w| w.mutating == parsed.mutating) {
                let which = if parsed.mutating { "mutating" } else { "validating" };
                return Err(syn::Error::new(
                    parsed.span,
                    format!("a kind version has at most one {which} webhook: merge the two webhook({which}, ...)"),
                ));
            }
            if parsed.name.is_none() {
                return Err(syn::Error::new(
                    parsed.span,
                    "a built-in kind's webhook needs `name = \"...\"`, a name of your own domain with three or more parts, e.g. \"mdeployment-v1.example.com\"",
                ));
            }
            raw.webhooks.push(parsed);
            Ok(())
        }
        _ => Err(meta.error(format!(
            "unknown key `{key}` in #[rop(...)] of a BuiltinKind: {}",
            crate::suggest::expected(&key, KEYS)
        ))),
    }
}

/// Parses `#[rop(...)]` on a `#[derive(BuiltinKind)]` type and implements `rop::WebhookTarget`.
///
/// # Errors
/// Unknown or repeated keys, a missing `group`/`version`/`kind`/`plural`/`object`, a name
/// Kubernetes would refuse (the core group is `group = ""`), no webhook at all, and every
/// `webhook(...)` error of a custom kind.
pub fn derive(input: &DeriveInput) -> syn::Result<TokenStream> {
    let mut raw = Raw::default();
    let mut errors: Option<syn::Error> = None;
    let push = |e: syn::Error, errors: &mut Option<syn::Error>| match errors {
        Some(all) => all.combine(e),
        None => *errors = Some(e),
    };
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("rop")) {
        if let Err(e) = attr.parse_nested_meta(|meta| parse_key(&mut raw, &meta)) {
            push(e, &mut errors);
        }
    }
    let ident = &input.ident;
    let required = |lit: Option<LitStr>, key: &str, errors: &mut Option<syn::Error>| {
        lit.or_else(|| {
            push(
                syn::Error::new_spanned(ident, format!("#[rop(...)] of a BuiltinKind needs `{key} = \"...\"`")),
                errors,
            );
            None
        })
    };
    let group = required(raw.group, "group", &mut errors);
    let version = required(raw.version, "version", &mut errors);
    let kind = required(raw.kind, "kind", &mut errors);
    let plural = required(raw.plural, "plural", &mut errors);
    if raw.object.is_none() {
        push(
            syn::Error::new_spanned(
                ident,
                "#[rop(...)] of a BuiltinKind needs `object = \"...\"`, the k8s-openapi type, e.g. \"k8s_openapi::api::apps::v1::Deployment\"",
            ),
            &mut errors,
        );
    }
    if raw.webhooks.is_empty() {
        push(
            syn::Error::new_spanned(
                ident,
                "a BuiltinKind needs at least one webhook(mutating, ...) or webhook(validating, ...)",
            ),
            &mut errors,
        );
    }
    type Rule = fn(&str) -> Option<&'static str>;
    let checks: [(&Option<LitStr>, &str, Rule); 3] = [
        (&version, "version", names::check_version),
        (&kind, "kind", names::check_kind),
        (&plural, "plural", names::check_resource_name),
    ];
    for (lit, what, rule) in checks {
        if let Some(lit) = lit
            && let Some(reason) = rule(&lit.value())
        {
            push(syn::Error::new(lit.span(), format!("{what} \"{}\" {reason}", lit.value())), &mut errors);
        }
    }
    // Built-in groups such as "apps" and "batch" need no dot, unlike a custom kind's.
    if let Some(lit) = &group
        && !lit.value().is_empty()
        && !names::is_dns_subdomain(&lit.value())
    {
        let message = format!("group \"{}\" is not a DNS-1123 subdomain (the core group is \"\")", lit.value());
        push(syn::Error::new(lit.span(), message), &mut errors);
    }
    if let Some(e) = errors {
        return Err(e);
    }
    let (group, version, kind, plural) =
        (group.unwrap().value(), version.unwrap().value(), kind.unwrap().value(), plural.unwrap().value());
    let object = raw.object.unwrap();
    let webhooks = raw.webhooks.into_iter().map(|w| expand_webhook(&w.finish(&group, &version, &kind)));
    Ok(quote! {
        impl ::rop::WebhookTarget for #ident {
            type Object = #object;
            const TARGET: ::rop::AdmissionTarget = ::rop::AdmissionTarget {
                group: #group,
                version: #version,
                kind: #kind,
                plural: #plural,
                webhooks: &[#(#webhooks),*],
            };
        }
    })
}
