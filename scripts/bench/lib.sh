# Helpers for scripts/bench.sh: timing (hyperfine when installed, else plain interleaved
# repetition), peak memory, and a results table. Sourced, not run.

bench_lib_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
STATS="python3 $bench_lib_dir/stats.py"

have() { command -v "$1" >/dev/null 2>&1; }

log() { printf '\n==> %s\n' "$*" >&2; }

# measure ID RUNS WARMUP NAME1 PREP1 CMD1 [NAME2 PREP2 CMD2 ...]
#
# Times each CMD RUNS times after WARMUP untimed runs, running PREP (untimed) before every run
# of its CMD. Commands run through `bash -c` in the current folder and environment; their
# output is discarded and a failing exit code is ignored (rop verify exits 1 on findings).
# Writes $OUT/ID.tsv: name, median wall, min, max, runs, cpu (user + system) seconds.
#
# Uses hyperfine when $TIMER is "hyperfine" (all runs of one command, then the next);
# otherwise plain repetition, interleaved.
measure() {
  if [ "$TIMER" = hyperfine ]; then measure_hyperfine "$@"; else measure_interleaved "$@"; fi
}

measure_hyperfine() {
  local id=$1 runs=$2 warmup=$3
  shift 3
  local names=() preps=() cmds=() i
  while (($#)); do
    names+=("$1"); preps+=("${2:-true}"); cmds+=("$3"); shift 3
  done
  local args=(--runs "$runs" --warmup "$warmup" --ignore-failure --shell=bash --style=basic
    --export-json "$OUT/$id.json")
  for ((i = 0; i < ${#names[@]}; i++)); do args+=(--prepare "${preps[i]}"); done
  for ((i = 0; i < ${#names[@]}; i++)); do args+=(--command-name "${names[i]}"); done
  hyperfine "${args[@]}" "${cmds[@]}" >"$OUT/$id.hyperfine.txt" 2>&1 || {
    cat "$OUT/$id.hyperfine.txt" >&2
    return 1
  }
  $STATS hyperfine "$OUT/$id.json" >"$OUT/$id.tsv"
  cat "$OUT/$id.tsv" >&2
}

# The same, by plain repetition with runs interleaved (1,2,3,1,2,3,...), so that load from
# other processes on a shared machine falls on every command alike. Used for builds, which
# take seconds, whatever $TIMER is.
measure_interleaved() {
  local id=$1 runs=$2 warmup=$3
  shift 3
  local names=() preps=() cmds=() i r
  while (($#)); do
    names+=("$1"); preps+=("${2:-true}"); cmds+=("$3"); shift 3
  done
  local n=${#names[@]}
  for ((i = 0; i < n; i++)); do : >"$OUT/$id.$i.runs"; done
  for ((r = 0; r < warmup + runs; r++)); do
    for ((i = 0; i < n; i++)); do
      bash -c "${preps[i]}" >/dev/null 2>&1 || { echo "error: $id: prepare failed: ${preps[i]}" >&2; return 1; }
      local m
      m=$($STATS run -- bash -c "${cmds[i]}")
      ((r < warmup)) || echo "$m" >>"$OUT/$id.$i.runs"
    done
  done
  : >"$OUT/$id.tsv"
  for ((i = 0; i < n; i++)); do $STATS times "${names[i]}" "$OUT/$id.$i.runs" >>"$OUT/$id.tsv"; done
  cat "$OUT/$id.tsv" >&2
}

# median ID NAME: the median seconds of NAME in measurement ID.
median() { awk -F'\t' -v n="$2" '$1 == n { print $2 }' "$OUT/$1.tsv"; }
# cpu ID NAME: user + system seconds of NAME (median, or hyperfine's mean).
cpu() { awk -F'\t' -v n="$2" '$1 == n { print $6 }' "$OUT/$1.tsv"; }
# spread ID NAME: "min–max" seconds.
spread() { awk -F'\t' -v n="$2" '$1 == n { printf "%.3f–%.3f s, %s runs", $3, $4, $5 }' "$OUT/$1.tsv"; }

# peak_rss_kb CMD: peak resident memory in KiB of `bash -c CMD` and every process it runs
# (GNU time's maximum resident set size; wait4 through python when GNU time is absent).
peak_rss_kb() {
  if [ -x /usr/bin/time ] && /usr/bin/time -v true >/dev/null 2>&1; then
    /usr/bin/time -v -o "$OUT/time-v.txt" bash -c "$1" >/dev/null 2>&1 || true
    awk -F': ' '/Maximum resident set size/ { print $2 }' "$OUT/time-v.txt"
  else
    $STATS rss -- bash -c "$1"
  fi
}

# result SECTION METRIC VALUE TARGET VERDICT: one row of the results table.
result() {
  printf '| %s | %s | %s | %s | %s |\n' "$@" >>"$OUT/results.md"
  printf '%s | %s: %s (target %s) %s\n' "$1" "$2" "$3" "$4" "$5" >&2
}

ms() { python3 -c "print(f'{$1 * 1000:.0f} ms')"; }
secs() { python3 -c "print(f'{$1:.2f} s')"; }
ratio() { python3 -c "print(f'{$1 / $2:.2f}')"; }
mib() { python3 -c "print(f'{$1 / 1024:.1f} MiB')"; }
mb() { python3 -c "print(f'{$1 * 1024 / 1e6:.1f} MB')"; } # KiB -> MB (10^6 bytes)
# verdict VALUE OP LIMIT: "met" or "missed by X%" (OP is < or <=).
verdict() {
  python3 - "$1" "$2" "$3" <<'EOF'
import sys
v, op, lim = float(sys.argv[1]), sys.argv[2], float(sys.argv[3])
ok = v < lim if op == "<" else v <= lim
print("met" if ok else f"**missed** by {(v / lim - 1) * 100:.0f}% ({v:.3g} vs {lim:g}, {v / lim:.1f}×)")
EOF
}
