//! The `format`s the API server checks on custom objects (kube-openapi's `strfmt` registry and
//! its integer and float ranges): `int32`, `int64`, `float`, `double`, `date-time` (also
//! `datetime`), `date`, `uuid`, `uuid3`/`uuid4`/`uuid5`, `byte`, `ipv4`, `ipv6`, `cidr`,
//! `mac`, `hostname` and `duration`. Any other format is accepted as the server would accept
//! an unknown one; `email`, `uri`, `isbn`, `creditcard`, `ssn`, `hexcolor`, `rgbcolor`,
//! `bsonobjectid`, `password`, `k8s-short-name` and `k8s-long-name` are not checked here.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::sync::LazyLock;

use base64::Engine;
use regex::Regex;
use serde_json::Value;

use super::messages::{go_quote, quote};
use super::path::Path;
use super::prune::additional;
use crate::report::Report;
use crate::rules::Rule;

static DATE_TIME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])[Tt ]([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d+)?)?([Zz]|[+-]([01]\d|2[0-3]):?[0-5]\d)?$")
        .expect("valid regex")
});
static DATE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$").expect("valid regex"));
static UUID: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$").expect("valid regex")
});
static MAC: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^([0-9a-f]{2}[:-]){5}[0-9a-f]{2}$|^([0-9a-f]{2}[:-]){7}[0-9a-f]{2}$|^([0-9a-f]{4}\.){2}[0-9a-f]{4}$",
    )
    .expect("valid regex")
});
static HOSTNAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)(\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*\.?$")
        .expect("valid regex")
});
static DURATION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[-+]?((\d+(\.\d*)?|\.\d+)\s*(ns|us|µs|ms|s|m|h|d|w|sec|secs|second|seconds|min|mins|minute|minutes|hour|hours|day|days|week|weeks)\s*)+$|^0$")
        .expect("valid regex")
});

/// Checks the formats of every value in `object` whose schema node (under `root`) has one.
pub(crate) fn check(object: &Value, root: &Value, report: &mut Report) {
    node(object, root, &Path::default(), report);
}

fn node(value: &Value, schema: &Value, path: &Path, report: &mut Report) {
    if let Some(format) = schema.get("format").and_then(Value::as_str)
        && !valid(format, value)
    {
        let shown = match value {
            Value::String(s) => go_quote(s),
            other => go_quote(&other.to_string()),
        };
        // The API server reports an integer out of its format's range at the root, in
        // kube-openapi's words; other formats at the field.
        if matches!(format, "int32" | "int64") && value.is_number() {
            report.add(
                Rule::SampleSchema,
                "(root)",
                format!("Invalid value: \"\": Checked value must be of type integer with format {format} in {path}"),
                "keep the value within the format's range",
            );
        } else {
            report.add(
                Rule::SampleSchema,
                path.to_string(),
                format!("Invalid value: {}: {path} in body must be of type {format}: {shown}", quote(value)),
                "write the value in the field's format",
            );
        }
    }
    match value {
        Value::Object(map) => {
            let props = schema.get("properties").and_then(Value::as_object);
            for (key, child) in map {
                if let Some(prop) = props.and_then(|p| p.get(key)) {
                    node(child, prop, &path.field(key), report);
                } else if let Some(values) = additional(schema) {
                    node(child, values, &path.field(key), report);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for (i, item) in items.iter().enumerate() {
                    node(item, item_schema, &path.index(i), report);
                }
            }
        }
        _ => {}
    }
}

/// Whether `value` is valid for `format`; values of another JSON type are left to the type
/// check.
fn valid(format: &str, value: &Value) -> bool {
    if let Value::Number(n) = value {
        return match format {
            "int32" => match (n.as_i64(), n.as_u64()) {
                (Some(i), _) => i32::try_from(i).is_ok(),
                (None, Some(_)) => false,
                _ => true,
            },
            "int64" => n.is_i64() || n.is_f64(),
            "float" => n.as_f64().is_none_or(|f| f.abs() <= f64::from(f32::MAX)),
            _ => true,
        };
    }
    let Value::String(s) = value else { return true };
    match format.replace('-', "").as_str() {
        "datetime" => DATE_TIME.is_match(s),
        "date" => DATE.is_match(s),
        "uuid" | "uuid3" | "uuid4" | "uuid5" => UUID.is_match(s),
        "byte" => base64::engine::general_purpose::STANDARD.decode(s).is_ok(),
        "ipv4" => s.parse::<Ipv4Addr>().is_ok(),
        "ipv6" => s.parse::<Ipv6Addr>().is_ok(),
        "cidr" => s.split_once('/').is_some_and(|(ip, bits)| {
            let max = match ip.parse::<IpAddr>() {
                Ok(IpAddr::V4(_)) => 32,
                Ok(IpAddr::V6(_)) => 128,
                Err(_) => return false,
            };
            bits.parse::<u8>().is_ok_and(|b| b <= max)
        }),
        "mac" => MAC.is_match(s),
        "hostname" => s.len() <= 255 && HOSTNAME.is_match(s),
        "duration" => DURATION.is_match(s),
        _ => true,
    }
}
