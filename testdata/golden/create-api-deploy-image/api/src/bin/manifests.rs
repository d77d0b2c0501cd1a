// Copyright 2026 The Memcached Authors.
// SPDX-License-Identifier: Apache-2.0

//! Prints this project's CRDs and RBAC rules for `rop generate` (`make manifests`).
//!
//! It links the api crate only, so generating manifests never builds the controllers.

use memcached_operator_api::v1alpha1;
// +rop:scaffold:imports

fn main() {
    rop::manifests::main(&[
        rop::manifests::kind::<v1alpha1::Memcached>(),
        // +rop:scaffold:manifest-kinds
    ]);
}
