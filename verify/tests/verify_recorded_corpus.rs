//! The recorded corpora: the CEL corpus (`testdata/verify/cel/`) and the defaults corpus
//! (`testdata/verify/defaults/`), CRDs whose verdict and messages were recorded from
//! kube-apiserver 1.37. `rop verify` must reject exactly the `rejected/` files and accept the
//! `accepted/` twins, and for every cause the server gave, report an error at the same field
//! whose message contains the server's (the part after the offending value, first line).
//! `verify/tests/verify_differential.rs` asks the live server the same questions.

mod common;

use std::path::{Path, PathBuf};

use rop_verify::verify_yaml;

/// Rejected files whose causes rop does not give (it may accept the file), and why; each is
/// named in docs/cel.md. A listed file whose causes rop does give fails the test, so the list
/// stays true.
const CAUSES_NOT_GIVEN: &[(&str, &str)] = &[
    ("defaults/rejected/083-runtime.quantity-conversion.yaml", "the quantity library is not evaluated"),
    ("defaults/rejected/084-runtime.url-conversion.yaml", "the url library is not evaluated"),
    ("defaults/rejected/085-runtime.ip-conversion.yaml", "the ip library is not evaluated"),
    ("defaults/rejected/086-runtime.semver-conversion.yaml", "the semver library is not evaluated"),
    ("defaults/rejected/104-embedded.creation-timestamp.yaml", "metadata timestamps are not parsed"),
    ("defaults/rejected/106-embedded.owner-references-two-controllers.yaml", "ownerReferences are not validated"),
    ("defaults/rejected/107-embedded.owner-reference-without-apiversion.yaml", "ownerReferences are not validated"),
    ("defaults/rejected/126-intorstring.anyof-types-float.yaml", "an integer branch's default-format error"),
    (
        "defaults/rejected/146-misc.per-call-cost-limit.yaml",
        "run-time cost is only estimated: a rule over the limit is not run, not reported",
    ),
    (
        "defaults/rejected/147-misc.cost-budget-exhausted.yaml",
        "run-time cost is only estimated: a rule over the limit is not run, not reported",
    ),
    (
        "defaults/rejected/148-misc.cost-budget-shared-by-defaults.yaml",
        "run-time cost is only estimated: a rule over the limit is not run, not reported",
    ),
];

/// Each corpus, with the fewest twin pairs it may hold.
const CORPORA: &[(&str, usize)] = &[("cel", 40), ("defaults", 30)];

fn files(corpus: &str, dir: &str) -> Vec<PathBuf> {
    common::yaml_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/verify").join(corpus).join(dir))
}

/// The server's field path in the verifier's notation (the server validates a schema shared by
/// all versions hoisted to `spec.validation`), and its object type names without the random
/// number it gives them (`selfType253397161.spec`).
fn normalise(text: &str) -> String {
    let text = text.replace("spec.validation.openAPIV3Schema", "spec.versions[0].schema.openAPIV3Schema");
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(at) = rest.find("selfType") {
        out.push_str(&rest[..at + "selfType".len()]);
        rest = rest[at + "selfType".len()..].trim_start_matches(|c: char| c.is_ascii_digit());
    }
    out.push_str(rest);
    out
}

/// A message without its leading `Invalid value: <value>: `, whose value the server prints as
/// Go JSON of the whole rule and rop as the expression; only the first line.
fn detail(message: &str) -> String {
    let first = message.lines().next().unwrap_or("");
    let Some(rest) = first.strip_prefix("Invalid value: ") else { return first.to_string() };
    let mut depth = 0i32;
    let mut in_string = false;
    let mut escaped = false;
    for (i, c) in rest.char_indices() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            if !in_string && depth == 0 {
                return rest[i + 1..].trim_start_matches(": ").to_string();
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return rest[i + 1..].trim_start_matches(": ").to_string();
                }
            }
            ':' if depth == 0 => return rest[i + 1..].trim_start().to_string(),
            _ => {}
        }
    }
    first.to_string()
}

/// `(field, message)` of every `# cause:` line.
fn causes(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|l| l.strip_prefix("# cause: "))
        .map(|l| {
            let (field, message) = l.split_once(": ").expect("# cause: <field>: <message>");
            (normalise(field), normalise(message))
        })
        .collect()
}

/// `(path, message)` of every error `rop verify` reports.
fn errors(text: &str) -> Vec<(String, String)> {
    verify_yaml(text)
        .expect("corpus files are valid YAML")
        .into_iter()
        .filter(|(_, f)| f.is_error())
        .map(|(_, f)| (f.path, f.message))
        .collect()
}

#[test]
fn the_twins_match() {
    for (corpus, fewest) in CORPORA {
        let names = |dir| files(corpus, dir).iter().map(|p| p.file_name().unwrap().to_owned()).collect::<Vec<_>>();
        let (rejected, accepted) = (names("rejected"), names("accepted"));
        assert_eq!(rejected, accepted, "{corpus}: every rejected file has an accepted twin of the same name");
        assert!(rejected.len() >= *fewest, "{corpus}: only {} pairs", rejected.len());
    }
}

#[test]
fn accepted_files_have_no_errors() {
    let mut failures = Vec::new();
    for file in CORPORA.iter().flat_map(|(corpus, _)| files(corpus, "accepted")) {
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.contains("# server: accepted"), "{}", file.display());
        let errors = errors(&text);
        if !errors.is_empty() {
            failures.push(format!("{}:\n  {errors:#?}", file.display()));
        }
    }
    assert!(failures.is_empty(), "{} accepted files have errors:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn rejected_files_have_the_servers_causes() {
    let mut failures = Vec::new();
    for file in CORPORA.iter().flat_map(|(corpus, _)| files(corpus, "rejected")) {
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.contains("# server: rejected"), "{}", file.display());
        let expected = causes(&text);
        assert!(!expected.is_empty(), "{} has no # cause: line", file.display());
        let got = errors(&text);
        let got_details: Vec<(String, String)> = got.iter().map(|(p, m)| (p.clone(), normalise(&detail(m)))).collect();
        let missing: Vec<&(String, String)> = expected
            .iter()
            .filter(|(field, message)| {
                let want = detail(message);
                !got_details.iter().any(|(p, m)| p == field && m.contains(&want))
            })
            .collect();
        let listed = CAUSES_NOT_GIVEN.iter().any(|(name, _)| file.ends_with(name));
        match (missing.is_empty(), listed) {
            (false, false) => {
                failures.push(format!("{}:\n  missing {missing:#?}\n  got {got_details:#?}", file.display()))
            }
            (true, true) => failures
                .push(format!("{}: gives the server's causes now; take it off CAUSES_NOT_GIVEN", file.display())),
            _ => {}
        }
    }
    assert!(failures.is_empty(), "{} rejected files differ:\n{}", failures.len(), failures.join("\n"));
}
