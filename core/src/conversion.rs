//! Conversion between the versions of a kind, hub and spoke, as controller-runtime's
//! `conversion.Hub` / `conversion.Convertible` do it.
//!
//! One version of a kind is the hub: its storage version. Every other version is a spoke and
//! implements [`Spoke`] for the hub: to the hub and back. Converting between two spokes goes
//! through the hub, so `n` versions need `n - 1` conversions, not `n²`. The manager's
//! conversion webhook (`rop::webhook`, feature `webhook`) answers the API server's
//! `ConversionReview`s with them.

use serde::Serialize;
use serde::de::DeserializeOwned;

/// A spoke version of a kind, convertible to and from the hub version `Hub`.
///
/// Both conversions must keep `metadata` as it is (the API server refuses a conversion that
/// changes anything but labels and annotations) and lose nothing that both versions can hold:
/// spoke → hub → spoke gives the object back.
pub trait Spoke<Hub>: Sized {
    /// This spoke object in the hub version.
    ///
    /// # Errors
    /// A value the hub cannot represent; the message goes to the API server's caller.
    fn convert_to_hub(self) -> Result<Hub, ConversionError>;

    /// The hub object in this spoke version.
    ///
    /// # Errors
    /// As [`Spoke::convert_to_hub`].
    fn convert_from_hub(hub: Hub) -> Result<Self, ConversionError>;
}

/// Why an object cannot be converted; the message is returned to the API server.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ConversionError(pub String);

impl ConversionError {
    /// An error with this message.
    pub fn new(message: impl Into<String>) -> ConversionError {
        ConversionError(message.into())
    }
}

/// Converts `object` into `To` field by field, by JSON name: `metadata` and every field whose
/// name and shape are the same in both versions carry over; fields `To` does not have are
/// dropped, and fields only `To` has take their serde default. A starting point for
/// [`Spoke`] implementations while two versions still have the same fields.
///
/// # Errors
/// A field with the same name but another shape in `To` (say a string that became a
/// structure): the message names the field and what serde found, for example
/// `cannot convert by field names: spec.image: invalid type: map, expected a string: write
/// this field's conversion by hand`.
pub fn by_field_names<From: Serialize, To: DeserializeOwned>(object: From) -> Result<To, ConversionError> {
    let mut value = serde_json::to_value(object).map_err(|e| ConversionError::new(e.to_string()))?;
    if let Some(map) = value.as_object_mut() {
        // `To` writes its own apiVersion and kind.
        map.remove("apiVersion");
        map.remove("kind");
    }
    decode(value).map_err(|e| {
        ConversionError::new(format!("cannot convert by field names: {e}: write this field's conversion by hand"))
    })
}

/// Decodes `value` as `T`; the error names the field where decoding stopped, as a dotted path
/// (`spec.image: invalid type: map, expected a string`; `.` for the object itself).
///
/// # Errors
/// The first field whose JSON does not fit its Rust type.
pub fn decode<T: DeserializeOwned>(value: serde_json::Value) -> Result<T, String> {
    serde_path_to_error::deserialize(value).map_err(|e| e.to_string())
}
