#!/usr/bin/env bash
# Fuzzing of the readers of untrusted input (fuzz/, cargo-fuzz and libFuzzer on a nightly
# toolchain): CRD streams as `rop verify`, `verify --against` and `import crd` read them, CEL
# rules, and the reviews the webhook server decodes. Installs the nightly toolchain and
# cargo-fuzz when missing.
#
#   scripts/fuzz.sh smoke [SECONDS]    build every target, run each SECONDS and at least over its seeds
#                                      (default 10); CI runs this
#   scripts/fuzz.sh run TARGET SECONDS one long run (docs/benchmarks-fuzzing.md lists the last ones)
#   scripts/fuzz.sh list               the targets
#
# Seeds come from testdata/ (written to fuzz/corpus/<target>/ before each run; the corpus the
# fuzzer grows stays there between runs). A crash or a hang (an input that takes over 120 s:
# the CEL rules the API server's run-time budget allows take up to about 2 s in a release build,
# and 20 to 45 s under the sanitizer on a busy machine) stops the run, leaves the input in fuzz/artifacts/<target>/ and fails the script: fix it and
# add the input as a regression test beside the code it broke.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo/fuzz"

step() { echo "==> $*" >&2; }

TARGETS=(crd_reader verify_against import_crd cel admission_review)
# The largest seed file taken from testdata/: the fuzzer's inputs are at most this long, and
# bigger real CRDs would only slow every execution.
MAX_LEN=65536

if ! rustup run nightly rustc --version >/dev/null 2>&1; then
  step "installing the nightly toolchain (cargo-fuzz builds with sanitizers)"
  rustup toolchain install nightly --profile minimal
fi
if ! command -v cargo-fuzz >/dev/null; then
  step "installing cargo-fuzz"
  cargo install cargo-fuzz --locked --version 0.13.2
fi
export CARGO_INCREMENTAL=0
# Outside the clone, so that a fresh clone (CI) rebuilds only what changed: the sanitized
# release build of the targets' dependencies takes about 7 minutes cold.
export CARGO_TARGET_DIR="${ROP_FUZZ_TARGET_DIR:-$HOME/.cache/rop-fuzz/target}"

