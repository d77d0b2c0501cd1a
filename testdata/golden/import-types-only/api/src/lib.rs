// Copyright 2026.
// SPDX-License-Identifier: Apache-2.0

//! API types (custom resources) of shop-operator: one module per version, one file per kind.
//!
//! Edit the types, then run `make manifests` to regenerate the CRDs and RBAC under `config/`.

pub mod cert_manager_io;
// +rop:scaffold:api-versions
