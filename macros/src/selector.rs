//! Label selectors written as `kubectl get -l` takes them: `env=prod,tier in (a,b),!legacy`.
//!
//! The grammar is the API server's (`k8s.io/apimachinery/pkg/labels` `Parse`): requirements
//! separated by commas; each is `key=value`, `key==value`, `key!=value`, `key in (v1,v2)`,
//! `key notin (v1,v2)`, `key` (exists) or `!key` (does not exist). A `LabelSelector` object
//! cannot say `!=`: it becomes `NotIn` with one value, as the API server converts it.

use syn::LitStr;

/// A parsed selector: `matchLabels` pairs and `matchExpressions` (key, operator, values).
#[derive(Default)]
pub struct Selector {
    pub match_labels: Vec<(String, String)>,
    pub match_expressions: Vec<(String, &'static str, Vec<String>)>,
}

/// Parses the selector in `lit`.
///
/// # Errors
/// A requirement that is none of the forms above, or a key or value that is not a valid label
/// key or value; the message quotes it.
pub fn parse(lit: &LitStr) -> syn::Result<Selector> {
    let text = lit.value();
    let err = |what: String| syn::Error::new(lit.span(), format!("label selector \"{text}\": {what}"));
    let mut selector = Selector::default();
    for requirement in split_top_level(&text) {
        let r = requirement.trim();
        if r.is_empty() {
            return Err(err("empty requirement (two commas, or a trailing comma)".into()));
        }
        if let Some((key, values)) = set_requirement(r, " notin ") {
            selector.match_expressions.push((key, "NotIn", values.map_err(err)?));
        } else if let Some((key, values)) = set_requirement(r, " in ") {
            selector.match_expressions.push((key, "In", values.map_err(err)?));
        } else if let Some((key, value)) = r.split_once("!=") {
            selector.match_expressions.push((key.trim().into(), "NotIn", vec![value.trim().into()]));
        } else if let Some((key, value)) = r.split_once("==").or_else(|| r.split_once('=')) {
            selector.match_labels.push((key.trim().into(), value.trim().into()));
        } else if let Some(key) = r.strip_prefix('!') {
            selector.match_expressions.push((key.trim().into(), "DoesNotExist", vec![]));
        } else {
            selector.match_expressions.push((r.into(), "Exists", vec![]));
        }
    }
    let keys = selector.match_labels.iter().map(|(k, _)| k).chain(selector.match_expressions.iter().map(|(k, _, _)| k));
    for key in keys {
        if !label_key(key) {
            return Err(err(format!(
                "\"{key}\" is not a label key ([prefix/]name, name up to 63 letters, digits, '-', '_', '.')"
            )));
        }
    }
    let values = selector
        .match_labels
        .iter()
        .map(|(_, v)| v)
        .chain(selector.match_expressions.iter().flat_map(|(_, _, vs)| vs.iter()));
    for value in values {
        if !label_value(value) {
            return Err(err(format!(
                "\"{value}\" is not a label value (up to 63 letters, digits, '-', '_', '.', starting and ending alphanumeric)"
            )));
        }
    }
    Ok(selector)
}

/// Splits at commas outside parentheses.
fn split_top_level(text: &str) -> Vec<&str> {
    let (mut parts, mut depth, mut start) = (Vec::new(), 0, 0);
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

/// `key <op> (a, b)`: the key and the values, or `None` when `r` has no ` <op> `.
fn set_requirement(r: &str, op: &str) -> Option<(String, Result<Vec<String>, String>)> {
    let (key, rest) = r.split_once(op)?;
    let values = rest
        .trim()
        .strip_prefix('(')
        .and_then(|v| v.strip_suffix(')'))
        .map(|v| v.split(',').map(|s| s.trim().to_string()).collect::<Vec<_>>())
        .filter(|vs| vs.iter().all(|v| !v.is_empty()))
        .ok_or_else(|| format!("\"{}\" needs its values in parentheses, as in `tier{op}(a, b)`", r.trim()));
    Some((key.trim().into(), values))
}

/// A label key is a qualified name: `[prefix/]name` (apimachinery's `IsQualifiedName`).
fn label_key(key: &str) -> bool {
    rop_names::is_qualified_name(key)
}

/// A label value is empty or a qualified name without a prefix (apimachinery's
/// `IsValidLabelValue`: the same 63-character name format).
fn label_value(value: &str) -> bool {
    value.is_empty() || (!value.contains('/') && rop_names::is_qualified_name(value))
}
