//! `#[derive(BuiltinKind)]`: a kind Kubernetes itself serves (apps/v1 Deployment, v1 Pod, ...)
//! that the project has admission webhooks or a controller for, declared on a marker type with
//! the same `webhook(...)`, `owns(...)`, `watches(...)` and `rbac(...)` keys as a custom kind's.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;
use syn::{DeriveInput, LitStr, Path};

use crate::attrs::{self, RbacRule, RelatedKind, set_once};
use crate::expand::{expand_rbac, expand_related, expand_webhook};
use crate::keys::Family;
use crate::webhook::{self, RawWebhook};
use crate::{names, suggest};

#[derive(Default)]
struct Raw {
    group: Option<LitStr>,
    version: Option<LitStr>,
    kind: Option<LitStr>,
    plural: Option<LitStr>,
    object: Option<Path>,
    webhooks: Vec<RawWebhook>,
    /// Whether a `webhook(...)` key is written, parsed or not.
    webhook_written: bool,
    /// `controller` or `controller(finalizer = "...")`: the finalizer, empty when not given.
    controller: Option<(String, proc_macro2::Span)>,
    owns: Vec<RelatedKind>,
    watches: Vec<RelatedKind>,
    rbac: Vec<RbacRule>,
    /// Where the first `owns`, `watches` or `rbac` key is, for the error without `controller`.
    controller_key: Option<(String, proc_macro2::Span)>,
}

/// `controller` alone, or `controller(finalizer = "...")`.
fn parse_controller(meta: &ParseNestedMeta) -> syn::Result<String> {
    let mut finalizer = String::new();
    if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|inner| {
            let key = inner.path.get_ident().map(ToString::to_string).unwrap_or_default();
            if key != "finalizer" {
                return Err(inner.error(format!(
                    "unknown key `{key}` in controller(...): {}",
                    suggest::expected(&key, Family::Controller)
                )));
            }
            let lit = inner.value()?.parse::<LitStr>()?;
            names::check(&lit, "finalizer", names::check_finalizer)?;
            finalizer = lit.value();
            Ok(())
        })?;
    }
    Ok(finalizer)
}

fn parse_key(raw: &mut Raw, meta: &ParseNestedMeta) -> syn::Result<()> {
    let key = meta.path.get_ident().map(ToString::to_string).unwrap_or_default();
    let string = |meta: &ParseNestedMeta| meta.value()?.parse::<LitStr>();
    match key.as_str() {
        "group" => set_once(&mut raw.group, string(meta)?, meta, "group"),
        "version" => set_once(&mut raw.version, string(meta)?, meta, "version"),
        "kind" => set_once(&mut raw.kind, string(meta)?, meta, "kind"),
        "plural" => set_once(&mut raw.plural, string(meta)?, meta, "plural"),
        "object" => set_once(&mut raw.object, string(meta)?.parse::<Path>()?, meta, "object"),
        "controller" => {
            let span = meta.path.span();
            // A bad `controller(...)` still says the kind has a controller: one error, not two.
            let (finalizer, error) = match parse_controller(meta) {
                Ok(finalizer) => (finalizer, None),
                Err(e) => (String::new(), Some(e)),
            };
            set_once(&mut raw.controller, (finalizer, span), meta, "controller")?;
            error.map_or(Ok(()), Err)
        }
        "owns" | "watches" | "rbac" => {
            raw.controller_key.get_or_insert((key.clone(), meta.path.span()));
            match key.as_str() {
                "owns" => raw.owns.push(attrs::parse_related(meta, "owns")?),
                "watches" => raw.watches.push(attrs::parse_related(meta, "watches")?),
                _ => raw.rbac.push(attrs::parse_rbac(meta)?),
            }
            Ok(())
        }
        "webhook" => {
            // A bad `webhook(...)` is the error; "needs a webhook" would be a second one.
            raw.webhook_written = true;
            let parsed = webhook::parse(meta)?;
            webhook::check_unique(&raw.webhooks, &parsed)?;
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
            suggest::expected(&key, Family::Builtin)
        ))),
    }
}

