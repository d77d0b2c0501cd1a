// Copyright 2026 The Memcached Authors.
// SPDX-License-Identifier: Apache-2.0

//! The memcached-operator operator as a library: the manager binary (`src/main.rs`) wires these
//! modules together, and tests use them directly.

pub mod controller;
pub mod leader;
pub mod metrics;
pub mod probes;
pub mod telemetry;
pub mod webhook;
