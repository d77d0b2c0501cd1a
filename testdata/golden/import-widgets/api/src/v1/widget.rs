// Copyright 2026.
// SPDX-License-Identifier: Apache-2.0

//! The `Widget` kind, version `v1` of `shop.example.com`, imported from `widgets.yaml` by `rop import`.
//!
//! Doc comments are the CRD's descriptions. Edit the types, then run `make manifests`.

// Descriptions are kept as the CRD wrote them, which is not always the Markdown clippy and
// rustdoc expect; types follow the schema, nested maps and lists included.
#![allow(
    clippy::doc_lazy_continuation,
    clippy::doc_overindented_list_items,
    clippy::tabs_in_doc_comments,
    clippy::type_complexity
)]
#![allow(
    rustdoc::bare_urls,
    rustdoc::broken_intra_doc_links,
    rustdoc::invalid_html_tags
)]

use std::collections::BTreeMap;

use rop::k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use rop::{CustomResource, JsonSchema};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// WidgetSpec is what the customer ordered.
///
/// It has two paragraphs.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
#[rop(
    group = "shop.example.com",
    version = "v1",
    kind = "Widget",
    plural = "widgets",
    namespaced,
    storage,
    status = "WidgetStatus",
    shortname = "wd",
    category = "shop",
    doc = "Widget is a thing the shop sells."
)]
#[rop(root_validation(rule = "self.metadata.name.size() <= 40", message = "name too long"))]
#[rop(printcolumn(name = "Size", type_ = "integer", json_path = ".spec.size"))]
#[rop(printcolumn(
    name = "Phase",
    type_ = "string",
    json_path = ".status.phase",
    priority = 1
))]
#[rop(scale(
    spec_replicas_path = ".spec.size",
    status_replicas_path = ".status.replicas"
))]
#[rop(selectable_field = ".spec.color")]
#[rop(annotation("api-approved.kubernetes.io", "unapproved, testing only"))]
#[rop(
    validation(
        rule = "!has(self.minSize) || self.minSize <= self.size",
        message = "minSize must not exceed size",
        reason = "FieldValueInvalid",
        field_path = ".minSize"
    ),
    validation(
        rule = "self.color == oldSelf.color",
        message_expression = "'color is immutable, was ' + oldSelf.color"
    )
)]
#[serde(rename_all = "camelCase")]
pub struct WidgetSpec {
    #[serde(rename = "$ref", default, skip_serializing_if = "Option::is_none")]
    pub r#ref: Option<String>,
    #[serde(rename = "3d", default, skip_serializing_if = "Option::is_none")]
    pub _3d: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anything: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(
        description = "  Padded description, kept as written.  ",
        length(min = 2, max = 10),
        regex(pattern = r#"^[a-z]\d+"?$"#)
    )]
    pub code: Option<String>,
    /// The colour of the widget.
    pub color: WidgetSpecColor,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[rop(schemaless, type_ = "object", raw_schema = r#"{"properties":{}}"#)]
    pub empty: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[rop(preserve_unknown_fields, type_ = "object")]
    pub extra: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub foo_bar: Option<String>,
    #[serde(rename = "foo_bar", default, skip_serializing_if = "Option::is_none")]
    pub foo_bar_2: Option<String>,
    /// A property name that is not ASCII.
    #[serde(rename = "größe", default, skip_serializing_if = "Option::is_none")]
    pub grosse: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[rop(
        raw_schema = r#"{"additionalProperties":{"maxLength":63,"type":"string"}}"#,
        max_properties = 10,
        map_type = "granular"
    )]
    pub labels: Option<BTreeMap<String, String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[rop(
        raw_schema = r#"{"items":{"items":{"format":"int32","minimum":0,"type":"integer"},"type":"array"}}"#
    )]
    pub matrix: Option<Vec<Vec<i32>>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(
        pattern = r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$"
    ))]
    pub memory: Option<IntOrString>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0))]
    #[rop(exclusive_minimum)]
    pub min_size: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[rop(enum_values = ["*", "on"])]
    pub mode: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(description = "# Not a title")]
    #[rop(nullable)]
    pub note: Option<String>,
    /// Who ordered it; null for the shop itself.
    #[rop(required, nullable)]
    pub owner: Option<String>,
    /// Parts by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parts: Option<BTreeMap<String, WidgetSpecParts>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<IntOrString>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 8))]
    #[rop(list_type = "map", list_map_keys = ["name", "protocol"])]
    pub ports: Option<Vec<WidgetSpecPorts>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[rop(multiple_of = 0.5)]
    pub ratio: Option<f64>,
    #[serde(rename = "ref", default, skip_serializing_if = "Option::is_none")]
    #[rop(default_json = r#"{"name":"default"}"#)]
    pub ref_2: Option<WidgetSpecRef>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[rop(default_json = "3")]
    pub replicas: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[rop(schemaless, type_ = "number")]
    pub score: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(description = "A script run on delivery, for example:\n```sh\necho delivered\n```")]
    pub script: Option<String>,
    #[serde(rename = "self", default, skip_serializing_if = "Option::is_none")]
    pub self_: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[rop(format = "date-time")]
    pub since: Option<String>,
    #[schemars(range(min = 1, max = 100))]
    pub size: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<WidgetSpecSource>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(inner(length(min = 1)))]
    #[rop(items(validation(rule = "self != 'forbidden'")), list_type = "set")]
    pub tags: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[rop(embedded_resource, preserve_unknown_fields)]
    pub template: Option<Value>,
    #[serde(rename = "tlsCA", default, skip_serializing_if = "Option::is_none")]
    pub tls_ca: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub r#type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(max = 4294967295_i64))]
    #[rop(schemaless, type_ = "integer")]
    pub weight: Option<i64>,
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, JsonSchema)]
pub enum WidgetSpecColor {
    #[serde(rename = "red")]
    Red,
    #[serde(rename = "green")]
    Green,
    #[serde(rename = "light-blue")]
    LightBlue,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WidgetSpecParts {
    pub count: i32,
}

/// A port the widget listens on.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WidgetSpecPorts {
    pub name: String,
    #[rop(default_json = r#""TCP""#)]
    pub protocol: WidgetSpecPortsProtocol,
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, JsonSchema)]
pub enum WidgetSpecPortsProtocol {
    #[serde(rename = "TCP")]
    Tcp,
    #[serde(rename = "UDP")]
    Udp,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
#[rop(struct_type = "atomic")]
#[serde(rename_all = "camelCase")]
pub struct WidgetSpecRef {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
#[rop(raw_schema = r#"{"oneOf":[{"required":["url"]},{"required":["path"]}]}"#)]
#[serde(rename_all = "camelCase")]
pub struct WidgetSpecSource {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// WidgetStatus is what the controller saw.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WidgetStatus {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<WidgetStatusPhase>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i32>,
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, JsonSchema)]
pub enum WidgetStatusPhase {
    Pending,
    Ready,
}
