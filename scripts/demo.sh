#!/usr/bin/env bash
# The main job: build rop, scaffold the Memcached operator into a fresh folder, generate its
# manifests, build it, run its tests, and show what was made.
#
#   scripts/demo.sh [DIR]     (default: a new temporary folder)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
dir="${1:-$(mktemp -d)/memcached-operator}"

echo "==> building rop"
cargo build --quiet --release --manifest-path "$repo/Cargo.toml" --bin rop
rop="${CARGO_TARGET_DIR:-$repo/target}/release/rop"
# Generated projects share one build folder with rop's end-to-end test, so kube and its
# dependencies compile once.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$repo/target/e2e-projects}"

if [ -e "$dir" ] && [ -n "$(ls -A "$dir" 2>/dev/null)" ]; then
  echo "error: $dir is not empty: pass a new folder" >&2
  exit 1
fi
mkdir -p "$dir"
cd "$dir"

echo "==> rop init"
"$rop" init --domain example.com --repo github.com/example/memcached-operator
echo "==> rop create api"
"$rop" create api --group cache --version v1alpha1 --kind Memcached
echo "==> rop generate (builds the api crate's manifests generator)"
"$rop" generate
echo "==> cargo build"
cargo build
echo "==> cargo test"
cargo test
echo "==> kubectl kustomize config/default"
kubectl kustomize config/default >/dev/null && echo "config/default builds"

echo
echo "==> the project"
find . -path ./target -prune -o -type f -print | sort
echo
echo "==> config/crd/bases/cache.example.com_memcacheds.yaml"
cat config/crd/bases/cache.example.com_memcacheds.yaml
echo
echo "The Memcached operator is in $dir"
