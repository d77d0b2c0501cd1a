//! The verifier corpus: every `testdata/verify/invalid/NN-<rule>.yaml` yields exactly the
//! findings its `# expect: <severity> <rule> <path>` header lines name, and its twin in
//! `testdata/verify/valid/` (the same CRD with the fix applied) yields no finding at all.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use rop_verify::{RULES, verify_yaml};

fn corpus(dir: &str) -> Vec<PathBuf> {
    common::yaml_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/verify").join(dir))
}

/// `(severity, rule, path)` of every finding, sorted.
fn findings(text: &str) -> Vec<(String, String, String)> {
    let mut out: Vec<_> = verify_yaml(text)
        .expect("corpus files are valid YAML")
        .into_iter()
        .map(|(_, f)| (f.severity.to_string(), f.rule.to_string(), f.path))
        .collect();
    out.sort();
    out
}

fn expectations(text: &str) -> Vec<(String, String, String)> {
    let mut out: Vec<_> = text
        .lines()
        .filter_map(|l| l.strip_prefix("# expect: "))
        .map(|l| {
            let mut parts = l.splitn(3, ' ');
            let severity = parts.next().unwrap().to_string();
            let rule = parts.next().unwrap().to_string();
            let path = parts.next().unwrap().to_string();
            (severity, rule, path)
        })
        .collect();
    out.sort();
    out
}

/// The rule id a corpus file is named after: `042-structural.missing-type.yaml`.
fn named_rule(path: &Path) -> String {
    let stem = path.file_stem().unwrap().to_str().unwrap();
    stem.split_once('-').unwrap().1.to_string()
}

#[test]
fn invalid_files_yield_exactly_their_expectations() {
    let files = corpus("invalid");
    assert!(files.len() >= 60, "only {} corpus files", files.len());
    let mut failures = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let expected = expectations(&text);
        assert!(!expected.is_empty(), "{} has no # expect: line", file.display());
        let rule = named_rule(file);
        assert!(expected.iter().any(|(_, r, _)| *r == rule), "{}: no expectation names {rule}", file.display());
        let got = findings(&text);
        if got != expected {
            failures.push(format!("{}:\n  expected {expected:?}\n  got      {got:?}", file.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn valid_twins_yield_nothing() {
    let invalid: Vec<_> = corpus("invalid").iter().map(|p| p.file_name().unwrap().to_owned()).collect();
    let valid: Vec<_> = corpus("valid").iter().map(|p| p.file_name().unwrap().to_owned()).collect();
    assert_eq!(invalid, valid, "every invalid file has a valid twin of the same name");
    let mut failures = Vec::new();
    for file in corpus("valid") {
        let got = findings(&std::fs::read_to_string(&file).unwrap());
        if !got.is_empty() {
            failures.push(format!("{}: {got:?}", file.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_rule_has_a_corpus_pair() {
    let covered: BTreeSet<String> = corpus("invalid").iter().map(|p| named_rule(p)).collect();
    // A YAML document is only verified when it is a CRD mapping, so this one is reachable
    // through verify_crd alone (see verify_api.rs).
    let exempt = ["document.not-object"];
    let missing: Vec<&str> =
        RULES.iter().map(|r| r.id).filter(|id| !covered.contains(*id) && !exempt.contains(id)).collect();
    assert!(missing.is_empty(), "rules without a corpus pair: {missing:?}");
    let unknown: Vec<&String> = covered.iter().filter(|c| !RULES.iter().any(|r| r.id == c.as_str())).collect();
    assert!(unknown.is_empty(), "corpus files named after unknown rules: {unknown:?}");
}
