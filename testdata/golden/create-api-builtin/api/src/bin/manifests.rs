// Copyright 2026 The Memcached Authors.
// SPDX-License-Identifier: Apache-2.0

//! Prints this project's CRDs and RBAC rules for `rop generate` (`make manifests`).
//!
//! It links the api crate only, so generating manifests never builds the controllers.

// +rop:scaffold:imports

fn main() {
    rop::manifests::main(&[
        rop::manifests::builtin::<memcached_operator_api::builtin::ServiceAccountV1>(),
        rop::manifests::builtin::<memcached_operator_api::builtin::DeploymentV1>(),
        // +rop:scaffold:manifest-kinds
    ]);
}
