"""Summarises operator-runtime runs (JSON lines from rop-operator-bench) as Markdown.

    python3 operator_table.py RUNS.jsonl            the comparison table
    python3 operator_table.py --results RUNS.jsonl  rows for bench.sh's results table

Every figure is the median of the runs of one manager at one object count; ratios are
rop / kubebuilder, from the same script run (runs interleaved)."""

import json
import statistics
import sys
from collections import defaultdict

# (key, label, unit, goal for the ratio rop / kubebuilder or None)
METRICS = [
    ("create_s", "create: all converged", "s", 1.0),
    ("resize_s", "resize: every Deployment follows", "s", 1.0),
    ("heal_s", "heal: every Deployment back", "s", 1.0),
    ("cpu_s", "CPU, whole run (user + system)", "s", None),
    ("idle_cpu_s", "CPU, idle phase", "s", None),
    ("peak_rss_kib", "peak RSS (VmHWM)", "MiB", 0.5),
    ("idle_rss_kib", "RSS after the idle phase", "MiB", None),
    ("requests_per_object", "API requests per object", "", 1.0),
]


def load(path):
    runs = defaultdict(list)
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                run = json.loads(line)
                runs[(run["objects"], run["operator"])].append(run)
    return runs


def value(key, unit, runs):
    v = statistics.median(r[key] for r in runs)
    return v / 1024 if unit == "MiB" else v


def show(v, unit):
    if unit == "MiB":
        return f"{v:.1f} MiB"
    if unit == "s":
        return f"{v:.2f} s"
    return f"{v:.2f}"


def rows(runs):
    for n in sorted({n for n, _ in runs}):
        rop, kb = runs.get((n, "rop")), runs.get((n, "kubebuilder"))
        if not rop or not kb:
            continue
        for key, label, unit, goal in METRICS:
            r, k = value(key, unit, rop), value(key, unit, kb)
            ratio = r / k if k else float("nan")
            verdict = ""
            if goal is not None:
                verdict = "met" if ratio <= goal else f"missed ({ratio:.2f} > {goal})"
            yield n, len(rop), len(kb), label, show(r, unit), show(k, unit), f"{ratio:.2f}", goal, verdict


def main():
    args = sys.argv[1:]
    results = args[0] == "--results"
    runs = load(args[-1])
    if results:
        for n, _, _, label, r, k, ratio, goal, verdict in rows(runs):
            target = f"ratio <= {goal}" if goal is not None else ""
            print(f"| 6 operator runtime | {n} objects, {label}: rop {r}, kubebuilder {k} | {ratio} | {target} | {verdict} |")
        return
    print("| objects | metric | rop | kubebuilder | rop / kubebuilder | goal |")
    print("|---|---|---|---|---|---|")
    for n, nr, nk, label, r, k, ratio, goal, verdict in rows(runs):
        target = f"<= {goal}: {verdict}" if goal is not None else ""
        print(f"| {n} ({nr}+{nk} runs) | {label} | {r} | {k} | {ratio} | {target} |")


main()
