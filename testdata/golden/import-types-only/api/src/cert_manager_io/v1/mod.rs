// Copyright 2026.
// SPDX-License-Identifier: Apache-2.0

//! Version `v1` of the `cert-manager.io` API group.

mod certificate;
pub use certificate::*;
// +rop:scaffold:kinds
