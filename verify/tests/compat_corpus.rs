//! The compatibility corpus (`testdata/verify/compat`, written by its `generate.py`): every case
//! is a new revision of `old.yaml`. What rop reports for each is recorded in `expected/`
//! (`ROP_BLESS=1` rewrites it); a case named after a rule breaks by that rule, its `.safe`
//! twin has no error; and crdify, where it has a rule, reports the same rule at the same path.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use rop_verify::compat::{CompatOptions, compare_crds};
use rop_verify::{COMPAT_RULES, Finding, Severity};
use serde_json::Value;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/verify/compat")
}

fn read(path: &Path) -> Value {
    serde_yaml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// `(case name, path)` of every case, sorted.
fn cases() -> Vec<(String, PathBuf)> {
    let mut cases: Vec<(String, PathBuf)> = std::fs::read_dir(corpus().join("cases"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| (p.file_stem().unwrap().to_string_lossy().into_owned(), p))
        .collect();
    cases.sort();
    cases
}

fn findings(case: &Path) -> Vec<Finding> {
    compare_crds(&read(&corpus().join("old.yaml")), &read(case), &CompatOptions::default())
}

#[test]
fn every_case_reports_what_was_recorded() {
    let bless = std::env::var_os("ROP_BLESS").is_some();
    let expected_dir = corpus().join("expected");
    let mut mismatched = Vec::new();
    for (name, path) in cases() {
        let got: String = findings(&path).iter().map(|f| format!("{f}\n")).collect();
        let file = expected_dir.join(format!("{name}.txt"));
        if bless {
            std::fs::create_dir_all(&expected_dir).unwrap();
            std::fs::write(&file, &got).unwrap();
        } else if std::fs::read_to_string(&file).unwrap_or_default() != got {
            mismatched.push(format!("{name}:\n{got}"));
        }
    }
    assert!(mismatched.is_empty(), "differs from expected/ (ROP_BLESS=1 to record):\n{}", mismatched.join("\n"));
}

/// Rules about whole files rather than one CRD: `cli/tests/verify_against.rs` checks them.
const CHECKED_ELSEWHERE: &[&str] = &["compat.crd-removed"];

#[test]
fn each_rule_has_a_breaking_case_and_a_safe_twin() {
    let all = cases();
    for rule in COMPAT_RULES.iter().filter(|r| !CHECKED_ELSEWHERE.contains(&r.id)) {
        let stem = rule.id.strip_prefix("compat.").unwrap();
        let breaking: Vec<_> = all
            .iter()
            .filter(|(n, _)| n == stem || (n.starts_with(&format!("{stem}.")) && !n.contains(".safe")))
            .collect();
        assert!(!breaking.is_empty(), "no case for {}", rule.id);
        for (name, path) in breaking {
            let found = findings(path);
            assert!(
                found.iter().any(|f| f.rule == rule.rule && f.severity == rule.severity),
                "{name}: expected a {} {}, got {found:#?}",
                rule.severity,
                rule.id
            );
        }
        assert!(all.iter().any(|(n, _)| *n == format!("{stem}.safe")), "no safe twin for {}", rule.id);
        for (name, path) in all.iter().filter(|(n, _)| n.starts_with(&format!("{stem}.safe"))) {
            let errors: Vec<_> = findings(path).into_iter().filter(Finding::is_error).collect();
            assert!(errors.is_empty(), "{name}: {errors:#?}");
        }
    }
}

#[test]
fn identical_revisions_have_no_findings() {
    let old = read(&corpus().join("old.yaml"));
    assert_eq!(compare_crds(&old, &old, &CompatOptions::default()), vec![]);
}

#[test]
fn alpha_versions_may_break_when_allowed() {
    let old = read(&corpus().join("old.yaml"));
    let mut new = old.clone();
    new["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
        .as_object_mut()
        .unwrap()
        .remove("name");
    let strict = compare_crds(&old, &new, &CompatOptions::default());
    let lenient = compare_crds(&old, &new, &CompatOptions { alpha_may_break: true });
    let path = "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[name]";
    let shape =
        |f: &[Finding]| f.iter().map(|f| (f.severity, f.rule.id(), f.path.clone(), f.version)).collect::<Vec<_>>();
    assert_eq!(shape(&strict), vec![(Severity::Error, "compat.field-removed", path.to_string(), Some(0))]);
    assert_eq!(shape(&lenient), vec![(Severity::Warning, "compat.field-removed", path.to_string(), Some(0))]);
}

/// crdify's binary: `ROP_CRDIFY`, else `crdify` in `ROP_TESTENV_DIR` or
/// `~/.cache/rop-testenv/bin` (where scripts/install-crdify.sh puts it), else on PATH;
/// `None` (the test says it skips) when there is none, unless `ROP_TESTENV_REQUIRE=1` (CI),
/// where a missing oracle fails the test.
fn crdify() -> Option<PathBuf> {
    let found = find_crdify();
    if found.is_none() && std::env::var("ROP_TESTENV_REQUIRE").as_deref() == Ok("1") {
        panic!("crdify not found and ROP_TESTENV_REQUIRE=1: run scripts/install-crdify.sh");
    }
    found
}

fn find_crdify() -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("ROP_CRDIFY").map(PathBuf::from),
        std::env::var_os("ROP_TESTENV_DIR").map(|d| PathBuf::from(d).join("crdify")),
        std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/rop-testenv/bin/crdify")),
        std::env::var_os("PATH")
            .and_then(|p| std::env::split_paths(&p).map(|d| d.join("crdify")).find(|c| c.is_file())),
    ];
    candidates.into_iter().flatten().find(|c| c.is_file())
}

/// One reported incompatibility in crdify's terms: `(validation, version, property)`, the
/// property in crdify's notation (`^.spec.size`); CRD-wide ones have empty version and property.
type Report = BTreeSet<(String, String, String)>;

/// crdify's name for a rop rule it also has.
fn crdify_name(rule: &str) -> Option<&'static str> {
    Some(match rule {
        "compat.scope" => "scope",
        "compat.stored-version-removed" => "storedVersionRemoval",
        "compat.field-removed" => "existingFieldRemoval",
        "compat.type" => "type",
        "compat.required" => "required",
        "compat.default" => "default",
        "compat.enum" => "enum",
        "compat.minimum" => "minimum",
        "compat.maximum" => "maximum",
        "compat.min-length" => "minLength",
        "compat.max-length" => "maxLength",
        "compat.min-items" => "minItems",
        "compat.max-items" => "maxItems",
        "compat.min-properties" => "minProperties",
        "compat.max-properties" => "maxProperties",
        "compat.pattern" => "pattern",
        "compat.nullable" => "nullable",
        _ => return None,
    })
}

