//! The end of an "unknown key" error: the known key a misspelling is closest to, or, when none
//! is close, every key the place accepts.

/// How similar (Jaro-Winkler, 0 to 1) a misspelling must be to a known key to be named as the
/// one meant: high enough that `printcolum` finds `printcolumn` and `validaton` finds
/// `validation`, but `foo` finds nothing.
const SIMILAR: f64 = 0.85;

/// The known key closest to `key`, when one is close enough to be a misspelling of it.
pub fn closest<'a>(key: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    known
        .into_iter()
        .map(|k| (strsim::jaro_winkler(key, k), k))
        .filter(|(score, _)| *score >= SIMILAR)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, k)| k)
}

/// `did you mean `k`?` for the closest known key, else `expected one of {known}` (a `", "`-
/// separated list).
pub fn expected(key: &str, known: &str) -> String {
    match closest(key, known.split(", ")) {
        Some(k) => format!("did you mean `{k}`?"),
        None => format!("expected one of {known}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_key_a_misspelling_is_closest_to() {
        let kind = || crate::attrs::KEYS.split(", ");
        let schema = || crate::schema_attrs::KEYS.split(", ");
        assert_eq!(closest("printcolum", kind()), Some("printcolumn"));
        assert_eq!(closest("shortnames", kind()), Some("shortname"));
        assert_eq!(closest("namespace", kind()), Some("namespaced"));
        assert_eq!(closest("validaton", schema()), Some("validation"));
        assert_eq!(closest("list_typ", schema()), Some("list_type"));
        assert_eq!(closest("foo", kind()), None);
        assert_eq!(closest("x", kind()), None);
        assert_eq!(expected("colour", "name, type_"), "expected one of name, type_");
    }
}
