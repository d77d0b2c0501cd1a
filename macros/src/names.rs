//! Name rules the derive checks at compile time, so a bad name never reaches a cluster.
//! Sources: DNS-1123 subdomain (API group), DNS-1035 label (version), Kubernetes API
//! conventions (kinds are UpperCamelCase; plurals and singulars are lower-case).

/// Whether `name` is a DNS-1123 subdomain: dot-separated labels of lower-case letters, digits
/// and '-' (not at either end), at most 63 characters each, 253 in all.
pub fn is_dns_subdomain(name: &str) -> bool {
    rop_names::is_dns1123_subdomain(name)
}

/// `Some(reason)` when `group` is not a DNS-1123 subdomain with at least one dot.
pub fn check_group(group: &str) -> Option<&'static str> {
    if !is_dns_subdomain(group) {
        Some("must be a DNS-1123 subdomain: lower-case letters, digits, '-' and '.', e.g. \"cache.example.com\"")
    } else if !group.contains('.') {
        Some("must contain a dot: write the full group with its domain, e.g. \"cache.example.com\"")
    } else {
        None
    }
}

/// `Some(reason)` when `version` is not a DNS-1035 label.
pub fn check_version(version: &str) -> Option<&'static str> {
    (!rop_names::is_dns1035_label(version))
        .then_some("must be a DNS-1035 label such as \"v1\", \"v1alpha1\" or \"v2beta3\"")
}

/// `Some(reason)` when `kind` is not UpperCamelCase ASCII.
pub fn check_kind(kind: &str) -> Option<&'static str> {
    let ok = kind.starts_with(|c: char| c.is_ascii_uppercase()) && kind.chars().all(|c| c.is_ascii_alphanumeric());
    (!ok).then_some("must be UpperCamelCase letters and digits, e.g. \"Memcached\"")
}

/// `Some(reason)` when `name` (a plural or singular) is not a lower-case DNS-1035 label.
pub fn check_resource_name(name: &str) -> Option<&'static str> {
    check_version(name).map(|_| "must be lower-case letters, digits and '-', starting with a letter")
}

/// The default plural of a lower-cased kind, the one `rop create api` writes too
/// (`rop_names::plural`); other plurals are given with `plural = "..."`.
pub fn default_plural(singular: &str) -> String {
    rop_names::plural(singular)
}

/// `Some(reason)` when `finalizer` is not a domain-qualified name such as
/// `example.com/finalizer` (apimachinery's qualified-name rule; the API server warns about a
/// finalizer without a domain).
pub fn check_finalizer(finalizer: &str) -> Option<&'static str> {
    (!finalizer.contains('/') || !rop_names::is_qualified_name(finalizer))
        .then_some("is not a domain-qualified name: write `<your domain>/<name>`, e.g. \"example.com/finalizer\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plurals_are_the_clis() {
        for (singular, plural) in [("memcached", "memcacheds"), ("ingress", "ingresses"), ("person", "people")] {
            assert_eq!(default_plural(singular), plural);
        }
    }

    #[test]
    fn names() {
        assert_eq!(check_group("cache.example.com"), None);
        assert!(check_group("cache").unwrap().starts_with("must contain a dot"));
        assert!(check_group("Cache.example.com").unwrap().starts_with("must be a DNS-1123 subdomain"));
        assert_eq!(check_version("v1alpha1"), None);
        assert!(check_version("1alpha").is_some());
        assert_eq!(check_kind("Memcached"), None);
        assert!(check_kind("memcached").is_some());
        assert!(check_resource_name("Memcacheds").is_some());
    }
}
