// Copyright 2026.
// SPDX-License-Identifier: Apache-2.0

//! Conversion of Memcached between this version, v1beta1, and the hub version v1 (the
//! storage version). The manager's conversion webhook converts every other version through the hub.

use rop::conversion::{ConversionError, Spoke, by_field_names};

use super::Memcached;
use crate::v1::Memcached as HubMemcached;

impl Spoke<HubMemcached> for Memcached {
    fn convert_to_hub(self) -> Result<HubMemcached, ConversionError> {
        // TODO(user): while both versions have the same fields, converting by field name is
        // enough. Once they differ, build the hub object here, keeping `self.metadata`.
        by_field_names(self)
    }

    fn convert_from_hub(hub: HubMemcached) -> Result<Self, ConversionError> {
        // TODO(user): the reverse of `convert_to_hub`: nothing that both versions hold may be lost.
        by_field_names(hub)
    }
}
