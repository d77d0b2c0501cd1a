//! Building `CustomResourceDefinition`s from kinds, and merging a kind's versions into one.

use std::collections::BTreeMap;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceColumnDefinition, CustomResourceDefinition, CustomResourceDefinitionNames,
    CustomResourceDefinitionSpec, CustomResourceDefinitionVersion, CustomResourceSubresourceScale,
    CustomResourceSubresourceStatus, CustomResourceSubresources, CustomResourceValidation, JSONSchemaProps,
    SelectableField,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde_json::{Value, json};

use crate::definition::KindDefinition;
use crate::schema::Rule;

/// The description of a root's `apiVersion`: the Kubernetes API conventions' definition, as
/// controller-gen writes it.
pub const API_VERSION_DESCRIPTION: &str = "APIVersion defines the versioned schema of this representation of an object.\nServers should convert recognized schemas to the latest internal value, and\nmay reject unrecognized values.\nMore info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources";

/// The description of a root's `kind` (API conventions, as controller-gen writes it).
pub const KIND_DESCRIPTION: &str = "Kind is a string value representing the REST resource this object represents.\nServers may infer this from the endpoint the client submits requests to.\nCannot be updated.\nIn CamelCase.\nMore info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds";

/// The root `openAPIV3Schema` of the kind `def`: `apiVersion`, `kind`, `metadata`, `spec`
/// (required) and, when the kind has one, `status`, described the way controller-gen describes
/// them (the `apiVersion` and `kind` texts are the Kubernetes API conventions' definitions).
/// `spec` and `status` are the structural schemas of the kind's types
/// ([`crate::schema::structural_schema_for`]); `rules` are its root `x-kubernetes-validations`.
pub fn root_schema(def: &KindDefinition, spec: Value, status: Option<Value>, rules: Vec<Rule>) -> Value {
    let mut properties = serde_json::Map::new();
    properties.insert(
        "apiVersion".into(),
        json!({
            "description": API_VERSION_DESCRIPTION,
            "type": "string"
        }),
    );
    properties.insert(
        "kind".into(),
        json!({
            "description": KIND_DESCRIPTION,
            "type": "string"
        }),
    );
    properties.insert("metadata".into(), json!({ "type": "object" }));
    properties.insert("spec".into(), without_nullable(spec));
    if let Some(status) = status {
        properties.insert("status".into(), without_nullable(status));
    }
    let mut root = json!({
        "type": "object",
        "properties": properties,
        "required": ["spec"],
    });
    // `doc = ""` leaves the root without a description, as a CRD may be.
    if !def.description.is_empty() {
        root["description"] = def.description.into();
    }
    if !rules.is_empty() {
        root["x-kubernetes-validations"] = serde_json::to_value(rules).expect("a rule is plain strings and flags");
    }
    if let Some(max) = def.max_desc_len {
        cap_descriptions(&mut root, max);
    }
    root
}

