#!/usr/bin/env python3
"""Small helpers for scripts/bench.sh (standard library only).

  stats.py hyperfine JSON_FILE        -> one line per command: name median min max runs (seconds)
  stats.py times NAME SECONDS...      -> the same line from plain repetition
  stats.py rss -- CMD ARGS...         -> runs CMD, prints its peak RSS in KiB (wait4; includes children)
  stats.py count-lines FILE           -> non-blank lines of FILE
"""

import json
import os
import statistics
import subprocess
import sys


def line(name, times):
    times = sorted(times)
    return f"{name}\t{statistics.median(times):.6f}\t{times[0]:.6f}\t{times[-1]:.6f}\t{len(times)}"


def main():
    cmd = sys.argv[1]
    if cmd == "hyperfine":
        with open(sys.argv[2]) as f:
            data = json.load(f)
        for r in data["results"]:
            print(line(r["command"], r["times"]))
    elif cmd == "times":
        print(line(sys.argv[2], [float(t) for t in sys.argv[3:]]))
    elif cmd == "rss":
        argv = sys.argv[sys.argv.index("--") + 1 :]
        with open(os.devnull, "wb") as null:
            p = subprocess.Popen(argv, stdout=null, stderr=null)
            _, _, usage = os.wait4(p.pid, 0)
        print(usage.ru_maxrss)
    elif cmd == "count-lines":
        with open(sys.argv[2], errors="replace") as f:
            print(sum(1 for l in f if l.strip()))
    else:
        sys.exit(f"unknown command {cmd}")


if __name__ == "__main__":
    main()
