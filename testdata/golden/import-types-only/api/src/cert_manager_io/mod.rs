// Copyright 2026.
// SPDX-License-Identifier: Apache-2.0

//! The `cert-manager.io` API group: one module per version.

pub mod v1;
// +rop:scaffold:group-versions
