use rop::JsonSchema;
use serde::{Deserialize, Serialize};

/// Unit and data variants, externally tagged: a string or an object on the wire.
#[derive(Serialize, Deserialize, JsonSchema)]
pub enum Selector {
    AllCaptured,
    Named(Vec<String>),
}

/// Accepted: the enum says the field may hold any value.
#[derive(Serialize, Deserialize, JsonSchema)]
#[rop(preserve_unknown_fields)]
pub enum Accepted {
    Off,
    Fixed(i32),
}

/// Tagged: every value is an object.
#[derive(Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type")]
pub enum Tagged {
    Off,
    Range { min: i32 },
}

/// Skipped variants do not count.
#[derive(Serialize, Deserialize, JsonSchema)]
pub enum OnlyData {
    #[serde(skip)]
    Unset,
    Named(Vec<String>),
}

/// Internally tagged, with a variant that wraps a list: serde cannot put the tag in it.
#[derive(Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type")]
pub enum TaggedList {
    All,
    Named(Vec<String>),
}

/// Internally tagged, wrapping a struct: fine.
#[derive(Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type")]
pub enum TaggedStruct {
    All,
    Git(Git),
}

#[derive(Serialize, Deserialize, JsonSchema)]
pub struct Git {
    pub url: String,
}

fn main() {}
