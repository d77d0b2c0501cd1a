//! Code generation from the typed [`KindAttrs`]; reads no raw tokens.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::DeriveInput;
use syn::spanned::Spanned;

use crate::attrs::KindAttrs;
use crate::selector::Selector;
use crate::webhook::{Settings, Webhook};

fn opt_str(value: &Option<String>) -> TokenStream {
    match value {
        Some(v) => quote!(::core::option::Option::Some(#v)),
        None => quote!(::core::option::Option::None),
    }
}

pub(crate) fn opt_selector(selector: &Option<Selector>) -> TokenStream {
    let Some(s) = selector else { return quote!(::core::option::Option::None) };
    let labels = s.match_labels.iter().map(|(k, v)| quote!((#k, #v)));
    let expressions = s.match_expressions.iter().map(|(key, operator, values)| {
        quote!(::rop::SelectorRequirement { key: #key, operator: #operator, values: &[#(#values),*] })
    });
    quote!(::core::option::Option::Some(::rop::LabelSelector {
        match_labels: &[#(#labels),*],
        match_expressions: &[#(#expressions),*],
    }))
}

pub(crate) fn expand_webhook(w: &Webhook) -> TokenStream {
    let Webhook { mutating, path, name, operations, settings } = w;
    let Settings { failure_policy, side_effects, admission_review_versions, .. } = settings;
    let timeout = match settings.timeout_seconds {
        Some(n) => quote!(::core::option::Option::Some(#n)),
        None => quote!(::core::option::Option::None),
    };
    let match_policy = opt_str(&settings.match_policy);
    let reinvocation_policy = opt_str(&settings.reinvocation_policy);
    let namespace_selector = opt_selector(&settings.namespace_selector);
    let object_selector = opt_selector(&settings.object_selector);
    quote!(::rop::Webhook {
        mutating: #mutating,
        name: #name,
        path: #path,
        failure_policy: #failure_policy,
        side_effects: #side_effects,
        operations: &[#(#operations),*],
        admission_review_versions: &[#(#admission_review_versions),*],
        timeout_seconds: #timeout,
        match_policy: #match_policy,
        reinvocation_policy: #reinvocation_policy,
        namespace_selector: #namespace_selector,
        object_selector: #object_selector,
    })
}

/// An `rbac(...)` rule as a `rop::RbacRule` value.
/// `MutatingWebhookTarget` and `ValidatingWebhookTarget` for `target`, as its webhooks
/// (`true` for a mutating one) have them: what lets a `Defaulter` or `Validator` name it.
pub(crate) fn webhook_kind_impls(target: &impl quote::ToTokens, mutating: impl Iterator<Item = bool>) -> TokenStream {
    let mutating: Vec<bool> = mutating.collect();
    let defaulting = mutating.contains(&true).then(|| quote!(impl ::rop::MutatingWebhookTarget for #target {}));
    let validating = mutating.contains(&false).then(|| quote!(impl ::rop::ValidatingWebhookTarget for #target {}));
    quote!(#defaulting #validating)
}

pub fn expand_rbac(r: &crate::attrs::RbacRule) -> TokenStream {
    let (groups, resources, names, verbs, urls) = (&r.groups, &r.resources, &r.resource_names, &r.verbs, &r.urls);
    let (namespace, role_name) = (&r.namespace, &r.role_name);
    quote!(::rop::RbacRule {
        groups: &[#(#groups),*],
        resources: &[#(#resources),*],
        resource_names: &[#(#names),*],
        verbs: &[#(#verbs),*],
        urls: &[#(#urls),*],
        namespace: #namespace,
        role_name: #role_name,
    })
}

/// An `owns(...)` or `watches(...)` kind as a `rop::RelatedKind` value; a typed one takes its
/// names from the type's `rop::BuiltinResource` constants.
pub fn expand_related(k: &crate::attrs::RelatedKind) -> TokenStream {
    match k {
        crate::attrs::RelatedKind::Named { group, version, kind, plural } => {
            quote!(::rop::RelatedKind { group: #group, version: #version, kind: #kind, plural: #plural })
        }
        crate::attrs::RelatedKind::Typed(path) => {
            let resource = quote_spanned!(path.span()=> <#path as ::rop::BuiltinResource>);
            quote! {
                ::rop::RelatedKind {
                    group: #resource::GROUP,
                    version: #resource::VERSION,
                    kind: #resource::KIND,
                    plural: #resource::PLURAL,
                }
            }
        }
    }
}

pub fn expand(input: &DeriveInput, attrs: &KindAttrs) -> TokenStream {
    let spec = &input.ident;
    let vis = &input.vis;
    let root = format_ident!("{}", attrs.kind);
    let p = quote!(::rop::__private);
    let KindAttrs { group, version, kind, plural, singular, namespaced, .. } = attrs;
    let api_version = format!("{group}/{version}");
    let crd_name = format!("{plural}.{group}");
    // Without `finalizer`, the name the attribute would give: the runtime removes it from a
    // deleted object that still carries it from an earlier version of the controller.
    let finalizer = attrs.finalizer.clone().unwrap_or_else(|| format!("{group}/finalizer"));
    let cleanup = if attrs.finalizer.is_some() { quote!(#p::Cleanup) } else { quote!(#p::NoFinalizer) };
    let description = attrs.doc.clone().unwrap_or_else(|| format!("{kind} is the Schema for the {plural} API"));
    let root_doc = format!(" {description}");
    let derives = &attrs.derives;
    let short_names = &attrs.short_names;
    let categories = &attrs.categories;
    let scope = if *namespaced {
        quote!(#p::k8s_openapi::NamespaceResourceScope)
    } else {
        quote!(#p::k8s_openapi::ClusterResourceScope)
    };
    let has_status = attrs.status.is_some();
    let status_ty = attrs.status.as_ref().map(|s| quote!(#s)).unwrap_or_else(|| quote!(()));
    let storage = attrs.storage;
    let served = attrs.served;
    let deprecated = opt_str(&attrs.deprecated);
    let columns = attrs.printer_columns.iter().map(|c| {
        let (name, type_, json_path) = (&c.name, &c.type_, &c.json_path);
        let description = opt_str(&c.description);
        let format = opt_str(&c.format);
        let priority = match c.priority {
            Some(n) => quote!(::core::option::Option::Some(#n)),
            None => quote!(::core::option::Option::None),
        };
        quote!(::rop::PrinterColumn { name: #name, type_: #type_, json_path: #json_path, description: #description, format: #format, priority: #priority })
    });
    let scale = match &attrs.scale {
        Some((s, _)) => {
            let (spec_path, status_path) = (&s.spec_replicas_path, &s.status_replicas_path);
            let selector = opt_str(&s.label_selector_path);
            quote!(::core::option::Option::Some(::rop::Scale { spec_replicas_path: #spec_path, status_replicas_path: #status_path, label_selector_path: #selector }))
        }
        None => quote!(::core::option::Option::None),
    };

    let rbac = attrs.rbac.iter().map(expand_rbac);
    let webhooks = attrs.webhooks.iter().map(expand_webhook);
    let webhook_kinds = webhook_kind_impls(&root, attrs.webhooks.iter().map(|w| w.mutating));
    let crd_extras = crate::crd_keys::definition_fields(&attrs.crd);
    let root_rules = crate::crd_keys::root_rules(&attrs.crd);
    let owns = attrs.owns.iter().map(expand_related);
    let watches = attrs.watches.iter().map(expand_related);

    let status_field = has_status.then(|| {
        quote! {
            /// Observed state, written by the controller through the status subresource.
            #[serde(default, skip_serializing_if = "::core::option::Option::is_none")]
            pub status: ::core::option::Option<#status_ty>,
        }
    });
    let status_init = has_status.then(|| quote!(status: ::core::option::Option::None,));
    let status_ser = has_status.then(|| {
        quote! {
            if let ::core::option::Option::Some(status) = &self.status {
                state.serialize_field("status", status)?;
            }
        }
    });
    let field_count = if has_status { quote!(4 + usize::from(self.status.is_some())) } else { quote!(4) };
    // The status type's conditions, if it has them: which it has is known only to the
    // compiler, so the probe's method resolution picks (rop_core::conditions::probe).
    let status_conditions = has_status.then(|| {
        quote! {
            fn status_conditions(object: &Self) -> &[#p::k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition] {
                use ::rop::conditions::probe::{Conditions as _, NoConditions as _, Probe};
                match &object.status {
                    ::core::option::Option::Some(status) => (&Probe(status)).conditions(),
                    ::core::option::Option::None => &[],
                }
            }
        }
    });
    let has_status_impl = has_status.then(|| {
        quote! {
            impl #p::kube_core::object::HasStatus for #root {
                type Status = #status_ty;
                fn status(&self) -> ::core::option::Option<&#status_ty> { self.status.as_ref() }
                fn status_mut(&mut self) -> &mut ::core::option::Option<#status_ty> { &mut self.status }
            }
        }
    });

    quote! {
        #[doc = #root_doc]
        #[derive(::core::clone::Clone, ::core::fmt::Debug, #p::serde::Deserialize #(, #derives)*)]
        #[serde(crate = "::rop::__private::serde")]
        #vis struct #root {
            /// Standard object metadata: name, namespace, labels, finalizers, owner references.
            pub metadata: #p::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta,
            /// Desired state, written by the user.
            pub spec: #spec,
            #status_field
        }

        impl #root {
            /// A new object with the given name and spec; everything else empty.
            pub fn new(name: &str, spec: #spec) -> Self {
                Self {
                    metadata: #p::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta {
                        name: ::core::option::Option::Some(::std::string::ToString::to_string(name)),
                        ..::core::default::Default::default()
                    },
                    spec,
                    #status_init
                }
            }
        }

        // Written by hand so `apiVersion` and `kind` are always on the wire.
        impl #p::serde::Serialize for #root {
            fn serialize<S: #p::serde::Serializer>(&self, serializer: S) -> ::core::result::Result<S::Ok, S::Error> {
                use #p::serde::ser::SerializeStruct;
                let mut state = serializer.serialize_struct(#kind, #field_count)?;
                state.serialize_field("apiVersion", #api_version)?;
                state.serialize_field("kind", #kind)?;
                state.serialize_field("metadata", &self.metadata)?;
                state.serialize_field("spec", &self.spec)?;
                #status_ser
                state.end()
            }
        }

        impl #p::kube_core::Resource for #root {
            type DynamicType = ();
            type Scope = #scope;
            fn kind(_: &()) -> ::std::borrow::Cow<'_, str> { ::std::borrow::Cow::Borrowed(#kind) }
            fn group(_: &()) -> ::std::borrow::Cow<'_, str> { ::std::borrow::Cow::Borrowed(#group) }
            fn version(_: &()) -> ::std::borrow::Cow<'_, str> { ::std::borrow::Cow::Borrowed(#version) }
            fn api_version(_: &()) -> ::std::borrow::Cow<'_, str> { ::std::borrow::Cow::Borrowed(#api_version) }
            fn plural(_: &()) -> ::std::borrow::Cow<'_, str> { ::std::borrow::Cow::Borrowed(#plural) }
            fn meta(&self) -> &#p::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta { &self.metadata }
            fn meta_mut(&mut self) -> &mut #p::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta { &mut self.metadata }
        }

        impl #p::kube_core::object::HasSpec for #root {
            type Spec = #spec;
            fn spec(&self) -> &#spec { &self.spec }
            fn spec_mut(&mut self) -> &mut #spec { &mut self.spec }
        }

        #has_status_impl

        impl #p::KindSpec for #spec {}

        impl ::rop::CustomResource for #root {
            type Spec = #spec;
            type Status = #status_ty;
            const DEFINITION: ::rop::KindDefinition = ::rop::KindDefinition {
                group: #group,
                version: #version,
                kind: #kind,
                plural: #plural,
                singular: #singular,
                namespaced: #namespaced,
                short_names: &[#(#short_names),*],
                categories: &[#(#categories),*],
                printer_columns: &[#(#columns),*],
                has_status: #has_status,
                scale: #scale,
                storage: #storage,
                served: #served,
                deprecated: #deprecated,
                description: #description,
                rbac: &[#(#rbac),*],
                owns: &[#(#owns),*],
                watches: &[#(#watches),*],
                webhooks: &[#(#webhooks),*],
                #crd_extras
            };
            #root_rules
        }

        // Another kind's `owns(...)` or `watches(...)` can name this one by type, as it names a
        // k8s-openapi type: an imported CRD of another project (`rop import crd --types-only`)
        // or a second kind of this one.
        impl ::rop::BuiltinResource for #root {
            const GROUP: &'static str = #group;
            const VERSION: &'static str = #version;
            const KIND: &'static str = #kind;
            const PLURAL: &'static str = #plural;
        }

        impl ::rop::Target for #root {
            type Object = Self;
        }

        impl ::rop::ControllerTarget for #root {
            type Cleanup = #cleanup;
            const CONTROLLER: ::rop::ControllerDefinition = ::rop::ControllerDefinition {
                group: #group,
                version: #version,
                kind: #kind,
                plural: #plural,
                owns: <Self as ::rop::CustomResource>::DEFINITION.owns,
                watches: <Self as ::rop::CustomResource>::DEFINITION.watches,
                rbac: <Self as ::rop::CustomResource>::DEFINITION.rbac,
                finalizer: #finalizer,
            };
            #status_conditions
        }

        impl ::rop::WebhookTarget for #root {
            const TARGET: ::rop::AdmissionTarget = ::rop::AdmissionTarget {
                group: #group,
                version: #version,
                kind: #kind,
                plural: #plural,
                webhooks: <Self as ::rop::CustomResource>::DEFINITION.webhooks,
            };
        }

        #webhook_kinds

        impl #p::kube_core::CustomResourceExt for #root {
            fn crd() -> #p::k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition {
                ::rop::crd::single_version(<Self as ::rop::CustomResource>::custom_resource_definition())
            }
            fn crd_name() -> &'static str { #crd_name }
            fn api_resource() -> #p::kube_core::ApiResource {
                #p::kube_core::ApiResource::erase::<Self>(&())
            }
            fn shortnames() -> &'static [&'static str] { &[#(#short_names),*] }
        }
    }
}
