"""Regenerates the rop verify corpus: testdata/verify/{invalid,valid}/NN-<rule>.yaml.

Each entry is a rule id, the exact findings expected from the invalid file (written as
`# expect:` header lines), a change that breaks the base CRD, and the change that fixes it
(the valid twin). Run: python3 testdata/verify/generate.py (needs PyYAML).
"""
import copy, yaml, os, base64, shutil

S = "spec.versions[0].schema.openAPIV3Schema"
SP = S + ".properties[spec]"
V = "spec.versions[0]"

def base():
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "names": {"kind": "Widget", "listKind": "WidgetList", "plural": "widgets", "singular": "widget"},
            "scope": "Namespaced",
            "versions": [{
                "name": "v1", "served": True, "storage": True,
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "spec": {"type": "object", "properties": {"size": {"type": "integer", "format": "int32"}}},
                    "status": {"type": "object", "properties": {"ready": {"type": "boolean"}}},
                }}},
                "subresources": {"status": {}},
            }],
        },
    }

def ver(d): return d["spec"]["versions"][0]
def root(d): return ver(d)["schema"]["openAPIV3Schema"]
def sprops(d): return root(d)["properties"]["spec"]["properties"]
def sspec(d): return root(d)["properties"]["spec"]
def names(d): return d["spec"]["names"]

E, W = "error", "warning"
entries = []
def entry(rule, expects, bad, good, fix):
    entries.append((rule, expects, bad, good, fix))

def setp(**props):
    def f(d):
        sprops(d).update(copy.deepcopy(props))
    return f

def both(*fs):
    def f(d):
        for g in fs: g(d)
    return f

# --- document
entry("document.api-version", [(E, "document.api-version", "apiVersion")],
      lambda d: d.update(apiVersion="apiextensions.k8s.io/v1beta1"), lambda d: None, "apiVersion v1")
entry("document.unknown-field", [(E, "document.unknown-field", SP + ".x-kubernetes-foo")],
      lambda d: sspec(d).update({"x-kubernetes-foo": True}), lambda d: None, "the unknown extension is removed")
# --- names
entry("names.metadata-name", [(E, "names.metadata-name", "metadata.name")],
      lambda d: d["metadata"].update(name="widget.example.com"), lambda d: None, "metadata.name is plural.group")
def group(g):
    def f(d):
        d["spec"]["group"] = g
        d["metadata"]["name"] = "widgets." + g
    return f
entry("names.group", [(E, "names.group", "spec.group")], group("example"), group("example.com"), "the group has a dot")
def approval(d):
    group("widgets.k8s.io")(d)
def approved(d):
    group("widgets.k8s.io")(d)
    d["metadata"]["annotations"] = {"api-approved.kubernetes.io": "https://github.com/kubernetes/enhancements/pull/1111"}
entry("names.api-approval", [(E, "names.api-approval", "metadata.annotations[api-approved.kubernetes.io]")], approval, approved, "the approval annotation is set")
entry("names.scope", [(E, "names.scope", "spec.scope")], lambda d: d["spec"].update(scope="namespaced"), lambda d: None, "scope is Namespaced")
def plural(p):
    def f(d):
        names(d)["plural"] = p
        d["metadata"]["name"] = p + ".example.com"
    return f
entry("names.plural", [(E, "names.plural", "spec.names.plural")], plural("Widgets"), plural("widgets"), "plural is lower-case")
entry("names.singular", [(E, "names.singular", "spec.names.singular")], lambda d: names(d).update(singular="Widget"), lambda d: None, "singular is lower-case")
entry("names.kind", [(E, "names.kind", "spec.names.kind")], lambda d: names(d).update(kind="1Widget"), lambda d: None, "kind starts with a letter")
entry("names.list-kind", [(E, "names.list-kind", "spec.names.listKind")], lambda d: names(d).update(listKind="Widget"), lambda d: None, "listKind differs from kind")
entry("names.short-name", [(E, "names.short-name", "spec.names.shortNames[0]")], lambda d: names(d).update(shortNames=["W"]), lambda d: names(d).update(shortNames=["wd"]), "the short name is lower-case")
entry("names.category", [(E, "names.category", "spec.names.categories[0]")], lambda d: names(d).update(categories=["My_Cat"]), lambda d: names(d).update(categories=["example"]), "the category is a DNS-1035 label")
entry("names.duplicate", [(W, "names.duplicate", "spec.names.shortNames[1]")], lambda d: names(d).update(shortNames=["wd", "wd"]), lambda d: names(d).update(shortNames=["wd"]), "no repeated short name")
def core(cat):
    def f(d):
        d["spec"]["names"] = {"kind": "Service", "listKind": "ServiceList", "plural": "services", "singular": "service", "categories": [cat]}
        d["metadata"]["name"] = "services.example.com"
    return f
