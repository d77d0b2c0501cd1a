//! Names a user types on the command line, checked before anything is planned.
//!
//! Rules: project names are DNS-1123 labels (they prefix Kubernetes object names); groups are
//! DNS-1123 subdomains and, joined with the domain, form the API group; versions and plurals
//! are DNS-1035 labels; kinds are UpperCamelCase (Kubernetes API conventions). The formats
//! themselves are `rop::names`' (apimachinery's), shared with the derive and `rop verify`; this
//! module adds what a user typed wrong and what to type instead.

use heck::{ToSnakeCase, ToUpperCamelCase};

/// Why a name was refused: what is wrong and what to write instead, in one line.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{0}")]
pub struct NameError(pub String);

/// A DNS-1123 label: the same check `rop verify` applies to CRD names.
fn dns_label(s: &str) -> bool {
    rop::names::is_dns1123_label(s)
}

/// Checks a project name (DNS-1123 label: lower-case letters, digits, '-', at most 63).
pub fn check_project_name(name: &str) -> Result<(), NameError> {
    if dns_label(name) && name.starts_with(|c: char| c.is_ascii_digit()) {
        Err(NameError(format!(
            "project name \"{name}\" starts with a digit, which Cargo refuses in package names: use --project-name op-{name}"
        )))
    } else if ["rop", "rop-macros", "rop-cli"].contains(&name) {
        Err(NameError(format!(
            "project name \"{name}\" is the name of a rop crate the project depends on: use --project-name {name}-operator"
        )))
    } else if let Some(clash) = crate_name_clash(name) {
        Err(NameError(format!(
            "project name \"{name}\" becomes the Rust crate `{crate_name}`, {clash}, so `use {crate_name}::...` in the project would not compile: use --project-name {name}-operator",
            crate_name = name.replace('-', "_")
        )))
    } else if dns_label(name) {
        Ok(())
    } else {
        let fix = match project_name_like(name) {
            Some(suggestion) => format!("use --project-name {suggestion}"),
            None => "choose one with --project-name, e.g. --project-name my-operator".to_string(),
        };
        Err(NameError(format!(
            "project name \"{name}\" is not a DNS-1123 label (lower-case letters, digits and '-', at most 63 characters): {fix}"
        )))
    }
}

/// Why the crate a project named `name` becomes cannot be named in paths: a Rust keyword
/// (strict or reserved: `gen`, `try`, `async`) or a crate every Rust program sees already.
fn crate_name_clash(name: &str) -> Option<&'static str> {
    let crate_name = name.replace('-', "_");
    if RUST_KEYWORDS.contains(&crate_name.as_str()) {
        Some("a Rust keyword")
    } else if ["std", "core", "alloc", "proc_macro", "test"].contains(&crate_name.as_str()) {
        Some("the name of a crate of the standard library")
    } else {
        None
    }
}

/// A valid project name close to `name`: letters with accents written in ASCII (`ünï` →
/// `uni`), words joined by '-', at most 63 characters; `None` when nothing of `name` is left.
fn project_name_like(name: &str) -> Option<String> {
    let ascii = deunicode::deunicode(name).to_snake_case();
    let mut out = String::new();
    for c in ascii.chars() {
        let c = if c.is_ascii_lowercase() || c.is_ascii_digit() { c } else { '-' };
        if !(c == '-' && (out.is_empty() || out.ends_with('-'))) {
            out.push(c);
        }
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert_str(0, "op-");
    }
    out.truncate(63);
    let out = out.trim_end_matches('-').to_string();
    let valid = dns_label(&out)
        && !["rop", "rop-macros", "rop-cli"].contains(&out.as_str())
        && crate_name_clash(&out).is_none();
    (valid && out != name).then_some(out)
}

/// Checks a domain (DNS-1123 subdomain), e.g. `example.com`.
pub fn check_domain(domain: &str) -> Result<(), NameError> {
    if rop::names::is_dns1123_subdomain(domain) {
        Ok(())
    } else {
        Err(NameError(format!(
            "domain \"{domain}\" is not a DNS-1123 subdomain (lower-case labels separated by '.'), e.g. --domain example.com"
        )))
    }
}

/// Checks a group (the part before the domain), e.g. `cache`.
pub fn check_group(group: &str, domain: &str) -> Result<(), NameError> {
    if !rop::names::is_dns1123_subdomain(group) {
        return Err(NameError(format!(
            "group \"{group}\" is not a DNS-1123 subdomain (lower-case letters, digits, '-' and '.'), e.g. --group cache"
        )));
    }
    if !domain.is_empty() && (group == domain || group.ends_with(&format!(".{domain}"))) {
        let short = group.strip_suffix(domain).unwrap_or(group).trim_end_matches('.');
        let hint = if short.is_empty() { "a group name".to_string() } else { format!("--group {short}") };
        return Err(NameError(format!(
            "group \"{group}\" repeats the project domain \"{domain}\", which rop appends itself: use {hint}"
        )));
    }
    Ok(())
}

