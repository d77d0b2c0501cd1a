//! `webhook(...)` in `#[rop(...)]`: the fields of controller-gen's `+kubebuilder:webhook` marker,
//! checked against the API server's rules for `admissionregistration.k8s.io/v1` webhooks.

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::{Ident, LitInt, LitStr};

use crate::keys::Family;
use crate::selector::{self, Selector};
use crate::{names, suggest};

/// One parsed `webhook(...)`, before the kind's defaults are known.
pub struct RawWebhook {
    pub span: Span,
    pub mutating: bool,
    pub path: Option<String>,
    pub name: Option<String>,
    pub operations: Option<Vec<String>>,
    pub settings: Settings,
}

/// A webhook with every default filled in.
pub struct Webhook {
    pub mutating: bool,
    pub path: String,
    pub name: String,
    pub operations: Vec<String>,
    pub settings: Settings,
}

/// The fields of a `webhook(...)` whose defaults do not depend on the kind, so they are final
/// once parsed.
pub struct Settings {
    pub failure_policy: String,
    pub side_effects: String,
    pub admission_review_versions: Vec<String>,
    pub timeout_seconds: Option<i32>,
    pub match_policy: Option<String>,
    pub reinvocation_policy: Option<String>,
    pub namespace_selector: Option<Selector>,
    pub object_selector: Option<Selector>,
}

impl Default for Settings {
    /// The fields a `webhook(...)` does not write: a webhook that fails or times out fails the
    /// request (`Fail`), it has no side effects (`None`), and it reads `admission.k8s.io/v1`
    /// AdmissionReviews; the others are left to the API server's defaults.
    fn default() -> Self {
        Settings {
            failure_policy: "Fail".into(),
            side_effects: "None".into(),
            admission_review_versions: vec!["v1".into()],
            timeout_seconds: None,
            match_policy: None,
            reinvocation_policy: None,
            namespace_selector: None,
            object_selector: None,
        }
    }
}

/// Checks that `value` is one of `allowed`, naming `key` in the error.
fn one_of(lit: &LitStr, key: &str, allowed: &[&str]) -> syn::Result<String> {
    let value = lit.value();
    if allowed.contains(&value.as_str()) {
        Ok(value)
    } else {
        Err(syn::Error::new(lit.span(), format!("{key} \"{value}\" is not one of {}", allowed.join(", "))))
    }
}

fn string(meta: &ParseNestedMeta) -> syn::Result<LitStr> {
    meta.value()?.parse::<LitStr>()
}