entry("names.core-kind", [(W, "names.core-kind", "spec.names.kind")], core("all"), core("example"), "not in the all category")
# --- versions
entry("versions.required", [(E, "versions.required", "spec.versions")], lambda d: d["spec"].update(versions=[]), lambda d: None, "one version")
entry("versions.name", [(E, "versions.name", V + ".name")], lambda d: ver(d).update(name="v1.0"), lambda d: None, "the version name is a DNS-1035 label")
def two_versions(second):
    def f(d):
        v2 = copy.deepcopy(ver(d)); v2["name"] = second; v2["storage"] = False
        d["spec"]["versions"].append(v2)
    return f
entry("versions.duplicate-name", [(E, "versions.duplicate-name", "spec.versions[1].name")], two_versions("v1"), two_versions("v2"), "the second version has its own name")
entry("versions.non-kube-like", [(W, "versions.non-kube-like", V + ".name")], lambda d: ver(d).update(name="stable"), lambda d: None, "a Kube-like version name")
entry("versions.storage", [(E, "versions.storage", "spec.versions")], lambda d: ver(d).update(storage=False), lambda d: None, "one storage version")
entry("versions.not-served", [(W, "versions.not-served", "spec.versions")], lambda d: ver(d).update(served=False), lambda d: None, "the version is served")
entry("versions.schema-required", [(E, "versions.schema-required", V + ".schema.openAPIV3Schema")], lambda d: ver(d).pop("schema"), lambda d: None, "the version has a schema")
entry("versions.deprecation-warning", [(E, "versions.deprecation-warning", V + ".deprecationWarning")],
      lambda d: ver(d).update(deprecationWarning="example.com/v1 Widget is deprecated"),
      lambda d: ver(d).update(deprecated=True, deprecationWarning="example.com/v1 Widget is deprecated"), "deprecated: true is set")
entry("versions.stored-versions", [(W, "versions.stored-versions", "status.storedVersions[0]")],
      lambda d: d.update(status={"storedVersions": ["v1alpha1", "v1"]}), lambda d: d.update(status={"storedVersions": ["v1"]}), "storedVersions lists only served versions")
# --- conversion
SVC = {"service": {"name": "webhook-service", "namespace": "system", "path": "/convert"}}
def conv(c, **spec):
    def f(d):
        d["spec"]["conversion"] = copy.deepcopy(c)
        d["spec"].update(spec)
    return f
entry("conversion.preserve-unknown-fields", [(E, "conversion.preserve-unknown-fields", "spec.preserveUnknownFields")],
      lambda d: d["spec"].update(preserveUnknownFields=True), lambda d: d["spec"].update(preserveUnknownFields=False), "preserveUnknownFields is false")
entry("conversion.strategy", [(E, "conversion.strategy", "spec.conversion.strategy")], conv({"strategy": "webhook"}), conv({"strategy": "None"}), "strategy None")
entry("conversion.webhook-required", [(E, "conversion.webhook-required", "spec.conversion.webhook.clientConfig")],
      conv({"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1"]}}),
      conv({"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1"], "clientConfig": SVC}}), "clientConfig is set")
entry("conversion.client-config", [(E, "conversion.client-config", "spec.conversion.webhook.clientConfig")],
      conv({"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1"], "clientConfig": {"url": "https://wh.example.com/convert", **SVC}}}),
      conv({"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1"], "clientConfig": SVC}}), "only the service is set")
entry("conversion.webhook-url", [(E, "conversion.webhook-url", "spec.conversion.webhook.clientConfig.url")],
      conv({"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1"], "clientConfig": {"url": "http://wh.example.com/convert"}}}),
      conv({"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1"], "clientConfig": {"url": "https://wh.example.com:8443/convert"}}}), "the url is https")
entry("conversion.webhook-service", [(E, "conversion.webhook-service", "spec.conversion.webhook.clientConfig.service.port")],
      conv({"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1"], "clientConfig": {"service": {"name": "wh", "namespace": "system", "port": 70000}}}}),
      conv({"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1"], "clientConfig": {"service": {"name": "wh", "namespace": "system", "port": 9443}}}}), "the port is in range")
PEM = base64.b64encode(b"-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUexample\n-----END CERTIFICATE-----\n").decode()
entry("conversion.ca-bundle", [(W, "conversion.ca-bundle", "spec.conversion.webhook.clientConfig.caBundle")],
      conv({"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1"], "clientConfig": {**SVC, "caBundle": "Zm9v"}}}),
      conv({"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1"], "clientConfig": {**SVC, "caBundle": PEM}}}), "caBundle is base64 of PEM")
