// Copyright 2026.
// SPDX-License-Identifier: Apache-2.0

//! Prints this project's CRDs and RBAC rules for `rop generate` (`make manifests`).
//!
//! It links the api crate only, so generating manifests never builds the controllers.

use shop_operator_api::v1;
use shop_operator_api::v1beta1;
// +rop:scaffold:imports

fn main() {
    rop::manifests::main(&[
        rop::manifests::kind::<v1::Widget>(),
        rop::manifests::kind::<v1beta1::Widget>(),
        // +rop:scaffold:manifest-kinds
    ]);
}
