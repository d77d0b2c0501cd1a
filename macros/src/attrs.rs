//! Parsing `#[rop(...)]` into a typed [`KindAttrs`], collecting every error with its span.

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::{DeriveInput, Ident, LitBool, LitInt, LitStr, Path};

use crate::crd_keys::{self, CrdExtras};
use crate::keys::Family;
use crate::webhook::{self, RawWebhook, Webhook};
use crate::{names, schema_attrs, suggest};

/// One `printcolumn(...)`.
pub struct PrinterColumn {
    pub name: String,
    pub type_: String,
    pub json_path: String,
    pub description: Option<String>,
    pub format: Option<String>,
    pub priority: Option<i32>,
}

/// `scale(...)`.
pub struct Scale {
    pub spec_replicas_path: String,
    pub status_replicas_path: String,
    pub label_selector_path: Option<String>,
}

/// One `rbac(...)`: the fields of a `+kubebuilder:rbac` marker.
#[derive(Default)]
pub struct RbacRule {
    pub groups: Vec<String>,
    pub resources: Vec<String>,
    pub resource_names: Vec<String>,
    pub verbs: Vec<String>,
    pub urls: Vec<String>,
    pub namespace: String,
    pub role_name: String,
}

/// One `owns(...)` or `watches(...)`.
pub enum RelatedKind {
    /// Named by strings: a custom kind, of this project or another.
    Named { group: String, version: String, kind: String, plural: String },
    /// A k8s-openapi type, whose `Resource` constants give group, version, kind and plural.
    Typed(Path),
}

/// Everything `#[rop(...)]` says about a kind, with defaults applied.
pub struct KindAttrs {
    pub group: String,
    pub version: String,
    pub kind: String,
    pub plural: String,
    pub singular: String,
    pub namespaced: bool,
    pub status: Option<Path>,
    pub short_names: Vec<String>,
    pub categories: Vec<String>,
    pub printer_columns: Vec<PrinterColumn>,
    pub scale: Option<(Scale, Span)>,
    pub storage: bool,
    pub served: bool,
    pub deprecated: Option<String>,
    pub derives: Vec<Path>,
    pub doc: Option<String>,
    pub rbac: Vec<RbacRule>,
    pub owns: Vec<RelatedKind>,
    pub watches: Vec<RelatedKind>,
    pub webhooks: Vec<Webhook>,
    /// `finalizer` or `finalizer = "..."`: the name the kind's objects carry while they live.
    pub finalizer: Option<String>,
    pub crd: CrdExtras,
}

#[derive(Default)]
struct Raw {
    group: Option<LitStr>,
    version: Option<LitStr>,
    kind: Option<LitStr>,
    plural: Option<LitStr>,
    singular: Option<LitStr>,
    namespaced: Option<bool>,
    status: Option<Path>,
    short_names: Vec<String>,
    categories: Vec<String>,
    printer_columns: Vec<PrinterColumn>,
    scale: Option<(Scale, Span)>,
    storage: Option<bool>,
    served: Option<bool>,
    deprecated: Option<String>,
    derives: Vec<Path>,
    doc: Option<String>,
    rbac: Vec<RbacRule>,
    owns: Vec<RelatedKind>,
    watches: Vec<RelatedKind>,
    webhooks: Vec<RawWebhook>,
    finalizer: Option<Option<LitStr>>,
    crd: CrdExtras,
}

/// Collects errors so the user sees all of them at once.
#[derive(Default)]
struct Errors(Option<syn::Error>);

impl Errors {
    fn push(&mut self, error: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(error),
            None => self.0 = Some(error),
        }
    }
}

fn flag_or_bool(meta: &ParseNestedMeta) -> syn::Result<bool> {
    if meta.input.peek(syn::Token![=]) { Ok(meta.value()?.parse::<LitBool>()?.value) } else { Ok(true) }
}

fn string(meta: &ParseNestedMeta) -> syn::Result<LitStr> {
    meta.value()?.parse::<LitStr>()
}

/// Puts `value` in `slot`, the place of a key that may be written once.
///
/// # Errors
/// `key` is given twice, when `slot` already holds a value.
pub(crate) fn set_once<T>(slot: &mut Option<T>, value: T, meta: &ParseNestedMeta, key: &str) -> syn::Result<()> {
    if slot.is_some() {
        return Err(meta.error(format!("`{key}` is given twice in #[rop(...)]: keep one")));
    }
    *slot = Some(value);
    Ok(())
}