# seed TARGET: writes testdata/'s inputs for TARGET into corpus/TARGET/.
seed() {
  local target=$1 dir="corpus/$1" testdata="$repo/testdata"
  mkdir -p "$dir"
  case $target in
    crd_reader|import_crd)
      # Named by content (as libFuzzer names what it adds): testdata/ repeats file names.
      find "$testdata/verify" "$testdata/import" "$testdata/samples" -name '*.yaml' -size -${MAX_LEN}c |
        while read -r file; do cp "$file" "$dir/$(sha1sum <"$file" | cut -c1-40)"; done
      ;;
    verify_against)
      local old="$testdata/verify/compat/old.yaml" case
      for case in "$testdata"/verify/compat/cases/*.yaml; do
        { cat "$old"; printf '\n#~new~#\n'; cat "$case"; } >"$dir/$(basename "$case")"
        # Alone, each is compared with itself.
        cp "$case" "$dir/self-$(basename "$case")"
      done
      ;;
    cel)
      python3 - "$testdata/verify" "$dir" <<'PY'
import hashlib, pathlib, sys, yaml
root, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
def rules(node):
    if isinstance(node, dict):
        for v in node.get("x-kubernetes-validations") or []:
            for key in ("rule", "messageExpression"):
                if isinstance(v, dict) and isinstance(v.get(key), str):
                    yield v[key]
        for v in node.values():
            yield from rules(v)
    elif isinstance(node, list):
        for v in node:
            yield from rules(v)
for path in sorted(root.rglob("*.yaml")):
    try:
        docs = list(yaml.safe_load_all(path.read_text()))
    except yaml.YAMLError:
        continue
    for rule in rules(docs):
        (out / hashlib.sha1(rule.encode()).hexdigest()).write_text(rule)
PY
      ;;
    admission_review)
      python3 - "$dir" <<'PY'
import json, pathlib, sys
out = pathlib.Path(sys.argv[1])
obj = lambda size: {"apiVersion": "cache.example.com/v1", "kind": "Cache",
    "metadata": {"name": "c", "namespace": "default", "uid": "u-1"}, "spec": {"size": size, "zones": ["a", "a"]}}
def admission(op, new, old):
    return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {
        "uid": "r-1", "kind": {"group": "cache.example.com", "version": "v1", "kind": "Cache"},
        "resource": {"group": "cache.example.com", "version": "v1", "resource": "caches"},
        "name": "c", "namespace": "default", "operation": op,
        "userInfo": {"username": "admin"}, "object": new, "oldObject": old, "dryRun": False}}
conversion = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview", "request": {
    "uid": "r-2", "desiredAPIVersion": "cache.example.com/v2", "objects": [obj(3)]}}
seeds = [admission("CREATE", obj(3), None), admission("UPDATE", obj(2), obj(5)),
         admission("DELETE", None, obj(12)), admission("CREATE", obj(11), None), conversion]
for i, review in enumerate(seeds):
    for pick in range(3):
        (out / f"{i}-{pick}").write_bytes(bytes([pick]) + json.dumps(review).encode())
PY
      ;;
  esac
}

# run TARGET SECONDS [HANG_SECONDS]: builds TARGET (its output on the terminal), then fuzzes
# it; the fuzzer's whole output goes to fuzz/logs/TARGET.log (replaced each run), a summary, or
# on a crash or a hang the log's end, to the terminal.
run() {
  local target=$1 log="logs/$1.log" hang=${3:-120}
  step "building $target (cargo +nightly fuzz build $target)"
  cargo +nightly fuzz build "$target"
  seed "$target"
  mkdir -p logs
  step "fuzzing $target for $2 s (log: fuzz/$log, corpus: fuzz/corpus/$target/)"
  if cargo +nightly fuzz run "$target" "corpus/$target" -- -max_total_time="$2" -timeout="$hang" \
    -max_len=$MAX_LEN -rss_limit_mb=4096 -print_final_stats=1 >"$log" 2>&1; then
    grep -E '^(#[0-9]+[[:space:]]+DONE|stat::number_of_executed_units|stat::peak_rss_mb)' "$log" >&2
  else
    tail -n 60 "$log" >&2
    echo "error: fuzzing $target found a crash or a hang: the input is in fuzz/artifacts/$target/, the log in fuzz/$log" >&2
    return 1
  fi
}

# check_seconds N: exits 2 unless N is a whole number of seconds above 0 (libFuzzer takes
# anything else as 0, which means no limit).
check_seconds() {
  [[ $1 =~ ^[0-9]+$ && $1 -gt 0 ]] || { echo "error: SECONDS must be a whole number above 0, not \"$1\"" >&2; exit 2; }
}

case "${1:-}" in
  list) printf '%s\n' "${TARGETS[@]}" ;;
  smoke)
    [ $# -le 2 ] || { echo "usage: scripts/fuzz.sh smoke [SECONDS]" >&2; exit 2; }
    seconds=${2:-10}
    check_seconds "$seconds"
    for target in "${TARGETS[@]}"; do run "$target" "$seconds"; done
    ;;
  run)
    [ $# -eq 3 ] || { echo "usage: scripts/fuzz.sh run TARGET SECONDS" >&2; exit 2; }
    [[ " ${TARGETS[*]} " == *" $2 "* ]] || { echo "error: no fuzz target \"$2\": the targets are ${TARGETS[*]}" >&2; exit 2; }
    check_seconds "$3"
    run "$2" "$3"
    ;;
  *) echo "usage: scripts/fuzz.sh smoke [SECONDS] | run TARGET SECONDS | list" >&2; exit 2 ;;
esac