entry("conversion.review-versions", [(E, "conversion.review-versions", "spec.conversion.webhook.conversionReviewVersions")],
      conv({"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v2"], "clientConfig": SVC}}),
      conv({"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1"], "clientConfig": SVC}}), "review versions include v1")
entry("conversion.webhook-forbidden", [(E, "conversion.webhook-forbidden", "spec.conversion.webhook.conversionReviewVersions")],
      conv({"strategy": "None", "webhook": {"conversionReviewVersions": ["v1"]}}), conv({"strategy": "None"}), "no webhook settings with None")
entry("conversion.webhook-preserve-unknown-fields",
      [(E, "conversion.preserve-unknown-fields", "spec.preserveUnknownFields"), (E, "conversion.webhook-preserve-unknown-fields", "spec.conversion.strategy")],
      conv({"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1"], "clientConfig": SVC}}, preserveUnknownFields=True),
      conv({"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1"], "clientConfig": SVC}}), "preserveUnknownFields is gone")
def differing(extra):
    def f(d):
        two_versions("v2")(d)
        if extra:
            d["spec"]["versions"][1]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["color"] = {"type": "string"}
    return f
entry("conversion.none-schemas-differ", [(W, "conversion.none-schemas-differ", "spec.versions[1].schema.openAPIV3Schema")], differing(True), differing(False), "the versions share one schema")
# --- schema keywords
entry("schema.unsupported-keyword", [(E, "schema.unsupported-keyword", SP + ".properties[labels].patternProperties")],
      setp(labels={"type": "object", "patternProperties": {"^a": {"type": "string"}}}), setp(labels={"type": "object", "additionalProperties": {"type": "string"}}), "a map instead of patternProperties")
entry("schema.items-tuple", [(E, "schema.items-tuple", SP + ".properties[tags].items")],
      setp(tags={"type": "array", "items": [{"type": "string"}]}), setp(tags={"type": "array", "items": {"type": "string"}}), "items is one schema")
entry("schema.type", [(E, "schema.type", SP + ".properties[size].type")], setp(size={"type": "int"}), setp(size={"type": "integer"}), "type integer")
entry("schema.unique-items", [(E, "schema.unique-items", SP + ".properties[tags].uniqueItems")],
      setp(tags={"type": "array", "items": {"type": "string"}, "uniqueItems": True}), setp(tags={"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"}), "a set list instead")
entry("schema.pattern", [(E, "schema.pattern", SP + ".properties[name].pattern")],
      setp(name={"type": "string", "pattern": "(?=a)b"}), setp(name={"type": "string", "pattern": "^[a-z]+$"}), "an RE2 pattern")
entry("schema.additional-properties-with-properties", [(E, "schema.additional-properties-with-properties", SP + ".additionalProperties")],
      lambda d: sspec(d).update(additionalProperties={"type": "string"}), lambda d: None, "properties only")
entry("schema.nullable-root", [(E, "schema.nullable-root", S + ".nullable")], lambda d: root(d).update(nullable=True), lambda d: None, "the root is not nullable")
entry("schema.format", [(W, "schema.format", SP + ".properties[started].format")],
      setp(started={"type": "string", "format": "int32"}), setp(started={"type": "string", "format": "date-time"}), "a string format")
entry("schema.enum-type", [(W, "schema.enum-type", SP + ".properties[mode].enum[0]")],
      setp(mode={"type": "string", "enum": [1, "a"]}), setp(mode={"type": "string", "enum": ["b", "a"]}), "string enum values")
entry("schema.not-object", [(E, "document.type", "(document)"), (E, "schema.not-object", SP + ".properties[size]")], setp(size="integer"), setp(size={"type": "integer"}), "the property is a schema")
# --- structural
entry("structural.missing-type", [(E, "structural.missing-type", SP + ".properties[size].type")], setp(size={}), setp(size={"type": "integer"}), "type is set")
def root_array(d):
    ver(d)["schema"]["openAPIV3Schema"] = {"type": "array", "items": {"type": "string"}}
    ver(d).pop("subresources")
entry("structural.root-type", [(E, "structural.root-type", S + ".type")], root_array, lambda d: (ver(d).pop("subresources"), root(d)["properties"].pop("status")), "the root is an object")
entry("structural.missing-items", [(E, "structural.missing-items", SP + ".properties[tags].items")],
      setp(tags={"type": "array"}), setp(tags={"type": "array", "items": {"type": "string"}}), "items is set")
