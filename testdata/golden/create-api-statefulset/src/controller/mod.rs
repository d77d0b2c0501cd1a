// Copyright 2026 The Memcached Authors.
// SPDX-License-Identifier: Apache-2.0

//! Controllers, one module per kind (`rop create api` adds them).

pub mod redis;
// +rop:scaffold:controller-modules
