// Copyright 2026 The Memcached Authors.
// SPDX-License-Identifier: Apache-2.0

//! Version `v1alpha1` of the `cache.example.com` API group.

mod memcached;
pub use memcached::*;
// +rop:scaffold:kinds
