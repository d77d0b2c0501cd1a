#!/usr/bin/env bash
# Checks the public API of the crates a generated project depends on (rop-names, rop-core,
# rop, rop-testenv) against a release with cargo-semver-checks: a change that breaks
# users fails unless the workspace version says so (before 1.0, a minor bump; 0.2.0 -> 0.2.1
# must not break 0.2.0's users).
#
#   scripts/semver-check.sh [BASELINE]     BASELINE: a git revision (default: the newest tag v*)
#
# Run it before tagging a release, with the previous release's tag. It installs
# cargo-semver-checks (pinned below) with `cargo install` when it is missing: about 10 minutes
# on 2 cores (18 under load), 1.9 GB of memory. Each crate then takes about two and a half
# minutes (rustdoc of the baseline and of the working tree; rop with the features a
# generated manager uses). Without a baseline (no tag yet, and none given) it says so and
# checks nothing. CI (.ci/run) runs it after scripts/test.sh, against the newest tag; the
# README's test command does not, as the install alone is a fifth of a cold CI run, and
# `cargo test -p rop --test public_api` already fails on any change of the public API that
# public-api/ does not show.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"

SEMVER_CHECKS_VERSION="0.51.0"

log() { echo "semver-check: $*" >&2; }

baseline="${1:-$(git describe --tags --abbrev=0 --match 'v*' 2>/dev/null || true)}"
if [ -z "$baseline" ]; then
  log "no release tag (v*) and no baseline given: nothing to compare against"
  exit 0
fi
git rev-parse --verify --quiet "$baseline^{commit}" >/dev/null || {
  log "error: $baseline is not a git revision of this repository"
  exit 1
}

installed="$(cargo semver-checks --version 2>/dev/null || true)"
if [ "$installed" != "cargo-semver-checks $SEMVER_CHECKS_VERSION" ]; then
  log "installing cargo-semver-checks $SEMVER_CHECKS_VERSION (cargo install, about 10 minutes)"
  cargo install --quiet --locked cargo-semver-checks --version "$SEMVER_CHECKS_VERSION"
fi

export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$repo/target}/semver"
log "comparing with $baseline ($(git rev-parse --short "$baseline"))"
# rop with a generated manager's features (the controller, the manager and the webhook
# server, at the Kubernetes version its api crate names); the others with their defaults.
# rop-macros exports only derive macros, which rustdoc's JSON (and so cargo-semver-checks)
# does not describe: public-api/rop-macros.txt is their check.
cargo semver-checks -p rop --baseline-rev "$baseline" --only-explicit-features --features manager,v1_37
cargo semver-checks -p rop-names -p rop-core -p rop-testenv --baseline-rev "$baseline" --default-features