/// `spec.versions[2].schema.openAPIV3Schema.properties[spec].properties[size]` as crdify
/// writes it: `^.spec.size`.
fn crdify_property(path: &str) -> String {
    let rest = path.split_once(".schema.openAPIV3Schema").map_or("", |(_, r)| r);
    let mut out = String::from("^");
    for step in rest.split('.').filter(|s| !s.is_empty()) {
        let step = step.strip_prefix("properties[").and_then(|s| s.strip_suffix(']')).unwrap_or(step);
        out.push('.');
        out.push_str(step);
    }
    out
}

/// rop's findings in crdify's terms; those of rules crdify has no name for (formats, CEL rules,
/// list types, `exclusiveMaximum`…) are named `unhandled`, as crdify's catch-all reports them.
fn rop_report(case: &Path) -> Report {
    let new = read(case);
    findings(case)
        .iter()
        .filter_map(|f| {
            let schema_path = f.path.contains(".schema.openAPIV3Schema");
            let name = match crdify_name(f.rule.id()) {
                Some(_) if f.message.starts_with("exclusive") || f.message.starts_with("x-kubernetes-") => "unhandled",
                Some(name) => name,
                None if schema_path => "unhandled",
                None => return None,
            };
            if f.version.is_none() || name == "storedVersionRemoval" {
                return Some((name.to_string(), String::new(), String::new()));
            }
            let version = new["spec"]["versions"][f.version.unwrap()]["name"].as_str().unwrap().to_string();
            let property = crdify_property(f.path.split(".x-kubernetes-validations[").next().unwrap());
            Some((name.to_string(), version, property))
        })
        .collect()
}

