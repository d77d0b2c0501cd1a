// Copyright 2026 The Memcached Authors.
// SPDX-License-Identifier: Apache-2.0

//! Version `v1alpha1` of the `cache.example.com` API group.

mod memcached;
pub use memcached::*;
mod redis_cluster;
pub use redis_cluster::*;
// +rop:scaffold:kinds
