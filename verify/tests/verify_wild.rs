//! Real CRDs accepted by real API servers must verify with no error: any error here is a false
//! positive of the verifier.

use std::path::Path;

use rop_verify::{Severity, verify_yaml};

fn errors_in(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let findings = verify_yaml(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    findings.into_iter().filter(|(_, f)| f.severity == Severity::Error).map(|(_, f)| f.to_string()).collect()
}

fn shared(rel: &str) -> Option<std::path::PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/testdata").join(rel);
    if path.exists() {
        Some(path)
    } else {
        println!("skipped: {} is missing", path.display());
        None
    }
}

#[test]
fn crds_in_the_wild_have_no_errors() {
    let Some(dir) = shared("crds-in-the-wild") else { return };
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 14, "{files:?}");
    let mut failures = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let docs = rop_verify::yaml_documents(&text).unwrap();
        assert_eq!(docs.len(), 1, "{}", file.display());
        assert!(rop_verify::is_crd(&docs[0].1), "{}", file.display());
        for e in errors_in(file) {
            failures.push(format!("{}: {e}", file.display()));
        }
    }
    assert!(failures.is_empty(), "false positives:\n{}", failures.join("\n"));
}

#[test]
fn controller_gen_golden_crd_has_no_errors() {
    let Some(file) = shared("controller-gen/testdata.kubebuilder.io_cronjobs.yaml") else { return };
    assert_eq!(errors_in(&file), Vec::<String>::new());
}

#[test]
fn cel_rules_in_the_wild_parse() {
    // Gateway API's HTTPRoute carries dozens of CEL rules (optional syntax, string library
    // calls, nested macros): none may be reported as a syntax error.
    let Some(file) = shared("crds-in-the-wild/gateway-api_HTTPRoute.yaml") else { return };
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.matches("- message:").count() + text.matches("- rule:").count() > 20);
    let findings = verify_yaml(&text).unwrap();
    assert!(findings.iter().all(|(_, f)| !f.rule.id().starts_with("cel.")), "{findings:?}");
}

#[test]
fn cel_warnings_in_the_wild() {
    // The CEL warnings on the real CRDs, counted in docs/cel.md: only rules that use more than
    // half of their cost budget (Gateway API's HTTPRoute path rule, in both versions).
    let Some(dir) = shared("crds-in-the-wild") else { return };
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.extend(shared("controller-gen/testdata.kubebuilder.io_cronjobs.yaml"));
    let mut warnings = Vec::new();
    for file in files.iter().filter(|p| p.extension().is_some_and(|x| x == "yaml")) {
        let text = std::fs::read_to_string(file).unwrap();
        for (_, f) in verify_yaml(&text).unwrap() {
            if f.severity == Severity::Warning && (f.rule.id().starts_with("cel.") || f.rule == "lint.cel-cost") {
                warnings.push(format!("{}: {f}", file.file_name().unwrap().to_string_lossy()));
            }
        }
    }
    println!("{}", warnings.join("\n"));
    assert_eq!(warnings.len(), 2, "{warnings:#?}");
}