/// Checks a version (DNS-1035 label), e.g. `v1alpha1`.
pub fn check_version(version: &str) -> Result<(), NameError> {
    if rop::names::is_dns1035_label(version) {
        Ok(())
    } else {
        let lower = version.to_lowercase();
        let hint = if lower != version && rop::names::is_dns1035_label(&lower) {
            format!(": use --version {lower}")
        } else {
            ", e.g. --version v1alpha1".to_string()
        };
        Err(NameError(format!(
            "version \"{version}\" is not a DNS-1035 label (a lower-case letter, then letters, digits, '-'){hint}"
        )))
    }
}

/// A warning when `version` is valid but not of the Kubernetes form `v<N>`, `v<N>alpha<M>` or
/// `v<N>beta<M>`, which is what the API server sorts by priority (kube-aggregator's version
/// ordering); other names sort last, alphabetically.
pub fn version_warning(version: &str) -> Option<String> {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) && !s.starts_with('0');
    let ok = version.strip_prefix('v').is_some_and(|rest| {
        let (major, pre) = match rest.find(|c: char| !c.is_ascii_digit()) {
            None => (rest, None),
            Some(i) => (&rest[..i], Some(&rest[i..])),
        };
        digits(major)
            && pre.is_none_or(|p| p.strip_prefix("alpha").or_else(|| p.strip_prefix("beta")).is_some_and(digits))
    });
    (!ok).then(|| {
        format!(
            "version \"{version}\" is not of the form v1, v1alpha1 or v2beta3: the API server will sort it after every such version"
        )
    })
}

/// Checks a kind (UpperCamelCase ASCII letters and digits), e.g. `Memcached`.
pub fn check_kind(kind: &str) -> Result<(), NameError> {
    let camel = kind.starts_with(|c: char| c.is_ascii_uppercase()) && kind.chars().all(|c| c.is_ascii_alphanumeric());
    if !camel {
        let suggestion = kind.to_upper_camel_case();
        let hint = if suggestion.starts_with(|c: char| c.is_ascii_uppercase()) {
            format!(": use --kind {suggestion}")
        } else {
            ": start it with an upper-case letter, e.g. --kind Memcached".to_string()
        };
        return Err(NameError(format!("kind \"{kind}\" is not UpperCamelCase (letters and digits){hint}")));
    }
    const RESERVED: [&str; 4] = ["List", "Status", "Spec", "Object"];
    if RESERVED.contains(&kind) || kind.ends_with("List") {
        return Err(NameError(format!(
            "kind \"{kind}\" is reserved or ends in \"List\", which Kubernetes uses for list types: choose another kind"
        )));
    }
    if SCAFFOLD_NAMES.contains(&kind) {
        return Err(NameError(format!(
            "kind \"{kind}\" is a name the generated Rust code already uses (from kube, serde or the manager): choose another kind, e.g. {kind}Set"
        )));
    }
    if PRELUDE_NAMES.contains(&kind) {
        return Err(NameError(format!(
            "kind \"{kind}\" is a name of Rust's prelude or of a type the kind's fields use, which the kind's own type would shadow: choose another kind, e.g. {kind}Set"
        )));
    }
    let module = kind.to_snake_case();
    if RUST_KEYWORDS.contains(&module.as_str()) {
        return Err(NameError(format!(
            "kind \"{kind}\" becomes the Rust module `{module}`, a keyword: choose another kind, e.g. {kind}Set"
        )));
    }
    Ok(())
}

/// Names the generated Rust code imports next to the kind's types; a kind of the same name
/// would not compile.
const SCAFFOLD_NAMES: [&str; 24] = [
    "Action",
    "Api",
    "Arc",
    "BoxFuture",
    "CancellationToken",
    "Client",
    "Condition",
    "Context",
    "Controller",
    "CustomResource",
    "Deserialize",
    "Duration",
    "Error",
    "Event",
    "JsonSchema",
    "Metrics",
    "Patch",
    "PatchParams",
    "PostParams",
    "ResourceExt",
    "Serialize",
    "StreamExt",
    "Time",
    "Timestamp",
];

/// Types of Rust's prelude and the types fields are written with (`rop import crd` writes
/// `BTreeMap`, `Value` and `IntOrString`): a kind of the same name shadows them in its module.
const PRELUDE_NAMES: [&str; 21] = [
    "BTreeMap",
    "Box",
    "Clone",
    "Copy",
    "Debug",
    "Default",
    "Eq",
    "Err",
    "From",
    "IntOrString",
    "Into",
    "Iterator",
    "None",
    "Ok",
    "Option",
    "PartialEq",
    "Result",
    "Some",
    "String",
    "Value",
    "Vec",
];

