//! `rop verify` against the real API server: for every CRD of the verifier corpora
//! (`testdata/verify/{invalid,valid,cel,defaults}`) and of `shared/testdata/crds-in-the-wild`, the server
//! accepts the CRD exactly when `rop_verify::verify_crd` reports no error.
//!
//! Each CRD is created on kube-apiserver 1.37 (one server for the whole file) the way
//! `kubectl create` sends it: with `fieldValidation=Strict`, so unknown fields are errors (the
//! server's default for other clients only warns and drops them). The body is the typed
//! `k8s_openapi` `CustomResourceDefinition` when that serialises back to the document as
//! written, else the document itself (unknown fields, `null`s, another apiVersion: exactly what
//! the typed model would hide); the answer is decoded as the typed CRD either way. A create is
//! a server-side dry run (`dryRun=All`): the server validates and admits it fully but stores
//! nothing, so the files, most of which share one CRD name, need no clean-up. Only a request
//! over 1 MiB is stored for real, because etcd's size limit is the one check a dry run skips;
//! it is deleted again and the test waits until it is gone.
//!
//! The CEL and defaults corpora (`testdata/verify/{cel,defaults}/{rejected,accepted}`) record
//! the server's causes in `# cause:` lines, which `rop verify` must contain (`verify/tests/verify_recorded_corpus.rs`);
//! here the live server must still give exactly those causes.
//!
//! Where the verdicts differ, the file must be listed in [`KNOWN_DIFFERENCES`] with the
//! reason; a listed file that no longer differs fails the test too, so the list stays true.
//! For rejections, the server's field paths (from the `Status` causes) are printed next to
//! the verifier's, translated to the verifier's notation, as information.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, DeleteParams, PostParams};
use kube::core::Status;
use kube::{Client, Resource};
use rop_testenv::TestEnv;
use serde_json::Value;

/// Files whose server verdict differs from `rop verify`'s, and why. Keys are
/// `<corpus>/<file name>` as printed in the table. Remove an entry once its cause is fixed
/// (the test fails on entries that no longer differ).
const KNOWN_DIFFERENCES: &[(&str, &str)] = &[
    // Defaults the server refuses and rop accepts (docs/cel.md, "Defaults: disagreements left").
    ("defaults-rejected/083-runtime.quantity-conversion.yaml", "the quantity library is not evaluated"),
    ("defaults-rejected/084-runtime.url-conversion.yaml", "the url library is not evaluated"),
    ("defaults-rejected/085-runtime.ip-conversion.yaml", "the ip library is not evaluated"),
    ("defaults-rejected/086-runtime.semver-conversion.yaml", "the semver library is not evaluated"),
    ("defaults-rejected/104-embedded.creation-timestamp.yaml", "metadata timestamps are not parsed"),
    ("defaults-rejected/106-embedded.owner-references-two-controllers.yaml", "ownerReferences are not validated"),
    ("defaults-rejected/107-embedded.owner-reference-without-apiversion.yaml", "ownerReferences are not validated"),
    (
        "defaults-rejected/146-misc.per-call-cost-limit.yaml",
        "run-time cost is only estimated: a rule over the limit is not run, not reported",
    ),
    (
        "defaults-rejected/147-misc.cost-budget-exhausted.yaml",
        "run-time cost is only estimated: a rule over the limit is not run, not reported",
    ),
    (
        "defaults-rejected/148-misc.cost-budget-shared-by-defaults.yaml",
        "run-time cost is only estimated: a rule over the limit is not run, not reported",
    ),
];

/// What the server did with a CRD.
#[derive(Debug)]
enum Outcome {
    Accepted,
    Rejected { code: u16, reason: String, message: String, fields: Vec<String>, causes: Vec<String> },
}

impl Outcome {
    fn accepted(&self) -> bool {
        matches!(self, Outcome::Accepted)
    }
}

/// One CRD document and what each side said about it.
struct Case {
    name: String,
    via: &'static str,
    outcome: Outcome,
    verify_errors: Vec<(String, String)>,
    verify_warnings: usize,
    /// The `# cause:` lines of a CEL corpus file, sorted.
    recorded_causes: Vec<String>,
}