/// Parses `#[rop(...)]` on a `#[derive(BuiltinKind)]` type and implements `rop::WebhookTarget`,
/// `rop::BuiltinKind` and, with `controller`, `rop::ControllerTarget`.
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
                "#[rop(...)] of a BuiltinKind needs `object = \"...\"`, the k8s-openapi type, e.g. \"rop::k8s_openapi::api::apps::v1::Deployment\"",
            ),
            &mut errors,
        );
    }
    if !raw.webhook_written && raw.controller.is_none() && raw.controller_key.is_none() {
        push(
            syn::Error::new_spanned(
                ident,
                "a BuiltinKind needs `controller` (this project reconciles the kind), or a webhook(mutating, ...) or webhook(validating, ...)",
            ),
            &mut errors,
        );
    }
    if raw.controller.is_none()
        && let Some((key, span)) = &raw.controller_key
    {
        let message = format!("{key}(...) says what the kind's controller does: add `controller` to #[rop(...)]");
        push(syn::Error::new(*span, message), &mut errors);
    }
    let checks: [(&Option<LitStr>, &str, names::Rule); 4] = [
        (&version, "version", names::check_version),
        (&kind, "kind", names::check_kind),
        (&plural, "plural", names::check_resource_name),
        // Built-in groups such as "apps" and "batch" need no dot, unlike a custom kind's.
        (&group, "group", names::check_builtin_group),
    ];
    for (lit, what, rule) in checks {
        if let Some(lit) = lit
            && let Err(e) = names::check(lit, what, rule)
        {
            push(e, &mut errors);
        }
    }
    if let Some(e) = errors {
        return Err(e);
    }
    let (group_lit, version_lit, kind_lit, plural_lit) =
        (group.unwrap(), version.unwrap(), kind.unwrap(), plural.unwrap());
    let (group, version, kind, plural) = (group_lit.value(), version_lit.value(), kind_lit.value(), plural_lit.value());
    let object = raw.object.unwrap();
    let webhook_kinds = crate::expand::webhook_kind_impls(&ident, raw.webhooks.iter().map(|w| w.mutating));
    let webhooks = raw.webhooks.into_iter().map(|w| expand_webhook(&w.finish(&group, &version, &kind)));
    let cleanup = match &raw.controller {
        Some((finalizer, _)) if !finalizer.is_empty() => quote!(::rop::__private::Cleanup),
        _ => quote!(::rop::__private::NoFinalizer),
    };
    let controller = raw.controller.map(|(finalizer, _)| {
        let owns = raw.owns.iter().map(expand_related);
        let watches = raw.watches.iter().map(expand_related);
        let rbac = raw.rbac.iter().map(expand_rbac);
        quote! {
            ::rop::ControllerDefinition {
                group: #group,
                version: #version,
                kind: #kind,
                plural: #plural,
                owns: &[#(#owns),*],
                watches: &[#(#watches),*],
                rbac: &[#(#rbac),*],
                finalizer: #finalizer,
            }
        }
    });
    let controller_impl = controller.as_ref().map(|definition| {
        quote! {
            impl ::rop::ControllerTarget for #ident {
                type Cleanup = #cleanup;
                const CONTROLLER: ::rop::ControllerDefinition = #definition;
            }
        }
    });
    let controller = match controller {
        Some(definition) => quote!(::core::option::Option::Some(#definition)),
        None => quote!(::core::option::Option::None),
    };
    // One check per name, pointing at it: a const panic cannot print the value the type has.
    let object_text = quote!(#object).to_string().replace(' ', "");
    let checks = [
        (&group, &group_lit, "group", "GROUP"),
        (&version, &version_lit, "version", "VERSION"),
        (&kind, &kind_lit, "kind", "KIND"),
        (&plural, &plural_lit, "plural", "PLURAL"),
    ]
    .into_iter()
    .map(|(value, lit, key, constant)| {
        let constant = syn::Ident::new(constant, lit.span());
        let core = if key == "group" { " (the core group is \"\")" } else { "" };
        let message = format!(
            "{key} = \"{value}\" is not the {key} of {object_text}: write the one its k8s-openapi type has{core}"
        );
        quote_spanned! {lit.span()=>
            const _: () = ::core::assert!(
                ::rop::__private::str_eq(#value, <#object as ::rop::BuiltinResource>::#constant),
                #message
            );
        }
    });
    Ok(quote! {
        impl ::rop::Target for #ident {
            type Object = #object;
        }

        impl ::rop::WebhookTarget for #ident {
            const TARGET: ::rop::AdmissionTarget = ::rop::AdmissionTarget {
                group: #group,
                version: #version,
                kind: #kind,
                plural: #plural,
                webhooks: &[#(#webhooks),*],
            };
        }

        #webhook_kinds

        impl ::rop::BuiltinKind for #ident {
            const CONTROLLER: ::core::option::Option<::rop::ControllerDefinition> = #controller;
        }

        #controller_impl

        #(#checks)*
    })
}
