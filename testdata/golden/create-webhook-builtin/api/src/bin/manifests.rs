// Copyright 2026.
// SPDX-License-Identifier: Apache-2.0

//! Prints this project's CRDs and RBAC rules for `rop generate` (`make manifests`).
//!
//! It links the api crate only, so generating manifests never builds the controllers.

use memcached_operator_api::v1;
use memcached_operator_api::v1beta1;
// +rop:scaffold:imports

fn main() {
    rop::manifests::main(&[
        rop::manifests::kind::<v1::Memcached>(),
        rop::manifests::kind::<v1beta1::Memcached>(),
        rop::manifests::builtin::<memcached_operator_api::builtin::DeploymentV1>(),
        rop::manifests::builtin::<memcached_operator_api::builtin::PodV1>(),
        // +rop:scaffold:manifest-kinds
    ]);
}