fn parse_printcolumn(meta: &ParseNestedMeta) -> syn::Result<PrinterColumn> {
    let (mut name, mut type_, mut json_path) = (None, None, None);
    let (mut description, mut format, mut priority) = (None, None, None);
    let span = meta.path.get_ident().map(Ident::span).unwrap_or_else(Span::call_site);
    meta.parse_nested_meta(|inner| {
        let key = inner.path.get_ident().map(ToString::to_string).unwrap_or_default();
        match key.as_str() {
            "name" => name = Some(string(&inner)?.value()),
            "type_" | "type" => type_ = Some(string(&inner)?.value()),
            "json_path" => json_path = Some(string(&inner)?.value()),
            "description" => description = Some(string(&inner)?.value()),
            "format" => format = Some(string(&inner)?.value()),
            "priority" => priority = Some(inner.value()?.parse::<LitInt>()?.base10_parse::<i32>()?),
            _ => {
                let expected = suggest::expected(&key, Family::PrintColumn);
                return Err(inner.error(format!("unknown key `{key}` in printcolumn(...): {expected}")));
            }
        }
        Ok(())
    })?;
    let missing = |what: &str| syn::Error::new(span, format!("printcolumn(...) needs `{what} = \"...\"`"));
    let json_path = json_path.ok_or_else(|| missing("json_path"))?;
    if !json_path.starts_with('.') {
        return Err(syn::Error::new(
            span,
            format!("printcolumn json_path \"{json_path}\" must start with '.', e.g. \".spec.size\""),
        ));
    }
    // A plain field path's type is the schema's (`rop::crd`); a path with filters or indexes
    // names no one field, so its column says its type.
    let plain = json_path[1..].split('.').all(|field| {
        field.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && field.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    });
    let type_ = match type_ {
        Some(type_) => type_,
        None if plain => String::new(),
        None => {
            return Err(syn::Error::new(
                span,
                format!(
                    "printcolumn(...) needs `type_ = \"...\"` (integer, number, string, boolean or date) for \
                     \"{json_path}\": only a plain field path such as \".spec.size\" takes its type from the schema"
                ),
            ));
        }
    };
    const TYPES: [&str; 5] = ["integer", "number", "string", "boolean", "date"];
    if !type_.is_empty() && !TYPES.contains(&type_.as_str()) {
        return Err(syn::Error::new(
            span,
            format!("printcolumn type_ \"{type_}\" is not one of integer, number, string, boolean, date"),
        ));
    }
    Ok(PrinterColumn { name: name.ok_or_else(|| missing("name"))?, type_, json_path, description, format, priority })
}

/// A list value: `["a", "b"]`, or one string `"a"`.
fn list(meta: &ParseNestedMeta) -> syn::Result<Vec<String>> {
    let value = meta.value()?;
    if value.peek(syn::token::Bracket) {
        let content;
        syn::bracketed!(content in value);
        let items = content.parse_terminated(|p| p.parse::<LitStr>(), syn::Token![,])?;
        Ok(items.iter().map(LitStr::value).collect())
    } else {
        Ok(vec![value.parse::<LitStr>()?.value()])
    }
}

pub(crate) fn parse_rbac(meta: &ParseNestedMeta) -> syn::Result<RbacRule> {
    let mut rule = RbacRule::default();
    let span = meta.path.get_ident().map(Ident::span).unwrap_or_else(Span::call_site);
    meta.parse_nested_meta(|inner| {
        let key = inner.path.get_ident().map(ToString::to_string).unwrap_or_default();
        match key.as_str() {
            "groups" => rule.groups = list(&inner)?,
            "resources" => rule.resources = list(&inner)?,
            "resource_names" => rule.resource_names = list(&inner)?,
            "verbs" => rule.verbs = list(&inner)?,
            "urls" => rule.urls = list(&inner)?,
            "namespace" => rule.namespace = string(&inner)?.value(),
            "role_name" => rule.role_name = string(&inner)?.value(),
            _ => {
                let expected = suggest::expected(&key, Family::Rbac);
                return Err(inner.error(format!("unknown key `{key}` in rbac(...): {expected}")));
            }
        }
        Ok(())
    })?;
    if rule.verbs.is_empty() {
        return Err(syn::Error::new(span, "rbac(...) needs `verbs = [\"get\", ...]`"));
    }
    if rule.resources.is_empty() && rule.urls.is_empty() {
        return Err(syn::Error::new(span, "rbac(...) needs `resources = [...]` or `urls = [...]`"));
    }
    Ok(rule)
}