/// crdify's findings, without what it reports and rop deliberately does not (docs/compat.md,
/// "Beside crdify"): description changes, the per-keyword noise under a removed field,
/// comparisons between served versions, and loosening it flags by default (a pattern removed).
fn crdify_report(binary: &Path, case: &Path) -> Report {
    crdify_pair(binary, &corpus().join("old.yaml"), case)
}

fn crdify_pair(binary: &Path, old: &Path, case: &Path) -> Report {
    let output = Command::new(binary)
        .arg(format!("file://{}", old.display()))
        .arg(format!("file://{}", case.display()))
        .args(["-o", "json"])
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!("crdify output for {}: {e}: {}", case.display(), String::from_utf8_lossy(&output.stdout))
    });
    let mut report = Report::new();
    let mut removed = Vec::new();
    let issues = |c: &Value| {
        c["errors"].as_array().is_some_and(|a| !a.is_empty()) || c["warnings"].as_array().is_some_and(|a| !a.is_empty())
    };
    for c in json["crdValidation"].as_array().into_iter().flatten().filter(|c| issues(c)) {
        let name = c["name"].as_str().unwrap();
        if name == "existingFieldRemoval" {
            let mut fields: Vec<(String, String)> = c["errors"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e.as_str().unwrap().rsplit(" : ").next().unwrap().split_once('.').unwrap())
                .map(|(v, p)| (v.to_string(), p.to_string()))
                .collect();
            fields.sort();
            // rop reports a removed subtree once, at its top.
            for (version, property) in &fields {
                let below_another = fields.iter().any(|(v, p)| v == version && property.starts_with(&format!("{p}.")));
                if !below_another {
                    report.insert((name.to_string(), version.clone(), property.clone()));
                }
                removed.push(property.clone());
            }
        } else {
            report.insert((name.to_string(), String::new(), String::new()));
        }
    }
    for v in json["sameVersionValidation"].as_array().into_iter().flatten() {
        for p in v["propertyComparisons"].as_array().into_iter().flatten() {
            let property = p["property"].as_str().unwrap();
            if removed.iter().any(|r| property == r || property.starts_with(&format!("{r}."))) {
                continue;
            }
            for c in p["comparisonResults"].as_array().into_iter().flatten().filter(|c| issues(c)) {
                let name = c["name"].as_str().unwrap();
                if name == "description" {
                    continue;
                }
                if name == "pattern" && c.to_string().contains("removed") {
                    continue;
                }
                report.insert((name.to_string(), v["version"].as_str().unwrap().to_string(), property.to_string()));
            }
        }
    }
    report
}

/// Safe cases crdify still flags: `(case, crdify's validation, why rop does not)`
/// (docs/compat.md, "Beside crdify").
const CRDIFY_STRICTER: &[(&str, &[&str], &str)] = &[
    ("cel-rule.safe", &["unhandled"], "only a rule's message changed: no object changes verdict"),
    ("format.safe", &["unhandled"], "a format removed only loosens validation"),
    (
        "min-properties.safe",
        &["unhandled"],
        "only a description inside additionalProperties changed; crdify compares additionalProperties as part of its parent",
    ),
    (
        "required.safe-with-default",
        &["required"],
        "a newly required field with a default is never missing: the server defaults it before it validates",
    ),
    ("multiple-of.safe", &["unhandled"], "a multipleOf that divides the old one only loosens validation"),
    (
        "junctor.safe",
        &["unhandled", "existingFieldRemoval"],
        "an allOf entry removed only loosens validation; crdify counts it as a removed field",
    ),
    (
        "junctor.safe-reorder",
        &["unhandled", "existingFieldRemoval", "maxLength"],
        "allOf entries reordered: the same checks; crdify pairs entries by position",
    ),
    ("junctor.safe-int-or-string", &["unhandled"], "the anyOf of an int-or-string field restricts nothing"),
    (
        "junctor.safe-variant",
        &["unhandled"],
        "a oneOf entry that requires a new property cannot match a stored object (a new enum variant)",
    ),
    (
        "field-removed.safe-any-value",
        &["unhandled", "existingFieldRemoval"],
        "additionalProperties: true keeps every value; crdify counts the old value schema as a removed field",
    ),
];

