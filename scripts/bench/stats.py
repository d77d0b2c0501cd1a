#!/usr/bin/env python3
"""Small helpers for scripts/bench.sh (standard library only).

  stats.py hyperfine JSON_FILE        -> one line per command: name median min max runs cpu (seconds;
                                         cpu = hyperfine's mean user + system time)
  stats.py times NAME FILE            -> the same line from FILE's "wall cpu" lines (plain repetition;
                                         cpu = median user + system time)
  stats.py run -- CMD ARGS...         -> runs CMD (output discarded), prints "wall cpu maxrss_kib" of it
                                         and everything it started (wait4)
  stats.py rss -- CMD ARGS...         -> runs CMD, prints its peak RSS in KiB (wait4; includes children)
  stats.py count-lines FILE           -> non-blank lines of FILE
"""

import json
import os
import statistics
import subprocess
import sys
import time


def line(name, times, cpu):
    times = sorted(times)
    return f"{name}\t{statistics.median(times):.6f}\t{times[0]:.6f}\t{times[-1]:.6f}\t{len(times)}\t{cpu:.6f}"


def run(argv):
    with open(os.devnull, "wb") as null:
        t0 = time.perf_counter()
        p = subprocess.Popen(argv, stdout=null, stderr=null)
        _, _, usage = os.wait4(p.pid, 0)
        t1 = time.perf_counter()
    return t1 - t0, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def main():
    cmd = sys.argv[1]
    if cmd == "hyperfine":
        with open(sys.argv[2]) as f:
            data = json.load(f)
        for r in data["results"]:
            print(line(r["command"], r["times"], r["user"] + r["system"]))
    elif cmd == "times":
        with open(sys.argv[3]) as f:
            rows = [[float(x) for x in l.split()] for l in f if l.strip()]
        print(line(sys.argv[2], [r[0] for r in rows], statistics.median(r[1] for r in rows)))
    elif cmd == "run":
        wall, cpu, rss = run(sys.argv[sys.argv.index("--") + 1 :])
        print(f"{wall:.6f} {cpu:.6f} {rss}")
    elif cmd == "rss":
        print(run(sys.argv[sys.argv.index("--") + 1 :])[2])
    elif cmd == "count-lines":
        with open(sys.argv[2], errors="replace") as f:
            print(sum(1 for l in f if l.strip()))
    else:
        sys.exit(f"unknown command {cmd}")


if __name__ == "__main__":
    main()