/// Whether `group` is one of Kubernetes' own API groups that k8s-openapi has types for: the
/// core group `""` and the dotless ones (`apps`, `batch`, `policy`, `autoscaling`). Custom
/// groups always have a dot.
fn built_in_group(group: &str) -> bool {
    !group.contains('.')
}

/// The k8s-openapi type of built-in kind `group`/`version` `kind`, as a path to write: through
/// rop's re-export, which generated projects have (they have no k8s-openapi dependency).
fn k8s_openapi_path(group: &str, version: &str, kind: &str) -> String {
    let module = if group.is_empty() { "core" } else { group };
    format!("rop::k8s_openapi::api::{module}::{version}::{kind}")
}

/// The error for `owns("apps", "v1", "Deployment")`: the values are named (a built-in kind by
/// its type), and the message writes the attribute that was meant.
fn positional(meta: &ParseNestedMeta, what: &str) -> Option<syn::Error> {
    let fork = meta.input.fork();
    let literals = || {
        let content;
        syn::parenthesized!(content in fork);
        content.parse_terminated(|p| p.parse::<LitStr>(), syn::Token![,])
    };
    let values = literals().ok()?;
    let first = values.first()?;
    let texts: Vec<String> = values.iter().map(LitStr::value).collect();
    let meant = match texts.as_slice() {
        [group, version, kind, ..] if built_in_group(group) => k8s_openapi_path(group, version, kind),
        _ => ["group", "version", "kind", "plural"]
            .iter()
            .zip(&texts)
            .map(|(key, value)| format!("{key} = {value:?}"))
            .collect::<Vec<_>>()
            .join(", "),
    };
    Some(syn::Error::new(first.span(), format!("{what}(...) takes named values: write {what}({meant})")))
}

/// `owns(k8s_openapi::api::apps::v1::Deployment)`: one type path and nothing else.
fn typed(meta: &ParseNestedMeta) -> syn::Result<Option<Path>> {
    let fork = meta.input.fork();
    let only_a_path = || -> syn::Result<()> {
        let content;
        syn::parenthesized!(content in fork);
        content.parse::<Path>()?;
        content.parse::<Option<syn::Token![,]>>()?;
        if content.is_empty() { Ok(()) } else { Err(content.error("not a path")) }
    };
    if only_a_path().is_err() {
        return Ok(None);
    }
    let content;
    syn::parenthesized!(content in meta.input);
    let path = content.parse::<Path>()?;
    content.parse::<Option<syn::Token![,]>>()?;
    Ok(Some(path))
}

pub(crate) fn parse_related(meta: &ParseNestedMeta, what: &str) -> syn::Result<RelatedKind> {
    let (mut group, mut version, mut kind, mut plural) = (None, None, None, None);
    let span = meta.path.get_ident().map(Ident::span).unwrap_or_else(Span::call_site);
    if let Some(e) = positional(meta, what) {
        return Err(e);
    }
    if let Some(path) = typed(meta)? {
        return Ok(RelatedKind::Typed(path));
    }
    meta.parse_nested_meta(|inner| {
        let key = inner.path.get_ident().map(ToString::to_string).unwrap_or_default();
        match key.as_str() {
            "group" => group = Some(string(&inner)?.value()),
            "version" => version = Some(string(&inner)?.value()),
            "kind" => kind = Some(string(&inner)?.value()),
            "plural" => plural = Some(string(&inner)?.value()),
            _ => {
                let expected = suggest::expected(&key, Family::Related);
                return Err(inner.error(format!("unknown key `{key}` in {what}(...): {expected}")));
            }
        }
        Ok(())
    })?;
    let missing = |key: &str| {
        syn::Error::new(
            span,
            format!(
                "{what}(...) needs `{key} = \"...\"`, or a built-in kind's k8s-openapi type alone, e.g. {what}(rop::k8s_openapi::api::core::v1::Pod)"
            ),
        )
    };
    let kind = kind.ok_or_else(|| missing("kind"))?;
    let group = group.ok_or_else(|| missing("group"))?;
    let version = version.ok_or_else(|| missing("version"))?;
    let plural = match plural {
        Some(plural) => plural,
        // Guessing a built-in kind's plural gives wrong RBAC (`endpointses`); its type knows it.
        None if built_in_group(&group) => {
            return Err(syn::Error::new(
                span,
                format!(
                    "{what}(...) names the built-in kind {kind}: write {what}({}), whose type knows its plural, or add plural = \"...\"",
                    k8s_openapi_path(&group, &version, &kind)
                ),
            ));
        }
        None => rop_names::plural(&kind.to_ascii_lowercase()),
    };
    Ok(RelatedKind::Named { group, version, kind, plural })
}

