//! The catalogue of rules: every [`Rule`] a finding can carry, with its stable id, its
//! severity and the rules of `crd-validation-rules.md` (apiextensions-apiserver checks) it
//! implements.

use std::fmt;

/// How bad a [`crate::Finding`] is.
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
    /// The rule.
    pub rule: Rule,
    /// The stable id findings carry, e.g. `structural.missing-type`.
    pub id: &'static str,
    /// The severity of its findings (`size.etcd` warns between 1 MiB and 1.5 MiB).
    pub severity: Severity,
    /// The rules of `crd-validation-rules.md` (apiextensions-apiserver checks) it implements.
    pub implements: &'static str,
    /// What it checks.
    pub checks: &'static str,
}

/// Declares [`Rule`], [`RULES`] (the CRD rules, in the order their checks run),
/// [`SAMPLE_RULES`] (the rules of custom objects) and [`COMPAT_RULES`] (the rules comparing two
/// revisions of a CRD) from one table, so an id, its severity and
/// its description cannot drift apart.
macro_rules! catalogue {
    (
        crd { $($crd:ident = $crd_id:literal, $crd_sev:ident, $crd_impl:literal, $crd_checks:literal;)* }
        samples { $($sample:ident = $sample_id:literal, $sample_sev:ident, $sample_impl:literal, $sample_checks:literal;)* }
        compat { $($compat:ident = $compat_id:literal, $compat_sev:ident, $compat_impl:literal, $compat_checks:literal;)* }
    ) => {
        /// A rule of the verifier. Its [`Rule::id`] is the stable id findings print
        /// (`structural.missing-type`); its [`Rule::severity`] is that of its findings.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Rule {
            $(#[doc = $crd_checks] $crd,)*
            $(#[doc = $sample_checks] $sample,)*
            $(#[doc = $compat_checks] $compat,)*
        }

        /// Every CRD rule, grouped by family in the order the checks run.
        pub const RULES: &[RuleInfo] = &[
            $(RuleInfo {
                rule: Rule::$crd,
                id: $crd_id,
                severity: Severity::$crd_sev,
                implements: $crd_impl,
                checks: $crd_checks,
            },)*
        ];

        /// Every rule of custom objects ([`crate::samples`]), in the order the API server
        /// applies them on create.
        pub const SAMPLE_RULES: &[RuleInfo] = &[
            $(RuleInfo {
                rule: Rule::$sample,
                id: $sample_id,
                severity: Severity::$sample_sev,
                implements: $sample_impl,
                checks: $sample_checks,
            },)*
        ];

        /// Every rule of CRD compatibility ([`crate::compat`]): what breaks stored objects or
        /// clients when a CRD is replaced by a new revision.
        pub const COMPAT_RULES: &[RuleInfo] = &[
            $(RuleInfo {
                rule: Rule::$compat,
                id: $compat_id,
                severity: Severity::$compat_sev,
                implements: $compat_impl,
                checks: $compat_checks,
            },)*
        ];

        impl Rule {
            /// The rule's entry in [`RULES`], [`SAMPLE_RULES`] or [`COMPAT_RULES`].
            pub fn info(self) -> &'static RuleInfo {
                let (list, index) = match self {
                    $(Rule::$crd => (RULES, Rule::$crd as usize),)*
                    $(Rule::$sample => (SAMPLE_RULES, Rule::$sample as usize - RULES.len()),)*
                    $(Rule::$compat => (COMPAT_RULES, Rule::$compat as usize - RULES.len() - SAMPLE_RULES.len()),)*
                };
                &list[index]
            }
        }
    };
}

impl Rule {
    /// The stable id, e.g. `structural.missing-type`.
    pub fn id(self) -> &'static str {
        self.info().id
    }

    /// The severity of the rule's findings.
    pub fn severity(self) -> Severity {
        self.info().severity
    }
}

