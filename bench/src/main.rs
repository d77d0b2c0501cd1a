//! `rop-operator-bench`: one run of the operator benchmark (see the library docs), printed as
//! one JSON line.
//!
//! ```text
//! rop-operator-bench --name rop --manager target/release/manager --crds config/crd/bases \
//!     --group cache.example.com --version v1alpha1 --kind Memcached --plural memcacheds \
//!     --objects 100 [--idle 30] [--timeout 300] [--env NAME=VALUE]... [--log FILE] \
//!     [--scenario work|faults] [--namespace-file true] [-- MANAGER ARGS...]
//! ```
//!
//! `--scenario faults` runs the fault benchmark (`rop_operator_bench::run_faults`) instead of
//! create, resize, heal, idle and restart.
//!
//! ```text
//! rop-operator-bench --scenario writes --objects 500 [--concurrency 16]
//! ```
//!
//! measures what one write of a Deployment costs the API server, by method
//! (`rop_operator_bench::run_writes`), and prints a JSON line per method.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, bail};
use rop_operator_bench::{Downtimes, Operator, Scenario, run, run_faults, run_writes};

fn main() -> anyhow::Result<()> {
    let mut flags = HashMap::new();
    let mut manager_args = Vec::new();
    let mut env = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--" {
            manager_args.extend(args.by_ref());
            break;
        }
        let Some(name) = arg.strip_prefix("--") else { bail!("unexpected argument {arg}: flags are --name value") };
        let value = args.next().with_context(|| format!("--{name} needs a value"))?;
        if name == "env" {
            let (key, value) = value.split_once('=').context("--env takes NAME=VALUE")?;
            env.push((key.to_string(), value.to_string()));
        } else {
            flags.insert(name.to_string(), value);
        }
    }
    if flags.get("scenario").is_some_and(|scenario| scenario == "writes") {
        return writes(flags);
    }
    let mut take = |name: &str| flags.remove(name).with_context(|| format!("--{name} is required"));
    let seconds = |value: String, name: &str| -> anyhow::Result<Duration> {
        Ok(Duration::from_secs(value.parse().with_context(|| format!("--{name} takes whole seconds"))?))
    };
    let operator = Operator {
        name: take("name")?,
        manager: PathBuf::from(take("manager")?),
        args: manager_args,
        env,
        crds: PathBuf::from(take("crds")?),
        log: take("log").ok().map(PathBuf::from),
        namespace_file: take("namespace-file").is_ok_and(|value| value == "true"),
        group: take("group")?,
        version: take("version")?,
        kind: take("kind")?,
        plural: take("plural")?,
    };
    let scenario = Scenario {
        objects: take("objects")?.parse().context("--objects takes a number")?,
        idle: seconds(take("idle").unwrap_or_else(|_| "30".into()), "idle")?,
        timeout: seconds(take("timeout").unwrap_or_else(|_| "300".into()), "timeout")?,
    };
    let faults = match take("scenario").as_deref() {
        Err(_) | Ok("work") => false,
        Ok("faults") => true,
        Ok(other) => bail!("--scenario is work or faults, not {other}"),
    };
    if let Some(unknown) = flags.keys().next() {
        bail!("unknown flag --{unknown}");
    }
    let report = if faults {
        run_faults(&operator, &scenario, Downtimes::BENCH)?.to_json()
    } else {
        run(&operator, &scenario)?.to_json()
    };
    println!("{report}");
    Ok(())
}

/// `--scenario writes`: a JSON line per write method.
fn writes(mut flags: HashMap<String, String>) -> anyhow::Result<()> {
    flags.remove("scenario");
    let objects =
        flags.remove("objects").context("--objects is required")?.parse().context("--objects takes a number")?;
    let concurrency = match flags.remove("concurrency") {
        Some(value) => value.parse().context("--concurrency takes a number")?,
        None => 16,
    };
    if let Some(unknown) = flags.keys().next() {
        bail!("unknown flag --{unknown} (--scenario writes takes --objects and --concurrency)");
    }
    for cost in run_writes(objects, concurrency)? {
        println!("{}", cost.to_json());
    }
    Ok(())
}
