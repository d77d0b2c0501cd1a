//! Name rules the derive checks at compile time, so a bad name never reaches a cluster, and
//! the errors that say why. The formats are `rop_names`' (apimachinery's validation, shared
//! with the CLI and the CRD verifier); each `check_*` here gives the reason a value breaks
//! one, in the derive's words, and [`check`] turns that reason into an error at the literal.

use syn::LitStr;

/// A name rule: `Some(reason)` when the value breaks it, the reason reading on from
/// `what "value"`.
pub type Rule = fn(&str) -> Option<&'static str>;

/// `Ok` when `rule` accepts the value of `lit`, else the error `{what} "{value}" {reason}`
/// pointing at `lit`.
pub fn check(lit: &LitStr, what: &str, rule: Rule) -> syn::Result<()> {
    match rule(&lit.value()) {
        Some(reason) => Err(syn::Error::new(lit.span(), format!("{what} \"{}\" {reason}", lit.value()))),
        None => Ok(()),
    }
}

/// A custom kind's API group: a DNS-1123 subdomain with at least one dot (a custom group is
/// always under the project's domain).
pub fn check_group(group: &str) -> Option<&'static str> {
    if !rop_names::is_dns1123_subdomain(group) {
        Some("must be a DNS-1123 subdomain: lower-case letters, digits, '-' and '.', e.g. \"cache.example.com\"")
    } else if !group.contains('.') {
        Some("must contain a dot: write the full group with its domain, e.g. \"cache.example.com\"")
    } else {
        None
    }
}

/// A built-in kind's API group: `""` (the core group) or a DNS-1123 subdomain; built-in
/// groups such as `apps` and `batch` have no dot.
pub fn check_builtin_group(group: &str) -> Option<&'static str> {
    (!group.is_empty() && !rop_names::is_dns1123_subdomain(group))
        .then_some("is not a DNS-1123 subdomain (the core group is \"\")")
}

/// A version: a DNS-1035 label.
pub fn check_version(version: &str) -> Option<&'static str> {
    (!rop_names::is_dns1035_label(version))
        .then_some("must be a DNS-1035 label such as \"v1\", \"v1alpha1\" or \"v2beta3\"")
}

/// A kind: UpperCamelCase ASCII letters and digits (Kubernetes API conventions; `rop_names`
/// has no rule for kinds).
pub fn check_kind(kind: &str) -> Option<&'static str> {
    let ok = kind.starts_with(|c: char| c.is_ascii_uppercase()) && kind.chars().all(|c| c.is_ascii_alphanumeric());
    (!ok).then_some("must be UpperCamelCase letters and digits, e.g. \"Memcached\"")
}

/// A plural or singular resource name: a DNS-1035 label, as the API server requires of a
/// CRD's names.
pub fn check_resource_name(name: &str) -> Option<&'static str> {
    (!rop_names::is_dns1035_label(name)).then_some("must be lower-case letters, digits and '-', starting with a letter")
}

/// A finalizer: a domain-qualified name such as `example.com/finalizer` (apimachinery's
/// qualified-name rule, with the prefix the API server warns about when it is missing).
pub fn check_finalizer(finalizer: &str) -> Option<&'static str> {
    let Some((domain, name)) = finalizer.split_once('/') else {
        return Some("is not a domain-qualified name: write `<your domain>/<name>`, e.g. \"example.com/finalizer\"");
    };
    if rop_names::is_qualified_name(finalizer) {
        None
    } else if !rop_names::is_dns1123_subdomain(domain) {
        Some("has a domain that is not a DNS-1123 subdomain: lower-case letters, digits, '-' and '.' before the '/'")
    } else if name.len() > 63 {
        Some("has a name longer than 63 characters after the '/'")
    } else {
        Some(
            "has a name that is not a qualified name after the '/': letters, digits, '-', '_' and '.', starting and ending with a letter or digit",
        )
    }
}

/// A webhook's name: a fully qualified name, a DNS-1123 subdomain of at least three labels, as
/// the API server requires of `admissionregistration.k8s.io/v1` webhook names.
pub fn check_webhook_name(name: &str) -> Option<&'static str> {
    if !rop_names::is_dns1123_subdomain(name) {
        Some("is not a DNS subdomain: lower-case letters, digits, '-' and '.'")
    } else if name.split('.').count() < 3 {
        Some("needs at least three dot-separated parts, e.g. \"mmemcached-v1.cache.example.com\"")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(check_group("cache.example.com"), None);
        assert!(check_group("cache").unwrap().starts_with("must contain a dot"));
        assert!(check_group("Cache.example.com").unwrap().starts_with("must be a DNS-1123 subdomain"));
        assert_eq!(check_builtin_group(""), None);
        assert_eq!(check_builtin_group("apps"), None);
        assert!(check_builtin_group("Apps").is_some());
        assert_eq!(check_version("v1alpha1"), None);
        assert!(check_version("1alpha").is_some());
        assert_eq!(check_kind("Memcached"), None);
        assert!(check_kind("memcached").is_some());
        assert!(check_resource_name("Memcacheds").is_some());
        assert_eq!(check_webhook_name("mmemcached-v1.cache.example.com"), None);
        assert!(check_webhook_name("webhook.example").unwrap().starts_with("needs at least three"));
    }

    #[test]
    fn a_finalizer_s_error_names_the_part_that_is_wrong() {
        assert_eq!(check_finalizer("example.com/finalizer"), None);
        assert!(check_finalizer("cleanup").unwrap().starts_with("is not a domain-qualified name"));
        assert!(check_finalizer("Example.com/fin").unwrap().starts_with("has a domain that is not a DNS-1123"));
        assert!(check_finalizer("/fin").unwrap().starts_with("has a domain that is not a DNS-1123"));
        let long = format!("example.com/{}", "a".repeat(64));
        assert_eq!(check_finalizer(&long), Some("has a name longer than 63 characters after the '/'"));
        assert!(check_finalizer("example.com/x y").unwrap().starts_with("has a name that is not a qualified name"));
        assert!(check_finalizer("example.com/").unwrap().starts_with("has a name that is not a qualified name"));
    }

    #[test]
    fn the_error_names_the_value_and_the_reason() {
        let lit = LitStr::new("cache", proc_macro2::Span::call_site());
        let error = check(&lit, "group", check_group).unwrap_err().to_string();
        assert_eq!(
            error,
            "group \"cache\" must contain a dot: write the full group with its domain, e.g. \"cache.example.com\""
        );
    }
}
