//! The end of an "unknown key" error: the known key a misspelling is closest to, or, when none
//! is close, every key the place accepts.

use crate::keys::Family;

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

/// `did you mean `k`?` for the closest of `family`'s keys, else `expected one of` and all of
/// them, separated by `", "`.
pub fn expected(key: &str, family: Family) -> String {
    match closest(key, family.keys().iter().copied()) {
        Some(k) => format!("did you mean `{k}`?"),
        None => format!("expected one of {}", family.keys().join(", ")),
    }
}

/// The error for a key on a type's `#[rop(...)]` that is neither a kind-level key nor a schema
/// marker. Both derives report it in the same words at the same place, so a spec deriving both
/// shows it once.
pub fn unknown_type_key(key: &str) -> String {
    match closest(key, crate::keys::on_spec_type()) {
        Some(meant) => format!("unknown key `{key}` in #[rop(...)]: did you mean `{meant}`?"),
        None => format!(
            "unknown key `{key}` in #[rop(...)]: expected one of {} (kind keys of #[derive(CustomResource)]), or a schema marker: {}",
            Family::Kind.keys().join(", "),
            Family::Schema.keys().join(", ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_key_a_misspelling_is_closest_to() {
        let kind = || Family::Kind.keys().iter().copied();
        let schema = || Family::Schema.keys().iter().copied();
        assert_eq!(closest("printcolum", kind()), Some("printcolumn"));
        assert_eq!(closest("shortnames", kind()), Some("shortname"));
        assert_eq!(closest("namespace", kind()), Some("namespaced"));
        assert_eq!(closest("validaton", schema()), Some("validation"));
        assert_eq!(closest("list_typ", schema()), Some("list_type"));
        assert_eq!(closest("foo", kind()), None);
        assert_eq!(closest("x", kind()), None);
        assert_eq!(expected("colour", Family::Related), "expected one of group, version, kind, plural");
    }
}
