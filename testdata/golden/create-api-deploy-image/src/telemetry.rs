// Copyright 2026 The Memcached Authors.
// SPDX-License-Identifier: Apache-2.0

//! Logging setup.

use tracing_subscriber::EnvFilter;

/// Installs the global `tracing` subscriber.
///
/// Log levels come from `RUST_LOG` (default `info`), so levels can be set per
/// module, e.g. `RUST_LOG=info,memcached_operator::controller=debug`.
pub fn init() {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    // TODO(user): switch to `.json()` (tracing-subscriber's "json" feature) for structured logs.
    tracing_subscriber::fmt().with_env_filter(filter).init();
}
