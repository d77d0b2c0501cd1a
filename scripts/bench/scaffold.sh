#!/usr/bin/env bash
# The scaffolding sequence of scripts/bench.sh, in a fresh folder:
#   rop init + three `rop create api` + `rop create webhook`.
#   scaffold.sh ROP DIR
set -euo pipefail
rop=$1 dir=$2
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir"
# shellcheck disable=SC2086 # ROP_INIT_ARGS: extra init flags, e.g. --rop-path DIR
"$rop" --quiet init --domain example.com --repo github.com/example/bench-operator ${ROP_INIT_ARGS:-}
"$rop" --quiet create api --group cache --version v1alpha1 --kind Memcached
"$rop" --quiet create api --group cache --version v1alpha1 --kind Redis
"$rop" --quiet create api --group cache --version v1alpha1 --kind Guestbook
"$rop" --quiet create webhook --group cache --version v1alpha1 --kind Memcached --defaulting --programmatic-validation
