// Copyright 2026.
// SPDX-License-Identifier: Apache-2.0

//! Version `v1beta1` of the `shop.example.com` API group.

mod widget;
pub use widget::*;
// +rop:scaffold:kinds
