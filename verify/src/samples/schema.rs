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
const FIX_REQUIRED: &str = "add the field: the CRD's schema requires it";

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
    match crate::cel::go_regex::compile(&source) {
        Ok(regex) => Ok(Box::new(GoPattern { source, regex })),
        Err(e) => Err(jsonschema::ValidationError::custom(format!("pattern {source:?} does not compile: {e}"))),
    }
}

/// `multipleOf` as kube-openapi checks it: an integer value against the factor truncated to an
/// integer (a factor below 1 is then an error of the schema, `factor MultipleOf declared for
/// <field> must be positive: 0`), a fractional value by float division.
struct GoMultipleOf {
    factor: f64,
}

/// The start of the message for a factor that truncates to zero or less.
const FACTOR_NOT_POSITIVE: &str = "factor MultipleOf declared for";

impl<'i> jsonschema::Keyword<'i> for GoMultipleOf {
    fn validate(&self, instance: &'i Value) -> Result<(), jsonschema::ValidationError<'i>> {
        let Some(n) = instance.as_number() else { return Ok(()) };
        if n.is_i64() || n.is_u64() {
            let factor = self.factor.trunc();
            if factor <= 0.0 {
                return Err(jsonschema::ValidationError::custom(format!("{FACTOR_NOT_POSITIVE} {}", factor as i64)));
            }
        }
        if self.is_valid(instance) {
            Ok(())
        } else {
            Err(jsonschema::ValidationError::custom(format!("should be a multiple of {}", number(&self.factor.into()))))
        }
    }

    fn is_valid(&self, instance: &'i Value) -> bool {
        let Some(n) = instance.as_number() else { return true };
        match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => {
                let factor = self.factor.trunc() as i64;
                factor > 0 && i % factor == 0
            }
            (None, Some(x)) => {
                // kube-openapi divides by a factor of 1 or more, multiplies by the inverse of a
                // smaller one, and then allows a relative error of 1e-9.
                let quotient = if self.factor < 1.0 { 1.0 / self.factor * x } else { x / self.factor };
                is_json_integer(quotient)
            }
            _ => true,
        }
    }
}

/// swag's `IsFloat64AJSONInteger`: within ±(2^53 − 1), and equal to its rounding up to a
/// relative error of 1e-9.
fn is_json_integer(f: f64) -> bool {
    const MAX: f64 = 9_007_199_254_740_991.0;
    if !f.is_finite() || f.abs() > MAX {
        return false;
    }
    let rounded = f.round();
    let diff = (f - rounded).abs();
    if diff == 0.0 {
        return true;
    }
    if rounded == 0.0 {
        return diff < 1e-9 * f64::MIN_POSITIVE;
    }
    diff / (f.abs() + rounded.abs()) < 1e-9
}

fn go_multiple_of<'a>(
    _parent: &'a serde_json::Map<String, Value>,
    value: &'a Value,
    _path: jsonschema::paths::Location,
) -> Result<Box<dyn for<'i> jsonschema::Keyword<'i>>, jsonschema::ValidationError<'a>> {
    Ok(Box::new(GoMultipleOf { factor: value.as_f64().unwrap_or(1.0) }))
}

/// Whether `error` is one kube-openapi does not report: a `null` is checked for its type and
/// enum only, never against `allOf`/`anyOf`/`oneOf`/`not`.
fn not_reported(error: &jsonschema::ValidationError<'_>) -> bool {
    let value = error.instance();
    match error.kind() {
        Kind::AnyOf { .. } | Kind::OneOfNotValid { .. } | Kind::OneOfMultipleValid { .. } | Kind::Not { .. } => {
            value.is_null()
        }
        _ => value.is_null() && error.schema_path().as_str().contains("/allOf/"),
    }
}

/// Validates `object` against the version's `openAPIV3Schema` `root`. Returns whether a type
/// error was found: the API server then skips the CEL rules.
pub(crate) fn validate(object: &Value, root: &Value, report: &mut Report) -> bool {
    validate_named(object, root, super::path::ROOT, report)
}

