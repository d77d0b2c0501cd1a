"""The five compilation units that took longest in a `cargo build --timings` report.

Usage: heaviest_units.py target/cargo-timings/cargo-timing.html
Prints "name N s, ..." (cargo's per-unit duration, wall-clock seconds).
"""
import json
import re
import sys

html = open(sys.argv[1]).read()
units = json.loads(re.search(r"const UNIT_DATA = (\[.*?\]);\n", html, re.S).group(1))
units.sort(key=lambda unit: -unit["duration"])
print(", ".join(f"{unit['name']} {unit['duration']:.0f} s" for unit in units[:5]))
