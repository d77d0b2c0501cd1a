#!/usr/bin/env bash
# Usage: scripts/import-compare.sh KOPIUM_DIR ROP_DIR
# How many schema keywords of the CRDs in ORIG_DIR (default ../shared/testdata/crds-in-the-wild)
# survive a round trip through kopium and through rop: per family, summed over the CRDs, then per
# CRD. Each folder holds regenerated CRDs named <group>_<plural>.yaml, as `rop generate` writes
# config/crd/bases; a missing file survives nothing. It only compares (scripts/schema-keywords.py):
# it builds nothing.
set -euo pipefail
[ $# -eq 2 ] || { sed -n 2,7p "$0" | sed 's/^# \?//' >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
orig_dir=${ORIG_DIR:-$here/../../shared/testdata/crds-in-the-wild}

measure() { # measure TOOL DIR ORIGINAL FILENAME -> one line of JSON
  local file="$2/$4"
  [ -f "$file" ] || { echo "$1: no $4, counted as 0" >&2; file=/dev/null; }
  python3 "$here/schema-keywords.py" --json "$3" "$file" 2>/dev/null | tr -d ' \n'
}

for orig in "$orig_dir"/*.yaml; do
  name=$(python3 -c 'import sys, yaml; s = yaml.safe_load(open(sys.argv[1]))["spec"]
print(s["group"] + "_" + s["names"]["plural"] + ".yaml")' "$orig")
  printf '%s\t%s\t%s\n' "$(basename "$orig" .yaml)" \
    "$(measure kopium "$1" "$orig" "$name")" "$(measure rop "$2" "$orig" "$name")"
done | python3 -c '
import json, sys
rows = [(n, json.loads(k), json.loads(r)) for n, k, r in (l.rstrip("\n").split("\t") for l in sys.stdin)]
fmt = "{:<40} {:>8} {:>8} {:>8}"
print(fmt.format("family", "original", "kopium", "rop"))
for fam in rows[0][1]:
    print(fmt.format(fam, sum(k[fam]["original"] for _, k, _ in rows),
                     sum(k[fam]["survived"] for _, k, _ in rows), sum(r[fam]["survived"] for _, _, r in rows)))
print()
print(fmt.format("crd (all families)", "original", "kopium", "rop"))
for n, k, r in rows:
    print(fmt.format(n, k["total"]["original"], k["total"]["survived"], r["total"]["survived"]))
'
