//! Kubernetes name formats (`k8s.io/apimachinery/pkg/util/validation`): the checks are
//! `rop_names`' (shared with the derive and the CLI), the messages the API server's.

/// The API server's explanation of a DNS-1035 label.
pub(crate) const DNS1035_MSG: &str = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', \
start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name', or 'abc-123', regex used \
for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

/// The API server's explanation of a DNS-1123 subdomain.
pub(crate) const DNS1123_SUBDOMAIN_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric \
characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for \
validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

pub use rop_names::{is_dns1035_label, is_dns1123_label, is_dns1123_subdomain};
