//! OpenAPI v3 validation of the defaulted object (`pkg/apiserver/validation`: kube-openapi's
//! schema validator, its results turned into field errors), through the `jsonschema` crate
//! on the schema [`super::openapi`] converts, plus [`super::formats`].

use jsonschema::error::ValidationErrorKind as Kind;
use serde_json::Value;

use super::messages::{in_body, number, quote, type_name, unsupported};
use super::path::Path;
use crate::report::Report;
use crate::rules::Rule;

const RULE: Rule = Rule::SampleSchema;
const FIX: &str = "change the value to one the CRD's schema allows";

/// A `pattern` as the API server reads it: Go's RE2 syntax (`(?i)` and other inline flags
/// included), which the `regex` crate shares, rather than JSON Schema's ECMA-262 regular
/// expressions, whose check would refuse the CRD's schema itself.
struct GoPattern {
    source: String,
    regex: regex::Regex,
}

impl<'i> jsonschema::Keyword<'i> for GoPattern {
    fn validate(&self, instance: &'i Value) -> Result<(), jsonschema::ValidationError<'i>> {
        if self.is_valid(instance) {
            Ok(())
        } else {
            Err(jsonschema::ValidationError::custom(format!("should match '{}'", self.source)))
        }
    }

    fn is_valid(&self, instance: &'i Value) -> bool {
        instance.as_str().is_none_or(|s| self.regex.is_match(s))
    }
}

fn go_pattern<'a>(
    _parent: &'a serde_json::Map<String, Value>,
    value: &'a Value,
    _path: jsonschema::paths::Location,
) -> Result<Box<dyn for<'i> jsonschema::Keyword<'i>>, jsonschema::ValidationError<'a>> {
    let source = value.as_str().unwrap_or_default().to_string();
    match regex::Regex::new(&source) {
        Ok(regex) => Ok(Box::new(GoPattern { source, regex })),
        Err(e) => Err(jsonschema::ValidationError::custom(format!("pattern {source:?} does not compile: {e}"))),
    }
}

/// Validates `object` against the version's `openAPIV3Schema` `root`. Returns whether a type
/// error was found: the API server then skips the CEL rules.
pub(crate) fn validate(object: &Value, root: &Value, report: &mut Report) -> bool {
    let converted = super::openapi::convert(root);
    let validator = match jsonschema::options()
        .with_draft(jsonschema::Draft::Draft4)
        .should_validate_formats(false)
        .with_pattern_options(jsonschema::PatternOptions::regex())
        .with_keyword(super::openapi::GO_PATTERN, go_pattern)
        .build(&converted)
    {
        Ok(v) => v,
        Err(e) => {
            report.add(
                RULE,
                super::path::ROOT,
                format!("the CRD's schema cannot be used: {e}"),
                "run rop verify on the CRD",
            );
            return true;
        }
    };
    let mut type_error = false;
    for error in validator.iter_errors(object) {
        let path = Path::from_pointer(object, error.instance_path().as_str());
        let value = error.instance().as_ref();
        let p = path.to_string();
        let (at, message) = match error.kind() {
            Kind::Type { .. } => {
                type_error = true;
                let keyword = error.schema_path().as_str();
                let node = keyword.strip_suffix("/type").and_then(|s| converted.pointer(s));
                let expected = match node.and_then(|n| n.get("type")) {
                    Some(Value::String(t)) => t.clone(),
                    Some(Value::Array(ts)) => {
                        ts.iter().filter_map(Value::as_str).filter(|t| *t != "null").collect::<Vec<_>>().join(",")
                    }
                    _ => String::new(),
                };
                let actual = Value::String(type_name(value).to_string());
                (p.clone(), in_body(&p, &actual, &format!("must be of type {expected}: {}", quote(&actual))))
            }
            Kind::Required { property } => {
                let field = path.field(property.as_str().unwrap_or_default()).to_string();
                (field, "Required value".to_string())
            }
            Kind::Enum { options } => (p, unsupported(value, options.as_array().map(Vec::as_slice).unwrap_or(&[]))),
            Kind::Minimum { limit } => {
                (p.clone(), in_body(&p, value, &format!("should be greater than or equal to {}", number(limit))))
            }
            Kind::ExclusiveMinimum { limit } => {
                (p.clone(), in_body(&p, value, &format!("should be greater than {}", number(limit))))
            }
            Kind::Maximum { limit } => {
                (p.clone(), in_body(&p, value, &format!("should be less than or equal to {}", number(limit))))
            }
            Kind::ExclusiveMaximum { limit } => {
                (p.clone(), in_body(&p, value, &format!("should be less than {}", number(limit))))
            }
            Kind::MultipleOf { multiple_of } => {
                let m = number(&serde_json::json!(multiple_of));
                (p.clone(), in_body(&p, value, &format!("should be a multiple of {m}")))
            }
            Kind::MaxLength { limit } => (p, format!("Too long: may not be more than {limit} bytes")),
            Kind::MinLength { limit } => {
                (p.clone(), in_body(&p, value, &format!("should be at least {limit} chars long")))
            }
            Kind::Pattern { pattern } => (p.clone(), in_body(&p, value, &format!("should match '{pattern}'"))),
            Kind::Custom { message, .. } => (p.clone(), in_body(&p, value, message)),
            Kind::MaxItems { limit } => (p, format!("Too many: {}: must have at most {limit} items", len(value))),
            Kind::MinItems { limit } => {
                (p.clone(), format!("Invalid value: {}: {p} in body should have at least {limit} items", len(value)))
            }
            Kind::MaxProperties { limit } => (p, format!("Too many: {}: must have at most {limit} items", len(value))),
            Kind::MinProperties { limit } => (
                p.clone(),
                format!("Invalid value: {}: {p} in body should have at least {limit} properties", len(value)),
            ),
            Kind::AnyOf { .. } => (p.clone(), in_body(&p, value, "must validate at least one schema (anyOf)")),
            Kind::OneOfNotValid { .. } | Kind::OneOfMultipleValid { .. } => {
                (p.clone(), in_body(&p, value, "must validate one and only one schema (oneOf)"))
            }
            Kind::Not { .. } => (p.clone(), in_body(&p, value, "must not validate the schema (not)")),
            _ => (p.clone(), format!("Invalid value: {}: {error}", quote(value))),
        };
        report.add(RULE, at, message, FIX);
    }
    super::formats::check(object, root, report);
    type_error
}

fn len(value: &Value) -> usize {
    match value {
        Value::Array(a) => a.len(),
        Value::Object(m) => m.len(),
        _ => 0,
    }
}
