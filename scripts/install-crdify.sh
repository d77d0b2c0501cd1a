#!/usr/bin/env bash
# Installs crdify (sigs.k8s.io/crdify, the CRD upgrade-safety checker OLM v1 runs), the oracle
# the compatibility tests (verify/tests/compat_corpus.rs) compare `rop verify --against` with,
# into ${ROP_TESTENV_DIR:-$HOME/.cache/rop-testenv/bin} (or the folder given as $1).
#
# Built from the source in ../shared/anchors/crdify (the module proxy serves its dependencies,
# not crdify itself): about a minute cold, rebuilt only when the pinned commit changes
# (.crdify.version next to it). Without that folder it says so and installs nothing; the tests
# then skip, unless ROP_TESTENV_REQUIRE=1.
#
# Usage: scripts/install-crdify.sh [BIN_DIR]
set -euo pipefail

CRDIFY_COMMIT="54162f2e3097fb147e1932b9b27abf5c97980a70"

log() { echo "install-crdify: $*" >&2; }
die() {
  echo "install-crdify: error: $*" >&2
  exit 1
}

repo="$(cd "$(dirname "$0")/.." && pwd)"
SRC="${ROP_CRDIFY_SRC:-$repo/../shared/anchors/crdify}"
BIN="${1:-${ROP_TESTENV_DIR:-$HOME/.cache/rop-testenv/bin}}"
mkdir -p "$BIN" || die "cannot create the install folder $BIN"
BIN="$(cd "$BIN" && pwd)"

if [ -x "$BIN/crdify" ] && [ "$(cat "$BIN/.crdify.version" 2>/dev/null)" = "$CRDIFY_COMMIT" ]; then
  exit 0
fi
if [ ! -f "$SRC/go.mod" ]; then
  log "no crdify source at $SRC (the shared anchors are not checked out): nothing installed"
  exit 0
fi
command -v go >/dev/null 2>&1 || die "Go is required to build crdify (https://go.dev/dl/); it is not on PATH"

if command -v flock >/dev/null 2>&1; then
  exec 9>"$BIN/.crdify.lock"
  flock 9
fi

log "building crdify ($CRDIFY_COMMIT) into $BIN (about a minute once; later runs reuse it)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/rop-install-crdify.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
# The source folder is read-only; go build writes nothing into a copy it is not allowed to.
cp -R "$SRC/." "$WORK/src"
(cd "$WORK/src" && CGO_ENABLED=0 go build -trimpath -o "$WORK/crdify" .) ||
  die "building crdify failed (see the Go output above). Check network access to the module proxy ($(go env GOPROXY))"
mv -f "$WORK/crdify" "$BIN/crdify"
echo "$CRDIFY_COMMIT" >"$BIN/.crdify.version"
