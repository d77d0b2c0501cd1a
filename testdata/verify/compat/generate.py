#!/usr/bin/env python3
"""Writes the compatibility corpus: `old.yaml`, one CRD with three versions, and under `cases/`
one NEW revision per change. `<rule>.yaml` makes the change rule `compat.<rule>` names;
`<rule>.<variant>.yaml` another way to make it; `<rule>.safe.yaml` is its near-twin that
breaks nothing (it may warn), and `<rule>.safe-<variant>.yaml` another safe one. Run it from anywhere;
`ROP_BLESS=1 cargo test -p rop-verify --test compat_corpus` then records what rop reports.
"""
import copy
import json
import pathlib

HERE = pathlib.Path(__file__).resolve().parent

SCHEMA = {
    "type": "object",
    "properties": {
        "apiVersion": {"type": "string"},
        "kind": {"type": "string"},
        "metadata": {"type": "object"},
        "spec": {
            "type": "object",
            "required": ["size"],
            "x-kubernetes-validations": [{"rule": "self.size <= 10", "message": "at most 10"}],
            "properties": {
                "size": {"type": "integer", "format": "int32", "minimum": 1, "maximum": 10},
                "mode": {"type": "string", "enum": ["Managed", "Unmanaged"], "default": "Managed"},
                "name": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 63,
                    "pattern": "^[a-z]+$",
                    "allOf": [{"not": {"enum": ["admin"]}}, {"maxLength": 40}],
                },
                "step": {"type": "integer", "multipleOf": 4},
                "source": {
                    "type": "object",
                    "properties": {"git": {"type": "string"}, "image": {"type": "string"}},
                    "oneOf": [{"required": ["git"]}, {"required": ["image"]}],
                },
                "color": {"type": "string"},
                "tags": {
                    "type": "array",
                    "maxItems": 8,
                    "items": {"type": "string", "maxLength": 32},
                    "x-kubernetes-list-type": "set",
                },
                "labels": {"type": "object", "maxProperties": 16, "additionalProperties": {"type": "string"}},
                "note": {"type": "string", "nullable": True},
                "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                "port": {"x-kubernetes-int-or-string": True},
            },
        },
        "status": {
            "type": "object",
            "properties": {"ready": {"type": "boolean"}, "replicas": {"type": "integer"}},
        },
    },
}


def version(name, storage=False, deprecated=False):
    v = {"name": name, "served": True, "storage": storage}
    if deprecated:
        v["deprecated"] = True
        v["deprecationWarning"] = f"example.com/{name} Widget is deprecated; use example.com/v1"
    v["schema"] = {"openAPIV3Schema": copy.deepcopy(SCHEMA)}
    # The versions' schemas differ in their descriptions only, so each keeps its own schema
    # and selectable fields (kube-apiserver 1.37 moves identical ones to the CRD level, and then
    # wants selectable fields there too: rop verify's selectable-fields.hoisting).
    v["schema"]["openAPIV3Schema"]["description"] = f"A Widget, as example.com/{name} serves it."
    v["subresources"] = {"status": {}}
    v["additionalPrinterColumns"] = [
        {"name": "Size", "type": "integer", "jsonPath": ".spec.size"},
        {"name": "Ready", "type": "boolean", "jsonPath": ".status.ready"},
    ]
    if storage:
        v["selectableFields"] = [{"jsonPath": ".spec.color"}]
    return v


OLD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {
        "group": "example.com",
        "names": {
            "kind": "Widget",
            "listKind": "WidgetList",
            "plural": "widgets",
            "singular": "widget",
            "shortNames": ["wd"],
            "categories": ["example"],
        },
        "scope": "Namespaced",
        "versions": [version("v1alpha1"), version("v1beta1", deprecated=True), version("v1", storage=True)],
    },
    "status": {"storedVersions": ["v1beta1", "v1"]},
}


def v1(crd):
    return crd["spec"]["versions"][2]


def spec_of(crd, index=2):
    return crd["spec"]["versions"][index]["schema"]["openAPIV3Schema"]["properties"]["spec"]


def prop(crd, name, index=2):
    return spec_of(crd, index)["properties"][name]


