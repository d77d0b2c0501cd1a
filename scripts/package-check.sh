#!/usr/bin/env bash
# Packages the crates a generated project depends on (rop-names, rop-macros, rop-core, rop, rop-testenv)
# as `cargo publish` would, and builds each one from its package. cargo packages the five
# together: a package's dependencies on the others resolve from a temporary local registry that
# holds the new packages, not from crates.io. Before that, it fails unless the five have one
# version and every dependency among them requires exactly that version (`=V`), since they are
# released together.
#
#   scripts/package-check.sh [CARGO PACKAGE ARGS...]     e.g. scripts/package-check.sh --quiet
#
# The packages land in target/package-verify/package/, and are built in target/package-verify/,
# so after the first run only the five crates are compiled again: about 15 s on 2 cores. The
# first run takes about 4.5 minutes (1.1 GB).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"

export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"

crates=(rop-names rop-macros rop-core rop rop-testenv)

# `cargo metadata` knows each manifest's version and requirements; python3 (which the test
# suite needs anyway) reads its JSON.
check="$(cat <<'EOF'
import json, sys
crates = sys.argv[1:]
packages = {p["name"]: p for p in json.load(sys.stdin)["packages"] if p["name"] in crates}
versions = {name: packages[name]["version"] for name in crates}
if len(set(versions.values())) != 1:
    sys.exit("error: rop-names, rop-macros, rop-core, rop and rop-testenv are released together and need one version: "
             + ", ".join(f"{name} {version}" for name, version in versions.items()))
version = versions[crates[0]]
loose = [f"{name} -> {dep['name']} \"{dep['req']}\""
         for name in crates for dep in packages[name]["dependencies"]
         if dep["name"] in crates and dep["req"] != "=" + version]
if loose:
    sys.exit(f"error: every dependency among them must require exactly their version (\"={version}\"): "
             + ", ".join(loose))
print(version)
EOF
)"
version="$(cargo metadata --no-deps --format-version 1 | python3 -c "$check" "${crates[@]}")"

# cargo takes a registry package of a given name and version to never change: it builds from
# the folder it unpacked under $CARGO_HOME/registry/src/ before, and keeps what it compiled
# from it. The packages of its temporary registry do change between runs, so an earlier run's
# sources and builds of these crates would be verified instead of today's. Remove both (only
# these crates at this version: no other registry serves them). The builds go to a target
# folder of their own, where only the packaged crates carry these names.
cargo_home="${CARGO_HOME:-$HOME/.cargo}"
target="$repo/target/package-verify"
for crate in "${crates[@]}"; do
  rm -rf "$cargo_home"/registry/src/*/"$crate-$version" "$target"/debug/.fingerprint/"$crate"-*
done

# `--allow-dirty`: this checks the work tree as it is; `cargo publish` itself refuses
# uncommitted changes.
#
# K8S_OPENAPI_ENABLED_VERSION: the verification builds each package alone, as a dependent
# project would. k8s-openapi needs exactly one Kubernetes version, chosen by the final binary: a
# library such as rop must not enable one in its dependencies (a generated project enables
# `v1_37`), and a dev-dependency does not count when a package is built. k8s-openapi reads this
# variable for builds without dev-dependencies. It names the version rop-testenv enables and
# generated projects pick, so the two agree.
K8S_OPENAPI_ENABLED_VERSION=1.37 cargo package --allow-dirty --target-dir "$target" "${crates[@]/#/--package=}" "$@"

echo "rop-names, rop-macros, rop-core, rop and rop-testenv $version: packaged, and each built from its package"