#[test]
fn crdify_reports_the_same_rules_at_the_same_paths() {
    let Some(binary) = crdify() else {
        eprintln!("skipping: crdify not found (set ROP_CRDIFY, or run scripts/install-crdify.sh)");
        return;
    };
    let mut differences = Vec::new();
    for (name, path) in cases() {
        let (ours, mut theirs) = (rop_report(&path), crdify_report(&binary, &path));
        if let Some((_, validations, _)) = CRDIFY_STRICTER.iter().find(|(case, _, _)| *case == name) {
            let before = theirs.len();
            theirs.retain(|(rule, _, _)| !validations.contains(&rule.as_str()));
            assert!(theirs.len() < before, "{name}: crdify no longer flags it; drop it from CRDIFY_STRICTER");
        }
        if ours != theirs {
            differences.push(format!("{name}:\n  rop:    {ours:?}\n  crdify: {theirs:?}"));
        }
    }
    assert!(differences.is_empty(), "rop and crdify disagree:\n{}", differences.join("\n"));
}

/// Release-to-release pairs of real CRDs (`releases/SOURCES.md`): `(old, new)` file names.
const RELEASES: &[(&str, &str)] = &[
    ("gateway-api_gateways_v1.0.0.yaml", "gateway-api_gateways_v1.1.0.yaml"),
    ("gateway-api_gateways_v1.1.0.yaml", "gateway-api_gateways_v1.2.0.yaml"),
    ("gateway-api_gatewayclasses_v1.1.0.yaml", "gateway-api_gatewayclasses_v1.2.0.yaml"),
    ("cert-manager_certificates_v1.14.0.yaml", "cert-manager_certificates_v1.15.0.yaml"),
];

fn release_findings(old: &str, new: &str) -> (Value, Vec<Finding>) {
    let dir = corpus().join("releases");
    let (old, new) = (read(&dir.join(old)), read(&dir.join(new)));
    let findings = compare_crds(&old, &new, &CompatOptions::default());
    (new, findings)
}

#[test]
fn release_pairs_report_what_was_recorded() {
    let bless = std::env::var_os("ROP_BLESS").is_some();
    let expected_dir = corpus().join("releases/expected");
    for (old, new) in RELEASES {
        let got: String = release_findings(old, new).1.iter().map(|f| format!("{f}\n")).collect();
        let file = expected_dir.join(format!("{}.txt", new.trim_end_matches(".yaml")));
        if bless {
            std::fs::create_dir_all(&expected_dir).unwrap();
            std::fs::write(&file, &got).unwrap();
        } else {
            assert_eq!(
                std::fs::read_to_string(&file).unwrap_or_default(),
                got,
                "{old} -> {new} (ROP_BLESS=1 to record)"
            );
        }
    }
}

/// On real pairs, every rule both tools have reports the same paths; crdify's catch-all is not
/// compared (it also fires on description-only changes inside `additionalProperties`).
#[test]
fn crdify_agrees_on_release_pairs() {
    let Some(binary) = crdify() else {
        eprintln!("skipping: crdify not found (set ROP_CRDIFY, or run scripts/install-crdify.sh)");
        return;
    };
    let dir = corpus().join("releases");
    for (old, new) in RELEASES {
        let (new_doc, findings) = release_findings(old, new);
        let ours: Report = findings
            .iter()
            .filter_map(|f| {
                let name = crdify_name(f.rule.id()).filter(|_| !f.message.starts_with("exclusive"))?;
                let version = f.version.map(|i| new_doc["spec"]["versions"][i]["name"].as_str().unwrap().to_string());
                Some((name.to_string(), version.unwrap_or_default(), crdify_property(&f.path)))
            })
            .collect();
        let mut theirs = crdify_pair(&binary, &dir.join(old), &dir.join(new));
        theirs.retain(|(rule, _, _)| rule != "unhandled");
        assert_eq!(ours, theirs, "{old} -> {new}");
    }
}

/// Each revision is a CRD the API server accepts (`rop verify` finds no error), so every case is
/// an upgrade that could really happen.
#[test]
fn every_revision_is_a_valid_crd() {
    let mut files: Vec<PathBuf> = cases().into_iter().map(|(_, p)| p).collect();
    files.push(corpus().join("old.yaml"));
    for file in files {
        let errors: Vec<_> = rop_verify::verify_crd(&read(&file)).into_iter().filter(Finding::is_error).collect();
        assert!(errors.is_empty(), "{}: {errors:#?}", file.display());
    }
}
