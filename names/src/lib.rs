//! Kubernetes name rules and the plural of a kind, in one place for every part of rop: the
//! derive checks names at compile time, the CLI before it scaffolds, the verifier in CRDs, and
//! all three pluralise a kind the same way.
//!
//! The formats are apimachinery's (`k8s.io/apimachinery/pkg/util/validation`); the plural
//! follows kubebuilder's (the `flect` rules it applies to a lower-cased kind).

#![deny(missing_docs)]

/// `[a-z]([-a-z0-9]*[a-z0-9])?`, at most 63 characters: a DNS-1035 label (CRD versions and
/// plural names).
pub fn is_dns1035_label(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= 63
        && b[0].is_ascii_lowercase()
        && b.iter().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
        && b[b.len() - 1] != b'-'
}

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?`, at most 63 characters: a DNS-1123 label (project and
/// object names).
pub fn is_dns1123_label(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= 63
        && b.iter().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
        && b[0] != b'-'
        && b[b.len() - 1] != b'-'
}

/// Dot-separated DNS-1123 labels, at most 253 characters: a DNS-1123 subdomain (API groups,
/// domains).
pub fn is_dns1123_subdomain(s: &str) -> bool {
    s.len() <= 253 && s.split('.').all(is_dns1123_label)
}

/// `[prefix/]name` where the optional prefix is a DNS-1123 subdomain and the name is 1–63
/// characters of `[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?`: a qualified name (label keys,
/// finalizers), apimachinery's `IsQualifiedName`.
pub fn is_qualified_name(s: &str) -> bool {
    let (prefix, name) = match s.split_once('/') {
        Some((prefix, name)) => (Some(prefix), name),
        None => (None, s),
    };
    let b = name.as_bytes();
    let name_ok = !b.is_empty()
        && b.len() <= 63
        && b[0].is_ascii_alphanumeric()
        && b[b.len() - 1].is_ascii_alphanumeric()
        && b.iter().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'));
    name_ok && prefix.is_none_or(|p| !p.is_empty() && is_dns1123_subdomain(p))
}

/// Empty, or 1–63 characters of `[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?`: a label value,
/// apimachinery's `IsValidLabelValue`.
pub fn is_label_value(s: &str) -> bool {
    let b = s.as_bytes();
    b.is_empty()
        || b.len() <= 63
            && b[0].is_ascii_alphanumeric()
            && b[b.len() - 1].is_ascii_alphanumeric()
            && b.iter().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
}

/// Words whose plural is not made by a rule, and words that are their own plural.
const IRREGULAR: [(&str, &str); 8] = [
    ("person", "people"),
    ("child", "children"),
    ("index", "indices"),
    ("matrix", "matrices"),
    ("vertex", "vertices"),
    ("policy", "policies"),
    ("endpoints", "endpoints"),
    ("data", "data"),
];

/// The English plural of a lower-cased kind, as kubebuilder gives it for the common cases: the
/// irregular words above (also at the end of a longer name: `salesperson` → `salespeople`),
/// `-s`/`-x`/`-z`/`-ch`/`-sh` → `+es`, consonant + `y` → `-ies`, otherwise `+s`. `-f`/`-fe`
/// stay regular (`proofs`, `safes`). Anything else needs an explicit plural.
pub fn plural(singular: &str) -> String {
    if let Some((word, plural)) = IRREGULAR.iter().find(|(word, _)| singular.ends_with(word)) {
        return format!("{}{plural}", &singular[..singular.len() - word.len()]);
    }
    let consonant_y = singular.ends_with('y') && !singular[..singular.len() - 1].ends_with(['a', 'e', 'i', 'o', 'u']);
    if ["s", "x", "z", "ch", "sh"].iter().any(|end| singular.ends_with(end)) {
        format!("{singular}es")
    } else if consonant_y {
        format!("{}ies", &singular[..singular.len() - 1])
    } else {
        format!("{singular}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_values() {
        for good in ["", "a", "redis-operator", "v1.2_3", &"x".repeat(63)] {
            assert!(is_label_value(good), "{good:?}");
        }
        for bad in ["-a", "a-", "a b", "a/b", ".", &"x".repeat(64)] {
            assert!(!is_label_value(bad), "{bad:?}");
        }
    }

    #[test]
    fn plurals() {
        let cases = [
            ("memcached", "memcacheds"),
            ("rediscluster", "redisclusters"),
            ("ingress", "ingresses"),
            ("policy", "policies"),
            ("networkpolicy", "networkpolicies"),
            ("gateway", "gateways"),
            ("box", "boxes"),
            ("batch", "batches"),
            ("person", "people"),
            ("salesperson", "salespeople"),
            ("endpoints", "endpoints"),
            ("proof", "proofs"),
            ("loadbalancer", "loadbalancers"),
        ];
        for (singular, expected) in cases {
            assert_eq!(plural(singular), expected, "{singular}");
        }
    }

    #[test]
    fn formats() {
        assert!(is_dns1035_label("foos"));
        assert!(is_dns1035_label("v1alpha1"));
        for bad in ["", "Foos", "2foos", "my_foos", "foo-", "v1.0"] {
            assert!(!is_dns1035_label(bad), "{bad}");
        }
        assert!(is_dns1123_label("2fa"));
        assert!(!is_dns1123_label(&"a".repeat(64)));
        assert!(is_dns1123_subdomain("batch.example.com"));
        assert!(is_dns1123_subdomain("2fa.example.com"));
        for bad in ["Example.com", "a..b", ".a", "a-.b"] {
            assert!(!is_dns1123_subdomain(bad), "{bad}");
        }
        let long = vec!["a".repeat(63); 4].join(".");
        assert!(!is_dns1123_subdomain(&format!("{long}.com")), "more than 253 characters");
    }

    #[test]
    fn qualified_names() {
        for good in ["example.com/finalizer", "finalizer", "a", "x.io/A_b.c-9", "kubernetes"] {
            assert!(is_qualified_name(good), "{good}");
        }
        let long_name = format!("example.com/{}", "a".repeat(64));
        for bad in ["", "example.com/", "/finalizer", "Example.com/f", "example.com/-f", "a/b/c", &long_name] {
            assert!(!is_qualified_name(bad), "{bad}");
        }
    }
}