/// controller-gen's `crd:maxDescLen`: `0` drops every description; otherwise a longer one is
/// cut at the last word boundary within `max` bytes and ends in `...`.
fn cap_descriptions(node: &mut Value, max: usize) {
    match node {
        Value::Object(map) => {
            if let Some(Value::String(text)) = map.get_mut("description") {
                if max == 0 {
                    map.remove("description");
                } else if text.len() > max {
                    let mut end = max;
                    while !text.is_char_boundary(end) {
                        end -= 1;
                    }
                    let cut = &text[..end];
                    let cut = cut.rfind(char::is_whitespace).filter(|&n| n > 0).map_or(cut, |n| &cut[..n]);
                    *text = format!("{cut}...");
                }
            }
            for (key, child) in map.iter_mut() {
                // Values, not schemas: a default or example may hold a `description` key.
                if !matches!(key.as_str(), "default" | "example" | "enum") {
                    cap_descriptions(child, max);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|i| cap_descriptions(i, max)),
        _ => {}
    }
}

/// One version's single-version CRD on its way to [`merge`], and whether
/// `#[rop(skip_version)]` (controller-gen's `+kubebuilder:skipversion`) leaves it out of the
/// merged CRD.
#[derive(Clone, Debug, PartialEq)]
pub struct VersionCrd {
    /// The version's CRD ([`for_definition`]).
    pub crd: CustomResourceDefinition,
    /// Left out of the merged CRD.
    pub skip: bool,
}

impl From<CustomResourceDefinition> for VersionCrd {
    /// A version that is not skipped.
    fn from(crd: CustomResourceDefinition) -> Self {
        VersionCrd { crd, skip: false }
    }
}

/// `spec` and `status` sit directly under the root, where `nullable` has no use.
fn without_nullable(mut schema: Value) -> Value {
    if let Value::Object(map) = &mut schema {
        map.remove("nullable");
    }
    schema
}

/// The single-version CRD of the kind `def`, whose root schema is `root` ([`root_schema`]).
///
/// # Panics
/// When `root` is not a schema `JSONSchemaProps` can hold, which would be a bug in
/// [`crate::schema`].
pub fn for_definition(def: &KindDefinition, root: Value) -> CustomResourceDefinition {
    let schema: JSONSchemaProps =
        serde_json::from_value(root).expect("rop::schema produced a schema that JSONSchemaProps cannot hold");
    let pairs = |list: &[(&str, &str)]| {
        (!list.is_empty()).then(|| list.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect::<BTreeMap<_, _>>())
    };
    let annotations = pairs(def.annotations);
    CustomResourceDefinition {
        metadata: ObjectMeta {
            name: Some(def.crd_name()),
            labels: pairs(def.labels),
            annotations,
            ..ObjectMeta::default()
        },
        spec: CustomResourceDefinitionSpec {
            group: def.group.into(),
            names: names(def),
            scope: if def.namespaced { "Namespaced" } else { "Cluster" }.into(),
            versions: vec![version(def, schema)],
            conversion: None,
            preserve_unknown_fields: None,
        },
        status: None,
    }
}

fn names(def: &KindDefinition) -> CustomResourceDefinitionNames {
    let list = |items: &[&str]| (!items.is_empty()).then(|| items.iter().map(|s| s.to_string()).collect());
    CustomResourceDefinitionNames {
        kind: def.kind.into(),
        list_kind: Some(format!("{}List", def.kind)),
        plural: def.plural.into(),
        singular: Some(def.singular.into()),
        short_names: list(def.short_names),
        categories: list(def.categories),
    }
}

/// The printer column type of the field at `json_path` (a plain field path such as
/// `.spec.size`) in `schema`: its `type`, `date` for a `date-time` string; empty where the path
/// names no field of a scalar type (then the CRD check says the column needs a type).
fn column_type(schema: &JSONSchemaProps, json_path: &str) -> String {
    let mut node = schema;
    for field in json_path.trim_start_matches('.').split('.') {
        match node.properties.as_ref().and_then(|properties| properties.get(field)) {
            Some(child) => node = child,
            None => return String::new(),
        }
    }
    match (node.type_.as_deref(), node.format.as_deref()) {
        (Some("string"), Some("date-time")) => "date".into(),
        (Some(type_ @ ("integer" | "number" | "string" | "boolean")), _) => type_.into(),
        _ => String::new(),
    }
}

fn version(def: &KindDefinition, schema: JSONSchemaProps) -> CustomResourceDefinitionVersion {
    let columns: Vec<_> = def
        .printer_columns
        .iter()
        .map(|c| CustomResourceColumnDefinition {
            name: c.name.into(),
            type_: if c.type_.is_empty() { column_type(&schema, c.json_path) } else { c.type_.into() },
            json_path: c.json_path.into(),
            description: c.description.map(Into::into),
            format: c.format.map(Into::into),
            priority: c.priority,
        })
        .collect();
    let status_subresource = def.has_status && def.status_subresource;
    let subresources = (status_subresource || def.scale.is_some()).then(|| CustomResourceSubresources {
        status: status_subresource.then(|| CustomResourceSubresourceStatus(json!({}))),
        scale: def.scale.map(|s| CustomResourceSubresourceScale {
            spec_replicas_path: s.spec_replicas_path.into(),
            status_replicas_path: s.status_replicas_path.into(),
            label_selector_path: s.label_selector_path.map(Into::into),
        }),
    });
    CustomResourceDefinitionVersion {
        name: def.version.into(),
        served: def.served,
        storage: def.storage,
        deprecated: def.deprecated.map(|_| true),
        deprecation_warning: def.deprecated.filter(|w| !w.is_empty()).map(Into::into),
        additional_printer_columns: (!columns.is_empty()).then_some(columns),
        schema: Some(CustomResourceValidation { open_api_v3_schema: Some(schema) }),
        subresources,
        selectable_fields: (!def.selectable_fields.is_empty())
            .then(|| def.selectable_fields.iter().map(|p| SelectableField { json_path: p.to_string() }).collect()),
    }
}

/// Why a kind's versions cannot form one CRD.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum MergeError {
    /// The kind has several versions and none is marked `#[rop(storage)]` (apiextensions/v1
    /// requires exactly one `versions[].storage: true`).
    #[error(
        "kind {kind}.{group} has no storage version: mark exactly one of its versions ({versions}) with #[rop(storage)]"
    )]
    NoStorageVersion {
        /// The CRD's name, `<plural>.<group>`.
        crd_name: String,
        /// The kind's API group (`spec.group`).
        group: String,
        /// The kind (`spec.names.kind`), UpperCamelCase.
        kind: String,
        /// The versions not skipped, sorted by name, comma-separated.
        versions: String,
    },
    /// More than one version of the kind is marked `#[rop(storage)]`.
    #[error("kind {kind}.{group} has {count} storage versions ({versions}): keep #[rop(storage)] on exactly one")]
    ManyStorageVersions {
        /// The CRD's name, `<plural>.<group>`.
        crd_name: String,
        /// The kind's API group (`spec.group`).
        group: String,
        /// The kind (`spec.names.kind`), UpperCamelCase.
        kind: String,
        /// How many versions are marked as the storage version, 2 or more.
        count: usize,
        /// All the versions not skipped, sorted by name, comma-separated.
        versions: String,
    },
    /// Every version of the kind has `#[rop(served = false)]` (apiextensions/v1 requires at
    /// least one `versions[].served: true`).
    #[error("kind {kind}.{group} has no served version: remove #[rop(served = false)] from at least one of {versions}")]
    NoServedVersion {
        /// The CRD's name, `<plural>.<group>`.
        crd_name: String,
        /// The kind's API group (`spec.group`).
        group: String,
        /// The kind (`spec.names.kind`), UpperCamelCase.
        kind: String,
        /// The versions not skipped, sorted by name, comma-separated.
        versions: String,
    },
    /// Two types declare the same version of the same kind.
    #[error(
        "kind {kind}.{group} is declared twice with version {version}: each version of a kind needs its own module"
    )]
    DuplicateVersion {
        /// The CRD's name, `<plural>.<group>`.
        crd_name: String,
        /// The kind's API group (`spec.group`).
        group: String,
        /// The kind (`spec.names.kind`), UpperCamelCase.
        kind: String,
        /// The version declared twice, e.g. `v1alpha1`.
        version: String,
    },
    /// Two versions of the kind give different values for something the CRD holds once, for
    /// all its versions.
    #[error("versions of {crd_name} disagree on {what}: every version of a kind must give the same {what}")]
    Disagree {
        /// The CRD's name, `<plural>.<group>`.
        crd_name: String,
        /// What differs, with the attribute that sets it, e.g. `scope (namespaced)` or
        /// `CRD label values (label(...))`.
        what: &'static str,
    },
    /// Every version of the kind has `#[rop(skip_version)]`, which would leave a CRD without
    /// versions.
    #[error("kind {kind}.{group} has #[rop(skip_version)] on every version ({versions}): keep at least one version")]
    AllVersionsSkipped {
        /// The CRD's name, `<plural>.<group>`.
        crd_name: String,
        /// The kind's API group (`spec.group`).
        group: String,
        /// The kind (`spec.names.kind`), UpperCamelCase.
        kind: String,
        /// All the versions, in the order they were listed, comma-separated.
        versions: String,
    },
}

