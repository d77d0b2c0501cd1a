//! The catalogue of rule ids.

use std::fmt;

/// How bad a [`Finding`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The API server rejects the CRD (or, for size, etcd or `kubectl apply` does).
    Error,
    /// The API server accepts the CRD, but it will not behave as its author probably meant,
    /// or it breaks a Kubernetes API convention.
    Warning,
}

impl Severity {
    /// `"error"` or `"warning"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One rule the verifier implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuleInfo {
    /// The stable id findings carry, e.g. `structural.missing-type`.
    pub id: &'static str,
    /// The severity of its findings (`size.etcd` warns between 1 MiB and 1.5 MiB).
    pub severity: Severity,
    /// The rules of `crd-validation-rules.md` (apiextensions-apiserver checks) it implements.
    pub implements: &'static str,
    /// What it checks.
    pub checks: &'static str,
}

/// Every rule the verifier implements, grouped by family in the order they run.
pub const RULES: &[RuleInfo] = &[
    RuleInfo {
        id: "document.api-version",
        severity: Severity::Error,
        implements: "R1",
        checks: "the CRD is apiextensions.k8s.io/v1 (v1beta1 was removed in 1.22)",
    },
    RuleInfo {
        id: "document.type",
        severity: Severity::Error,
        implements: "R2",
        checks: "every field has the type the CustomResourceDefinition API defines",
    },
    RuleInfo {
        id: "document.unknown-field",
        severity: Severity::Error,
        implements: "R2",
        checks: "no keys outside the CRD and JSONSchemaProps types (strict field validation)",
    },
    RuleInfo {
        id: "document.not-object",
        severity: Severity::Error,
        implements: "R2",
        checks: "the document is a mapping",
    },
    RuleInfo {
        id: "names.metadata-name",
        severity: Severity::Error,
        implements: "R3",
        checks: "metadata.name is <spec.names.plural>.<spec.group>",
    },
    RuleInfo {
        id: "names.group",
        severity: Severity::Error,
        implements: "R4",
        checks: "spec.group is a DNS-1123 subdomain with at least one dot",
    },
    RuleInfo {
        id: "names.api-approval",
        severity: Severity::Error,
        implements: "R5",
        checks: "protected groups (*.k8s.io, *.kubernetes.io) carry the api-approved.kubernetes.io annotation",
    },
    RuleInfo {
        id: "names.scope",
        severity: Severity::Error,
        implements: "R6",
        checks: "spec.scope is Namespaced or Cluster",
    },
    RuleInfo {
        id: "names.plural",
        severity: Severity::Error,
        implements: "R7",
        checks: "spec.names.plural is a DNS-1035 label",
    },
    RuleInfo {
        id: "names.singular",
        severity: Severity::Error,
        implements: "R8",
        checks: "spec.names.singular, if set, is a DNS-1035 label",
    },
    RuleInfo {
        id: "names.kind",
        severity: Severity::Error,
        implements: "R9",
        checks: "spec.names.kind is set and lower-cased is a DNS-1035 label",
    },
    RuleInfo {
        id: "names.list-kind",
        severity: Severity::Error,
        implements: "R10",
        checks: "spec.names.listKind has the kind's format and differs from kind",
    },
    RuleInfo {
        id: "names.short-name",
        severity: Severity::Error,
        implements: "R11",
        checks: "every shortName is a DNS-1035 label",
    },
    RuleInfo {
        id: "names.category",
        severity: Severity::Error,
        implements: "R11",
        checks: "every category is a DNS-1035 label",
    },
    RuleInfo {
        id: "names.duplicate",
        severity: Severity::Warning,
        implements: "R11, R12",
        checks: "no repeated shortName or category",
    },
    RuleInfo {
        id: "names.core-kind",
        severity: Severity::Warning,
        implements: "R112",
        checks: "a kind named like a core kind is not in the `all` category",
    },
    RuleInfo { id: "versions.required", severity: Severity::Error, implements: "R15", checks: "at least one version" },
    RuleInfo {
        id: "versions.name",
        severity: Severity::Error,
        implements: "R14",
        checks: "every version name is a DNS-1035 label",
    },
    RuleInfo {
        id: "versions.duplicate-name",
        severity: Severity::Error,
        implements: "R13",
        checks: "version names are unique",
    },
    RuleInfo {
        id: "versions.non-kube-like",
        severity: Severity::Warning,
        implements: "R14, R113",
        checks: "version names are Kube-like (v1, v1beta1, v2alpha1)",
    },
    RuleInfo {
        id: "versions.storage",
        severity: Severity::Error,
        implements: "R15",
        checks: "exactly one version has storage: true",
    },
    RuleInfo {
        id: "versions.not-served",
        severity: Severity::Warning,
        implements: "R15, R110",
        checks: "some version is served, and the storage version is served",
    },
    RuleInfo {
        id: "versions.schema-required",
        severity: Severity::Error,
        implements: "R16",
        checks: "every version has schema.openAPIV3Schema",
    },
    RuleInfo {
        id: "versions.deprecation-warning",
        severity: Severity::Error,
        implements: "R18",
        checks: "deprecationWarning only with deprecated: true, 1-256 printable characters",
    },
    RuleInfo {
        id: "versions.stored-versions",
        severity: Severity::Warning,
        implements: "R19, R108",
        checks: "status.storedVersions lists only versions still in spec.versions",
    },
    RuleInfo {
        id: "conversion.preserve-unknown-fields",
        severity: Severity::Error,
        implements: "R20",
        checks: "spec.preserveUnknownFields is absent or false",
    },
    RuleInfo {
        id: "conversion.strategy",
        severity: Severity::Error,
        implements: "R21",
        checks: "conversion.strategy is None or Webhook",
    },
    RuleInfo {
        id: "conversion.webhook-required",
        severity: Severity::Error,
        implements: "R22",
        checks: "strategy Webhook has webhook.clientConfig",
    },
    RuleInfo {
        id: "conversion.client-config",
        severity: Severity::Error,
        implements: "R23",
        checks: "exactly one of clientConfig.url and clientConfig.service",
    },
    RuleInfo {
        id: "conversion.webhook-url",
        severity: Severity::Error,
        implements: "R24",
        checks: "clientConfig.url is https with a host, no user info, query or fragment",
    },
    RuleInfo {
        id: "conversion.webhook-service",
        severity: Severity::Error,
        implements: "R25",
        checks: "clientConfig.service has name, namespace, a valid port and a lower-case path",
    },
    RuleInfo {
        id: "conversion.ca-bundle",
        severity: Severity::Warning,
        implements: "R26",
        checks: "caBundle is base64 of PEM certificates",
    },
    RuleInfo {
        id: "conversion.review-versions",
        severity: Severity::Error,
        implements: "R27",
        checks: "conversionReviewVersions is non-empty, unique, DNS-1035, and includes v1 or v1beta1",
    },
    RuleInfo {
        id: "conversion.webhook-forbidden",
        severity: Severity::Error,
        implements: "R28",
        checks: "strategy None has no webhook settings",
    },
    RuleInfo {
        id: "conversion.webhook-preserve-unknown-fields",
        severity: Severity::Error,
        implements: "R29",
        checks: "strategy Webhook needs preserveUnknownFields false",
    },
    RuleInfo {
        id: "conversion.none-schemas-differ",
        severity: Severity::Warning,
        implements: "R29, R109",
        checks: "strategy None with differing version schemas loses fields",
    },
    RuleInfo {
        id: "schema.not-object",
        severity: Severity::Error,
        implements: "R2",
        checks: "every schema node is a mapping",
    },
    RuleInfo {
        id: "schema.unsupported-keyword",
        severity: Severity::Error,
        implements: "R30",
        checks: "no $ref, id, $schema, definitions, dependencies, patternProperties, additionalItems",
    },
    RuleInfo {
        id: "schema.items-tuple",
        severity: Severity::Error,
        implements: "R30",
        checks: "items is a single schema, not an array",
    },
    RuleInfo {
        id: "schema.type",
        severity: Severity::Error,
        implements: "R31",
        checks: "type is one of array, boolean, integer, number, object, string (never null)",
    },
    RuleInfo {
        id: "schema.unique-items",
        severity: Severity::Error,
        implements: "R32",
        checks: "uniqueItems is not true",
    },
    RuleInfo {
        id: "schema.pattern",
        severity: Severity::Error,
        implements: "R33",
        checks: "pattern is a valid RE2 regular expression",
    },
    RuleInfo {
        id: "schema.additional-properties-with-properties",
        severity: Severity::Error,
        implements: "R34",
        checks: "properties and additionalProperties (other than true) are not both set",
    },
    RuleInfo {
        id: "schema.nullable-root",
        severity: Severity::Error,
        implements: "R35",
        checks: "the root is not nullable",
    },
    RuleInfo {
        id: "schema.format",
        severity: Severity::Warning,
        implements: "R36, R104",
        checks: "format is one the API server recognizes for the type",
    },
    RuleInfo {
        id: "schema.enum-type",
        severity: Severity::Warning,
        implements: "R37, R106",
        checks: "enum values have the node's type",
    },
    RuleInfo {
        id: "structural.missing-type",
        severity: Severity::Error,
        implements: "R38",
        checks: "every node outside junctors has a type (unless int-or-string or preserve-unknown-fields)",
    },
    RuleInfo {
        id: "structural.root-type",
        severity: Severity::Error,
        implements: "R39",
        checks: "the root type is object",
    },
    RuleInfo {
        id: "structural.missing-items",
        severity: Severity::Error,
        implements: "R40",
        checks: "type: array has items",
    },
    RuleInfo {
        id: "structural.root-additional-properties",
        severity: Severity::Error,
        implements: "R41",
        checks: "no additionalProperties at the root",
    },
    RuleInfo {
        id: "structural.junctor",
        severity: Severity::Error,
        implements: "R42",
        checks: "allOf/anyOf/oneOf/not carry value checks only",
    },
    RuleInfo {
        id: "structural.incomplete",
        severity: Severity::Error,
        implements: "R43",
        checks: "every field a junctor mentions is declared in the structural part",
    },
    RuleInfo {
        id: "structural.preserve-unknown-fields-false",
        severity: Severity::Error,
        implements: "R44",
        checks: "x-kubernetes-preserve-unknown-fields is true or absent",
    },
    RuleInfo {
        id: "extensions.int-or-string",
        severity: Severity::Error,
        implements: "R45",
        checks: "int-or-string is not combined with preserve-unknown-fields or embedded-resource",
    },
    RuleInfo {
        id: "extensions.embedded-resource",
        severity: Severity::Error,
        implements: "R46",
        checks: "an embedded resource is an object with properties or preserve-unknown-fields, without additionalProperties",
    },
    RuleInfo {
        id: "extensions.embedded-in-meta",
        severity: Severity::Error,
        implements: "R46",
        checks: "no embedded resource inside metadata, apiVersion or kind",
    },
    RuleInfo {
        id: "extensions.list-type",
        severity: Severity::Error,
        implements: "R47",
        checks: "x-kubernetes-list-type is atomic, set or map, on arrays",
    },
    RuleInfo {
        id: "extensions.list-set-items",
        severity: Severity::Error,
        implements: "R48",
        checks: "items of a set list are atomic and not nullable",
    },
    RuleInfo {
        id: "extensions.list-map-keys",
        severity: Severity::Error,
        implements: "R49, R50",
        checks: "list-map-keys go with list-type map: object items, unique scalar key properties",
    },
    RuleInfo {
        id: "extensions.list-map-key-required",
        severity: Severity::Error,
        implements: "R51",
        checks: "map-list keys are required or defaulted, and not nullable",
    },
    RuleInfo {
        id: "extensions.map-type",
        severity: Severity::Error,
        implements: "R52",
        checks: "x-kubernetes-map-type is atomic or granular, on objects",
    },
    RuleInfo {
        id: "metadata.root-restricted",
        severity: Severity::Error,
        implements: "R54, R63",
        checks: "the root metadata schema restricts only name and generateName",
    },
    RuleInfo {
        id: "metadata.field-type",
        severity: Severity::Error,
        implements: "R55, R46",
        checks: "metadata is an object, apiVersion and kind are strings",
    },
    RuleInfo {
        id: "metadata.default",
        severity: Severity::Error,
        implements: "R56",
        checks: "no defaults in root metadata/apiVersion/kind or in metadata maps",
    },
    RuleInfo {
        id: "defaults.invalid",
        severity: Severity::Error,
        implements: "R57",
        checks: "every default validates against its own node",
    },
    RuleInfo {
        id: "defaults.cel",
        severity: Severity::Error,
        implements: "R57",
        checks: "every default satisfies the x-kubernetes-validations rules of its node and below",
    },
    RuleInfo {
        id: "defaults.not-pruned",
        severity: Severity::Error,
        implements: "R58",
        checks: "defaults contain no fields pruning would drop",
    },
    RuleInfo {
        id: "cel.rule-required",
        severity: Severity::Error,
        implements: "R64",
        checks: "every validation rule has a non-blank rule",
    },
    RuleInfo {
        id: "cel.message",
        severity: Severity::Error,
        implements: "R65",
        checks: "message is non-blank and one line; a multi-line rule has a message",
    },
    RuleInfo {
        id: "cel.message-expression",
        severity: Severity::Error,
        implements: "R66",
        checks: "messageExpression is non-blank, parses and yields a string",
    },
    RuleInfo {
        id: "cel.reason",
        severity: Severity::Error,
        implements: "R67",
        checks: "reason is a FieldValue* error kind",
    },
    RuleInfo {
        id: "cel.field-path",
        severity: Severity::Error,
        implements: "R68",
        checks: "fieldPath is a valid path to a declared field",
    },
    RuleInfo { id: "cel.syntax", severity: Severity::Error, implements: "R69", checks: "the rule parses as CEL" },
    RuleInfo {
        id: "cel.undefined-field",
        severity: Severity::Error,
        implements: "R63, R69, R70",
        checks: "every field a rule selects is declared in the schema (CEL-escaped)",
    },
    RuleInfo {
        id: "cel.type",
        severity: Severity::Error,
        implements: "R63, R69",
        checks: "the rule type-checks against the schema's CEL types and the Kubernetes CEL libraries",
    },
    RuleInfo {
        id: "cel.cost",
        severity: Severity::Error,
        implements: "R73, R74",
        checks: "each rule's estimated cost (times how often it runs) and each messageExpression's is within 10,000,000",
    },
    RuleInfo {
        id: "cel.cost-total",
        severity: Severity::Error,
        implements: "R75",
        checks: "the estimated costs of all rules of a schema add up to at most 100,000,000",
    },
    RuleInfo {
        id: "cel.return-type",
        severity: Severity::Error,
        implements: "R69",
        checks: "the rule evaluates to a bool (and a messageExpression to a string)",
    },
    RuleInfo {
        id: "cel.transition-rule",
        severity: Severity::Error,
        implements: "R71",
        checks: "oldSelf only where old and new values can be paired",
    },
    RuleInfo {
        id: "cel.optional-old-self",
        severity: Severity::Error,
        implements: "R72",
        checks: "optionalOldSelf only when the rule uses oldSelf",
    },
    RuleInfo {
        id: "subresources.status",
        severity: Severity::Error,
        implements: "R78",
        checks: "the status subresource is {}",
    },
    RuleInfo {
        id: "subresources.status-root",
        severity: Severity::Error,
        implements: "R79",
        checks: "with the status subresource the root uses only the allowed keywords",
    },
    RuleInfo {
        id: "subresources.scale-spec-path",
        severity: Severity::Error,
        implements: "R81",
        checks: "scale.specReplicasPath is a simple path under .spec",
    },
    RuleInfo {
        id: "subresources.scale-status-path",
        severity: Severity::Error,
        implements: "R82",
        checks: "scale.statusReplicasPath is a simple path under .status",
    },
    RuleInfo {
        id: "subresources.scale-selector-path",
        severity: Severity::Error,
        implements: "R83",
        checks: "scale.labelSelectorPath is under .spec or .status",
    },
    RuleInfo {
        id: "subresources.scale-path-type",
        severity: Severity::Warning,
        implements: "R84, R107",
        checks: "scale paths point at declared integer (replicas) or string (selector) fields",
    },
    RuleInfo {
        id: "printer-columns.name",
        severity: Severity::Error,
        implements: "R85",
        checks: "every printer column has a name",
    },
    RuleInfo {
        id: "printer-columns.duplicate-name",
        severity: Severity::Warning,
        implements: "R85, R111",
        checks: "printer column names are unique",
    },
    RuleInfo {
        id: "printer-columns.type",
        severity: Severity::Error,
        implements: "R86",
        checks: "printer column type is integer, number, string, boolean or date",
    },
    RuleInfo {
        id: "printer-columns.format",
        severity: Severity::Error,
        implements: "R87",
        checks: "printer column format is one of the allowed formats",
    },
    RuleInfo {
        id: "printer-columns.json-path",
        severity: Severity::Error,
        implements: "R88",
        checks: "printer column jsonPath is set and starts with .",
    },
    RuleInfo {
        id: "printer-columns.json-path-syntax",
        severity: Severity::Warning,
        implements: "R88, R105",
        checks: "printer column jsonPath parses with client-go's JSONPath parser",
    },
    RuleInfo {
        id: "printer-columns.unknown-field",
        severity: Severity::Warning,
        implements: "R89",
        checks: "printer column jsonPath names a declared field",
    },
    RuleInfo {
        id: "printer-columns.type-mismatch",
        severity: Severity::Warning,
        implements: "R89",
        checks: "printer column type matches the field's schema type",
    },
    RuleInfo {
        id: "selectable-fields.json-path",
        severity: Severity::Error,
        implements: "R90, R91",
        checks: "selectableFields jsonPath is a dot path to a declared field, not through lists",
    },
    RuleInfo {
        id: "selectable-fields.metadata",
        severity: Severity::Error,
        implements: "R92",
        checks: "selectableFields do not point into metadata",
    },
    RuleInfo {
        id: "selectable-fields.type",
        severity: Severity::Error,
        implements: "R93",
        checks: "selectableFields point at string, boolean or integer fields",
    },
    RuleInfo {
        id: "selectable-fields.duplicate",
        severity: Severity::Error,
        implements: "R94",
        checks: "selectableFields are unique",
    },
    RuleInfo {
        id: "selectable-fields.too-many",
        severity: Severity::Error,
        implements: "R95",
        checks: "at most 8 selectableFields per version",
    },
    RuleInfo {
        id: "size.last-applied",
        severity: Severity::Warning,
        implements: "R102",
        checks: "the CRD fits in the last-applied-configuration annotation (262,144 bytes)",
    },
    RuleInfo {
        id: "size.etcd",
        severity: Severity::Error,
        implements: "R101",
        checks: "the CRD stays under etcd's 1.5 MiB request limit (warning above 1 MiB)",
    },
    RuleInfo {
        id: "lint.camel-case",
        severity: Severity::Warning,
        implements: "API conventions",
        checks: "field names are lowerCamelCase",
    },
    RuleInfo {
        id: "lint.float",
        severity: Severity::Warning,
        implements: "API conventions",
        checks: "no floats (type: number)",
    },
    RuleInfo {
        id: "lint.unsigned",
        severity: Severity::Warning,
        implements: "API conventions, R36",
        checks: "no unsigned formats (uint*)",
    },
    RuleInfo {
        id: "lint.int-or-string-type",
        severity: Severity::Warning,
        implements: "R45",
        checks: "no type next to x-kubernetes-int-or-string",
    },
    RuleInfo {
        id: "lint.dropped-field",
        severity: Severity::Warning,
        implements: "R30",
        checks: "no unknown keys below items or additionalProperties, which the server drops silently",
    },
    RuleInfo {
        id: "lint.cel-cost",
        severity: Severity::Warning,
        implements: "R73, R74",
        checks: "no rule uses more than half of its estimated cost budget",
    },
    RuleInfo {
        id: "lint.status-without-subresource",
        severity: Severity::Warning,
        implements: "R80, API conventions",
        checks: "a status property comes with the status subresource",
    },
];