fn parse_scale(meta: &ParseNestedMeta) -> syn::Result<Scale> {
    let (mut spec, mut status, mut selector) = (None, None, None);
    let span = meta.path.get_ident().map(Ident::span).unwrap_or_else(Span::call_site);
    meta.parse_nested_meta(|inner| {
        let key = inner.path.get_ident().map(ToString::to_string).unwrap_or_default();
        match key.as_str() {
            "spec_replicas_path" => spec = Some(string(&inner)?.value()),
            "status_replicas_path" => status = Some(string(&inner)?.value()),
            "label_selector_path" => selector = Some(string(&inner)?.value()),
            _ => {
                let expected = suggest::expected(&key, Family::Scale);
                return Err(inner.error(format!("unknown key `{key}` in scale(...): {expected}")));
            }
        }
        Ok(())
    })?;
    let missing = |what: &str| syn::Error::new(span, format!("scale(...) needs `{what} = \"...\"`"));
    Ok(Scale {
        spec_replicas_path: spec.ok_or_else(|| missing("spec_replicas_path"))?,
        status_replicas_path: status.ok_or_else(|| missing("status_replicas_path"))?,
        label_selector_path: selector,
    })
}

fn parse_key(raw: &mut Raw, meta: &ParseNestedMeta) -> syn::Result<()> {
    let key = meta.path.get_ident().map(ToString::to_string).unwrap_or_default();
    match key.as_str() {
        "group" => set_once(&mut raw.group, string(meta)?, meta, "group"),
        "version" => set_once(&mut raw.version, string(meta)?, meta, "version"),
        "kind" => set_once(&mut raw.kind, string(meta)?, meta, "kind"),
        "plural" => set_once(&mut raw.plural, string(meta)?, meta, "plural"),
        "singular" => set_once(&mut raw.singular, string(meta)?, meta, "singular"),
        "namespaced" => set_once(&mut raw.namespaced, flag_or_bool(meta)?, meta, "namespaced"),
        "status" => set_once(&mut raw.status, string(meta)?.parse::<Path>()?, meta, "status"),
        "shortname" => {
            raw.short_names.push(string(meta)?.value());
            Ok(())
        }
        "category" => {
            raw.categories.push(string(meta)?.value());
            Ok(())
        }
        "printcolumn" => {
            raw.printer_columns.push(parse_printcolumn(meta)?);
            Ok(())
        }
        "scale" => {
            let span = meta.path.get_ident().map(Ident::span).unwrap_or_else(Span::call_site);
            let scale = parse_scale(meta)?;
            set_once(&mut raw.scale, (scale, span), meta, "scale")
        }
        "storage" => set_once(&mut raw.storage, flag_or_bool(meta)?, meta, "storage"),
        "served" => set_once(&mut raw.served, flag_or_bool(meta)?, meta, "served"),
        "deprecated" => {
            let warning = if meta.input.peek(syn::Token![=]) { string(meta)?.value() } else { String::new() };
            set_once(&mut raw.deprecated, warning, meta, "deprecated")
        }
        "derive" => {
            raw.derives.push(string(meta)?.parse::<Path>()?);
            Ok(())
        }
        "doc" => set_once(&mut raw.doc, string(meta)?.value(), meta, "doc"),
        "rbac" => {
            raw.rbac.push(parse_rbac(meta)?);
            Ok(())
        }
        "owns" => {
            raw.owns.push(parse_related(meta, "owns")?);
            Ok(())
        }
        "watches" => {
            raw.watches.push(parse_related(meta, "watches")?);
            Ok(())
        }
        "finalizer" => {
            let name = if meta.input.peek(syn::Token![=]) { Some(string(meta)?) } else { None };
            set_once(&mut raw.finalizer, name, meta, "finalizer")
        }
        "webhook" => {
            let parsed = webhook::parse(meta)?;
            webhook::check_unique(&raw.webhooks, &parsed)?;
            raw.webhooks.push(parsed);
            Ok(())
        }
        _ if Family::Crd.contains(&key) => crd_keys::parse(&mut raw.crd, meta, &key),
        // Schema markers on the spec type belong to `#[derive(rop::JsonSchema)]`.
        _ if schema_attrs::is_type_key(&key) => schema_attrs::skip_value(meta),
        _ => Err(meta.error(suggest::unknown_type_key(&key))),
    }
}

