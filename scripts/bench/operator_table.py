"""Summarises operator-runtime or operator-faults runs (JSON lines from rop-operator-bench)
as Markdown.

    python3 operator_table.py RUNS.jsonl            the comparison table
    python3 operator_table.py --results RUNS.jsonl  rows for bench.sh's results table

Every figure is the median of the runs of one manager at one object count; ratios are
rop / kubebuilder, from the same script run (runs interleaved). A goal is a ratio, or for
some fault figures a bound on rop's own time."""

import json
import statistics
import sys
from collections import defaultdict

# (key, label, unit, goal for the ratio rop / kubebuilder or None)
METRICS = [
    ("create_s", "create: all converged", "s", 0.8),
    ("resize_s", "resize: every Deployment follows", "s", 0.8),
    ("heal_s", "heal: every Deployment back", "s", 0.8),
    ("server_cpu_create_s", "API server + etcd CPU in the create phase", "s", None),
    ("server_cpu_resize_s", "API server + etcd CPU in the resize phase", "s", None),
    ("server_cpu_heal_s", "API server + etcd CPU in the heal phase", "s", None),
    ("cpu_s", "CPU, whole run (user + system)", "s", None),
    ("idle_cpu_s", "CPU, idle phase", "s", None),
    ("idle_cpu_per_hour_s", "CPU idle, per hour (the idle phase's, scaled)", "s", None),
    ("peak_rss_kib", "peak RSS (VmHWM)", "MiB", 0.5),
    ("idle_rss_kib", "RSS after the idle phase", "MiB", None),
    ("requests_per_object", "API requests per object (create to idle)", "", 1.0),
    ("start_first_s", "restart with the objects there, all resized: first Deployment follows", "s", 0.8),
    ("start_all_s", "restart: every Deployment follows", "s", 0.8),
    ("start_peak_rss_kib", "restart: peak RSS of the new manager", "MiB", 0.5),
]

# The fault scenario (`--scenario faults`): (key, label, unit, ratio goal, bound on rop's value)
FAULT_METRICS = [
    ("wave_first_s", "API server restart mid-wave: first Deployment follows", "s", None, None),
    ("wave_all_s", "API server restart mid-wave: all follow", "s", None, None),
    ("restart_first_s", "API server restart: first changed object reconciled", "s", None, 10.0),
    ("restart_all_s", "API server restart: all reconciled", "s", 0.5, None),
    ("etcd_first_s", "etcd restart: first reconciled", "s", None, None),
    ("etcd_all_s", "etcd restart: all reconciled", "s", None, None),
    ("kill_first_s", "leader killed: first reconciled by the standby", "s", 0.8, None),
    ("kill_all_s", "leader killed: all reconciled", "s", None, None),
    ("term_first_s", "leader stopped (SIGTERM): first reconciled by the standby", "s", None, 3.0),
    ("term_all_s", "leader stopped (SIGTERM): all reconciled", "s", None, None),
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


def metrics(runs):
    """The metrics of these runs, each with a ratio goal and a bound (or None)."""
    faults = any("wave_first_s" in r for rs in runs.values() for r in rs)
    if faults:
        return FAULT_METRICS
    return [(key, label, unit, goal, None) for key, label, unit, goal in METRICS]


def rows(runs):
    for n in sorted({n for n, _ in runs}):
        rop, kb = runs.get((n, "rop")), runs.get((n, "kubebuilder"))
        if not rop:
            continue
        for key, label, unit, goal, bound in metrics(runs):
            r = value(key, unit, rop)
            # Without kubebuilder's runs (BENCH_MANAGERS=rop) only rop's own bounds are judged.
            k = value(key, unit, kb) if kb else None
            ratio = r / k if k else float("nan")
            verdicts, targets = [], []
            if goal is not None and kb:
                targets.append(f"ratio <= {goal}")
                verdicts.append("met" if ratio <= goal else f"missed ({ratio:.2f} > {goal})")
            if bound is not None:
                targets.append(f"rop <= {bound:g} {unit}")
                verdicts.append("met" if r <= bound else f"missed ({r:.2f} > {bound:g})")
            shown_k, shown_ratio = (show(k, unit), f"{ratio:.2f}") if kb else ("-", "-")
            yield n, len(rop), len(kb or []), label, show(r, unit), shown_k, shown_ratio, ", ".join(targets), ", ".join(verdicts)


def main():
    args = sys.argv[1:]
    results = args[0] == "--results"
    runs = load(args[-1])
    section = "7 operator faults" if metrics(runs) is FAULT_METRICS else "6 operator runtime"
    if results:
        for n, _, _, label, r, k, ratio, target, verdict in rows(runs):
            print(f"| {section} | {n} objects, {label}: rop {r}, kubebuilder {k} | {ratio} | {target} | {verdict} |")
        return
    print("| objects | metric | rop | kubebuilder | rop / kubebuilder | goal |")
    print("|---|---|---|---|---|---|")
    for n, nr, nk, label, r, k, ratio, target, verdict in rows(runs):
        goal = f"{target}: {verdict}" if target else ""
        print(f"| {n} ({nr}+{nk} runs) | {label} | {r} | {k} | {ratio} | {goal} |")


main()
