#!/usr/bin/env python3
"""Count the schema keywords of a CRD that survive a round trip (CRD -> Rust types -> CRD).

    schema-keywords.py [--json] [--lost] ORIGINAL.yaml REGENERATED.yaml

Reads the first CustomResourceDefinition of each file. For every served version of the
original, walks its `openAPIV3Schema` and counts keyword occurrences by family; a keyword
survives when the regenerated CRD has it with an equal value at the same path, in the version
of the same name. A version (or file) missing from the regenerated CRD survives nothing, so
the original counts do not depend on the tool measured.

- Paths descend through `properties`, `items`, `additionalProperties` and the branches of
  `oneOf`/`anyOf`/`allOf`/`not`; never into `default`, `enum` or `example` values.
- Values are compared with numbers as numbers (1 == 1.0, never a boolean) and `required`
  lists as sets (inside junctors too). Each `x-kubernetes-validations` entry counts once and
  survives when one with the same `rule` and `message` is there; a junctor counts once and
  survives when its whole value is equal.
- YAML is read safely, with YAML 1.1 plain scalars as kubectl reads them (`yes`/`no`/`on`/
  `off` are booleans) and timestamps left as strings, as kubectl leaves them.

Prints `family  original  survived` per family and a total (`--json`: the same as JSON);
`--lost` also prints the path of each keyword that did not survive, to stderr.
"""
import json
import sys
from fractions import Fraction

import yaml

K8S = "x-kubernetes-"
FAMILIES = {  # family -> keywords; cel and required are compared on their own
    "bounds": ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength",
               "maxLength", "minItems", "maxItems", "minProperties", "maxProperties",
               "multipleOf"],
    "pattern": ["pattern"], "format": ["format"], "enum": ["enum"], "default": ["default"],
    "cel": [],
    "list-map-types": [K8S + "list-type", K8S + "list-map-keys", K8S + "map-type"],
    "nullable": ["nullable"], "int-or-string": [K8S + "int-or-string"],
    "preserve-unknown-fields": [K8S + "preserve-unknown-fields"],
    "embedded-resource": [K8S + "embedded-resource"],
    "junctors": ["oneOf", "anyOf", "allOf", "not"], "required": [],
    "descriptions": ["description"],
}


class Loader(yaml.SafeLoader):  # without the timestamp resolver
    pass


Loader.yaml_implicit_resolvers = {
    ch: [(tag, rx) for tag, rx in rs if tag != "tag:yaml.org,2002:timestamp"]
    for ch, rs in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def first_crd(path):
    with open(path, encoding="utf-8") as f:
        for doc in yaml.load_all(f, Loader=Loader):
            if isinstance(doc, dict) and doc.get("kind") == "CustomResourceDefinition":
                return doc


def norm(v, key=None):
    """A value with numbers as exact fractions and `required` lists as sets."""
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return ("num", Fraction(v))
    if isinstance(v, dict):
        return {k: norm(x, k) for k, x in v.items()}
    if isinstance(v, list):
        items = [norm(x) for x in v]
        return frozenset(items) if key == "required" else items
    return v


def child(node, *keys):
    for k in keys:
        if isinstance(node, dict):
            node = node.get(k)
        elif isinstance(node, list) and isinstance(k, int) and k < len(node):
            node = node[k]
        else:
            return None
    return node


def walk(orig, regen, path, counts, lost):
    if not isinstance(orig, dict):
        return
    regen = regen if isinstance(regen, dict) else {}

    def tally(family, ok, what):
        counts[family][0] += 1
        counts[family][1] += ok
        if not ok:
            lost.append(f"{family}: {path} {what}")

    for family, keys in FAMILIES.items():
        for k in keys:
            if k in orig:
                tally(family, k in regen and norm(orig[k], k) == norm(regen[k], k), k)
    for rule in orig.get("x-kubernetes-validations") or []:
        ok = any((r.get("rule"), r.get("message")) == (rule.get("rule"), rule.get("message"))
                 for r in regen.get("x-kubernetes-validations") or [] if isinstance(r, dict))
        tally("cel", ok, repr(rule.get("rule")))
    if "required" in orig:
        tally("required", norm(orig["required"], "required") == norm(regen.get("required"),
                                                                     "required"), "required")

    for name, sub in (orig.get("properties") or {}).items():
        walk(sub, child(regen, "properties", name), f"{path}.{name}", counts, lost)
    walk(orig.get("items"), regen.get("items"), f"{path}[*]", counts, lost)
    walk(orig.get("additionalProperties"), regen.get("additionalProperties"),
         f"{path}{{*}}", counts, lost)
    for j in ("oneOf", "anyOf", "allOf"):
        for i, branch in enumerate(orig.get(j) or []):
            walk(branch, child(regen, j, i), f"{path}.{j}[{i}]", counts, lost)
    walk(orig.get("not"), regen.get("not"), f"{path}.not", counts, lost)


def measure(original_path, regenerated_path):
    orig, regen = first_crd(original_path), first_crd(regenerated_path) or {}
    if orig is None:
        sys.exit(f"{original_path}: no CustomResourceDefinition")
    counts, lost = {f: [0, 0] for f in FAMILIES}, []
    regen_versions = {v.get("name"): v for v in child(regen, "spec", "versions") or []}
    for v in child(orig, "spec", "versions") or []:
        if not v.get("served"):
            continue
        name = v.get("name")
        if name not in regen_versions:
            print(f"note: version {name} is missing from {regenerated_path}", file=sys.stderr)
        walk(child(v, "schema", "openAPIV3Schema"),
             child(regen_versions.get(name), "schema", "openAPIV3Schema"), name + ":", counts, lost)
    return counts, lost


def main(argv):
    flags = {a for a in argv if a.startswith("--")}
    files = [a for a in argv if not a.startswith("--")]
    if len(files) != 2 or flags - {"--json", "--lost"}:
        sys.exit(__doc__.split("\n\n")[1])
    counts, lost = measure(*files)
    counts["total"] = [sum(c[0] for c in counts.values()), sum(c[1] for c in counts.values())]
    if "--lost" in flags:
        print("\n".join(lost), file=sys.stderr)
    if "--json" in flags:
        print(json.dumps({f: {"original": o, "survived": s} for f, (o, s) in counts.items()},
                         indent=2))
    else:
        for family, (o, s) in counts.items():
            print(f"{family:<24} {o:>6} {s:>6}")


if __name__ == "__main__":
    main(sys.argv[1:])
