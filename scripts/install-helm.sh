#!/usr/bin/env bash
# Installs helm v3.22.0 (helm.sh/helm/v3/cmd/helm), which the chart tests (cli/tests/helm_chart.rs)
# run `helm lint` and `helm template` with, into ${ROP_TESTENV_DIR:-$HOME/.cache/rop-testenv/bin}
# (or the folder given as $1), next to the test API server's binaries and cached the same way:
# rebuilt only when missing or when the pinned version changed (.helm.version next to it).
# Built from source through the Go module proxy: about 3 minutes cold, under a second warm.
#
# Usage: scripts/install-helm.sh [BIN_DIR]
set -euo pipefail

HELM_VERSION="v3.22.0"

log() { echo "install-helm: $*" >&2; }
die() {
  echo "install-helm: error: $*" >&2
  exit 1
}

BIN="${1:-${ROP_TESTENV_DIR:-$HOME/.cache/rop-testenv/bin}}"
mkdir -p "$BIN" || die "cannot create the install folder $BIN"
BIN="$(cd "$BIN" && pwd)"

if [ -x "$BIN/helm" ] && [ "$(cat "$BIN/.helm.version" 2>/dev/null)" = "$HELM_VERSION" ]; then
  "$BIN/helm" version --short
  exit 0
fi
command -v go >/dev/null 2>&1 || die "Go is required to build helm (https://go.dev/dl/); it is not on PATH"

# One installer at a time per folder (parallel CI jobs sharing a cache).
if command -v flock >/dev/null 2>&1; then
  exec 9>"$BIN/.helm.lock"
  flock 9
fi

log "building helm $HELM_VERSION into $BIN (about 3 minutes once; later runs reuse it)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/rop-install-helm.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
CGO_ENABLED=0 GOBIN="$WORK" go install -trimpath -ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION" "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" ||
  die "building helm failed (see the Go output above). Check network access to the module proxy ($(go env GOPROXY))"
mv -f "$WORK/helm" "$BIN/helm"
echo "$HELM_VERSION" >"$BIN/.helm.version"
"$BIN/helm" version --short