entry("structural.root-additional-properties", [(E, "structural.root-additional-properties", S + ".additionalProperties"), (E, "schema.additional-properties-with-properties", S + ".additionalProperties")],
      lambda d: root(d).update(additionalProperties=False), lambda d: None, "no additionalProperties at the root")
entry("structural.junctor", [(E, "structural.junctor", SP + ".properties[mode].oneOf[0].type")],
      setp(mode={"type": "string", "oneOf": [{"type": "string", "pattern": "^a"}, {"pattern": "^b"}]}),
      setp(mode={"type": "string", "oneOf": [{"pattern": "^a"}, {"pattern": "^b"}]}), "the junctor has value checks only")
def incomplete(declare):
    # The API server checks completeness only for junctors reachable from the schema root
    # (validateStructuralCompleteness); the status subresource would forbid a root anyOf.
    def f(d):
        del ver(d)["subresources"]
        del root(d)["properties"]["status"]
        root(d)["anyOf"] = [{"required": ["f"]}, {"properties": {"f": {"minLength": 1}}}]
        if declare:
            root(d)["properties"]["f"] = {"type": "string"}
    return f
entry("structural.incomplete", [(E, "structural.incomplete", S + ".properties[f]")], incomplete(False), incomplete(True), "f is declared")
entry("structural.preserve-unknown-fields-false", [(E, "structural.preserve-unknown-fields-false", SP + ".properties[config].x-kubernetes-preserve-unknown-fields")],
      setp(config={"type": "object", "x-kubernetes-preserve-unknown-fields": False}), setp(config={"type": "object", "x-kubernetes-preserve-unknown-fields": True}), "true")
# --- extensions
entry("extensions.int-or-string", [(E, "extensions.int-or-string", SP + ".properties[port].x-kubernetes-preserve-unknown-fields")],
      setp(port={"x-kubernetes-int-or-string": True, "x-kubernetes-preserve-unknown-fields": True, "anyOf": [{"type": "integer"}, {"type": "string"}]}),
      setp(port={"x-kubernetes-int-or-string": True, "anyOf": [{"type": "integer"}, {"type": "string"}]}), "no preserve-unknown-fields")
entry("extensions.embedded-resource", [(E, "extensions.embedded-resource", SP + ".properties[template].properties")],
      setp(template={"type": "object", "x-kubernetes-embedded-resource": True}),
      setp(template={"type": "object", "x-kubernetes-embedded-resource": True, "x-kubernetes-preserve-unknown-fields": True}), "preserve-unknown-fields is set")