/// Parses and checks the `#[rop(...)]` attributes of `input`.
///
/// # Errors
/// Every problem found, each pointing at its tokens: unknown or repeated keys, missing
/// `group`/`version`/`kind`, names that break the Kubernetes naming rules, a scale subresource
/// without status.
pub fn parse(input: &DeriveInput) -> syn::Result<KindAttrs> {
    let mut raw = Raw::default();
    let mut errors = Errors::default();
    let mut seen = false;
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("rop")) {
        seen = true;
        if let Err(e) = attr.parse_nested_meta(|meta| parse_key(&mut raw, &meta)) {
            errors.push(e);
        }
    }
    if !seen {
        return Err(syn::Error::new_spanned(
            &input.ident,
            "#[derive(CustomResource)] needs #[rop(group = \"...\", version = \"...\", kind = \"...\")] on the spec type",
        ));
    }
    let required = |lit: Option<LitStr>, key: &str, errors: &mut Errors| {
        lit.or_else(|| {
            errors.push(syn::Error::new_spanned(&input.ident, format!("#[rop(...)] needs `{key} = \"...\"`")));
            None
        })
    };
    let group = required(raw.group, "group", &mut errors);
    let version = required(raw.version, "version", &mut errors);
    let kind = required(raw.kind, "kind", &mut errors);
    let mut check = |lit: &Option<LitStr>, what: &str, rule: names::Rule| {
        if let Some(lit) = lit
            && let Err(e) = names::check(lit, what, rule)
        {
            errors.push(e);
        }
    };
    check(&group, "group", names::check_group);
    check(&version, "version", names::check_version);
    check(&kind, "kind", names::check_kind);
    check(&raw.plural, "plural", names::check_resource_name);
    check(&raw.singular, "singular", names::check_resource_name);
    if let Some(Some(name)) = &raw.finalizer
        && let Err(e) = names::check(name, "finalizer", names::check_finalizer)
    {
        errors.push(e);
    }
    if let Some(kind) = &kind
        && input.ident == kind.value()
    {
        errors.push(syn::Error::new(
            kind.span(),
            format!(
                "kind \"{0}\" is the name of the type deriving CustomResource; the derive goes on the spec: rename the type to {0}Spec",
                kind.value()
            ),
        ));
    }
    if let Some((_, span)) = &raw.scale
        && raw.status.is_none()
    {
        errors.push(syn::Error::new(*span, "scale(...) needs a status subresource: add `status = \"...Status\"`"));
    }
    if let Some(e) = errors.0 {
        return Err(e);
    }
    let (group, version, kind) = (group.unwrap().value(), version.unwrap().value(), kind.unwrap().value());
    let singular = raw.singular.map(|s| s.value()).unwrap_or_else(|| kind.to_ascii_lowercase());
    // From the kind, not the singular: controller-gen pluralises the lower-cased kind.
    let plural = raw.plural.map(|p| p.value()).unwrap_or_else(|| rop_names::plural(&kind.to_ascii_lowercase()));
    let webhooks = raw.webhooks.into_iter().map(|w| w.finish(&group, &version, &kind)).collect();
    // kubebuilder's examples name a kind's finalizer after its group (`cache.example.com/finalizer`).
    let finalizer = raw.finalizer.map(|name| name.map_or_else(|| format!("{group}/finalizer"), |n| n.value()));
    Ok(KindAttrs {
        group,
        version,
        kind,
        plural,
        singular,
        namespaced: raw.namespaced.unwrap_or(true),
        status: raw.status,
        short_names: raw.short_names,
        categories: raw.categories,
        printer_columns: raw.printer_columns,
        scale: raw.scale,
        storage: raw.storage.unwrap_or(false),
        served: raw.served.unwrap_or(true),
        deprecated: raw.deprecated,
        derives: raw.derives,
        doc: raw.doc,
        rbac: raw.rbac,
        owns: raw.owns,
        watches: raw.watches,
        webhooks,
        finalizer,
        crd: raw.crd,
    })
}
