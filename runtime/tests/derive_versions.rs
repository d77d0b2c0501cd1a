//! Versions of a kind merge into one CRD with exactly one storage version, sorted by name;
//! zero or two storage versions, or no served version, are errors that name the kind.

use kube_core::CustomResourceExt;
use rop::CustomResource;
use rop::crd::{MergeError, merge};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

mod v1 {
    use super::*;
    /// The stored version.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[rop(group = "cache.example.com", version = "v1", kind = "Memcached", storage)]
    pub struct MemcachedSpec {
        pub size: i32,
    }
}

mod v1beta1 {
    use super::*;
    /// An older version, still served.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[rop(group = "cache.example.com", version = "v1beta1", kind = "Memcached", deprecated = "use v1")]
    pub struct MemcachedSpec {
        pub replicas: i32,
    }
}

mod v1alpha1 {
    use super::*;
    /// A version no longer served, also marked storage by mistake.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[rop(group = "cache.example.com", version = "v1alpha1", kind = "Memcached", served = false, storage)]
    pub struct MemcachedSpec {
        pub count: i32,
    }
}

fn versions(
    crd: &k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition,
) -> Vec<(String, bool, bool)> {
    crd.spec.versions.iter().map(|v| (v.name.clone(), v.served, v.storage)).collect()
}

#[test]
fn versions_merge_sorted_with_one_storage_version() {
    let merged =
        merge(vec![v1beta1::Memcached::custom_resource_definition(), v1::Memcached::custom_resource_definition()])
            .unwrap();
    assert_eq!(merged.len(), 1);
    assert_eq!(versions(&merged[0]), [("v1".into(), true, true), ("v1beta1".into(), true, false)]);
    let beta = &merged[0].spec.versions[1];
    assert_eq!((beta.deprecated, beta.deprecation_warning.as_deref()), (Some(true), Some("use v1")));
    // On its own, a kind's only version is its storage version.
    assert!(v1beta1::Memcached::crd().spec.versions[0].storage);
}

#[test]
fn two_storage_versions_are_an_error() {
    let err =
        merge(vec![v1::Memcached::custom_resource_definition(), v1alpha1::Memcached::custom_resource_definition()])
            .unwrap_err();
    assert_eq!(
        err.to_string(),
        "kind Memcached.cache.example.com has 2 storage versions (v1, v1alpha1): keep #[rop(storage)] on exactly one"
    );
    assert_eq!(err.crd_name(), "memcacheds.cache.example.com");
}

#[test]
fn no_storage_version_is_an_error() {
    let err =
        merge(vec![v1beta1::Memcached::custom_resource_definition(), v1beta1::Memcached::custom_resource_definition()])
            .unwrap_err();
    assert!(matches!(err, MergeError::DuplicateVersion { .. }), "{err}");
    let mut unstored = v1::Memcached::custom_resource_definition();
    unstored.spec.versions[0].storage = false;
    let err = merge(vec![unstored, v1beta1::Memcached::custom_resource_definition()]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "kind Memcached.cache.example.com has no storage version: mark exactly one of its versions (v1, v1beta1) with #[rop(storage)]"
    );
}

#[test]
fn no_served_version_is_an_error() {
    let mut stored = v1alpha1::Memcached::custom_resource_definition();
    stored.spec.versions[0].served = false;
    let err = merge(vec![stored]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "kind Memcached.cache.example.com has no served version: remove #[rop(served = false)] from at least one of v1alpha1"
    );
}