entry("extensions.embedded-in-meta", [(E, "extensions.embedded-in-meta", SP + ".properties[template].properties[metadata].x-kubernetes-embedded-resource")],
      setp(template={"type": "object", "x-kubernetes-embedded-resource": True, "properties": {"metadata": {"type": "object", "x-kubernetes-embedded-resource": True, "x-kubernetes-preserve-unknown-fields": True}}}),
      setp(template={"type": "object", "x-kubernetes-embedded-resource": True, "properties": {"metadata": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}), "metadata is not embedded")
entry("extensions.list-type", [(E, "extensions.list-type", SP + ".properties[tags].x-kubernetes-list-type")],
      setp(tags={"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "bag"}), setp(tags={"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"}), "list-type set")
entry("extensions.list-set-items", [(E, "extensions.list-set-items", SP + ".properties[pairs].items.x-kubernetes-map-type")],
      setp(pairs={"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "object", "properties": {"a": {"type": "string"}}}}),
      setp(pairs={"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "object", "x-kubernetes-map-type": "atomic", "properties": {"a": {"type": "string"}}}}), "atomic items")
def map_list(keys, proto_default):
    proto = {"type": "string"}
    if proto_default: proto["default"] = "TCP"
    return {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": keys,
            "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}, "protocol": proto}}}
entry("extensions.list-map-keys", [(E, "extensions.list-map-keys", SP + ".properties[ports].x-kubernetes-list-map-keys")],
      setp(ports=map_list(["nme"], False)), setp(ports=map_list(["name"], False)), "the key names an item property")
entry("extensions.list-map-key-required", [(E, "extensions.list-map-key-required", SP + ".properties[ports].items.properties[protocol].default")],
      setp(ports=map_list(["name", "protocol"], False)), setp(ports=map_list(["name", "protocol"], True)), "protocol has a default")
entry("extensions.map-type", [(E, "extensions.map-type", SP + ".properties[selector].x-kubernetes-map-type")],
      setp(selector={"type": "object", "x-kubernetes-map-type": "fine", "properties": {"app": {"type": "string"}}}),
      setp(selector={"type": "object", "x-kubernetes-map-type": "atomic", "properties": {"app": {"type": "string"}}}), "map-type atomic")
# --- metadata
def rootprop(name, schema):
    def f(d): root(d)["properties"][name] = copy.deepcopy(schema)
    return f
entry("metadata.root-restricted", [(E, "metadata.root-restricted", S + ".properties[metadata]")],
      rootprop("metadata", {"type": "object", "properties": {"labels": {"type": "object", "additionalProperties": {"type": "string"}}}}),
      rootprop("metadata", {"type": "object", "properties": {"name": {"type": "string", "maxLength": 63}}}), "only name is restricted")
entry("metadata.field-type", [(E, "metadata.field-type", S + ".properties[kind].type")], rootprop("kind", {"type": "integer"}), rootprop("kind", {"type": "string"}), "kind is a string")
entry("metadata.default", [(E, "metadata.default", S + ".properties[metadata].properties[name].default")],
      rootprop("metadata", {"type": "object", "properties": {"name": {"type": "string", "default": "x"}}}),
      rootprop("metadata", {"type": "object", "properties": {"name": {"type": "string"}}}), "no default in metadata")
# --- defaults
entry("defaults.invalid", [(E, "defaults.invalid", SP + ".properties[size].default")],
      setp(size={"type": "integer", "maximum": 100, "default": 200}), setp(size={"type": "integer", "maximum": 100, "default": 10}), "the default is within bounds")
entry("defaults.not-pruned", [(E, "defaults.not-pruned", SP + ".default")],
      lambda d: sspec(d).update(default={"size": 1, "extra": True}), lambda d: sspec(d).update(default={"size": 1}), "the default has declared fields only")
# A default is checked against the CEL rules of its node as it is: nested defaults are not
# applied to it first.
WINDOW = lambda default: setp(window={
    "type": "object", "default": default,
    "properties": {"start": {"type": "integer", "default": 0}, "end": {"type": "integer", "default": 24}},
    "x-kubernetes-validations": [{"rule": "self.start < self.end"}]})
entry("defaults.cel", [(E, "defaults.cel", SP + ".properties[window].default")],
      WINDOW({}), WINDOW({"start": 0, "end": 24}), "the default holds the fields its rule reads")
# --- CEL
def rules(*rs, node=None):
    def f(d):
        (node(d) if node else sspec(d))["x-kubernetes-validations"] = [copy.deepcopy(r) for r in rs]
    return f
R = SP + ".x-kubernetes-validations[0]"
entry("cel.rule-required", [(E, "cel.rule-required", R + ".rule")], rules({"message": "size must not be negative"}), rules({"rule": "self.size >= 0", "message": "size must not be negative"}), "the rule is set")
entry("cel.message", [(E, "cel.message", R + ".message")], rules({"rule": "self.size >= 0 &&\nself.size <= 100"}), rules({"rule": "self.size >= 0 &&\nself.size <= 100", "message": "size must be 0..100"}), "a message for a multi-line rule")
SIZE = lambda d: sprops(d)["size"]
RS = SP + ".properties[size].x-kubernetes-validations[0]"
entry("cel.message-expression", [(E, "cel.message-expression", RS + ".messageExpression")],
      rules({"rule": "self > 0", "messageExpression": "self"}, node=SIZE), rules({"rule": "self > 0", "messageExpression": "'got %d'.format([self])"}, node=SIZE), "the message expression is a string")
entry("cel.reason", [(E, "cel.reason", R + ".reason")], rules({"rule": "self.size >= 0", "reason": "Invalid"}), rules({"rule": "self.size >= 0", "reason": "FieldValueInvalid"}), "a FieldValue reason")
entry("cel.field-path", [(E, "cel.field-path", R + ".fieldPath")], rules({"rule": "self.size >= 0", "fieldPath": ".b"}), rules({"rule": "self.size >= 0", "fieldPath": ".size"}), "the field path exists")
entry("cel.syntax", [(E, "cel.syntax", R + ".rule")], rules({"rule": "self.size >"}), rules({"rule": "self.size > 0"}), "the rule parses")
entry("cel.undefined-field", [(E, "cel.undefined-field", R + ".rule")], rules({"rule": "self.nope > 0"}), rules({"rule": "self.size > 0"}), "the rule names a declared field")
entry("cel.return-type", [(E, "cel.return-type", R + ".rule")], rules({"rule": "self.size"}), rules({"rule": "self.size <= 10"}), "the rule is a bool")
def transition(on_list):
    def f(d):
        item = {"type": "string", "maxLength": 10}
        lst = {"type": "array", "maxItems": 10, "items": item}
        r = [{"rule": "self == oldSelf", "message": "immutable"}]
        if on_list: lst["x-kubernetes-validations"] = r
        else: item["x-kubernetes-validations"] = r
        sprops(d)["tags"] = lst
    return f
entry("cel.transition-rule", [(E, "cel.transition-rule", SP + ".properties[tags].items.x-kubernetes-validations[0].rule")], transition(False), transition(True), "the rule is on the list")
entry("cel.optional-old-self", [(E, "cel.optional-old-self", R + ".optionalOldSelf")],
      rules({"rule": "self.size >= 0", "optionalOldSelf": True}), rules({"rule": "!oldSelf.hasValue() || self.size >= oldSelf.value().size", "optionalOldSelf": True}), "the rule uses oldSelf")
# --- subresources
entry("subresources.status", [(E, "subresources.status", V + ".subresources.status")], lambda d: ver(d)["subresources"].update(status={"enabled": True}), lambda d: None, "status: {}")
entry("subresources.status-root", [(E, "subresources.status-root", S)],
      lambda d: root(d).update(anyOf=[{"required": ["spec"]}, {"required": ["status"]}]),
      lambda d: root(d).update({"x-kubernetes-validations": [{"rule": "has(self.spec) || has(self.status)"}]}), "a CEL rule instead of anyOf")
def scale(spec_path="/.spec.replicas", status_path=".status.replicas", selector=None):
    def f(d):
        sprops(d)["replicas"] = {"type": "integer", "format": "int32"}
        sprops(d)["name"] = {"type": "string", "maxLength": 63}
        root(d)["properties"]["status"]["properties"].update(replicas={"type": "integer", "format": "int32"}, selector={"type": "string"})
        sc = {"specReplicasPath": spec_path.lstrip("/"), "statusReplicasPath": status_path}
        if selector: sc["labelSelectorPath"] = selector
        ver(d)["subresources"]["scale"] = sc
    return f
entry("subresources.scale-spec-path", [(E, "subresources.scale-spec-path", V + ".subresources.scale.specReplicasPath")], scale(spec_path=".replicas"), scale(), "the path is under .spec")
entry("subresources.scale-status-path", [(E, "subresources.scale-status-path", V + ".subresources.scale.statusReplicasPath")], scale(status_path=".spec.replicas"), scale(), "the path is under .status")
entry("subresources.scale-selector-path", [(E, "subresources.scale-selector-path", V + ".subresources.scale.labelSelectorPath")], scale(selector=".metadata.labels"), scale(selector=".status.selector"), "the selector is under .status")
entry("subresources.scale-path-type", [(W, "subresources.scale-path-type", V + ".subresources.scale.specReplicasPath")], scale(spec_path=".spec.name"), scale(), "the path is an integer")
# --- printer columns
def cols(*cs):
    def f(d): ver(d)["additionalPrinterColumns"] = [copy.deepcopy(c) for c in cs]
    return f
P = V + ".additionalPrinterColumns[0]"
entry("printer-columns.name", [(E, "printer-columns.name", P + ".name")], cols({"type": "integer", "jsonPath": ".spec.size"}), cols({"name": "Size", "type": "integer", "jsonPath": ".spec.size"}), "the column has a name")
entry("printer-columns.duplicate-name", [(W, "printer-columns.duplicate-name", V + ".additionalPrinterColumns[1].name")],
      cols({"name": "Size", "type": "integer", "jsonPath": ".spec.size"}, {"name": "Size", "type": "boolean", "jsonPath": ".status.ready"}),
      cols({"name": "Size", "type": "integer", "jsonPath": ".spec.size"}, {"name": "Ready", "type": "boolean", "jsonPath": ".status.ready"}), "distinct names")
entry("printer-columns.type", [(E, "printer-columns.type", P + ".type")], cols({"name": "Size", "type": "int", "jsonPath": ".spec.size"}), cols({"name": "Size", "type": "integer", "jsonPath": ".spec.size"}), "type integer")
entry("printer-columns.format", [(E, "printer-columns.format", P + ".format")], cols({"name": "Size", "type": "integer", "format": "uuid", "jsonPath": ".spec.size"}), cols({"name": "Size", "type": "integer", "format": "int32", "jsonPath": ".spec.size"}), "format int32")
entry("printer-columns.json-path", [(E, "printer-columns.json-path", P + ".jsonPath")], cols({"name": "Size", "type": "integer", "jsonPath": "spec.size"}), cols({"name": "Size", "type": "integer", "jsonPath": ".spec.size"}), "a leading dot")
entry("printer-columns.json-path-syntax", [(W, "printer-columns.json-path-syntax", P + ".jsonPath")], cols({"name": "Ready", "type": "boolean", "jsonPath": ".status.[ready"}), cols({"name": "Ready", "type": "boolean", "jsonPath": ".status.ready"}), "the path parses")
entry("printer-columns.unknown-field", [(W, "printer-columns.unknown-field", P + ".jsonPath")], cols({"name": "Phase", "type": "string", "jsonPath": ".status.phase"}), cols({"name": "Phase", "type": "string", "jsonPath": ".status.ready"}), "the path is declared")
entry("printer-columns.type-mismatch", [(W, "printer-columns.type-mismatch", P + ".type")], cols({"name": "Ready", "type": "integer", "jsonPath": ".status.ready"}), cols({"name": "Ready", "type": "boolean", "jsonPath": ".status.ready"}), "type boolean")
# --- selectable fields
def sel(*paths, extra=None):
    def f(d):
        sprops(d)["color"] = {"type": "string", "enum": ["red", "blue"]}
        sprops(d)["settings"] = {"type": "object", "properties": {"mode": {"type": "string", "maxLength": 16}}}
        for i in range(9):
            sprops(d)[f"label{i}"] = {"type": "string", "maxLength": 63}
        ver(d)["selectableFields"] = [{"jsonPath": p} for p in paths]
    return f
SF = V + ".selectableFields[0].jsonPath"
entry("selectable-fields.json-path", [(E, "selectable-fields.json-path", SF)], sel(".spec.nope"), sel(".spec.color"), "the path is declared")
entry("selectable-fields.metadata", [(E, "selectable-fields.metadata", SF)], sel(".metadata.labels"), sel(".spec.color"), "the path is outside metadata")
entry("selectable-fields.type", [(E, "selectable-fields.type", SF)], sel(".spec.settings"), sel(".spec.settings.mode"), "the path is a string")
entry("selectable-fields.duplicate", [(E, "selectable-fields.duplicate", V + ".selectableFields[1].jsonPath")], sel(".spec.color", ".spec.color"), sel(".spec.color", ".spec.size"), "no repeated path")
entry("selectable-fields.too-many", [(E, "selectable-fields.too-many", V + ".selectableFields")], sel(*[f".spec.label{i}" for i in range(9)]), sel(*[f".spec.label{i}" for i in range(8)]), "at most 8")
# --- lints
entry("lint.camel-case", [(W, "lint.camel-case", SP + ".properties[max_size]")], setp(max_size={"type": "integer"}), setp(maxSize={"type": "integer"}), "camelCase")
entry("lint.float", [(W, "lint.float", SP + ".properties[ratio].type")], setp(ratio={"type": "number"}), setp(ratio={"type": "integer"}), "an integer")
entry("lint.unsigned", [(W, "lint.unsigned", SP + ".properties[count].format")], setp(count={"type": "integer", "format": "uint32"}), setp(count={"type": "integer", "format": "int32"}), "int32")
entry("lint.int-or-string-type", [(W, "lint.int-or-string-type", SP + ".properties[port].type")],
      setp(port={"type": "string", "x-kubernetes-int-or-string": True}), setp(port={"x-kubernetes-int-or-string": True}), "no type next to int-or-string")
# Every item compared with every other: 30n² + 6n + 2 for n items of at most 64 characters.
def pairs(max_items, max_length=64):
    def f(d):
        items = {"type": "string"}
        if max_length is not None: items["maxLength"] = max_length
        targets = {"type": "array", "items": items}
        if max_items is not None: targets["maxItems"] = max_items
        sprops(d)["targets"] = targets
        sspec(d)["x-kubernetes-validations"] = [{"rule": "self.targets.all(x, self.targets.exists_one(y, y == x))", "message": "targets must be unique"}]
    return f
entry("lint.cel-cost", [(W, "lint.cel-cost", R + ".rule")], pairs(500), pairs(100), "100 targets keep the rule's cost at 300,602")
entry("lint.status-without-subresource", [(W, "lint.status-without-subresource", S + ".properties[status]")], lambda d: ver(d).pop("subresources"), lambda d: None, "the status subresource is on")

def dump(d):
    return yaml.safe_dump(d, sort_keys=False, default_flow_style=False, width=200, allow_unicode=True)

out = os.path.dirname(os.path.abspath(__file__))
for sub in ("invalid", "valid"):
    shutil.rmtree(os.path.join(out, sub), ignore_errors=True)
    os.makedirs(os.path.join(out, sub))
n = 0
def write(i, rule, expects, bad, good, fix):
    name = f"{i:03d}-{rule}.yaml"
    b = base(); bad(b)
    g = base(); good(g)
    head = "".join(f"# expect: {s} {r} {p}\n" for s, r, p in expects)
    open(os.path.join(out, "invalid", name), "w").write(head + dump(b))
    open(os.path.join(out, "valid", name), "w").write(f"# The valid twin of ../invalid/{name}: {fix}.\n" + dump(g))
for i, (rule, expects, bad, good, fix) in enumerate(entries, 1):
    n = i
    write(i, rule, expects, bad, good, fix)

# size: YAML aliases expand one long description many times.
def big(desc_len, count, rule, expect):
    global n
    n += 1
    name = f"{n:03d}-{rule}.yaml"
    for sub, length in (("invalid", desc_len), ("valid", 40)):
        lines = []
        if sub == "invalid":
            lines += [f"# expect: {s} {r} {p}" for s, r, p in expect]
        else:
            lines.append(f"# The valid twin of ../invalid/{name}: descriptions are capped (controller-gen crd:maxDescLen).")
        lines.append("# Every field's description is an alias of the first one, so the JSON is far larger than this file.")
        d = base()
        text = dump(d)
        fields = "\n".join(f"              field{j}:\n                type: string\n                maxLength: 63\n                description: *desc" for j in range(count))
        desc = ("A field description that goes on and on. " * 200)[:length].strip()
        assert "              size:\n" in text
        text = text.replace("              size:\n", f"              field:\n                type: string\n                maxLength: 63\n                description: &desc \"{desc}\"\n{fields}\n              size:\n", 1)
        open(os.path.join(out, sub, name), "w").write("\n".join(lines) + "\n" + text)
big(2000, 135, "size.last-applied", [(W, "size.last-applied", "metadata.annotations")])
big(4000, 400, "size.etcd", [(E, "size.etcd", "(document)"), (W, "size.last-applied", "metadata.annotations")])

# CEL type checking and cost, numbered after the size pairs.
def later(rule, expects, bad, good, fix):
    global n
    n += 1
    write(n, rule, expects, bad, good, fix)
later("cel.type", [(E, "cel.type", R + ".rule")], rules({"rule": "self.size.startsWith('1')"}), rules({"rule": "string(self.size).startsWith('1')"}), "the int is converted to a string first")
later("cel.cost", [(E, "cel.cost", R + ".rule"), (E, "cel.cost-total", R + ".rule"), (E, "cel.cost-total", S)],
      pairs(None, None), pairs(100), "the list and its strings are bounded")
def many(count):
    # Each rule costs 4,802,402 (400 targets of at most 64 characters) plus 3 per size check,
    # under half the per-rule budget; 21 of them add up to 100,851,072.
    def f(d):
        sprops(d)["targets"] = {"type": "array", "maxItems": 400, "items": {"type": "string", "maxLength": 64}}
        rules = []
        for i in range(count):
            rule = " && ".join(["self.targets.all(x, self.targets.exists_one(y, y == x))"] + ["self.size > 0"] * i)
            rules.append({"rule": rule, "message": f"check {i}"})
        sspec(d)["x-kubernetes-validations"] = rules
    return f
later("cel.cost-total", [(E, "cel.cost-total", SP + f".x-kubernetes-validations[{i}].rule") for i in (20, 19, 18, 17)] + [(E, "cel.cost-total", S)],
      many(21), many(20), "20 rules stay under the schema's budget")
def dropped(extra):
    def f(d):
        tags = {"type": "array", "items": {"type": "string"}}
        if extra: tags["items"]["rules"] = "unique"
        sprops(d)["tags"] = tags
    return f
later("lint.dropped-field", [(W, "lint.dropped-field", SP + ".properties[tags].items.rules")], dropped(True), dropped(False), "the stray key is removed")
def typed(bad):
    def f(d):
        sprops(d)["tags"] = {"type": "array", "maxItems": "ten" if bad else 10, "items": {"type": "string"}}
    return f
later("document.type", [(E, "document.type", "(document)")], typed(True), typed(False), "maxItems is a number")
def shared_selectable(differ):
    def f(d):
        sel(".spec.color")(d)
        differing(differ)(d)
    return f
later("selectable-fields.hoisting",
      [(W, "conversion.none-schemas-differ", "spec.versions[1].schema.openAPIV3Schema"), (E, "selectable-fields.hoisting", V + ".selectableFields")],
      shared_selectable(True), shared_selectable(False), "the versions share one schema")
def one_version_selectable(differ):
    def f(d):
        sel(".spec.color")(d)
        differing(differ)(d)
        d["spec"]["versions"][1].pop("selectableFields")
    return f
later("selectable-fields.hoisting",
      [(E, "selectable-fields.hoisting", V + ".selectableFields")],
      one_version_selectable(False), lambda d: (sel(".spec.color")(d), two_versions("v2")(d)), "every version lists the same selectable fields")
print(n, "pairs")