/// `(corpus, folder)` pairs; the shared folder may be absent.
fn corpora() -> Vec<(&'static str, PathBuf)> {
    let mut out = vec![
        ("invalid", Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/verify/invalid")),
        ("valid", Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/verify/valid")),
    ];
    let cel = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/verify/cel");
    out.push(("cel-rejected", cel.join("rejected")));
    out.push(("cel-accepted", cel.join("accepted")));
    let defaults = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/verify/defaults");
    out.push(("defaults-rejected", defaults.join("rejected")));
    out.push(("defaults-accepted", defaults.join("accepted")));
    let wild = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/testdata/crds-in-the-wild"));
    if wild.is_dir() {
        out.push(("wild", wild));
    } else {
        println!(
            "skipped: the crds-in-the-wild corpus ({}) is missing; checking the verify corpus only",
            wild.display()
        );
    }
    out
}

/// The document exactly as the typed model would send it, if that is the document as written.
fn typed(doc: &Value) -> Option<CustomResourceDefinition> {
    let crd: CustomResourceDefinition = serde_json::from_value(doc.clone()).ok()?;
    (serde_json::to_value(&crd).ok()? == *doc).then_some(crd)
}

fn rejected(status: &Status) -> Outcome {
    let fields = status
        .details
        .as_ref()
        .map(|d| d.causes.iter().filter(|c| !c.field.is_empty()).map(|c| c.field.clone()).collect())
        .unwrap_or_default();
    // `<field>: <first line of the message>`, as the CEL corpus records causes.
    let causes = status
        .details
        .as_ref()
        .map(|d| d.causes.iter().map(|c| format!("{}: {}", c.field, c.message.lines().next().unwrap_or(""))).collect())
        .unwrap_or_default();
    Outcome::Rejected {
        code: status.code,
        reason: status.reason.clone(),
        message: status.message.clone(),
        fields,
        causes,
    }
}

/// Creates the CRD as `kubectl create --dry-run=server` does: with `fieldValidation=Strict`, so
/// an unknown or misplaced field is an error rather than a warning, and `dryRun=All`. The body is the typed
/// `CustomResourceDefinition` when that is the document as written ("typed"), else the
/// document itself ("raw").
async fn create(client: &Client, doc: &Value) -> (Outcome, &'static str) {
    let (body, via) = match typed(doc) {
        Some(crd) => (serde_json::to_vec(&crd).unwrap(), "typed"),
        None => (serde_json::to_vec(doc).unwrap(), "raw"),
    };
    // kube's PostParams has no fieldValidation; without it the server only warns about
    // unknown fields and drops them (kube's `Api::create` would accept such a CRD).
    let url = CustomResourceDefinition::url_path(&(), None);
    let stored = body.len() > STORED_ABOVE;
    let params = PostParams { dry_run: !stored, ..PostParams::default() };
    let request = kube::core::Request::new(url).create(&params, body).unwrap();
    let (mut parts, body) = request.into_parts();
    let uri = parts.uri.to_string();
    let sep = if uri.contains('?') { '&' } else { '?' };
    parts.uri = format!("{uri}{sep}fieldValidation=Strict").parse().unwrap();
    let outcome = match client.request::<CustomResourceDefinition>(http::Request::from_parts(parts, body)).await {
        Ok(created) => {
            let name = doc["metadata"]["name"].as_str().unwrap_or_default();
            assert_eq!(created.metadata.name.as_deref(), Some(name));
            if stored {
                delete(client, name).await;
            }
            Outcome::Accepted
        }
        Err(kube::Error::Api(status)) => rejected(&status),
        Err(e) => panic!("creating {}: {e}", doc["metadata"]["name"]),
    };
    (outcome, via)
}

/// Requests larger than this are stored, not dry-run, so that etcd's size limit applies.
const STORED_ABOVE: usize = 1 << 20;

/// Deletes a stored CRD and waits until it is gone, so the next file can reuse the name.
async fn delete(client: &Client, name: &str) {
    let api: Api<CustomResourceDefinition> = Api::all(client.clone());
    api.delete(name, &DeleteParams::default()).await.unwrap_or_else(|e| panic!("deleting {name}: {e}"));
    let deadline = Instant::now() + Duration::from_secs(120);
    while api.get_opt(name).await.unwrap().is_some() {
        assert!(Instant::now() < deadline, "{name} was not deleted within 120s");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// The server's field path in the verifier's notation: the server validates the internal
/// (hoisted) form, where a schema, subresources or printer columns shared by all versions
/// live under `spec.` and printer columns say `JSONPath`.
fn normalise(field: &str) -> String {
    let mut f = field.to_string();
    for (from, to) in [
        ("spec.validation.openAPIV3Schema", "spec.versions[0].schema.openAPIV3Schema"),
        ("spec.subresources", "spec.versions[0].subresources"),
        ("spec.additionalPrinterColumns", "spec.versions[0].additionalPrinterColumns"),
        ("spec.selectableFields", "spec.versions[0].selectableFields"),
        ("spec.conversion.webhookClientConfig", "spec.conversion.webhook.clientConfig"),
        ("spec.conversion.conversionReviewVersions", "spec.conversion.webhook.conversionReviewVersions"),
    ] {
        if let Some(rest) = f.strip_prefix(from) {
            f = format!("{to}{rest}");
        }
    }
    f.replace(".JSONPath", ".jsonPath")
}

/// A cause without the random number the server puts in the names of a rule's object types
/// (`selfType253397161.spec` becomes `selfType.spec`).
fn without_type_numbers(cause: &str) -> String {
    let mut parts = cause.split("selfType");
    let mut out = parts.next().unwrap_or_default().to_string();
    for part in parts {
        out.push_str("selfType");
        out.push_str(part.trim_start_matches(|c: char| c.is_ascii_digit()));
    }
    out
}

fn shorten(s: &str, max: usize) -> String {
    let s = s.replace('\n', " ");
    if s.chars().count() <= max { s } else { format!("{}…", s.chars().take(max).collect::<String>()) }
}

#[test]
fn server_accepts_exactly_what_verify_accepts() {
    let Some(env) = TestEnv::start_or_skip() else { return };
    let client = env.client();
    let version = env.block_on(client.apiserver_version()).unwrap();
    println!("server {} (ready in {:?})", version.git_version, env.startup_time());

    let started = Instant::now();
    let mut cases = Vec::new();
    for (corpus, dir) in corpora() {
        for file in common::yaml_files(&dir) {
            let text = std::fs::read_to_string(&file).unwrap();
            let docs = rop_verify::yaml_documents(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            let file_name = file.file_name().unwrap().to_string_lossy().into_owned();
            for (index, doc) in docs.iter().filter(|(_, d)| rop_verify::is_crd(d)) {
                let name = if docs.len() > 1 {
                    format!("{corpus}/{file_name}#{index}")
                } else {
                    format!("{corpus}/{file_name}")
                };
                let findings = rop_verify::verify_crd(doc);
                let verify_errors: Vec<(String, String)> =
                    findings.iter().filter(|f| f.is_error()).map(|f| (f.rule.to_string(), f.path.clone())).collect();
                let verify_warnings = findings.len() - verify_errors.len();
                let (outcome, via) = env.block_on(async {
                    tokio::time::timeout(Duration::from_secs(60), create(&client, doc))
                        .await
                        .unwrap_or_else(|_| panic!("{name}: no answer within 60s"))
                });
                let mut recorded_causes: Vec<String> =
                    text.lines().filter_map(|l| l.strip_prefix("# cause: ")).map(without_type_numbers).collect();
                recorded_causes.sort();
                cases.push(Case { name, via, outcome, verify_errors, verify_warnings, recorded_causes });
            }
        }
    }
    let elapsed = started.elapsed();

    // Every case, one line each.
    println!("\n{:<58} {:<6} {:<24} {:<7} verify errors (warnings)", "file", "via", "server", "verify");
    for c in &cases {
        let server = match &c.outcome {
            Outcome::Accepted => "accepted".to_string(),
            Outcome::Rejected { code, reason, .. } => format!("rejected {code} {reason}"),
        };
        let verify = if c.verify_errors.is_empty() { "ok" } else { "error" };
        let rules: Vec<&str> = c.verify_errors.iter().map(|(r, _)| r.as_str()).collect();
        println!(
            "{:<58} {:<6} {:<24} {:<7} {} ({})",
            c.name,
            c.via,
            server,
            verify,
            rules.join(","),
            c.verify_warnings
        );
    }

    // Rejections: the server's paths next to the verifier's.
    println!("\npaths of rejected CRDs (server paths in verify's notation; = same set, ~ overlap, ≠ disjoint)");
    let (mut same, mut overlap, mut disjoint) = (0, 0, 0);
    for c in &cases {
        let Outcome::Rejected { fields, message, .. } = &c.outcome else { continue };
        let server: BTreeSet<String> = fields.iter().map(|f| normalise(f)).collect();
        let verify: BTreeSet<String> = c.verify_errors.iter().map(|(_, p)| p.clone()).collect();
        let mark = if server == verify {
            same += 1;
            "="
        } else if !server.is_disjoint(&verify) {
            overlap += 1;
            "~"
        } else {
            disjoint += 1;
            "≠"
        };
        println!("{mark} {}", c.name);
        if mark != "=" {
            println!("    server: {}", if server.is_empty() { shorten(message, 160) } else { format!("{server:?}") });
            println!("    verify: {verify:?}");
        }
    }
    println!("paths: {same} same, {overlap} overlapping, {disjoint} disjoint");

    // Verdict mismatches.
    let mismatches: Vec<&Case> = cases.iter().filter(|c| c.outcome.accepted() != c.verify_errors.is_empty()).collect();
    println!("\nverdict mismatches: {} of {} CRDs ({elapsed:?} on the server)", mismatches.len(), cases.len());
    println!("{:<58} {:<48} {:<40} known", "file", "server", "verify");
    for c in &mismatches {
        let server = match &c.outcome {
            Outcome::Accepted => "accepted".to_string(),
            Outcome::Rejected { code, message, .. } => format!("{code}: {}", shorten(message, 44)),
        };
        let verify = if c.verify_errors.is_empty() {
            "no error".to_string()
        } else {
            c.verify_errors.iter().map(|(r, p)| format!("{r} {p}")).collect::<Vec<_>>().join("; ")
        };
        let known = KNOWN_DIFFERENCES.iter().find(|(n, _)| *n == c.name).map_or("NO", |(_, why)| why);
        println!("{:<58} {:<48} {:<40} {known}", c.name, server, shorten(&verify, 40));
    }
    for c in &mismatches {
        if let Outcome::Rejected { message, .. } = &c.outcome {
            println!("{}: the server said: {}", c.name, shorten(message, 600));
        }
    }

    let unexplained: Vec<&str> =
        mismatches.iter().map(|c| c.name.as_str()).filter(|n| !KNOWN_DIFFERENCES.iter().any(|(k, _)| k == n)).collect();
    let stale: Vec<&str> = KNOWN_DIFFERENCES
        .iter()
        .map(|(k, _)| *k)
        .filter(|k| cases.iter().any(|c| c.name == *k) && !mismatches.iter().any(|c| c.name == *k))
        .collect();
    // The recorded corpora's causes are still what the server says.
    let mut stale_causes = Vec::new();
    for c in cases.iter().filter(|c| c.name.starts_with("cel-") || c.name.starts_with("defaults-")) {
        let mut live = match &c.outcome {
            Outcome::Accepted => Vec::new(),
            Outcome::Rejected { causes, .. } => causes.iter().map(|c| without_type_numbers(c)).collect(),
        };
        live.sort();
        if live != c.recorded_causes {
            stale_causes.push(format!("{}:\n  recorded {:#?}\n  server   {live:#?}", c.name, c.recorded_causes));
        }
    }
    assert!(stale_causes.is_empty(), "the server's causes changed:\n{}", stale_causes.join("\n"));
    assert!(unexplained.is_empty(), "the server and rop verify disagree on {unexplained:?} (see the table above)");
    assert!(stale.is_empty(), "KNOWN_DIFFERENCES lists files that no longer differ: {stale:?}");
    assert!(cases.len() >= 870, "only {} CRDs checked", cases.len());
}