/// Parses `webhook(...)`.
pub fn parse(meta: &ParseNestedMeta) -> syn::Result<RawWebhook> {
    let span = meta.path.get_ident().map(Ident::span).unwrap_or_else(Span::call_site);
    let mut kind: Option<(bool, Span)> = None;
    let mut w =
        RawWebhook { span, mutating: false, path: None, name: None, operations: None, settings: Settings::default() };
    let mut reinvocation_span = None;
    meta.parse_nested_meta(|inner| {
        let key = inner.path.get_ident().map(ToString::to_string).unwrap_or_default();
        let key_span = inner.path.get_ident().map(Ident::span).unwrap_or(span);
        match key.as_str() {
            "mutating" | "validating" => {
                if kind.is_some() {
                    return Err(inner.error("give one of `mutating` and `validating` in webhook(...), once"));
                }
                kind = Some((key == "mutating", key_span));
            }
            "path" => {
                let lit = string(&inner)?;
                let path = lit.value();
                if !path.starts_with('/') {
                    return Err(syn::Error::new(lit.span(), "webhook path must start with '/'"));
                }
                // The API server requires every segment of a webhook path to be a DNS-1123 subdomain.
                if path != "/" && !path[1..].split('/').all(rop_names::is_dns1123_subdomain) {
                    return Err(syn::Error::new(
                        lit.span(),
                        format!("webhook path \"{path}\": each segment must be lower-case letters, digits, '-' and '.', e.g. \"/mutate-memcached\""),
                    ));
                }
                w.path = Some(lit.value());
            }
            "name" => {
                let lit = string(&inner)?;
                names::check(&lit, "webhook name", names::check_webhook_name)?;
                w.name = Some(lit.value());
            }
            "failure_policy" => w.settings.failure_policy = one_of(&string(&inner)?, "failure_policy", &["Fail", "Ignore"])?,
            "side_effects" => {
                // admissionregistration.k8s.io/v1 allows only these two.
                w.settings.side_effects = one_of(&string(&inner)?, "side_effects", &["None", "NoneOnDryRun"])?;
            }
            "operations" => {
                let (values, lit_span) = list(&inner)?;
                for value in &values {
                    if !["CREATE", "UPDATE", "DELETE", "CONNECT", "*"].contains(&value.as_str()) {
                        return Err(syn::Error::new(
                            lit_span,
                            format!("operation \"{value}\" is not one of CREATE, UPDATE, DELETE, CONNECT, *"),
                        ));
                    }
                }
                if values.is_empty() {
                    return Err(syn::Error::new(lit_span, "operations = [...] needs at least one operation"));
                }
                w.operations = Some(values);
            }
            "admission_review_versions" => {
                let (values, lit_span) = list(&inner)?;
                if values.is_empty() || values.iter().any(|v| v != "v1" && v != "v1beta1") {
                    return Err(syn::Error::new(
                        lit_span,
                        "admission_review_versions lists \"v1\" and/or \"v1beta1\", at least one",
                    ));
                }
                w.settings.admission_review_versions = values;
            }
            "timeout_seconds" => {
                let lit = inner.value()?.parse::<LitInt>()?;
                let seconds = lit.base10_parse::<i32>()?;
                if !(1..=30).contains(&seconds) {
                    return Err(syn::Error::new(lit.span(), "timeout_seconds must be between 1 and 30"));
                }
                w.settings.timeout_seconds = Some(seconds);
            }
            "match_policy" => {
                w.settings.match_policy = Some(one_of(&string(&inner)?, "match_policy", &["Exact", "Equivalent"])?);
            }
            "reinvocation_policy" => {
                reinvocation_span = Some(key_span);
                w.settings.reinvocation_policy = Some(one_of(&string(&inner)?, "reinvocation_policy", &["Never", "IfNeeded"])?);
            }
            "namespace_selector" => w.settings.namespace_selector = Some(selector::parse(&string(&inner)?)?),
            "object_selector" => w.settings.object_selector = Some(selector::parse(&string(&inner)?)?),
            _ => {
                let expected = suggest::expected(&key, Family::Webhook);
                return Err(inner.error(format!("unknown key `{key}` in webhook(...): {expected}")));
            }
        }
        Ok(())
    })?;
    let Some((mutating, _)) = kind else {
        return Err(syn::Error::new(span, "webhook(...) needs `mutating` (defaulting) or `validating`"));
    };
    w.mutating = mutating;
    if let Some(span) = reinvocation_span
        && !mutating
    {
        return Err(syn::Error::new(span, "reinvocation_policy is for mutating webhooks only"));
    }
    Ok(w)
}

/// A list `["A", "B"]` and its span.
fn list(meta: &ParseNestedMeta) -> syn::Result<(Vec<String>, Span)> {
    let value = meta.value()?;
    let span = value.span();
    let content;
    syn::bracketed!(content in value);
    let items = content.parse_terminated(|p| p.parse::<LitStr>(), syn::Token![,])?;
    Ok((items.iter().map(LitStr::value).collect(), span))
}

/// Checks that `parsed` is not a second webhook of its kind (mutating or validating) beside
/// `existing`: a kind version has at most one of each, whose default path and name say which
/// it is.
///
/// # Errors
/// `existing` has a webhook of the same kind; the error points at `parsed`.
pub fn check_unique(existing: &[RawWebhook], parsed: &RawWebhook) -> syn::Result<()> {
    if existing.iter().any(|w| w.mutating == parsed.mutating) {
        let which = if parsed.mutating { "mutating" } else { "validating" };
        return Err(syn::Error::new(
            parsed.span,
            format!("a kind version has at most one {which} webhook: merge the two webhook({which}, ...)"),
        ));
    }
    Ok(())
}

impl RawWebhook {
    /// Fills in the defaults that depend on the kind: kubebuilder's path
    /// (`/mutate-<group with '-'>-<version>-<kind>`, `/validate-...`), a name
    /// (`m<kind>-<version>.<group>` or `v...`) and the operations (`CREATE`, `UPDATE`).
    pub fn finish(self, group: &str, version: &str, kind: &str) -> Webhook {
        let lower = kind.to_ascii_lowercase();
        let (verb, letter) = if self.mutating { ("mutate", 'm') } else { ("validate", 'v') };
        Webhook {
            mutating: self.mutating,
            path: self.path.unwrap_or_else(|| format!("/{verb}-{}-{version}-{lower}", group.replace('.', "-"))),
            name: self.name.unwrap_or_else(|| format!("{letter}{lower}-{version}.{group}")),
            operations: self.operations.unwrap_or_else(|| vec!["CREATE".into(), "UPDATE".into()]),
            settings: self.settings,
        }
    }
}
