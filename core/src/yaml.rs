//! Deterministic YAML for manifests.
//!
//! Objects go through `serde_json::Value` first, whose maps keep keys sorted, so every
//! document has its keys in alphabetical order, as controller-gen writes them, and the same
//! input always gives the same bytes.

use serde::Serialize;

/// One YAML document, starting with `---` as controller-gen's files do.
///
/// # Errors
/// When `value` cannot be represented as JSON (a map with non-string keys).
pub fn document<T: Serialize>(value: &T) -> Result<String, serde_json::Error> {
    let mut json = serde_json::to_value(value)?;
    integral_floats_as_integers(&mut json);
    let body = serde_yaml::to_string(&json).expect("a JSON value is always valid YAML");
    Ok(format!("---\n{}", yaml11_booleans_quoted(&empty_strings_double_quoted(&body))))
}

/// Several documents, one after the other.
///
/// # Errors
/// As [`document`].
pub fn documents<T: Serialize>(values: &[T]) -> Result<String, serde_json::Error> {
    values.iter().map(document).collect()
}

/// `JSONSchemaProps` holds `minimum`, `maximum` and `multipleOf` as `f64`, so `0` would be
/// written `0.0`; controller-gen (Go's JSON encoding) writes integral numbers without a
/// fraction, and so does rop. Same number either way.
fn integral_floats_as_integers(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Number(n) => {
            if let Some(f) = n.as_f64().filter(|f| n.is_f64() && f.fract() == 0.0 && f.abs() < 9.0e15) {
                *value = serde_json::Value::from(f as i64);
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(integral_floats_as_integers),
        serde_json::Value::Object(map) => map.values_mut().for_each(integral_floats_as_integers),
        _ => {}
    }
}

/// serde_yaml writes an empty string as `''`; controller-gen (and kubectl) write `""`, as in
/// the core API group `apiGroups: [""]`. Same value, but byte-identical output is friendlier
/// to diffs against kubebuilder projects.
fn empty_strings_double_quoted(yaml: &str) -> String {
    yaml.lines()
        .map(|line| match line.strip_suffix("''") {
            Some(head) if head.ends_with("- ") || head.ends_with(": ") => format!("{head}\"\""),
            _ => line.to_string(),
        })
        .map(|line| line + "\n")
        .collect()
}

/// The plain scalars YAML 1.1 reads as booleans (`on`, `off`, `yes`, `no`, `y`, `n` in their
/// three casings). serde_yaml writes YAML 1.2, where they are strings, but kubectl and the API
/// server read manifests with go-yaml's YAML 1.1 rules: an enum value `on` would become `true`.
const YAML11_BOOLEANS: &[&str] =
    &["y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF"];

/// Quotes the strings YAML 1.1 would read as booleans, as list items, mapping values and keys,
/// outside block scalars (`|-` descriptions keep their text as it is).
fn yaml11_booleans_quoted(yaml: &str) -> String {
    let quote = |s: &str| if YAML11_BOOLEANS.contains(&s) { format!("'{s}'") } else { s.to_string() };
    let mut out = String::with_capacity(yaml.len());
    let mut block: Option<usize> = None;
    for line in yaml.lines() {
        let indent = line.len() - line.trim_start().len();
        if let Some(outer) = block {
            if line.trim().is_empty() || indent > outer {
                out.push_str(line);
                out.push('\n');
                continue;
            }
            block = None;
        }
        let (lead, mut rest) = line.split_at(indent);
        let mut fixed = String::from(lead);
        while let Some(item) = rest.strip_prefix("- ") {
            fixed.push_str("- ");
            rest = item;
        }
        match rest.split_once(": ") {
            Some((key, value)) => {
                fixed.push_str(&quote(key));
                fixed.push_str(": ");
                fixed.push_str(&quote(value));
            }
            None => match rest.strip_suffix(':') {
                Some(key) => {
                    fixed.push_str(&quote(key));
                    fixed.push(':');
                }
                None => fixed.push_str(&quote(rest)),
            },
        }
        let tail = fixed.trim_end();
        if ["|", "|-", "|+", ">", ">-", ">+"].iter().any(|b| tail.ends_with(&format!(" {b}"))) {
            block = Some(indent);
        }
        out.push_str(&fixed);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn yaml_1_1_booleans_are_quoted_outside_block_scalars() {
        let value = serde_json::json!({
            "enum": ["on", "off", "yes", "y", "online"],
            "on": "no",
            "list": [{"n": "Y"}],
            "description": "Options:\n- on\nno: more",
        });
        let doc = super::document(&value).unwrap();
        assert_eq!(
            doc,
            "---\ndescription: |-\n  Options:\n  - on\n  no: more\nenum:\n- 'on'\n- 'off'\n- 'yes'\n- 'y'\n- online\nlist:\n- 'n': 'Y'\n'on': 'no'\n"
        );
        let back: serde_json::Value = serde_yaml::from_str(&doc).unwrap();
        assert_eq!(back, value);
    }

    #[test]
    fn empty_strings_are_double_quoted() {
        let doc = super::document(&serde_json::json!({"apiGroups": [""], "name": "", "text": "it''s"})).unwrap();
        assert_eq!(doc, "---\napiGroups:\n- \"\"\nname: \"\"\ntext: it''s\n");
    }

    #[test]
    fn integral_floats_are_written_as_integers() {
        let doc = super::document(&serde_json::json!({"minimum": 0.0, "multipleOf": 0.5, "maximum": -2.0})).unwrap();
        assert_eq!(doc, "---\nmaximum: -2\nminimum: 0\nmultipleOf: 0.5\n");
    }
}
