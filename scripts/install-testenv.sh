#!/usr/bin/env bash
# Installs the two binaries of rop's test environment (the `rop-testenv` crate, testenv/):
#
#   etcd            v3.6.16  (go.etcd.io/etcd/server/v3)
#   kube-apiserver  v1.37.2  (k8s.io/kubernetes/cmd/kube-apiserver; Kubernetes 1.37 matches
#                             the k8s-openapi 0.29 / kube 5 stack rop generates for)
#
# into ${ROP_TESTENV_DIR:-$HOME/.cache/rop-testenv/bin} (or the folder given as $1), building
# both from source through the Go module proxy. Needs Go (1.26 or newer, or a Go that may
# download that toolchain: GOTOOLCHAIN=auto) and network access to the module proxy; nothing
# else (no openssl, no docker, no root).
#
# Idempotent and cached: a binary is rebuilt only when it is missing or its pinned version
# changed (recorded in .<name>.version next to it). A cold install downloads about 1 GB of Go
# modules and takes about 8 minutes; a warm run takes well under a second.
#
# Usage: scripts/install-testenv.sh [BIN_DIR]
# Then:  ROP_TESTENV_DIR=BIN_DIR cargo test -p rop-testenv   (the default BIN_DIR needs no variable)
#
# Why wrapper modules: neither binary can be built with a plain `go install pkg@version`.
# etcd's server module carries `replace` directives, which `go install` refuses, and
# k8s.io/kubernetes replaces its 33 staging modules (k8s.io/api, k8s.io/apiserver, ...) with
# local paths. So each binary is built from a small module generated into a temporary folder:
# etcd's one calls etcdmain.Main, kube-apiserver's copies cmd/kube-apiserver/apiserver.go and
# maps every staging `replace` to the published module of the same release (v1.37.2 -> v0.37.2).
set -euo pipefail

ETCD_VERSION="v3.6.16"
K8S_VERSION="v1.37.2"
STAGING_VERSION="v0.${K8S_VERSION#v1.}" # v1.37.2 -> v0.37.2
K8S_MINOR="${K8S_VERSION#v1.}"
K8S_MINOR="${K8S_MINOR%%.*}"

log() { echo "install-testenv: $*" >&2; }
die() {
  echo "install-testenv: error: $*" >&2
  exit 1
}

BIN="${1:-${ROP_TESTENV_DIR:-$HOME/.cache/rop-testenv/bin}}"
mkdir -p "$BIN" || die "cannot create the install folder $BIN"
BIN="$(cd "$BIN" && pwd)"
[ -w "$BIN" ] || die "the install folder $BIN is not writable (set ROP_TESTENV_DIR or pass a folder)"

up_to_date() { # NAME VERSION
  [ -x "$BIN/$1" ] && [ "$(cat "$BIN/.$1.version" 2>/dev/null)" = "$2" ]
}

print_versions() {
  echo "bin dir: $BIN"
  # sed reads all of it: with head, etcd can die of SIGPIPE and fail the script under pipefail.
  "$BIN/etcd" --version | sed -n 1p
  "$BIN/kube-apiserver" --version
}

# Warm path first, so a machine that already has both binaries needs no Go at all.
if up_to_date etcd "$ETCD_VERSION" && up_to_date kube-apiserver "$K8S_VERSION"; then
  print_versions
  exit 0
fi

log "building etcd $ETCD_VERSION and kube-apiserver $K8S_VERSION into $BIN (about 8 minutes once; later runs reuse them)"
command -v go >/dev/null 2>&1 ||
  die "Go is required to build etcd and kube-apiserver (https://go.dev/dl/, 1.26 or newer); it is not on PATH. Or point ROP_TESTENV_DIR at a folder that already holds both binaries (setup-envtest's, for one)"
GO_VERSION="$(go env GOVERSION 2>/dev/null)" || die "\`go env GOVERSION\` failed; is Go installed correctly?"
case "$GO_VERSION" in
  go1.2[6-9]* | go1.[3-9][0-9]* | go[2-9]*) ;;
  *)
    if [ "$(go env GOTOOLCHAIN)" = local ]; then
      die "$GO_VERSION is too old: kube-apiserver $K8S_VERSION and etcd $ETCD_VERSION need Go 1.26 or newer (GOTOOLCHAIN=local forbids downloading it)"
    fi
    log "$GO_VERSION is older than 1.26; Go will download the 1.26 toolchain (GOTOOLCHAIN=$(go env GOTOOLCHAIN))"
    ;;
esac

# One installer at a time per folder (parallel CI jobs sharing a cache).
if command -v flock >/dev/null 2>&1; then
  exec 9>"$BIN/.lock"
  flock 9
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/rop-install-testenv.XXXXXX")"
trap 'rm -rf "$WORK"; rm -f "$BIN/etcd.tmp" "$BIN/kube-apiserver.tmp"' EXIT

