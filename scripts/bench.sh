#!/usr/bin/env bash
# rop's benchmarks (see docs/benchmarks.md for the figures and how to read them).
#
#   scripts/bench.sh [SECTION...]      SECTION: install scaffold derive generate verify operator
#                                      operator-runtime operator-faults operator-selector
#                                      (default: all)
#
# Every comparison is a ratio of two commands measured in the same run, since the machines
# are noisy. Timing uses hyperfine when it is installed (`apt-get install hyperfine`), else
# plain repetition with medians; peak memory uses GNU time (`apt-get install time`), else
# python's wait4.
#
# Environment (all optional):
#   BENCH_DIR          where projects, fixtures and build folders go (default: target/bench)
#   ROP_BIN            a rop binary to use; default: `cargo build --release -p rop-cli` of the
#                      snapshot (below), built in ROP_TARGET_DIR (default: CARGO_TARGET_DIR, else target/)
#   BENCH_RUNS         runs of fast commands (scaffold, verify; default 10)
#   BENCH_BUILD_RUNS   runs of each build measurement (default 5)
#   BENCH_DERIVE_RUNS  runs of the (short) incremental derive builds (default 11)
#   BENCH_COLD=0       skip the operator's cold build (the longest step, ~4 min on 2 cores)
#   BENCH_TIMER=loop   use plain repetition even when hyperfine is installed
#   BENCH_REV          measure this git revision (e.g. HEAD) instead of the working tree
#   BENCH_WILD_DIR     the CRDs for `rop verify` (default: ../shared/testdata/crds-in-the-wild)
#   BENCH_OPERATOR_N   object counts of operator-runtime (default "100 1000")
#   BENCH_OPERATOR_RUNS  runs of each manager per count, interleaved (default 3)
#   BENCH_OPERATOR_IDLE  seconds of the idle phase (default 30)
#   BENCH_FAULTS_N     object counts of operator-faults (default "50 300 1000")
#   BENCH_FAULTS_RUNS  runs of each manager per count, interleaved (default 1)
#   BENCH_SELECTOR_PODS  unrelated Pods of operator-selector (default 5000)
#   BENCH_SELECTOR_RUNS  runs of each variant, interleaved (default 1)
#   BENCH_SELECTOR_SETTLE  seconds the manager is left before its RSS is read (default 20)
#   BENCH_MANAGERS     which managers the operator sections run (default "rop kubebuilder";
#                      "rop" alone skips building kubebuilder's, for a quick look at rop's)
#   BENCH_ANCHOR_DIR   kubebuilder's deploy-image project (default:
#                      ../shared/anchors/kubebuilder/project-v4-with-plugins); operator-runtime
#                      builds it with Go (`go mod tidy`, `go build`) from the module proxy
#
# Results: a Markdown table on stdout and in $BENCH_DIR/out/results.md; raw timings (and
# hyperfine's JSON) beside it.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
here="$repo/scripts/bench"
# shellcheck source=bench/lib.sh
source "$here/lib.sh"

