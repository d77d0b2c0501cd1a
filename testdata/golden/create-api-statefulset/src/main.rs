// Copyright 2026 The Memcached Authors.
// SPDX-License-Identifier: Apache-2.0

//! The memcached-operator manager: runs the controllers and the webhooks. rop's runtime serves
//! the probes and the metrics, elects a leader and shuts down cleanly (see `--help`).

use clap::Parser;
use rop::manager::{Manager, Options};

use memcached_operator::controller::redis::RedisReconciler;
use memcached_operator::webhook;
// +rop:scaffold:imports

/// Command-line flags: the manager's, and the operator's own.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Args {
    #[command(flatten)]
    manager: Options,
    // TODO(user): add your own flags.
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let mut manager = Manager::new(env!("CARGO_PKG_NAME"), args.manager);
    manager.add_controller(RedisReconciler);
    // +rop:scaffold:controllers
    manager.add_webhooks(webhook::server()?);
    manager.run().await?;
    Ok(())
}