impl MergeError {
    /// The name of the CRD (`<plural>.<group>`) the error is about.
    pub fn crd_name(&self) -> &str {
        match self {
            MergeError::NoStorageVersion { crd_name, .. }
            | MergeError::ManyStorageVersions { crd_name, .. }
            | MergeError::NoServedVersion { crd_name, .. }
            | MergeError::DuplicateVersion { crd_name, .. }
            | MergeError::Disagree { crd_name, .. }
            | MergeError::AllVersionsSkipped { crd_name, .. } => crd_name,
        }
    }
}

/// Merges single-version CRDs into one CRD per group and kind (the API server holds one
/// `CustomResourceDefinition` per `<plural>.<group>`), with versions sorted by name as
/// controller-gen sorts them.
///
/// A kind with one version gets `storage: true` whatever its attribute said (controller-gen
/// does the same); otherwise exactly one version must be the storage version, and at least one
/// must be served (apiextensions validation: "must have exactly one version marked as storage
/// version", "must serve at least one version").
///
/// Versions whose [`VersionCrd::skip`] is set are left out; a kind must keep one.
pub fn merge<P: Into<VersionCrd>>(
    parts: impl IntoIterator<Item = P>,
) -> Result<Vec<CustomResourceDefinition>, MergeError> {
    let mut by_name: BTreeMap<String, Vec<VersionCrd>> = BTreeMap::new();
    for part in parts {
        let part = part.into();
        by_name.entry(part.crd.metadata.name.clone().unwrap_or_default()).or_default().push(part);
    }
    by_name.into_values().map(merge_one).collect()
}

