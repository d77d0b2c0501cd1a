//! Rust names for the JSON names of a CRD schema: snake_case fields and UpperCamelCase types
//! and variants, with serde renames back to the JSON names where the conversion loses them.

use std::collections::BTreeSet;

use heck::{ToLowerCamelCase, ToSnakeCase, ToUpperCamelCase};

/// Strict and reserved keywords of Rust 2024 (the Reference's "Keywords"), which a field may
/// only be named with `r#`; `self`, `Self`, `super` and `crate` cannot be raw and get a `_`.
const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "dyn", "else", "enum", "extern", "false", "fn", "for", "gen",
    "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "static", "struct",
    "trait", "true", "type", "unsafe", "use", "where", "while", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "try", "typeof", "unsized", "virtual", "yield",
];
const NOT_RAW: &[&str] = &["self", "Self", "super", "crate", "_"];

/// The Rust field name of JSON property `json`: snake_case, a keyword escaped with `r#`, a
/// leading digit or an empty result prefixed with `_`. `taken` holds the names already used in
/// the struct; a clash gets a numeric suffix (`name_2`).
pub fn field(json: &str, taken: &mut BTreeSet<String>) -> String {
    // An ASCII identifier (serde's derive and rustc want one); the rename keeps the JSON name.
    let ascii: String =
        deunicode::deunicode(json).chars().map(|c| if c.is_ascii_alphanumeric() { c } else { ' ' }).collect();
    let mut snake = ascii.to_snake_case();
    if snake.is_empty() || snake.starts_with(|c: char| c.is_ascii_digit()) {
        snake = format!("_{snake}");
    }
    let mut name = snake.clone();
    let mut n = 2;
    while taken.contains(&name) {
        name = format!("{snake}_{n}");
        n += 1;
    }
    taken.insert(name.clone());
    if NOT_RAW.contains(&name.as_str()) {
        format!("{name}_")
    } else if KEYWORDS.contains(&name.as_str()) {
        format!("r#{name}")
    } else {
        name
    }
}

/// Whether serde's `rename_all = "camelCase"` turns Rust field `ident` into `json`.
pub fn camel_case_gives(ident: &str, json: &str) -> bool {
    let bare = ident.strip_prefix("r#").unwrap_or(ident);
    !bare.ends_with('_') && !bare.starts_with('_') && bare.to_lower_camel_case() == json
}

/// An UpperCamelCase type name from `parts`, the parent type's name (kept as it is spelled:
/// `HTTPRouteSpec`) and then JSON names (`["HTTPRouteSpec", "parentRefs"]` →
/// `HTTPRouteSpecParentRefs`), unique among `taken`.
pub fn type_name(parts: &[&str], taken: &mut BTreeSet<String>) -> String {
    let ascii = |p: &str| deunicode::deunicode(p).to_upper_camel_case();
    let mut base: String = match parts.split_first() {
        Some((parent, rest)) => std::iter::once(parent.to_string()).chain(rest.iter().map(|p| ascii(p))).collect(),
        None => String::new(),
    };
    base.retain(|c| c.is_ascii_alphanumeric());
    if base.is_empty() || base.starts_with(|c: char| c.is_ascii_digit()) {
        base = format!("T{base}");
    }
    let mut name = base.clone();
    let mut n = 2;
    while taken.contains(&name) {
        name = format!("{base}{n}");
        n += 1;
    }
    taken.insert(name.clone());
    name
}

/// UpperCamelCase variant names for the string values of an enum, or `None` when some value
/// has no name of its own (empty, only punctuation, or two values with one name).
pub fn variants(values: &[&str]) -> Option<Vec<String>> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for value in values {
        let mut name = value.to_upper_camel_case();
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric()) {
            return None;
        }
        if name.starts_with(|c: char| c.is_ascii_digit()) {
            name = format!("V{name}");
        }
        if NOT_RAW.contains(&name.as_str()) || !seen.insert(name.clone()) {
            return None;
        }
        out.push(name);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_snake_case_and_escaped() {
        let mut taken = BTreeSet::new();
        assert_eq!(field("secretName", &mut taken), "secret_name");
        assert_eq!(field("type", &mut taken), "r#type");
        assert_eq!(field("self", &mut taken), "self_");
        assert_eq!(field("3scale", &mut taken), "_3scale");
        assert_eq!(field("secret_name", &mut taken), "secret_name_2");
        assert_eq!(field("$ref", &mut taken), "r#ref");
        assert_eq!(field("ünï", &mut taken), "uni");
    }

    #[test]
    fn camel_case_round_trips_only_where_serde_would() {
        assert!(camel_case_gives("secret_name", "secretName"));
        assert!(camel_case_gives("r#type", "type"));
        assert!(!camel_case_gives("tls_ca", "tlsCA"));
        assert!(!camel_case_gives("self_", "self"));
        assert!(!camel_case_gives("secret_name_2", "secret_name"));
    }

    #[test]
    fn type_names_keep_the_parent_spelling() {
        let mut taken = BTreeSet::new();
        assert_eq!(type_name(&["HTTPRouteSpec", "parentRefs"], &mut taken), "HTTPRouteSpecParentRefs");
        assert_eq!(type_name(&["HTTPRouteSpec", "parent_refs"], &mut taken), "HTTPRouteSpecParentRefs2");
    }

    #[test]
    fn variants_need_a_name_each() {
        assert_eq!(variants(&["Always", "if-not-present", "1.2"]).unwrap(), ["Always", "IfNotPresent", "V12"]);
        assert_eq!(variants(&["", "a"]), None);
        assert_eq!(variants(&["*"]), None);
        assert_eq!(variants(&["TCP", "tcp"]), None);
    }
}
