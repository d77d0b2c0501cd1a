// Copyright 2026 The Memcached Authors.
// SPDX-License-Identifier: Apache-2.0

//! The memcached-operator operator as a library: its controllers and webhooks, which the manager
//! (`src/main.rs`) runs and the tests use.

pub mod controller;
pub mod webhook;