impl fmt::Display for Rule {
    /// The id.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// A rule equals its id, so findings compare with the ids their documentation names.
impl PartialEq<&str> for Rule {
    fn eq(&self, other: &&str) -> bool {
        self.id() == *other
    }
}

impl PartialEq<str> for Rule {
    fn eq(&self, other: &str) -> bool {
        self.id() == other
    }
}

catalogue! {
    crd {
    DocumentApiVersion = "document.api-version", Error, "R1", "the CRD is apiextensions.k8s.io/v1 (v1beta1 was removed in 1.22)";
    DocumentType = "document.type", Error, "R2", "every field has the type the CustomResourceDefinition API defines";
    DocumentUnknownField = "document.unknown-field", Error, "R2", "no keys outside the CRD and JSONSchemaProps types (strict field validation)";
    DocumentNotObject = "document.not-object", Error, "R2", "the document is a mapping";
    NamesMetadataName = "names.metadata-name", Error, "R3", "metadata.name is <spec.names.plural>.<spec.group>";
    NamesGroup = "names.group", Error, "R4", "spec.group is a DNS-1123 subdomain with at least one dot";
    NamesApiApproval = "names.api-approval", Error, "R5", "protected groups (*.k8s.io, *.kubernetes.io) carry the api-approved.kubernetes.io annotation";
    NamesScope = "names.scope", Error, "R6", "spec.scope is Namespaced or Cluster";
    NamesPlural = "names.plural", Error, "R7", "spec.names.plural is a DNS-1035 label";
    NamesSingular = "names.singular", Error, "R8", "spec.names.singular, if set, is a DNS-1035 label";
    NamesKind = "names.kind", Error, "R9", "spec.names.kind is set and lower-cased is a DNS-1035 label";
    NamesListKind = "names.list-kind", Error, "R10", "spec.names.listKind has the kind's format and differs from kind";
    NamesShortName = "names.short-name", Error, "R11", "every shortName is a DNS-1035 label";
    NamesCategory = "names.category", Error, "R11", "every category is a DNS-1035 label";
    NamesDuplicate = "names.duplicate", Warning, "R11, R12", "no repeated shortName or category";
    NamesCoreKind = "names.core-kind", Warning, "R112", "a kind named like a core kind is not in the `all` category";
    VersionsRequired = "versions.required", Error, "R15", "at least one version";
    VersionsName = "versions.name", Error, "R14", "every version name is a DNS-1035 label";
    VersionsDuplicateName = "versions.duplicate-name", Error, "R13", "version names are unique";
    VersionsNonKubeLike = "versions.non-kube-like", Warning, "R14, R113", "version names are Kube-like (v1, v1beta1, v2alpha1)";
    VersionsStorage = "versions.storage", Error, "R15", "exactly one version has storage: true";
    VersionsNotServed = "versions.not-served", Warning, "R15, R110", "some version is served, and the storage version is served";
    VersionsSchemaRequired = "versions.schema-required", Error, "R16", "every version has schema.openAPIV3Schema";
    VersionsDeprecationWarning = "versions.deprecation-warning", Error, "R18", "deprecationWarning only with deprecated: true, 1-256 printable characters";
    VersionsStoredVersions = "versions.stored-versions", Warning, "R19, R108", "status.storedVersions lists only versions still in spec.versions";
    ConversionPreserveUnknownFields = "conversion.preserve-unknown-fields", Error, "R20", "spec.preserveUnknownFields is absent or false";
    ConversionStrategy = "conversion.strategy", Error, "R21", "conversion.strategy is None or Webhook";
    ConversionWebhookRequired = "conversion.webhook-required", Error, "R22", "strategy Webhook has webhook.clientConfig";
    ConversionClientConfig = "conversion.client-config", Error, "R23", "exactly one of clientConfig.url and clientConfig.service";
    ConversionWebhookUrl = "conversion.webhook-url", Error, "R24", "clientConfig.url is https with a host, no user info, query or fragment";
    ConversionWebhookService = "conversion.webhook-service", Error, "R25", "clientConfig.service has name, namespace, a valid port and a lower-case path";
    ConversionCaBundle = "conversion.ca-bundle", Warning, "R26", "caBundle is base64 of PEM certificates";
    ConversionReviewVersions = "conversion.review-versions", Error, "R27", "conversionReviewVersions is non-empty, unique, DNS-1035, and includes v1 or v1beta1";
    ConversionWebhookForbidden = "conversion.webhook-forbidden", Error, "R28", "strategy None has no webhook settings";
    ConversionWebhookPreserveUnknownFields = "conversion.webhook-preserve-unknown-fields", Error, "R29", "strategy Webhook needs preserveUnknownFields false";
    ConversionNoneSchemasDiffer = "conversion.none-schemas-differ", Warning, "R29, R109", "strategy None with differing version schemas loses fields";
    SchemaNotObject = "schema.not-object", Error, "R2", "every schema node is a mapping";
    SchemaUnsupportedKeyword = "schema.unsupported-keyword", Error, "R30", "no $ref, id, $schema, definitions, dependencies, patternProperties, additionalItems";
    SchemaItemsTuple = "schema.items-tuple", Error, "R30", "items is a single schema, not an array";
    SchemaType = "schema.type", Error, "R31", "type is one of array, boolean, integer, number, object, string (never null)";
    SchemaUniqueItems = "schema.unique-items", Error, "R32", "uniqueItems is not true";
    SchemaPattern = "schema.pattern", Error, "R33", "pattern is a valid RE2 regular expression";
    SchemaAdditionalPropertiesWithProperties = "schema.additional-properties-with-properties", Error, "R34", "properties and additionalProperties (other than true) are not both set";
    SchemaNullableRoot = "schema.nullable-root", Error, "R35", "the root is not nullable";
    SchemaFormat = "schema.format", Warning, "R36, R104", "format is one the API server recognizes for the type";
    SchemaEnumType = "schema.enum-type", Warning, "R37, R106", "enum values have the node's type";
    StructuralMissingType = "structural.missing-type", Error, "R38", "every node outside junctors has a type (unless int-or-string or preserve-unknown-fields)";
    StructuralRootType = "structural.root-type", Error, "R39", "the root type is object";
    StructuralMissingItems = "structural.missing-items", Error, "R40", "type: array has items";
    StructuralRootAdditionalProperties = "structural.root-additional-properties", Error, "R41", "no additionalProperties at the root";
    StructuralJunctor = "structural.junctor", Error, "R42", "allOf/anyOf/oneOf/not carry value checks only";
    StructuralIncomplete = "structural.incomplete", Error, "R43", "every field a junctor mentions is declared in the structural part";
    StructuralPreserveUnknownFieldsFalse = "structural.preserve-unknown-fields-false", Error, "R44", "x-kubernetes-preserve-unknown-fields is true or absent";
    ExtensionsIntOrString = "extensions.int-or-string", Error, "R45", "int-or-string is not combined with preserve-unknown-fields or embedded-resource";
    ExtensionsEmbeddedResource = "extensions.embedded-resource", Error, "R46", "an embedded resource is an object with properties or preserve-unknown-fields, without additionalProperties";
    ExtensionsEmbeddedInMeta = "extensions.embedded-in-meta", Error, "R46", "no embedded resource inside metadata, apiVersion or kind";
    ExtensionsListType = "extensions.list-type", Error, "R47", "x-kubernetes-list-type is atomic, set or map, on arrays";
    ExtensionsListSetItems = "extensions.list-set-items", Error, "R48", "items of a set list are atomic and not nullable";
    ExtensionsListMapKeys = "extensions.list-map-keys", Error, "R49, R50", "list-map-keys go with list-type map: object items, unique scalar key properties";
    ExtensionsListMapKeyRequired = "extensions.list-map-key-required", Error, "R51", "map-list keys are required or defaulted, and not nullable";
    ExtensionsMapType = "extensions.map-type", Error, "R52", "x-kubernetes-map-type is atomic or granular, on objects";
    MetadataRootRestricted = "metadata.root-restricted", Error, "R54, R63", "the root metadata schema restricts only name and generateName";
    MetadataFieldType = "metadata.field-type", Error, "R55, R46", "metadata is an object, apiVersion and kind are strings";
    MetadataDefault = "metadata.default", Error, "R56", "no defaults in root metadata/apiVersion/kind or in metadata maps";
    DefaultsInvalid = "defaults.invalid", Error, "R57", "every default validates against its node's schema and everything below it, formats and embedded metadata included";
    DefaultsCel = "defaults.cel", Error, "R57", "every default satisfies the x-kubernetes-validations rules of its node and below, transition rules included, and none fails at run time";
    DefaultsNotPruned = "defaults.not-pruned", Error, "R58", "defaults contain no fields pruning would drop";
    CelRuleRequired = "cel.rule-required", Error, "R64", "every validation rule has a non-blank rule";
    CelMessage = "cel.message", Error, "R65", "message is non-blank and one line; a multi-line rule has a message";
    CelMessageExpression = "cel.message-expression", Error, "R66", "messageExpression is non-blank, parses and yields a string";
    CelReason = "cel.reason", Error, "R67", "reason is a FieldValue* error kind";
    CelFieldPath = "cel.field-path", Error, "R68", "fieldPath is a valid path to a declared field";
    CelSyntax = "cel.syntax", Error, "R69", "the rule parses as CEL";
    CelUndefinedField = "cel.undefined-field", Error, "R63, R69, R70", "every field a rule selects is declared in the schema (CEL-escaped)";
    CelType = "cel.type", Error, "R63, R69", "the rule type-checks against the schema's CEL types and the Kubernetes CEL libraries";
    CelCost = "cel.cost", Error, "R73, R74", "each rule's estimated cost (times how often it runs) and each messageExpression's is within 10,000,000";
    CelCostTotal = "cel.cost-total", Error, "R75", "the estimated costs of all rules of a schema add up to at most 100,000,000";
    CelReturnType = "cel.return-type", Error, "R69", "the rule evaluates to a bool (and a messageExpression to a string)";
    CelTransitionRule = "cel.transition-rule", Error, "R71", "oldSelf only where old and new values can be paired";
    CelOptionalOldSelf = "cel.optional-old-self", Error, "R72", "optionalOldSelf only when the rule uses oldSelf";
    SubresourcesStatus = "subresources.status", Error, "R78", "the status subresource is {}";
    SubresourcesStatusRoot = "subresources.status-root", Error, "R79", "with the status subresource the root uses only the allowed keywords";
    SubresourcesScaleSpecPath = "subresources.scale-spec-path", Error, "R81", "scale.specReplicasPath is a simple path under .spec";
    SubresourcesScaleStatusPath = "subresources.scale-status-path", Error, "R82", "scale.statusReplicasPath is a simple path under .status";
    SubresourcesScaleSelectorPath = "subresources.scale-selector-path", Error, "R83", "scale.labelSelectorPath is under .spec or .status";
    SubresourcesScalePathType = "subresources.scale-path-type", Warning, "R84, R107", "scale paths point at declared integer (replicas) or string (selector) fields";
    PrinterColumnsName = "printer-columns.name", Error, "R85", "every printer column has a name";
    PrinterColumnsDuplicateName = "printer-columns.duplicate-name", Warning, "R85, R111", "printer column names are unique";
    PrinterColumnsType = "printer-columns.type", Error, "R86", "printer column type is integer, number, string, boolean or date";
    PrinterColumnsFormat = "printer-columns.format", Error, "R87", "printer column format is one of the allowed formats";
    PrinterColumnsJsonPath = "printer-columns.json-path", Error, "R88", "printer column jsonPath is set and starts with .";
    PrinterColumnsJsonPathSyntax = "printer-columns.json-path-syntax", Warning, "R88, R105", "printer column jsonPath parses with client-go's JSONPath parser";
    PrinterColumnsUnknownField = "printer-columns.unknown-field", Warning, "R89", "printer column jsonPath names a declared field";
    PrinterColumnsTypeMismatch = "printer-columns.type-mismatch", Warning, "R89", "printer column type matches the field's schema type";
    SelectableFieldsJsonPath = "selectable-fields.json-path", Error, "R90, R91", "selectableFields jsonPath is a dot path to a declared field, not through lists";
    SelectableFieldsMetadata = "selectable-fields.metadata", Error, "R92", "selectableFields do not point into metadata";
    SelectableFieldsType = "selectable-fields.type", Error, "R93", "selectableFields point at string, boolean or integer fields";
    SelectableFieldsDuplicate = "selectable-fields.duplicate", Error, "R94", "selectableFields are unique";
    SelectableFieldsTooMany = "selectable-fields.too-many", Error, "R95", "at most 8 selectableFields per version";
    SelectableFieldsHoisting = "selectable-fields.hoisting", Error, "R90, §0 hoisting (kube-apiserver 1.37.2)", "with several versions, every version lists the same selectableFields exactly when every version has the same schema";
    SizeLastApplied = "size.last-applied", Warning, "R102", "the CRD fits in the last-applied-configuration annotation (262,144 bytes)";
    SizeEtcd = "size.etcd", Error, "R101", "the CRD stays under etcd's 1.5 MiB request limit (warning above 1 MiB)";
    LintCamelCase = "lint.camel-case", Warning, "API conventions", "field names are lowerCamelCase";
    LintFloat = "lint.float", Warning, "API conventions", "no floats (type: number)";
    LintUnsigned = "lint.unsigned", Warning, "API conventions, R36", "no unsigned formats (uint*)";
    LintIntOrStringType = "lint.int-or-string-type", Warning, "R45", "no type next to x-kubernetes-int-or-string";
    LintDroppedField = "lint.dropped-field", Warning, "R30", "no unknown keys below items or additionalProperties, which the server drops silently";
    LintCelCost = "lint.cel-cost", Warning, "R73, R74", "no rule uses more than half of its estimated cost budget";
    LintStatusWithoutSubresource = "lint.status-without-subresource", Warning, "R80, API conventions", "a status property comes with the status subresource";
    }
    samples {
    SampleVersion = "sample.version", Error, "create: apiVersion and kind", "apiVersion names a served version of the CRD's group";
    SampleKind = "sample.kind", Error, "create: apiVersion and kind", "kind is the CRD's spec.names.kind";
    SampleName = "sample.name", Error, "create: object metadata", "metadata.name or generateName is a DNS-1123 subdomain; a namespace only on namespaced kinds";
    SamplePruned = "sample.pruned", Warning, "R61", "no fields the schema does not declare (the server drops them)";
    SampleSchema = "sample.schema", Error, "R60, R62, OpenAPI v3 validation", "the defaulted object validates against the version's openAPIV3Schema";
    SampleDuplicate = "sample.duplicate", Error, "x-kubernetes-list-type", "no duplicate items in a set list, no two items with the same keys in a map list";
    SampleCel = "sample.cel", Error, "R68", "every x-kubernetes-validations rule without oldSelf holds";
    SampleCelUnevaluated = "sample.cel-unevaluated", Warning, "R68", "every rule the check could evaluate was evaluated";
    }
    compat {
    CompatScope = "compat.scope", Error, "crdify scope, R97", "spec.scope is unchanged (the API server refuses the update once the CRD is established)";
    CompatKind = "compat.kind", Error, "R97", "spec.names.kind is unchanged (the API server refuses the update once the CRD is established)";
    CompatNames = "compat.names", Warning, "R11, R12", "no short name or category is removed (kubectl get <short name> and kubectl get <category> rely on them)";
    CompatCrdRemoved = "compat.crd-removed", Error, "API deprecation policy", "no CRD of the old revision is missing from the new one (deleting a CRD deletes every object of it)";
    CompatStoredVersionRemoved = "compat.stored-version-removed", Error, "crdify storedVersionRemoval, R19", "every version objects may be stored at (the old storage version, status.storedVersions) stays in spec.versions";
    CompatServedVersionRemoved = "compat.served-version-removed", Error, "API deprecation policy", "a served version stops being served only after a revision marked it deprecated";
    CompatStorageConversion = "compat.storage-conversion", Error, "R29, R109", "the storage version moves only with a conversion webhook or between identical schemas";
    CompatFieldRemoved = "compat.field-removed", Error, "crdify existingFieldRemoval", "no field of an existing version is removed";
    CompatType = "compat.type", Error, "crdify type", "no field changes its type (int-or-string counts as a type)";
    CompatRequired = "compat.required", Error, "crdify required", "no field becomes required";
    CompatDefault = "compat.default", Error, "crdify default", "no default is added, changed or removed";
    CompatEnum = "compat.enum", Error, "crdify enum", "no enum is added to a field that had none and no allowed value is removed (a value added warns)";
    CompatMinimum = "compat.minimum", Error, "crdify minimum", "minimum is not added or raised, exclusiveMinimum not turned on";
    CompatMaximum = "compat.maximum", Error, "crdify maximum", "maximum is not added or lowered, exclusiveMaximum not turned on";
    CompatMinLength = "compat.min-length", Error, "crdify minLength", "minLength is not added or raised";
    CompatMaxLength = "compat.max-length", Error, "crdify maxLength", "maxLength is not added or lowered";
    CompatMinItems = "compat.min-items", Error, "crdify minItems", "minItems is not added or raised";
    CompatMaxItems = "compat.max-items", Error, "crdify maxItems", "maxItems is not added or lowered";
    CompatMinProperties = "compat.min-properties", Error, "crdify minProperties", "minProperties is not added or raised";
    CompatMaxProperties = "compat.max-properties", Error, "crdify maxProperties", "maxProperties is not added or lowered";
    CompatMultipleOf = "compat.multiple-of", Error, "OpenAPI multipleOf", "multipleOf is not added, or changed to a value the old one is not a multiple of";
    CompatJunctor = "compat.junctor", Error, "R42", "no allOf entry or not is added, no anyOf added or shortened, no oneOf entry added or removed";
    CompatPattern = "compat.pattern", Error, "crdify pattern", "no pattern is added or changed";
    CompatFormat = "compat.format", Error, "R36", "no format is added or changed";
    CompatNullable = "compat.nullable", Error, "crdify nullable", "nullable is not removed (added warns)";
    CompatPreserveUnknownFields = "compat.preserve-unknown-fields", Error, "R44, R61", "x-kubernetes-preserve-unknown-fields is not removed";
    CompatListType = "compat.list-type", Error, "R47, R49, R52, R53", "x-kubernetes-list-type, list-map-keys and map-type are unchanged";
    CompatCelRule = "compat.cel-rule", Warning, "R68, validation ratcheting", "no x-kubernetes-validations rule is added or changed that existing objects may fail";
    CompatSubresource = "compat.subresource", Error, "R78-R84", "the status and scale subresources stay, with the same scale paths";
    CompatPrinterColumn = "compat.printer-column", Warning, "R88", "every printer column stays and its jsonPath still resolves";
    CompatSelectableField = "compat.selectable-field", Error, "R91", "every selectable field stays, so field selectors keep working";
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    #[test]
    fn every_rule_finds_its_own_entry_and_ids_are_unique() {
        let all: Vec<&RuleInfo> = RULES.iter().chain(SAMPLE_RULES).chain(COMPAT_RULES).collect();
        for info in &all {
            assert_eq!(info.rule.info(), *info);
        }
        assert_eq!(all.iter().map(|i| i.id).collect::<BTreeSet<_>>().len(), all.len());
        assert!(SAMPLE_RULES.iter().all(|i| i.id.starts_with("sample.")));
        assert!(COMPAT_RULES.iter().all(|i| i.id.starts_with("compat.")));
        assert_eq!(Rule::CompatSelectableField.info().id, "compat.selectable-field");
        assert_eq!(Rule::SizeEtcd.to_string(), "size.etcd");
        assert_eq!(Rule::CelCost.severity(), Severity::Error);
        assert_eq!(Rule::SamplePruned.severity(), Severity::Warning);
    }
}
