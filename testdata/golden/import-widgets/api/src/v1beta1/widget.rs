// Copyright 2026.
// SPDX-License-Identifier: Apache-2.0

//! The `Widget` kind, version `v1beta1` of `shop.example.com`, imported from `widgets.yaml` by `rop import`.
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

use rop::{CustomResource, JsonSchema};
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
#[rop(
    group = "shop.example.com",
    version = "v1beta1",
    kind = "Widget",
    plural = "widgets",
    namespaced,
    deprecated = "shop.example.com/v1beta1 Widget is deprecated; use v1",
    shortname = "wd",
    category = "shop",
    doc = "Widget is a thing the shop sells."
)]
#[rop(annotation("api-approved.kubernetes.io", "unapproved, testing only"))]
#[serde(rename_all = "camelCase")]
pub struct WidgetSpec {
    pub color: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[rop(validation(rule = "self % 2 == 0", message = "size must be even in v1beta1"))]
    pub size: Option<i32>,
}
