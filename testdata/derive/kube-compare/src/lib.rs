//! Test-only crate; see tests/kube_derive.rs.