export CGO_ENABLED=0
# The wrapper modules are generated, so `go mod tidy` writes their go.sum; the checksum
# database (GOSUMDB, on by default) verifies every module it downloads.

# Each long step says when it starts and how long it took (`rop testenv install` turns these
# lines into a spinner on a terminal).
go_or_die() { # WHAT CMD...
  local what="$1" started="$SECONDS"
  shift
  log "step: $what"
  if ! "$@"; then
    die "$what failed (see the Go output above). Check network access to the module proxy ($(go env GOPROXY)) and free disk space (about 2 GB for the module and build caches)"
  fi
  log "step done: $what ($((SECONDS - started)) s)"
}

build_etcd() {
  if up_to_date etcd "$ETCD_VERSION"; then
    log "etcd $ETCD_VERSION is up to date"
    return 0
  fi
  log "building etcd $ETCD_VERSION (wrapper module in $WORK/etcd)"
  local d="$WORK/etcd"
  mkdir -p "$d"
  cat >"$d/main.go" <<'EOF'
// etcd, built from its own entry point (go install refuses etcd's module: it has replace directives).
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
EOF
  printf 'module rop.local/testenv/etcd\n\ngo 1.26.0\n\nrequire go.etcd.io/etcd/server/v3 %s\n' "$ETCD_VERSION" >"$d/go.mod"
  go_or_die "resolving etcd's modules (go mod tidy)" bash -c "cd '$d' && go mod tidy"
  go_or_die "building etcd" bash -c "cd '$d' && go build -trimpath -ldflags '-s -w' -o '$BIN/etcd.tmp' ."
  mv -f "$BIN/etcd.tmp" "$BIN/etcd"
  echo "$ETCD_VERSION" >"$BIN/.etcd.version"
}

build_kube_apiserver() {
  if up_to_date kube-apiserver "$K8S_VERSION"; then
    log "kube-apiserver $K8S_VERSION is up to date"
    return 0
  fi
  log "building kube-apiserver $K8S_VERSION (wrapper module in $WORK/kube-apiserver)"
  local d="$WORK/kube-apiserver"
  mkdir -p "$d"
  # cmd/kube-apiserver/apiserver.go of Kubernetes 1.37.
  cat >"$d/main.go" <<'EOF'
// kube-apiserver, a copy of k8s.io/kubernetes/cmd/kube-apiserver/apiserver.go.
package main

import (
	"os"
	_ "time/tzdata" // for timeZone support in CronJob

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"          // for JSON log format registration
	_ "k8s.io/component-base/metrics/prometheus/clientgo" // load all the prometheus client-go plugins
	_ "k8s.io/component-base/metrics/prometheus/version"  // for version metric registration
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

func main() {
	command := app.NewAPIServerCommand()
	code := cli.Run(command)
	os.Exit(code)
}
EOF
  # k8s.io/kubernetes' go.mod lists its staging modules as `k8s.io/foo => ./staging/src/k8s.io/foo`;
  # map each to the published k8s.io/foo of the same release.
  local gomod
  gomod="$(cd "$d" && go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p')" ||
    die "cannot download k8s.io/kubernetes@$K8S_VERSION from the module proxy ($(go env GOPROXY))"
  [ -f "$gomod" ] || die "cannot find the go.mod of k8s.io/kubernetes@$K8S_VERSION (got '$gomod')"
  local replaces
  replaces="$(sed -n '/^replace (/,/^)/p' "$gomod" | awk -v v="$STAGING_VERSION" '$2 == "=>" && $3 ~ /^\.\/staging\// { print "\t" $1 " => " $1 " " v }')"
  local count
  count="$(printf '%s\n' "$replaces" | grep -c '=>' || true)"
  [ "$count" -ge 20 ] || die "expected the staging replace directives in k8s.io/kubernetes@$K8S_VERSION's go.mod, found $count"
  log "mapping $count staging modules to $STAGING_VERSION"
  {
    printf 'module rop.local/testenv/kube-apiserver\n\ngo 1.26.0\n\nrequire k8s.io/kubernetes %s\n\nreplace (\n' "$K8S_VERSION"
    printf '%s\n' "$replaces"
    printf ')\n'
  } >"$d/go.mod"
  go_or_die "resolving kube-apiserver's modules (go mod tidy)" bash -c "cd '$d' && go mod tidy"
  local ldflags="-s -w -X k8s.io/component-base/version.gitVersion=$K8S_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$K8S_MINOR"
  go_or_die "building kube-apiserver" bash -c "cd '$d' && go build -trimpath -ldflags '$ldflags' -o '$BIN/kube-apiserver.tmp' ."
  mv -f "$BIN/kube-apiserver.tmp" "$BIN/kube-apiserver"
  echo "$K8S_VERSION" >"$BIN/.kube-apiserver.version"
}

build_etcd
build_kube_apiserver
print_versions
