//! Kubernetes name formats (`k8s.io/apimachinery/pkg/util/validation`).

/// The API server's explanation of a DNS-1035 label.
pub(crate) const DNS1035_MSG: &str = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', \
start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name', or 'abc-123', regex used \
for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

/// The API server's explanation of a DNS-1123 subdomain.
pub(crate) const DNS1123_SUBDOMAIN_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric \
characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for \
validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

/// `[a-z]([-a-z0-9]*[a-z0-9])?`, at most 63 characters.
pub fn is_dns1035_label(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= 63
        && b[0].is_ascii_lowercase()
        && b.iter().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
        && b[b.len() - 1] != b'-'
}

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?`, at most 63 characters.
pub fn is_dns1123_label(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= 63
        && b.iter().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
        && b[0] != b'-'
        && b[b.len() - 1] != b'-'
}

/// Dot-separated DNS-1123 labels, at most 253 characters.
pub fn is_dns1123_subdomain(s: &str) -> bool {
    s.len() <= 253 && s.split('.').all(is_dns1123_label)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert!(is_dns1035_label("foos"));
        assert!(is_dns1035_label("v1alpha1"));
        for bad in ["", "Foos", "2foos", "my_foos", "foo-", "v1.0"] {
            assert!(!is_dns1035_label(bad), "{bad}");
        }
        assert!(is_dns1123_subdomain("batch.example.com"));
        assert!(is_dns1123_subdomain("2fa.example.com"));
        for bad in ["Example.com", "a..b", ".a", "a-.b"] {
            assert!(!is_dns1123_subdomain(bad), "{bad}");
        }
    }
}