def set_all(crd, fn):
    for i in range(len(crd["spec"]["versions"])):
        fn(i)


def move_storage(crd, differ):
    versions = crd["spec"]["versions"]
    versions[2]["storage"] = False
    versions[1]["storage"] = True
    if differ:
        spec_of(crd, 1)["properties"]["replicas"] = {"type": "integer"}


def new_variant(crd, default=None):
    """A third variant of an enum with data, as the derive writes one: a new property and a oneOf
    entry that requires it. With a default, every stored object gets the property when read, and
    then matches two entries."""
    source = prop(crd, "source")
    source["properties"]["url"] = {"type": "object"} if default is not None else {"type": "string"}
    if default is not None:
        source["properties"]["url"]["default"] = default
    source["oneOf"].append({"required": ["url"]})


CASES = {
    "scope": lambda c: c["spec"].update(scope="Cluster"),
    "scope.safe": lambda c: c["spec"]["names"].update(categories=["example", "all"]),
    "kind": lambda c: c["spec"]["names"].update(kind="Gadget", listKind="GadgetList"),
    "kind.safe": lambda c: c["spec"]["names"].update(shortNames=["wd", "wdg"]),
    "names": lambda c: c["spec"]["names"].pop("shortNames"),
    "names.safe": lambda c: c["spec"]["names"].update(shortNames=["wd", "widg"]),
    "stored-version-removed": lambda c: c["spec"]["versions"].pop(1),
    "stored-version-removed.safe": lambda c: c["spec"]["versions"][1].update(served=False),
    "served-version-removed": lambda c: c["spec"]["versions"].pop(0),
    "served-version-removed.safe": lambda c: c["spec"]["versions"][0].update(
        deprecated=True, deprecationWarning="example.com/v1alpha1 Widget is deprecated; use example.com/v1"
    ),
    "storage-conversion": lambda c: move_storage(c, True),
    "storage-conversion.safe": lambda c: move_storage(c, False),
    "field-removed": lambda c: spec_of(c)["properties"].pop("name"),
    "field-removed.safe": lambda c: spec_of(c)["properties"].update(owner={"type": "string"}),
    "field-removed.safe-any-value": lambda c: prop(c, "labels").update(additionalProperties=True),
    "type": lambda c: prop(c, "size").update(type="number"),
    "type.embedded": lambda c: prop(c, "extra").update({"x-kubernetes-embedded-resource": True}),
    "type.safe": lambda c: prop(c, "size").update(description="How many replicas to run."),
    "required": lambda c: spec_of(c)["required"].append("name"),
    "required.safe-with-default": lambda c: spec_of(c)["required"].append("mode"),
    "required.safe": lambda c: spec_of(c)["properties"].update(
        backup={"type": "object", "required": ["schedule"], "properties": {"schedule": {"type": "string"}}}
    ),
    "default": lambda c: prop(c, "mode").update(default="Unmanaged"),
    "default.safe": lambda c: spec_of(c)["properties"].update(replicas={"type": "integer", "default": 1}),
    "enum": lambda c: prop(c, "mode").update(enum=["Managed"]),
    "enum.added-where-none": lambda c: prop(c, "color").update(enum=["red", "green"]),
    "enum.safe": lambda c: prop(c, "mode").update(enum=["Managed", "Unmanaged", "Paused"]),
    "minimum": lambda c: prop(c, "size").update(minimum=2),
    "minimum.safe": lambda c: prop(c, "size").update(minimum=0),
    "maximum": lambda c: prop(c, "size").update(maximum=5),
    "maximum.exclusive": lambda c: prop(c, "size").update(exclusiveMaximum=True),
    "maximum.safe": lambda c: prop(c, "size").update(maximum=20),
    "min-length": lambda c: prop(c, "name").update(minLength=3),
    "min-length.safe": lambda c: prop(c, "name").pop("minLength"),
    "max-length": lambda c: prop(c, "name").update(maxLength=32),
    "max-length.safe": lambda c: prop(c, "name").update(maxLength=253),
    "min-items": lambda c: prop(c, "tags").update(minItems=1),
    "min-items.safe": lambda c: prop(c, "tags")["items"].pop("maxLength"),
    "max-items": lambda c: prop(c, "tags").update(maxItems=4),
    "max-items.safe": lambda c: prop(c, "tags").pop("maxItems"),
    "min-properties": lambda c: prop(c, "labels").update(minProperties=1),
    "min-properties.safe": lambda c: prop(c, "labels")["additionalProperties"].update(description="A label value."),
    "max-properties": lambda c: prop(c, "labels").update(maxProperties=8),
    "max-properties.safe": lambda c: prop(c, "labels").update(maxProperties=32),
    "multiple-of": lambda c: prop(c, "step").update(multipleOf=3),
    "multiple-of.added": lambda c: prop(c, "size").update(multipleOf=2),
    "multiple-of.safe": lambda c: prop(c, "step").update(multipleOf=2),
    "junctor": lambda c: prop(c, "size").update(allOf=[{"maximum": 5}]),
    "junctor.not": lambda c: prop(c, "color").update({"not": {"enum": ["black"]}}),
    "junctor.safe": lambda c: prop(c, "name").pop("allOf"),
    "junctor.safe-int-or-string": lambda c: prop(c, "port").update(anyOf=[{"type": "integer"}, {"type": "string"}]),
    "junctor.safe-reorder": lambda c: prop(c, "name").update(allOf=[{"maxLength": 40}, {"not": {"enum": ["admin"]}}]),
    "junctor.safe-variant": new_variant,
    "junctor.one-of-added": lambda c: prop(c, "labels").update(oneOf=[{"required": ["tier"]}]),
    "junctor.variant-with-default": lambda c: new_variant(c, default={}),
    "subresource": lambda c: v1(c)["subresources"].pop("status"),
    "subresource.safe": lambda c: v1(c)["subresources"].update(
        scale={"specReplicasPath": ".spec.size", "statusReplicasPath": ".status.replicas"}
    ),
    "pattern": lambda c: prop(c, "name").update(pattern="^[a-z][a-z0-9]*$"),
    "pattern.safe": lambda c: prop(c, "name").pop("pattern"),
    "format": lambda c: prop(c, "color").update(format="date-time"),
    "format.safe": lambda c: prop(c, "size").pop("format"),
    "nullable": lambda c: prop(c, "note").pop("nullable"),
    "nullable.safe": lambda c: prop(c, "color").update(nullable=True),
    "preserve-unknown-fields": lambda c: spec_of(c)["properties"].update(
        extra={"type": "object", "properties": {"size": {"type": "integer"}}}
    ),
    "preserve-unknown-fields.safe": lambda c: prop(c, "extra").update(description="Free-form settings."),
    "list-type": lambda c: prop(c, "tags").update({"x-kubernetes-list-type": "atomic"}),
    "list-type.safe": lambda c: prop(c, "tags")["items"].update(maxLength=64),
    "cel-rule": lambda c: spec_of(c)["x-kubernetes-validations"][0].update(rule="self.size <= 5"),
    "cel-rule.safe": lambda c: spec_of(c)["x-kubernetes-validations"][0].update(message="size must be at most 10"),
    "printer-column": lambda c: v1(c)["additionalPrinterColumns"][1].update(jsonPath=".status.isReady"),
    "printer-column.safe": lambda c: v1(c)["additionalPrinterColumns"].append(
        {"name": "Mode", "type": "string", "jsonPath": ".spec.mode", "priority": 1}
    ),
    "selectable-field": lambda c: v1(c).pop("selectableFields"),
    "selectable-field.safe": lambda c: v1(c)["selectableFields"].append({"jsonPath": ".spec.mode"}),
}


def write(path, doc):
    # JSON is YAML; one key order, stable across runs.
    path.write_text(json.dumps(doc, indent=2) + "\n")


def main():
    write(HERE / "old.yaml", OLD)
    cases = HERE / "cases"
    cases.mkdir(exist_ok=True)
    for old in cases.glob("*.yaml"):
        old.unlink()
    for name, change in CASES.items():
        new = copy.deepcopy(OLD)
        del new["status"]
        change(new)
        write(cases / f"{name}.yaml", new)


if __name__ == "__main__":
    main()