/// [`validate`], with `root_name` for the value itself in the messages' `<name> in body`: the
/// API server names a `default` checked on its own `""`.
pub(crate) fn validate_named(object: &Value, root: &Value, root_name: &str, report: &mut Report) -> bool {
    let converted = super::openapi::convert(root);
    let validator = match jsonschema::options()
        .with_draft(jsonschema::Draft::Draft4)
        .should_validate_formats(false)
        .with_pattern_options(jsonschema::PatternOptions::regex())
        .with_keyword(super::openapi::GO_PATTERN, go_pattern)
        .with_keyword(super::openapi::GO_MULTIPLE_OF, go_multiple_of)
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
    let errors = Errors { converted: &converted, object, root_name };
    let mut type_error = false;
    // The failed `allOf` branches, by the schema node that holds them and the value's path.
    let mut all_of: Vec<(String, Path, std::collections::BTreeSet<String>)> = Vec::new();
    for error in validator.iter_errors(object).filter(|e| !not_reported(e)) {
        type_error |= matches!(error.kind(), Kind::Type { .. });
        let schema_path = error.schema_path().as_str();
        if let Some((node, rest)) = schema_path.rsplit_once("/allOf/") {
            let branch = rest.split('/').next().unwrap_or_default().to_string();
            let path = Path::from_pointer(object, error.instance_path().as_str());
            match all_of.iter_mut().find(|(n, p, _)| n == node && *p == path) {
                Some((_, _, failed)) => {
                    failed.insert(branch);
                }
                None => all_of.push((node.to_string(), path, [branch].into())),
            }
        }
        for (at, message) in errors.describe(&error) {
            // A missing field has no value to change.
            let fix = if message.starts_with("Required value") { FIX_REQUIRED } else { FIX };
            report.add(RULE, at, message, fix);
        }
    }
    // A failed `allOf` is also said once, at the parent of the value and in its name, and
    // with `. None validated` when every branch failed.
    for (node, path, failed) in all_of {
        let branches = converted.pointer(&format!("{node}/allOf")).and_then(Value::as_array).map_or(0, Vec::len);
        let none = if failed.len() >= branches { ". None validated" } else { "" };
        let parent = path.parent();
        let detail = format!("must validate all the schemas (allOf){none}");
        report.add(RULE, parent.to_string(), junctor(&errors.name(&parent), &detail), FIX);
    }
    super::formats::check(object, root, root_name, report);
    type_error
}

/// What the errors of one validation are about: the converted schema, the object, and the name
/// of the object itself in messages.
struct Errors<'a> {
    converted: &'a Value,
    object: &'a Value,
    root_name: &'a str,
}

