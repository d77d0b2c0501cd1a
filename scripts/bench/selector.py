#!/usr/bin/env python3
"""Helpers of scripts/bench.sh's operator-selector section (standard library only).

  selector.py pods DIR PREFIX N CHUNKS [--owner NAME UID]
        writes N Pods named PREFIX-00001... as CHUNKS JSON Lists DIR/PREFIX-K.json, for
        `kubectl create -f`; with --owner they carry the selected variant's label and a
        controller owner reference to the Tenant NAME (uid UID), without it labels no
        selector of the bench matches
  selector.py synced AUDIT USER
        exits 0 once the audit log AUDIT holds a watch of Pods by USER, 1 before
  selector.py audit AUDIT USER
        prints USER's requests on Pods as JSON: {"verb labelSelector": count, ...}
  selector.py table RUNS.jsonl [--results]
        the Markdown table of the runs (medians per variant), or with --results the rows of
        bench.sh's results table
"""

import json
import os
import statistics
import sys
from collections import Counter, defaultdict
from urllib.parse import parse_qs, urlsplit

LABEL = ("bench.example.com/selected", "true")


def pod(name, labels, owner):
    metadata = {
        "name": name,
        "namespace": "default",
        "labels": labels,
        "annotations": {"bench.example.com/note": "created by scripts/bench.sh operator-selector"},
    }
    if owner:
        owner_name, uid = owner
        metadata["ownerReferences"] = [{
            "apiVersion": "bench.example.com/v1", "kind": "Tenant", "name": owner_name, "uid": uid,
            "controller": True, "blockOwnerDeletion": True,
        }]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": metadata,
        "spec": {
            "containers": [{
                "name": "app",
                "image": "registry.k8s.io/pause:3.10",
                "ports": [{"containerPort": 8080, "name": "http"}],
                "resources": {"requests": {"cpu": "10m", "memory": "16Mi"}},
            }],
        },
    }


def pods(args):
    out, prefix, n, chunks = args[0], args[1], int(args[2]), int(args[3])
    owner = (args[5], args[6]) if len(args) > 4 and args[4] == "--owner" else None
    os.makedirs(out, exist_ok=True)
    items = []
    for i in range(1, n + 1):
        if owner:
            labels = {LABEL[0]: LABEL[1], "app.kubernetes.io/name": "selected"}
        else:
            # What Pods of other workloads carry: none of them is the selected label.
            labels = {
                "app.kubernetes.io/name": "unrelated",
                "app.kubernetes.io/instance": f"unrelated-{i % 50}",
                "pod-template-hash": f"{(i * 2654435761) % 16**10:010x}",
            }
        items.append(pod(f"{prefix}-{i:05d}", labels, owner))
    size = -(-n // chunks)
    for k in range(chunks):
        part = items[k * size:(k + 1) * size]
        if part:
            with open(os.path.join(out, f"{prefix}-{k}.json"), "w") as f:
                json.dump({"apiVersion": "v1", "kind": "List", "items": part}, f)


def events(path, user):
    """USER's requests on Pods in the audit log, each once (a watch has two events)."""
    seen = set()
    with open(path, errors="replace") as f:
        for line in f:
            if user not in line or '"pods"' not in line:
                continue
            try:
                event = json.loads(line)
            except ValueError:
                continue
            who = (event.get("impersonatedUser") or {}).get("username") or event.get("user", {}).get("username")
            ref = event.get("objectRef") or {}
            if who != user or ref.get("resource") != "pods" or event["auditID"] in seen:
                continue
            seen.add(event["auditID"])
            yield event


def describe(event):
    query = parse_qs(urlsplit(event.get("requestURI", "")).query)
    selector = query.get("labelSelector", [""])[0]
    return f"{event['verb']} " + (f"labelSelector={selector}" if selector else "(no selector)")


def synced(args):
    for event in events(args[0], args[1]):
        if event["verb"] == "watch":
            sys.exit(0)
    sys.exit(1)


def audit(args):
    print(json.dumps(dict(Counter(describe(e) for e in events(args[0], args[1])))))


def mib(kib):
    return f"{kib / 1024:.1f} MiB"


def table(args):
    runs = defaultdict(list)
    with open(args[0]) as f:
        for line in f:
            if line.startswith("{"):
                run = json.loads(line)
                runs[run["variant"]].append(run)
    med = lambda v, key: statistics.median(r[key] for r in runs[v])
    variants = [v for v in ("selected", "all") if v in runs]
    if "--results" in args:
        # The claim: the selected variant's RSS stays flat (after / before at most 1.1) while
        # the unrelated Pods exist, and it sees none of them.
        for v in variants:
            r, growth = runs[v][0], med(v, "rss_after_kib") / med(v, "rss_before_kib")
            target, verdict = ("<= 1.1", "met" if growth <= 1.1 else "**missed**") if v == "selected" else ("", "")
            print(f"| 8 operator selector | {v}: manager RSS after {r['unrelated']:,} unrelated + {r['selected']} "
                  f"selected Pods / with 0 Pods ({mib(med(v, 'rss_after_kib'))} / {mib(med(v, 'rss_before_kib'))}, "
                  f"peak {mib(med(v, 'peak_kib'))}; Pod watch events {med(v, 'pod_events'):.0f}) "
                  f"| {growth:.2f} | {target} | {verdict} |")
        if len(variants) == 2:
            s, a = med("selected", "rss_after_kib"), med("all", "rss_after_kib")
            print(f"| 8 operator selector | RSS after the Pods, selected / all (growth: selected "
                  f"{mib(s - med('selected', 'rss_before_kib'))}, all {mib(a - med('all', 'rss_before_kib'))}) "
                  f"| {s / a:.2f} |  |  |")
        return
    print("| variant | Pods (unrelated + selected) | RSS before (0 Pods) | RSS after | peak (VmHWM) | after / before "
          "| Pod watch events seen | the manager's Pod requests (audit log) | runs |")
    print("|---|---|---|---|---|---|---|---|---|")
    for v in variants:
        r = runs[v][0]
        requests = ", ".join(f"{k} ×{n}" for k, n in sorted(r["pod_requests"].items()))
        print(f"| {v} | {r['unrelated']:,} + {r['selected']} | {mib(med(v, 'rss_before_kib'))} | "
              f"{mib(med(v, 'rss_after_kib'))} | {mib(med(v, 'peak_kib'))} | "
              f"{med(v, 'rss_after_kib') / med(v, 'rss_before_kib'):.2f} | {med(v, 'pod_events'):.0f} | {requests} | "
              f"{len(runs[v])} |")


if __name__ == "__main__":
    command, rest = sys.argv[1], sys.argv[2:]
    {"pods": pods, "synced": synced, "audit": audit, "table": table}[command](rest)