fn merge_one(parts: Vec<VersionCrd>) -> Result<CustomResourceDefinition, MergeError> {
    let all_versions =
        parts.iter().flat_map(|p| p.crd.spec.versions.iter().map(|v| v.name.clone())).collect::<Vec<_>>();
    if parts.iter().all(|p| p.skip) {
        let first = &parts[0].crd;
        return Err(MergeError::AllVersionsSkipped {
            crd_name: first.metadata.name.clone().unwrap_or_default(),
            group: first.spec.group.clone(),
            kind: first.spec.names.kind.clone(),
            versions: all_versions.join(", "),
        });
    }
    let mut parts = parts.into_iter().filter(|p| !p.skip).map(|p| p.crd);
    let mut merged = parts.next().expect("one version is not skipped");
    let crd_name = merged.metadata.name.clone().unwrap_or_default();
    for part in parts {
        if !union_into(&mut merged.metadata.labels, &part.metadata.labels) {
            return Err(MergeError::Disagree { crd_name, what: "CRD label values (label(...))" });
        }
        if !union_into(&mut merged.metadata.annotations, &part.metadata.annotations) {
            return Err(MergeError::Disagree { crd_name, what: "CRD annotation values (annotation(...))" });
        }
        if part.spec.scope != merged.spec.scope {
            return Err(MergeError::Disagree { crd_name, what: "scope (namespaced)" });
        }
        if part.spec.names != merged.spec.names {
            return Err(MergeError::Disagree { crd_name, what: "names (plural, singular, short names, categories)" });
        }
        merged.spec.versions.extend(part.spec.versions);
    }
    let group = merged.spec.group.clone();
    let kind = merged.spec.names.kind.clone();
    merged.spec.versions.sort_by(|a, b| a.name.cmp(&b.name));
    let names: Vec<&str> = merged.spec.versions.iter().map(|v| v.name.as_str()).collect();
    if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
        return Err(MergeError::DuplicateVersion {
            crd_name: crd_name.clone(),
            group,
            kind,
            version: w[0].to_string(),
        });
    }
    let versions = names.join(", ");
    if merged.spec.versions.len() == 1 {
        merged.spec.versions[0].storage = true;
    }
    let storage = merged.spec.versions.iter().filter(|v| v.storage).count();
    match storage {
        0 => return Err(MergeError::NoStorageVersion { crd_name: crd_name.clone(), group, kind, versions }),
        1 => {}
        count => {
            return Err(MergeError::ManyStorageVersions { crd_name: crd_name.clone(), group, kind, count, versions });
        }
    }
    if !merged.spec.versions.iter().any(|v| v.served) {
        return Err(MergeError::NoServedVersion { crd_name: crd_name.clone(), group, kind, versions });
    }
    Ok(merged)
}

/// Adds the entries of `more` to `into`; `false` when a key has two different values.
fn union_into(into: &mut Option<BTreeMap<String, String>>, more: &Option<BTreeMap<String, String>>) -> bool {
    let Some(more) = more else { return true };
    let target = into.get_or_insert_with(BTreeMap::new);
    for (key, value) in more {
        match target.get(key) {
            Some(existing) if existing != value => return false,
            _ => {
                target.insert(key.clone(), value.clone());
            }
        }
    }
    true
}

/// A kind's CRD on its own (`crd`, one version), as `CustomResourceExt::crd()` returns it: its
/// one version is the storage version whatever `#[rop(storage)]` says, as in [`merge`].
pub fn single_version(mut crd: CustomResourceDefinition) -> CustomResourceDefinition {
    crd.spec.versions[0].storage = true;
    crd
}
