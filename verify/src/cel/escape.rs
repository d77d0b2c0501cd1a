//! Property names as CEL sees them (k8s.io/apiserver `pkg/cel/escaping.go`, R70).

/// CEL reserved words: a property with one of these names is seen as `__name__`.
pub(crate) const RESERVED: &[&str] = &[
    "true",
    "false",
    "null",
    "in",
    "as",
    "break",
    "const",
    "continue",
    "else",
    "for",
    "function",
    "if",
    "import",
    "let",
    "loop",
    "package",
    "namespace",
    "return",
    "var",
    "void",
    "while",
];

/// A property name as CEL sees it, or `None` if CEL cannot see it: empty names, names that
/// start with a digit and names with characters other than ASCII letters, digits, `_`, `.`,
/// `-` and `/`. A whole reserved word becomes `__word__`; otherwise `__` becomes
/// `__underscores__`, `.` `__dot__`, `-` `__dash__` and `/` `__slash__`.
pub(crate) fn escape(name: &str) -> Option<String> {
    if RESERVED.contains(&name) {
        return Some(format!("__{name}__"));
    }
    let first_ok = name.chars().next().is_some_and(|c| !c.is_ascii_digit());
    if !first_ok || !name.chars().all(|c| c.is_ascii_alphanumeric() || "_.-/".contains(c)) {
        return None;
    }
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    while let Some(c) = rest.chars().next() {
        if let Some(r) = rest.strip_prefix("__") {
            out.push_str("__underscores__");
            rest = r;
            continue;
        }
        match c {
            '.' => out.push_str("__dot__"),
            '-' => out.push_str("__dash__"),
            '/' => out.push_str("__slash__"),
            c => out.push(c),
        }
        rest = &rest[c.len_utf8()..];
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn escaping() {
        // Examples measured on kube-apiserver (cel-cost-and-types.md §3).
        assert_eq!(escape("namespace").as_deref(), Some("__namespace__"));
        assert_eq!(escape("namespace-x").as_deref(), Some("namespace__dash__x"));
        assert_eq!(escape("a___b").as_deref(), Some("a__underscores___b"));
        assert_eq!(escape("a-b/c").as_deref(), Some("a__dash__b__slash__c"));
        assert_eq!(escape("__namespace__").as_deref(), Some("__underscores__namespace__underscores__"));
        assert_eq!(escape("a__dot__b").as_deref(), Some("a__underscores__dot__underscores__b"));
        assert_eq!(escape("self").as_deref(), Some("self"));
        assert_eq!(escape("1a"), None);
        assert_eq!(escape("a:b"), None);
        assert_eq!(escape(""), None);
    }
}