sections=("$@")
[ ${#sections[@]} -gt 0 ] || sections=(install scaffold derive generate verify operator operator-runtime operator-faults operator-selector)
want() { [[ " ${sections[*]} " == *" $1 "* ]]; }

BENCH_DIR="${BENCH_DIR:-$repo/target/bench}"
RUNS="${BENCH_RUNS:-10}"
BUILD_RUNS="${BENCH_BUILD_RUNS:-5}"
DERIVE_RUNS="${BENCH_DERIVE_RUNS:-11}"
WILD="${BENCH_WILD_DIR:-$repo/../shared/testdata/crds-in-the-wild}"
mkdir -p "$BENCH_DIR"
BENCH_DIR="$(cd "$BENCH_DIR" && pwd)"
OUT="$BENCH_DIR/out"
rm -rf "$OUT"
mkdir -p "$OUT"
if [ "${BENCH_TIMER:-}" != loop ] && have hyperfine; then TIMER=hyperfine; else TIMER=loop; fi
have python3 || { echo "error: python3 is needed (statistics and the fixture generator)" >&2; exit 1; }
export CARGO_TERM_COLOR=never

# ---------------------------------------------------------------------------------------------
log "machine"
{
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "checkout HEAD: $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "cpu: $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo), $(nproc) cores"
  echo "memory: $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
  echo "os: $(. /etc/os-release && echo "$PRETTY_NAME"), kernel $(uname -r)"
  echo "rust: $(rustc --version)"
  echo "load average at start (1/5/15 min): $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "timer: $TIMER$([ "$TIMER" = hyperfine ] && echo " ($(hyperfine --version)) for the fast commands, interleaved repetition for builds")"
  echo "peak memory: $([ -x /usr/bin/time ] && echo 'GNU time -v' || echo 'wait4 (python)')"
} | tee "$OUT/machine.txt" >&2

echo '| section | metric | value | target | verdict |' >"$OUT/results.md"
echo '|---|---|---|---|---|' >>"$OUT/results.md"

# ---------------------------------------------------------------------------------------------
# Everything is measured on a snapshot of rop's source taken now: the working tree, or with
# BENCH_REV the tree of that git revision (read with `git archive`). It is copied with its
# timestamps, so an unchanged tree stays built between runs, and edits made to the checkout
# while the benchmarks run rebuild nothing in the middle of a measurement. rop is built from the
# snapshot, and the projects and the derive fixture depend on the snapshot's runtime.
snap="$BENCH_DIR/rop-src"
if [ -n "${BENCH_REV:-}" ]; then
  rev_dir="$BENCH_DIR/rop-src-$(git -C "$repo" rev-parse --short "$BENCH_REV")"
  if [ ! -d "$rev_dir" ]; then
    mkdir -p "$rev_dir.tmp"
    # `scripts/install-testenv.sh` is compiled into `rop testenv install`; `names` is a crate
    # since rop-names was split out, absent from older revisions.
    crates="cli macros runtime templates testenv testdata"
    if git -C "$repo" cat-file -e "$BENCH_REV:names" 2>/dev/null; then crates="$crates names"; fi
    if git -C "$repo" cat-file -e "$BENCH_REV:bench" 2>/dev/null; then crates="$crates bench"; fi
    # core/ and verify/ since rop was split by audience.
    for c in core verify; do
      if git -C "$repo" cat-file -e "$BENCH_REV:$c" 2>/dev/null; then crates="$crates $c"; fi
    done
    # shellcheck disable=SC2086
    git -C "$repo" archive "$BENCH_REV" Cargo.toml Cargo.lock $crates scripts/install-testenv.sh | tar -x -C "$rev_dir.tmp"
    mv "$rev_dir.tmp" "$rev_dir"
  fi
  snap="$rev_dir"
  echo "source: git revision $BENCH_REV ($(git -C "$repo" rev-parse --short "$BENCH_REV"))" | tee -a "$OUT/machine.txt" >&2
else
  rm -rf "$snap" && mkdir -p "$snap"
  cp -a "$repo/Cargo.toml" "$repo/Cargo.lock" "$repo/bench" "$repo/cli" "$repo/core" "$repo/macros" "$repo/names" "$repo/runtime" "$repo/templates" "$repo/testenv" "$repo/testdata" "$repo/verify" "$snap/"
  # `scripts/install-testenv.sh` is compiled into `rop testenv install`.
  mkdir -p "$snap/scripts" && cp -a "$repo/scripts/install-testenv.sh" "$snap/scripts/"
  echo "source: the working tree$(git -C "$repo" diff --quiet HEAD -- bench cli core macros names runtime templates testenv verify 2>/dev/null || echo ', with uncommitted changes')" | tee -a "$OUT/machine.txt" >&2
fi
if [ -n "${ROP_BIN:-}" ]; then
  rop="$ROP_BIN"
else
  log "cargo build --release -p rop-cli"
  rop_target="${ROP_TARGET_DIR:-${CARGO_TARGET_DIR:-$repo/target}}"
  CARGO_TARGET_DIR="$rop_target" cargo build --quiet --release -p rop-cli --manifest-path "$snap/Cargo.toml"
  rop="$rop_target/release/rop"
fi
echo "rop: $rop ($("$rop" version | sed -n 1p))" | tee -a "$OUT/machine.txt" >&2

# Generated projects share one build folder, so kube and its dependencies compile once.
PROJECTS_TARGET="$BENCH_DIR/target-projects"
export ROP_INIT_ARGS="--rop-path $snap/runtime"

# ---------------------------------------------------------------------------------------------
# 0. Installing rop: `cargo install --locked --path cli` is this release build from nothing (a
# fresh target folder; crates already downloaded). Cargo's own timings name the crates that
# cost the most.
if want install; then
  log "0. install: cargo build --release --locked -p rop-cli, cold"
  t="$BENCH_DIR/target-install"
  rm -rf "$t"
  start=$(date +%s.%N)
  CARGO_TARGET_DIR="$t" cargo build --quiet --release --locked -p rop-cli --timings --manifest-path "$snap/Cargo.toml" 2>"$OUT/install.log"
  i_s=$(python3 -c "print($(date +%s.%N) - $start)")
  heaviest=$(python3 "$here/heaviest_units.py" "$t"/cargo-timings/cargo-timing.html)
  result "0 install" "cold release build of the CLI, $(nproc) cores (heaviest: $heaviest)" "$(secs "$i_s")" "<= 300 s" "$(verdict "$i_s" "<=" 300)"
  rm -rf "$t"
fi

# ---------------------------------------------------------------------------------------------
# 1. Scaffolding: rop init + three rop create api + rop create webhook. rop starts no process
# (no rustfmt: templates render formatted code, see cli/tests/formatted.rs), so the strace
# count below is the check that it stays so.
if want scaffold; then
  log "1. scaffolding: init + 3 x create api + create webhook"
  s="$BENCH_DIR/scaffold"
  measure scaffold "$RUNS" 2 "sequence" "" "$here/scaffold.sh $rop $s/seq"
  # The steps alone: init into an empty folder; create api into a folder that holds just init.
  "$here/scaffold.sh" "$rop" "$s/seq"
  rm -rf "$s/after-init" && mkdir -p "$s/after-init" &&
    (cd "$s/after-init" && "$rop" --quiet init --domain example.com --repo github.com/example/bench-operator $ROP_INIT_ARGS &&
      "$rop" --quiet create api --group cache --version v1alpha1 --kind Memcached)
  measure scaffold-steps "$RUNS" 2 \
    "init" "rm -rf $s/init && mkdir -p $s/init" \
    "cd $s/init && $rop --quiet init --domain example.com --repo github.com/example/bench-operator $ROP_INIT_ARGS" \
    "create api" "rm -rf $s/api && cp -r $s/after-init $s/api" \
    "cd $s/api && $rop --quiet create api --group cache --version v1alpha1 --kind Redis" \
    "create webhook" "rm -rf $s/webhook && cp -r $s/after-init $s/webhook" \
    "cd $s/webhook && $rop --quiet create webhook --group cache --version v1alpha1 --kind Memcached --defaulting --programmatic-validation"
  seq_s=$(median scaffold sequence)
  rss=$(peak_rss_kb "$here/scaffold.sh $rop $s/rss")
  children=""
  if have strace; then
    strace -f -qq -e trace=execve -o "$OUT/scaffold.strace" "$here/scaffold.sh" "$rop" "$s/strace" >/dev/null 2>&1 || true
    # Programs other than rop itself that the sequence's rop processes started (none expected).
    children=$(awk '/execve\(/ && / = 0$/ && !/\/(rop|bash|scaffold\.sh|rm|mkdir)"/ { print $1 }' "$OUT/scaffold.strace" | sort -u | wc -l)
  fi
  result "1 scaffold" "init + 3 × create api + create webhook, wall (median; $(spread scaffold sequence))" "$(ms "$seq_s")" "< 100 ms" "$(verdict "$seq_s" "<" 0.1)"
  result "1 scaffold" "peak memory of the sequence (max RSS)" "$(mb "$rss")" "< 30 MB" "$(verdict "$(python3 -c "print($rss * 1024 / 1e6)")" "<" 30)"
  result "1 scaffold" "init / create api / create webhook alone (median)" "$(ms "$(median scaffold-steps init)") / $(ms "$(median scaffold-steps 'create api')") / $(ms "$(median scaffold-steps 'create webhook')")" "" ""
  [ -z "$children" ] || result "1 scaffold" "other programs started by the sequence (strace)" "$children" "0" "$( [ "$children" = 0 ] && echo met || echo "**missed**")"
fi

# ---------------------------------------------------------------------------------------------
# 2. Derive cost: 20 kinds, rop's derive vs kube-derive 5 (the one on rop's dependency set).
if want derive; then
  log "2. derive cost: 20 kinds, rop vs kube-derive 5"
  d="$BENCH_DIR/derive"
  rm -rf "$d"
  python3 "$here/gen_derive_fixture.py" "$d" "$snap/runtime"
  export CARGO_TARGET_DIR="$BENCH_DIR/target-derive"
  for c in baseline rop kube; do (cd "$d" && cargo build --quiet -p "bench-$c"); done
  # (a) As the issue asks: touch the types file and rebuild, with cargo's defaults (dev profile,
  #     incremental): the derives run again, and rustc reuses what did not change.
  measure_interleaved derive "$DERIVE_RUNS" 1 \
    "rop" "touch $d/rop/src/types.rs" "cd $d && cargo build --quiet -p bench-rop" \
    "kube-derive 5" "touch $d/kube/src/types.rs" "cd $d && cargo build --quiet -p bench-kube" \
    "no CustomResource derive" "touch $d/baseline/src/types.rs" "cd $d && cargo build --quiet -p bench-baseline"
  rop_s=$(median derive rop)
  kube_s=$(median derive "kube-derive 5")
  base_s=$(median derive "no CustomResource derive")
  # (b) The whole crate compiled again (CARGO_INCREMENTAL=0): everything the derive's output
  #     costs rustc, as after an edit that invalidates most of the crate.
  for c in baseline rop kube; do (cd "$d" && CARGO_INCREMENTAL=0 cargo build --quiet -p "bench-$c"); done
  measure_interleaved derive-full "$BUILD_RUNS" 0 \
    "rop" "touch $d/rop/src/types.rs" "cd $d && CARGO_INCREMENTAL=0 cargo build --quiet -p bench-rop" \
    "kube-derive 5" "touch $d/kube/src/types.rs" "cd $d && CARGO_INCREMENTAL=0 cargo build --quiet -p bench-kube" \
    "no CustomResource derive" "touch $d/baseline/src/types.rs" "cd $d && CARGO_INCREMENTAL=0 cargo build --quiet -p bench-baseline"
  frop=$(median derive-full rop) fkube=$(median derive-full "kube-derive 5") fbase=$(median derive-full "no CustomResource derive")
  # Expanded code: rustc's -Zunpretty=expanded, allowed on stable by RUSTC_BOOTSTRAP=1
  # (cargo-expand uses the same flag). Lines per kind due to the derive = (crate - baseline) / 20.
  for c in baseline rop kube; do
    (cd "$d" && RUSTC_BOOTSTRAP=1 cargo rustc --quiet -p "bench-$c" --lib --profile check -- -Zunpretty=expanded >"$OUT/expanded-$c.rs")
  done
  lines() { python3 "$here/stats.py" count-lines "$OUT/expanded-$1.rs"; }
  lb=$(lines baseline) lr=$(lines rop) lk=$(lines kube)
  result "2 derive" "(a) \`cargo build\` after touching the types (incremental), rop / kube-derive 5: wall medians $(secs "$rop_s") / $(secs "$kube_s"); CPU $(secs "$(cpu derive rop)") / $(secs "$(cpu derive "kube-derive 5")")" "ratio $(ratio "$rop_s" "$kube_s") (CPU $(ratio "$(cpu derive rop)" "$(cpu derive "kube-derive 5")"))" "≤ 1.0" "$(verdict "$(ratio "$rop_s" "$kube_s")" "<=" 1.0)"
  result "2 derive" "(a) same, types without any CustomResource derive" "$(secs "$base_s") (CPU $(secs "$(cpu derive "no CustomResource derive")"))" "" ""
  result "2 derive" "(b) whole crate again (CARGO_INCREMENTAL=0), rop / kube-derive 5: wall medians $(secs "$frop") / $(secs "$fkube"); CPU $(secs "$(cpu derive-full rop)") / $(secs "$(cpu derive-full "kube-derive 5")")" "ratio $(ratio "$frop" "$fkube") (CPU $(ratio "$(cpu derive-full rop)" "$(cpu derive-full "kube-derive 5")"))" "≤ 1.0" "$(verdict "$(ratio "$frop" "$fkube")" "<=" 1.0)"
  result "2 derive" "(b) same, types without any CustomResource derive; the derive's share (wall)" "$(secs "$fbase") (CPU $(secs "$(cpu derive-full "no CustomResource derive")"))" "" "rop +$(secs "$(python3 -c "print($frop-$fbase)")"), kube-derive +$(secs "$(python3 -c "print($fkube-$fbase)")")"
  result "2 derive" "expanded lines per kind added by the derive (-Zunpretty=expanded, RUSTC_BOOTSTRAP=1)" "rop $(((lr - lb) / 20)), kube-derive $(((lk - lb) / 20))" "" "ratio $(ratio $((lr - lb)) $((lk - lb)))"
  result "2 derive" "expanded lines per kind, whole crate (serde/schemars included)" "rop $((lr / 20)), kube-derive $((lk / 20)), no derive $((lb / 20))" "" ""
  unset CARGO_TARGET_DIR
fi

# ---------------------------------------------------------------------------------------------
# 3. rop generate vs the kube-rs convention (a crdgen binary in the controllers' crate).
if want generate; then
  log "3. rop generate vs cargo run --bin crdgen, after editing one type"
  g="$BENCH_DIR/generate/bench-operator"
  "$here/scaffold.sh" "$rop" "$g"
  # The kube-rs convention: src/bin/crdgen.rs in the crate of the controllers prints the CRDs.
  mkdir -p "$g/src/bin"
  cat >"$g/src/bin/crdgen.rs" <<'EOF'
//! The kube-rs convention: `cargo run --bin crdgen > crds.yaml`, in the controllers' crate.
use rop::kube::CustomResourceExt;

fn main() {
    let crds = [
        bench_operator_api::v1alpha1::Memcached::crd(),
        bench_operator_api::v1alpha1::Redis::crd(),
        bench_operator_api::v1alpha1::Guestbook::crd(),
    ];
    for crd in crds {
        println!("{}", serde_json::to_string_pretty(&crd).unwrap());
    }
}
EOF
  export CARGO_TARGET_DIR="$PROJECTS_TARGET"
  (cd "$g" && "$rop" --quiet generate && cargo build --quiet && cargo run --quiet --bin crdgen >/dev/null)
  edit="$here/edit_line.sh $g/api/src/v1alpha1/memcached.rs '    /// Number of instances' '    /// Number of instances the operator should run (edit @N@).'"
  measure_interleaved generate "$BUILD_RUNS" 1 \
    "rop generate" "$edit" "cd $g && $rop --quiet generate" \
    "cargo run --bin crdgen" "$edit" "cd $g && cargo run --quiet --bin crdgen"
  gen_s=$(median generate "rop generate")
  crd_s=$(median generate "cargo run --bin crdgen")
  r=$(ratio "$gen_s" "$crd_s")
  api_deps=$(cd "$g" && cargo tree -q -p bench-operator-api -e normal,build --prefix none | sed 's/ (\*)$//; s/ (proc-macro)$//' | sort -u | wc -l)
  result "3 generate" "after editing one type, rop generate / cargo run --bin crdgen (medians $(secs "$gen_s") / $(secs "$crd_s"))" "ratio $r" "≤ 0.5" "$(verdict "$r" "<=" 0.5)"
  result "3 generate" "crates the generator links (cargo tree of the api crate, incl. itself)" "$api_deps" "" ""
  unset CARGO_TARGET_DIR
fi

# ---------------------------------------------------------------------------------------------
# 4. rop verify on the CRDs in the wild.
if want verify; then
  log "4. rop verify on $WILD"
  files=("$WILD"/*.yaml)
  measure verify "$RUNS" 3 "rop verify" "" "$rop verify ${files[*]}"
  v_s=$(median verify "rop verify")
  v_rss=$(peak_rss_kb "$rop verify ${files[*]}")
  "$rop" verify "${files[@]}" >"$OUT/verify.txt" 2>&1 || true
  result "4 verify" "rop verify on ${#files[@]} files ($(tail -1 "$OUT/verify.txt" | sed 's/|/\\|/g')), release (median; $(spread verify 'rop verify'))" "$(ms "$v_s")" "< 200 ms" "$(verdict "$v_s" "<" 0.2)"
  result "4 verify" "peak memory (max RSS)" "$(mb "$v_rss")" "" ""
  # Compatibility: every CRD compared with itself (the whole walk, no findings).
  measure verify "$RUNS" 3 "rop verify --against" "" "$rop verify --against $WILD ${files[*]}"
  c_s=$(median verify "rop verify --against")
  "$rop" verify --against "$WILD" "${files[@]}" >"$OUT/verify-against.txt" 2>&1 || true
  result "4 verify" "rop verify --against: each of them compared with itself ($(tail -1 "$OUT/verify-against.txt")), release (median; $(spread verify 'rop verify --against'))" "$(ms "$c_s")" "< 300 ms" "$(verdict "$c_s" "<" 0.3)"
  # Import: the same CRDs as Rust types, into a fresh multigroup project each run (rustfmt
  # formats each file, and is timed with it).
  imp="$BENCH_DIR/import/wild-operator"
  prep="rm -rf $imp && mkdir -p $imp && cd $imp && $rop --quiet init --domain example.com --repo github.com/example/wild-operator --multigroup"
  measure import "$RUNS" 1 "rop import crd" "$prep" "cd $imp && $rop --quiet import crd ${files[*]}"
  i_s=$(median import "rop import crd")
  result "4 verify" "rop import crd of the ${#files[@]} CRDs into a fresh project, rustfmt included, release (median; $(spread import 'rop import crd'))" "$(ms "$i_s")" "< 1 s" "$(verdict "$i_s" "<" 1)"
fi

# ---------------------------------------------------------------------------------------------
# 5. The generated Memcached operator: cold build, incremental build, binary size, dependencies.
if want operator; then
  log "5. the generated Memcached operator"
  m="$BENCH_DIR/operator/memcached-operator"
  rm -rf "$m" && mkdir -p "$m"
  (cd "$m" && "$rop" --quiet init --domain example.com --repo github.com/example/memcached-operator $ROP_INIT_ARGS &&
    "$rop" --quiet create api --group cache --version v1alpha1 --kind Memcached --image memcached:1.6.26-alpine \
      --image-container-port 11211 --run-as-user 1001)
  pkg=memcached-operator
  deps=$(cd "$m" && cargo tree -q -p "$pkg" -e normal,build --prefix none | sed 's/ (\*)$//; s/ (proc-macro)$//' | sort -u | grep -vc "^$pkg")
  result "5 operator" "dependencies of the manager (unique crates, normal + build, cargo tree)" "$deps" "" ""
  if [ "${BENCH_COLD:-1}" = 1 ]; then
    cold="$BENCH_DIR/target-cold"
    rm -rf "$cold"
    # Cold: an empty build folder; crates are already downloaded (cargo fetch), so this times
    # compilation, not the network.
    (cd "$m" && cargo fetch --quiet)
    t0=$EPOCHREALTIME
    (cd "$m" && CARGO_TARGET_DIR="$cold" cargo build --timings 2>"$OUT/cold-build.txt")
    t1=$EPOCHREALTIME
    rop_cold=$(python3 -c "print($t1 - $t0)")
    compiled=$(grep -c '^ *Compiling ' "$OUT/cold-build.txt" || true)
    heaviest=$(python3 "$here/heaviest_units.py" "$cold"/cargo-timings/cargo-timing.html)
    result "5 operator" "cold \`cargo build\` of init + create api --image (dev profile, empty build folder, 1 run)" "$(secs "$rop_cold")" "" "$compiled crates compiled; longest: $heaviest"
    # kubebuilder's deploy-image project, the same way: modules downloaded first, an empty
    # build cache (GOCACHE), one `go build` of its manager.
    anchor_src="${BENCH_ANCHOR_DIR:-$repo/../shared/anchors/kubebuilder/project-v4-with-plugins}"
    if have go && [ -d "$anchor_src" ]; then
      k="$BENCH_DIR/operator/kubebuilder-cold"
      rm -rf "$k" "$BENCH_DIR/gocache-cold" && cp -r "$anchor_src" "$k" && chmod -R u+w "$k"
      (cd "$k" && go mod tidy >/dev/null 2>&1 && go mod download)
      t0=$EPOCHREALTIME
      (cd "$k" && GOCACHE="$BENCH_DIR/gocache-cold" go build -o bin/manager ./cmd)
      t1=$EPOCHREALTIME
      go_cold=$(python3 -c "print($t1 - $t0)")
      packages=$(cd "$k" && go list -deps ./cmd | wc -l)
      result "5 operator" "cold build, rop / kubebuilder (\`go build\` of its deploy-image project, empty GOCACHE: $(secs "$go_cold"), $packages packages)" "$(ratio "$rop_cold" "$go_cold")" "" ""
      rm -rf "$BENCH_DIR/gocache-cold"
    else
      result "5 operator" "cold build, rop / kubebuilder" "skipped" "" "Go or the anchor project is missing"
    fi
    op_target="$cold"
  else
    op_target="$PROJECTS_TARGET"
    (cd "$m" && CARGO_TARGET_DIR="$op_target" cargo build --quiet)
  fi
  export CARGO_TARGET_DIR="$op_target"
  measure_interleaved incremental "$BUILD_RUNS" 1 \
    "one-line reconciler change" \
    "$here/edit_line.sh $m/src/controller/memcached.rs 'const RESYNC_AFTER' 'const RESYNC_AFTER: Duration = Duration::from_secs(@N@);'" \
    "cd $m && cargo build --quiet"
  result "5 operator" "incremental \`cargo build\` after a one-line reconciler change (median; $(spread incremental 'one-line reconciler change'))" "$(secs "$(median incremental 'one-line reconciler change')")" "" ""
  # Release: its own build folder, kept between runs of this script.
  export CARGO_TARGET_DIR="$BENCH_DIR/target-release"
  t0=$EPOCHREALTIME
  (cd "$m" && cargo build --quiet --release)
  t1=$EPOCHREALTIME
  bin="$CARGO_TARGET_DIR/release/manager"
  size=$(stat -c %s "$bin")
  cp "$bin" "$OUT/manager.stripped" && strip "$OUT/manager.stripped" 2>/dev/null || true
  ssize=$(stat -c %s "$OUT/manager.stripped")
  result "5 operator" "release binary \`manager\` (as built / stripped)" "$(mib "$((size / 1024))") / $(mib "$((ssize / 1024))")" "" "release build took $(secs "$(python3 -c "print($t1 - $t0)")") (warm if this folder was built before)"
  unset CARGO_TARGET_DIR
fi

# ---------------------------------------------------------------------------------------------
# 6. The operators at work: rop's deploy-image Memcached manager and kubebuilder's, the same
# work on the same API server (a fresh rop-testenv one per run), runs interleaved. See
# bench/src/lib.rs for the phases and what converged means.
# rop's generated Memcached operator and kubebuilder's deploy-image one, built once for the
# operator sections: sets o, p (rop's project), a (kubebuilder's) and harness.
operators_built=""
build_operators() {
  [ -z "$operators_built" ] || return 0
  anchor_src="${BENCH_ANCHOR_DIR:-$repo/../shared/anchors/kubebuilder/project-v4-with-plugins}"
  o="$BENCH_DIR/operator-runtime"
  mkdir -p "$o"
  export CARGO_TARGET_DIR="$BENCH_DIR/target-release"
  cargo build --quiet --release -p rop-operator-bench --manifest-path "$snap/Cargo.toml"
  harness="$CARGO_TARGET_DIR/release/rop-operator-bench"
  # rop's twin of the anchor: Memcached and Busybox with an image, Wordpress without.
  p="$o/rop-project"
  rm -rf "$p" && mkdir -p "$p"
  (cd "$p" && "$rop" --quiet init --domain example.com --repo github.com/example/memcached-operator $ROP_INIT_ARGS &&
    "$rop" --quiet create api --group cache --version v1alpha1 --kind Memcached --image memcached:1.6.26-alpine \
      --image-container-port 11211 --image-container-command memcached,--memory-limit=64,-o,modern,-v --run-as-user 1001 &&
    "$rop" --quiet create api --group cache --version v1alpha1 --kind Busybox --image busybox:1.36.1 --run-as-user 1001 &&
    "$rop" --quiet create api --group cache --version v1 --kind Wordpress &&
    "$rop" --quiet generate && cargo build --quiet --release --bin manager)
  cp "$CARGO_TARGET_DIR/release/manager" "$o/rop-manager"
  unset CARGO_TARGET_DIR
  # kubebuilder's, built from its sources with the Go module proxy (kept between runs).
  a="$o/kubebuilder-project"
  if [[ " ${BENCH_MANAGERS:-rop kubebuilder} " == *" kubebuilder "* ]] && [ ! -x "$a/bin/manager" ]; then
    rm -rf "$a" && cp -r "$anchor_src" "$a"
    (cd "$a" && go mod tidy && go build -o bin/manager ./cmd) >"$OUT/anchor-build.txt" 2>&1 || {
      cat "$OUT/anchor-build.txt" >&2
      exit 1
    }
  fi
  operators_built=1
}

# Why an operator section cannot run, or nothing.
operators_missing() {
  if ! have go; then
    echo "Go is not installed"
  elif [ ! -x "$HOME/.cache/rop-testenv/bin/kube-apiserver" ] && [ -z "${ROP_TESTENV_BIN_DIR:-}" ] && ! have kube-apiserver; then
    echo "no rop-testenv binaries (scripts/install-testenv.sh)"
  fi
}

# run_operator NAME N [HARNESS FLAGS...]: one run of the harness on rop's or kubebuilder's manager.
run_operator() {
  local name=$1 n=$2
  shift 2
  # A phase may take 600 s, or a fifth of a second per object past 3000 (10,000 objects: 2000 s).
  local timeout=$((n > 3000 ? n / 5 : 600))
  case $name in
    rop) "$harness" --name rop --manager "$o/rop-manager" --crds "$p/config/crd/bases" \
      --group cache.example.com --version v1alpha1 --kind Memcached --plural memcacheds \
      --objects "$n" --timeout "$timeout" "$@" ;;
    kubebuilder) "$harness" --name kubebuilder --manager "$a/bin/manager" --crds "$a/config/crd/bases" \
      --group example.com.testproject.org --version v1alpha1 --kind Memcached --plural memcacheds \
      --objects "$n" --timeout "$timeout" --env MEMCACHED_IMAGE=memcached:1.6.26-alpine "$@" ;;
  esac
}

# run_interleaved COUNTS RUNS FILE [HARNESS FLAGS...]: every count, RUNS runs of each manager,
# alternating who goes first so that a drift of the machine favours neither.
run_interleaved() {
  local counts=$1 runs=$2 file=$3 n r order manager
  shift 3
  : >"$file"
  for n in $counts; do
    for ((r = 1; r <= runs; r++)); do
      if ((r % 2)); then order="rop kubebuilder"; else order="kubebuilder rop"; fi
      for manager in $order; do
        [[ " ${BENCH_MANAGERS:-rop kubebuilder} " == *" $manager "* ]] || continue
        log "$(basename "$file" .jsonl): $manager, $n objects, run $r of $runs"
        run_operator "$manager" "$n" "$@" | tee -a "$file" >&2
      done
    done
  done
}

# operator_section NAME TITLE COUNTS RUNS [HARNESS FLAGS...]: a section that runs both managers
# through the harness, with its table.
operator_section() {
  local name=$1 title=$2 counts=$3 runs=$4
  shift 4
  log "$title"
  local missing
  missing="$(operators_missing)"
  if [ -z "$missing" ] && [ "$name" = operator-faults ] && ! unshare --mount true 2>/dev/null; then
    missing="unshare --mount is refused (kubebuilder's leader election needs an in-cluster namespace file: run as root)"
  fi
  if [ -n "$missing" ]; then
    result "$title" "skipped" "$missing" "" ""
    return
  fi
  build_operators
  run_interleaved "$counts" "$runs" "$OUT/$name.jsonl" "$@"
  python3 "$here/operator_table.py" "$OUT/$name.jsonl" | tee "$OUT/$name.md" >&2
  python3 "$here/operator_table.py" --results "$OUT/$name.jsonl" >>"$OUT/results.md"
}

if want operator-runtime; then
  operator_section operator-runtime "6 operator runtime" "${BENCH_OPERATOR_N:-100 1000}" "${BENCH_OPERATOR_RUNS:-3}" \
    --idle "${BENCH_OPERATOR_IDLE:-30}"
fi
if want operator-faults; then
  # Both managers in a private mount namespace: kubebuilder's needs it for its leader election.
  operator_section operator-faults "7 operator faults" "${BENCH_FAULTS_N:-50 300 1000}" "${BENCH_FAULTS_RUNS:-1}" \
    --scenario faults --namespace-file true
fi

# ---------------------------------------------------------------------------------------------
# 8. A watch with a label selector: a Tenant controller that `watches(Pod)`, its Pod watch
# selecting `bench.example.com/selected=true` ("selected") or every Pod ("all"), the variant
# read from SELECTOR_BENCH_VARIANT in its `config()` (scripts/bench/selector/tenant.rs), so one
# release build serves both. Each run: a fresh rop-testenv API server (an example of the
# project, scripts/bench/selector/testenv.rs), the manager started with no Pod there, its RSS
# read once its Pod watch is open and it has settled; then BENCH_SELECTOR_PODS Pods without
# the label and 10 with it (owned by a Tenant), created with kubectl, and the RSS read again
# once the manager has seen them and settled. No scheduler or kubelet runs: the Pods stay
# Pending.
selector_run() {
  local variant=$1 run=$2 n=$3 settle=$4 w="$BENCH_DIR/operator-selector/run"
  local user="system:serviceaccount:default:controller-manager"
  rm -rf "$w" && mkdir -p "$w"
  mkfifo "$w/stop"
  "$sel_o/testenv" "$w/env" <"$w/stop" >"$w/testenv.log" 2>&1 &
  local testenv_pid=$! stop_fd
  exec {stop_fd}>"$w/stop"
  local i
  until [ -s "$w/env" ]; do
    kill -0 "$testenv_pid" 2>/dev/null || { cat "$w/testenv.log" >&2; return 1; }
    sleep 0.2
  done
  # shellcheck disable=SC1091
  source "$w/env"
  local k=(kubectl --kubeconfig "$ADMIN_KUBECONFIG")
  "${k[@]}" apply -f "$sel_p/config/crd/bases" >/dev/null
  "${k[@]}" wait --for condition=Established crd/tenants.bench.example.com >/dev/null
  "${k[@]}" create clusterrolebinding controller-manager-admin --clusterrole cluster-admin \
    --serviceaccount default:controller-manager >/dev/null
  "${k[@]}" create -f - >/dev/null <<'EOF'
apiVersion: bench.example.com/v1
kind: Tenant
metadata: {name: owner, namespace: default}
spec: {size: 1}
EOF
  local uid metrics_port probe_port
  uid=$("${k[@]}" get tenant owner -o jsonpath='{.metadata.uid}')
  python3 "$here/selector.py" pods "$w/pods" unrelated "$n" 8
  python3 "$here/selector.py" pods "$w/pods" selected 10 1 --owner owner "$uid"
  # Two free ports below the ephemeral range, where the API server's own connections to etcd
  # could take a port between our look and the manager's bind.
  read -r metrics_port probe_port < <(python3 -c 'import random, socket
ports = []
while len(ports) < 2:
    port = random.randrange(20000, 32000)
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            continue
    if port not in ports:
        ports.append(port)
print(*ports)')
  KUBECONFIG="$MANAGER_KUBECONFIG" RUST_LOG=info SELECTOR_BENCH_VARIANT=$variant SELECTOR_BENCH_COUNTS="$w/pod-events" \
    "$sel_o/selector-manager" --metrics-bind-address "127.0.0.1:$metrics_port" --metrics-secure=false \
    --health-probe-bind-address "127.0.0.1:$probe_port" --enable-webhooks=false >"$w/manager.log" 2>&1 &
  local manager_pid=$!
  # A failed run leaves no manager behind (the API server stops when this subshell's end of
  # its standard input closes).
  trap "kill -TERM $manager_pid 2>/dev/null || true" EXIT
  # Synced: the manager's watch of the Pods is open (the audit log has it).
  for ((i = 0; ; i++)); do
    kill -0 "$manager_pid" 2>/dev/null || { cat "$w/manager.log" >&2; return 1; }
    python3 "$here/selector.py" synced "$AUDIT_LOG" "$user" && break
    ((i < 300)) || { echo "error: the manager opened no watch of Pods in 60 s" >&2; cat "$w/manager.log" >&2; return 1; }
    sleep 0.2
  done
  sleep "$settle"
  local rss_before hwm_before
  rss_before=$(awk '/^VmRSS:/ { print $2 }' "/proc/$manager_pid/status")
  hwm_before=$(awk '/^VmHWM:/ { print $2 }' "/proc/$manager_pid/status")
  # The Pods: 8 kubectl processes at once, then the 10 labelled ones.
  local t0=$EPOCHREALTIME
  printf '%s\n' "$w"/pods/unrelated-*.json | xargs -P 8 -I{} "${k[@]}" create -f {} -o name >/dev/null
  "${k[@]}" create -f "$w/pods/selected-0.json" -o name >/dev/null
  local t1=$EPOCHREALTIME
  local expected=10
  [ "$variant" = selected ] || expected=$((n + 10))
  # Seen: the manager's map_watched has had as many Pod events as the variant should see
  # (given up after 600 s, and reported as not seen).
  local seen=false
  for ((i = 0; i < 3000; i++)); do
    [ "$(cat "$w/pod-events" 2>/dev/null || echo 0)" -ge "$expected" ] && { seen=true; break; }
    sleep 0.2
  done
  local t2=$EPOCHREALTIME
  sleep "$settle"
  local rss_after peak events pods reconciles
  rss_after=$(awk '/^VmRSS:/ { print $2 }' "/proc/$manager_pid/status")
  peak=$(awk '/^VmHWM:/ { print $2 }' "/proc/$manager_pid/status")
  events=$(cat "$w/pod-events")
  pods=$("${k[@]}" get pods --no-headers 2>/dev/null | wc -l)
  reconciles=$(curl -s "http://127.0.0.1:$metrics_port/metrics" |
    awk '/^controller_runtime_reconcile_total/ { n += $NF } END { print n + 0 }')
  kill -TERM "$manager_pid" && wait "$manager_pid" || true
  trap - EXIT
  local requests
  requests=$(python3 "$here/selector.py" audit "$AUDIT_LOG" "$user")
  exec {stop_fd}>&-
  wait "$testenv_pid" || true
  python3 -c 'import json, sys
a = sys.argv[1:]
print(json.dumps({"variant": a[0], "run": int(a[1]), "unrelated": int(a[2]), "selected": 10, "pods_in_server": int(a[3]),
    "rss_before_kib": int(a[4]), "hwm_before_kib": int(a[5]), "rss_after_kib": int(a[6]), "peak_kib": int(a[7]),
    "pod_events": int(a[8]), "reconciles": int(a[9]), "create_s": round(float(a[10]), 2), "seen_s": round(float(a[11]), 2),
    "pod_requests": json.loads(a[12]), "expected_events": int(a[13]), "seen": a[14] == "true"}))' \
    "$variant" "$run" "$n" "$pods" "$rss_before" "$hwm_before" "$rss_after" "$peak" "$events" "$reconciles" \
    "$(python3 -c "print($t1 - $t0)")" "$(python3 -c "print($t2 - $t1)")" "$requests" "$expected" "$seen"
}

if want operator-selector; then
  title="8 operator selector"
  log "$title: a Pod watch with a label selector vs without, ${BENCH_SELECTOR_PODS:-5000} unrelated Pods"
  if ! have kubectl; then
    result "$title" "skipped" "kubectl is not installed" "" ""
  elif [ -z "${ROP_TESTENV_DIR:-}${KUBEBUILDER_ASSETS:-}" ] && [ ! -x "$HOME/.cache/rop-testenv/bin/kube-apiserver" ]; then
    result "$title" "skipped" "no rop-testenv binaries (scripts/install-testenv.sh)" "" ""
  else
    sel_o="$BENCH_DIR/operator-selector"
    sel_p="$sel_o/selector-operator"
    mkdir -p "$sel_o"
    rm -rf "$sel_p" && mkdir -p "$sel_p"
    export CARGO_TARGET_DIR="$BENCH_DIR/target-release"
    (cd "$sel_p" && "$rop" --quiet init --domain example.com --repo github.com/example/selector-operator $ROP_INIT_ARGS &&
      "$rop" --quiet create api --group bench --version v1 --kind Tenant)
    # Tenant's controller watches Pods; its reconciler and the API server's example.
    python3 - "$sel_p/api/src/v1/tenant.rs" <<'EOF'
import sys
path = sys.argv[1]
text = open(path).read()
assert 'status = "TenantStatus"' in text, "the scaffold's Tenant type changed"
open(path, "w").write(text.replace('status = "TenantStatus"', 'watches(rop::k8s_openapi::api::core::v1::Pod), status = "TenantStatus"', 1))
EOF
    cp "$here/selector/tenant.rs" "$sel_p/src/controller/tenant.rs"
    mkdir -p "$sel_p/examples" && cp "$here/selector/testenv.rs" "$sel_p/examples/testenv.rs"
    (cd "$sel_p" && "$rop" --quiet generate && cargo build --quiet --release --bin manager --example testenv)
    cp "$CARGO_TARGET_DIR/release/manager" "$sel_o/selector-manager"
    cp "$CARGO_TARGET_DIR/release/examples/testenv" "$sel_o/testenv"
    unset CARGO_TARGET_DIR
    : >"$OUT/operator-selector.jsonl"
    for ((r = 1; r <= ${BENCH_SELECTOR_RUNS:-1}; r++)); do
      if ((r % 2)); then order="selected all"; else order="all selected"; fi
      for variant in $order; do
        log "operator-selector: $variant, run $r of ${BENCH_SELECTOR_RUNS:-1}"
        selector_run "$variant" "$r" "${BENCH_SELECTOR_PODS:-5000}" "${BENCH_SELECTOR_SETTLE:-20}" |
          tee -a "$OUT/operator-selector.jsonl" >&2
      done
    done
    python3 "$here/selector.py" table "$OUT/operator-selector.jsonl" | tee "$OUT/operator-selector.md" >&2
    python3 "$here/selector.py" table "$OUT/operator-selector.jsonl" --results >>"$OUT/results.md"
  fi
fi

# ---------------------------------------------------------------------------------------------
log "results"
echo "load average at end (1/5/15 min): $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/machine.txt"
cat "$OUT/machine.txt"
echo
cat "$OUT/results.md"