/// Rust keywords (strict and reserved, 2024 edition): a kind whose snake_case form is one
/// cannot name its module.
const RUST_KEYWORDS: [&str; 51] = [
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern", "false", "fn",
    "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "self", "static",
    "struct", "super", "trait", "true", "type", "unsafe", "use", "where", "while", "abstract", "become", "box", "do",
    "final", "gen", "macro", "override", "priv", "try", "typeof", "unsized", "virtual", "yield",
];

/// Checks a plural (lower-case DNS-1035 label), e.g. `memcacheds`.
pub fn check_plural(plural: &str) -> Result<(), NameError> {
    if rop::names::is_dns1035_label(plural) {
        Ok(())
    } else {
        Err(NameError(format!(
            "plural \"{plural}\" must be lower-case letters, digits and '-', starting with a letter, e.g. --plural memcacheds"
        )))
    }
}

/// The plural of a lower-cased kind, the one the derive gives a kind without `plural = "..."`
/// (`rop::names::plural`: kubebuilder's rules for the common cases). Pass `--plural` for
/// anything else.
pub fn pluralize(singular: &str) -> String {
    rop::names::plural(singular)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn group_with_domain_is_refused() {
        assert_eq!(
            check_group("cache.example.com", "example.com").unwrap_err().0,
            "group \"cache.example.com\" repeats the project domain \"example.com\", which rop appends itself: use --group cache"
        );
        assert!(check_group("cache", "example.com").is_ok());
    }

    #[test]
    fn version_forms() {
        for v in ["v1", "v1alpha1", "v2beta3", "v10"] {
            assert_eq!(version_warning(v), None, "{v}");
        }
        for v in ["v1foo", "v0", "v1alpha", "stable", "v1beta01"] {
            assert!(version_warning(v).is_some(), "{v}");
        }
    }

    #[test]
    fn kinds() {
        assert!(check_kind("Memcached").is_ok());
        assert_eq!(
            check_kind("memcached").unwrap_err().0,
            "kind \"memcached\" is not UpperCamelCase (letters and digits): use --kind Memcached"
        );
        assert!(check_kind("FooList").is_err());
    }

    mod properties {
        use proptest::prelude::*;

        use super::super::*;

        proptest! {
            /// Every accepted project name is a DNS-1123 label, and every refusal suggests one
            /// that is accepted whenever the input has any letter or digit.
            #[test]
            fn project_names(name in "[a-zA-Z0-9_ -]{0,70}") {
                let dns = !name.is_empty() && name.len() <= 63
                    && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
                    && !name.starts_with('-') && !name.ends_with('-');
                let digit = name.starts_with(|c: char| c.is_ascii_digit());
                let ours = ["rop", "rop-macros", "rop-cli"].contains(&name.as_str());
                let clash = RUST_KEYWORDS.contains(&name.as_str()) || ["std", "core", "alloc", "test"].contains(&name.as_str());
                prop_assert_eq!(check_project_name(&name).is_ok(), dns && !digit && !ours && !clash);
            }

            /// Plurals of valid lower-case names are valid plurals, differ from the singular
            /// (except for uncountable words) and are stable.
            #[test]
            fn plurals(singular in "[a-z][a-z0-9]{0,30}") {
                let plural = pluralize(&singular);
                prop_assert!(check_plural(&plural).is_ok(), "{}", plural);
                prop_assert!(plural.len() >= singular.len());
                prop_assert_eq!(pluralize(&singular), plural);
            }

            /// A kind is accepted exactly when it is UpperCamelCase ASCII and not a list name.
            #[test]
            fn kinds(kind in "[A-Za-z0-9_]{0,20}") {
                let camel = kind.starts_with(|c: char| c.is_ascii_uppercase())
                    && kind.chars().all(|c| c.is_ascii_alphanumeric());
                let reserved = ["List", "Status", "Spec", "Object"].contains(&kind.as_str()) || kind.ends_with("List");
                let clash = SCAFFOLD_NAMES.contains(&kind.as_str())
                    || PRELUDE_NAMES.contains(&kind.as_str())
                    || RUST_KEYWORDS.contains(&kind.to_snake_case().as_str());
                prop_assert_eq!(check_kind(&kind).is_ok(), camel && !reserved && !clash);
            }

            /// Versions: accepted exactly when a DNS-1035 label.
            #[test]
            fn versions(version in "[a-zA-Z0-9_-]{0,12}") {
                let ok = version.starts_with(|c: char| c.is_ascii_lowercase())
                    && version.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
                    && !version.ends_with('-');
                prop_assert_eq!(check_version(&version).is_ok(), ok);
            }
        }
    }
}