impl Errors<'_> {
    /// `error` as the API server's field errors, `(path, message)`: one, or for an `anyOf`
    /// the closest branch's errors and then the summary.
    fn describe(&self, error: &jsonschema::ValidationError<'_>) -> Vec<(String, String)> {
        let path = Path::from_pointer(self.object, error.instance_path().as_str());
        let value = error.instance().as_ref();
        let p = self.name(&path);
        let at = path.to_string();
        let converted = self.converted;
        let mut out = Vec::new();
        let described = match error.kind() {
            Kind::Type { .. } => {
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
                (at, in_body(&p, &actual, &format!("must be of type {expected}: {}", quote(&actual))))
            }
            Kind::Required { property } => {
                let field = path.field(property.as_str().unwrap_or_default()).to_string();
                (field, "Required value".to_string())
            }
            Kind::Enum { options } => (at, unsupported(value, options.as_array().map(Vec::as_slice).unwrap_or(&[]))),
            Kind::Minimum { limit } => {
                (at, in_body(&p, value, &format!("should be greater than or equal to {}", number(limit))))
            }
            Kind::ExclusiveMinimum { limit } => {
                (at, in_body(&p, value, &format!("should be greater than {}", number(limit))))
            }
            Kind::Maximum { limit } => {
                (at, in_body(&p, value, &format!("should be less than or equal to {}", number(limit))))
            }
            Kind::ExclusiveMaximum { limit } => {
                (at, in_body(&p, value, &format!("should be less than {}", number(limit))))
            }
            Kind::MultipleOf { multiple_of } => {
                let m = number(&serde_json::json!(multiple_of));
                (at, in_body(&p, value, &format!("should be a multiple of {m}")))
            }
            Kind::MaxLength { limit } => {
                let noun = if *limit == 1 { "byte" } else { "bytes" };
                (at, format!("Too long: may not be more than {limit} {noun}"))
            }
            Kind::MinLength { limit } => (at, in_body(&p, value, &format!("should be at least {limit} chars long"))),
            Kind::Pattern { pattern } => (at, in_body(&p, value, &format!("should match '{pattern}'"))),
            Kind::Custom { message, .. } if message.starts_with(FACTOR_NOT_POSITIVE) => {
                let factor = message.rsplit(' ').next().unwrap_or("0");
                (at, format!("Invalid value: {factor}: {FACTOR_NOT_POSITIVE} {p} must be positive: {factor}"))
            }
            Kind::Custom { message, .. } => (at, in_body(&p, value, message)),
            Kind::MaxItems { limit } => (at, too_many(value, *limit)),
            Kind::MinItems { limit } => {
                (at, format!("Invalid value: {}: {p} in body should have at least {limit} items", len(value)))
            }
            Kind::MaxProperties { limit } => (at, too_many(value, *limit)),
            Kind::MinProperties { limit } => {
                (at, format!("Invalid value: {}: {p} in body should have at least {limit} properties", len(value)))
            }
            Kind::AnyOf { context } => {
                // kube-openapi adds the errors of the branch that came closest.
                let closest = context.iter().min_by_key(|errors| errors.len());
                for error in closest.into_iter().flatten() {
                    out.extend(self.describe(error));
                }
                // Said at the parent, in the value's own name.
                (path.parent().to_string(), junctor(&p, "must validate at least one schema (anyOf)"))
            }
            Kind::OneOfNotValid { .. } | Kind::OneOfMultipleValid { .. } => {
                (at, junctor(&p, "must validate one and only one schema (oneOf)"))
            }
            // Said at the parent, in the value's own name.
            Kind::Not { .. } => (path.parent().to_string(), junctor(&p, "must not validate the schema (not)")),
            _ => (at, format!("Invalid value: {}: {error}", quote(value))),
        };
        out.push(described);
        out
    }

    /// How kube-openapi names the value at `path` in `<name> in body ...`: the object itself
    /// as `root_name`; a key of a map at the root of a default (whose own name is `""`) with a
    /// leading dot (`.a`), a property without one.
    fn name(&self, path: &Path) -> String {
        if path.is_root() {
            return self.root_name.to_string();
        }
        let shown = path.to_string();
        let first = shown.split(['.', '[']).next().unwrap_or_default();
        let declared = self.converted.get("properties").and_then(|p| p.get(first)).is_some();
        if self.root_name.is_empty() && !declared && !shown.starts_with('[') { format!(".{shown}") } else { shown }
    }
}

/// kube-openapi's words for a failed junctor, which quote the name instead of the value:
/// `Invalid value: "": "spec.x" must validate at least one schema (anyOf)`.
fn junctor(name: &str, detail: &str) -> String {
    format!("Invalid value: \"\": \"{name}\" {detail}")
}

/// `field.TooMany`'s words: `Too many: 3: must have at most 2 items` (`1 item`).
fn too_many(value: &Value, limit: u64) -> String {
    let noun = if limit == 1 { "item" } else { "items" };
    format!("Too many: {}: must have at most {limit} {noun}", len(value))
}

fn len(value: &Value) -> usize {
    match value {
        Value::Array(a) => a.len(),
        Value::Object(m) => m.len(),
        _ => 0,
    }
}
