//! `rop generate --check-compat`: a project's CRDs against their last commit, findings named
//! by Rust type and field, acknowledgements, and a revision that does not exist. Builds the
//! project's manifests generator (in the target folder the end-to-end tests share).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn shared_target_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/e2e-projects")
}

fn command(dir: &Path, program: &str, args: &[&str]) -> Output {
    Command::new(program)
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", shared_target_dir())
        .env("CARGO_INCREMENTAL", "0")
        .env("NO_COLOR", "1")
        .env_remove("RUSTFLAGS")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"))
}

fn ok(dir: &Path, program: &str, args: &[&str]) -> String {
    let out = command(dir, program, args);
    assert!(
        out.status.success(),
        "{program} {args:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

const GIT: &[&str] = &["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"];

/// A project with a Memcached kind, its manifests generated, committed to a new git repository.
fn committed_project() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("op");
    std::fs::create_dir(&dir).unwrap();
    let rop = env!("CARGO_BIN_EXE_rop");
    ok(&dir, rop, &["init", "--domain", "example.com", "--repo", "github.com/example/op"]);
    ok(&dir, rop, &["create", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"]);
    ok(&dir, rop, &["generate"]);
    ok(&dir, "git", &[GIT, &["init", "-q"]].concat());
    ok(&dir, "git", &[GIT, &["add", "."]].concat());
    ok(&dir, "git", &[GIT, &["commit", "-q", "-m", "first"]].concat());
    (tmp, dir)
}

#[test]
fn a_breaking_edit_of_a_rust_type_stops_generate_until_acknowledged() {
    let (_tmp, dir) = committed_project();
    let rop = env!("CARGO_BIN_EXE_rop");

    // Unchanged: nothing to report.
    let stdout = ok(&dir, rop, &["generate", "--check-compat"]);
    assert!(stdout.starts_with("1 CRD compared with HEAD: no breaking change\n"), "{stdout}");

    let types = dir.join("api/src/v1alpha1/memcached.rs");
    let source = std::fs::read_to_string(&types).unwrap();
    let bounded =
        source.replace("    pub size: Option<i32>,", "    #[schemars(range(max = 10))]\n    pub size: Option<i32>,");
    assert_ne!(bounded, source);
    std::fs::write(&types, bounded).unwrap();
    let crd = dir.join("config/crd/bases/cache.example.com_memcacheds.yaml");
    let before = std::fs::read_to_string(&crd).unwrap();

    let out = command(&dir, rop, &["generate", "--check-compat"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.starts_with("building and running")).collect();
    assert_eq!(
        lines,
        [
            "config/crd/bases/cache.example.com_memcacheds.yaml (v1alpha1::memcached::Memcached, spec.size): error[compat.maximum] spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[size]: maximum added where there was none: 10: values outside it are refused in new objects and in updates that change the field (stored ones are ratcheted while unchanged) (fix: keep the old bound, or tighten it only in a new version)",
            "error: 1 change since HEAD breaks objects or clients of the CRDs (listed above; docs/compat.md says how to make each safely); nothing was written. A deliberate break is acknowledged in config/crd/compat-acknowledged.yaml",
        ],
        "{stderr}"
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(std::fs::read_to_string(&crd).unwrap(), before, "nothing is written");

    std::fs::write(
        dir.join("config/crd/compat-acknowledged.yaml"),
        "acknowledged:
- crd: memcacheds.cache.example.com
  rule: compat.maximum
  path: spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[size]
  reason: no release has shipped yet
",
    )
    .unwrap();
    let out = command(&dir, rop, &["generate", "--check-compat"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("config/crd/bases/cache.example.com_memcacheds.yaml (v1alpha1::memcached::Memcached, spec.size): note: acknowledged compat.maximum spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[size]: no release has shipped yet\n"),
        "{stderr}"
    );
    assert!(std::fs::read_to_string(&crd).unwrap().contains("maximum: 10\n"));

    let out = command(&dir, rop, &["generate", "--check-compat=no-such-ref"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.ends_with(&format!(
            "error: no git revision \"no-such-ref\" in {} (fix: name a commit, branch or tag that exists there, e.g. HEAD or main)\n",
            dir.canonicalize().unwrap().display()
        )),
        "{stderr}"
    );
    assert_eq!(out.status.code(), Some(2));

    // The kind deleted from the project: its CRD is gone, which deletes every object of it.
    std::fs::remove_file(dir.join("config/crd/compat-acknowledged.yaml")).unwrap();
    ok(&dir, rop, &["delete", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcached", "--force"]);
    let out = command(&dir, rop, &["generate", "--check-compat"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("config/crd/bases/cache.example.com_memcacheds.yaml: error[compat.crd-removed] metadata.name: CRD memcacheds.cache.example.com removed: deleting it from a cluster deletes every object of it, and its clients fail with 404 Not Found"),
        "{stderr}"
    );
    assert_eq!(out.status.code(), Some(1));
}

/// Without `--check-compat`, `rop generate` (so `make manifests` and `make test`) compares with
/// the last release: the newest `v*` tag, else the merge base with the default branch, else
/// nothing, said in one line.
#[test]
fn generate_compares_with_the_last_release_by_default() {
    let (_tmp, dir) = committed_project();
    let rop = env!("CARGO_BIN_EXE_rop");
    let note = "note: no release tag (v*) and no default branch (origin/HEAD) to compare the CRDs with: compatibility not checked (`rop generate --check-compat=REF` compares with any revision)\n";
    assert!(ok(&dir, rop, &["generate"]).starts_with(note));

    ok(&dir, "git", &[GIT, &["tag", "v0.1.0"]].concat());
    let types = dir.join("api/src/v1alpha1/memcached.rs");
    let source = std::fs::read_to_string(&types).unwrap();
    let bounded =
        source.replace("    pub size: Option<i32>,", "    #[schemars(range(max = 10))]\n    pub size: Option<i32>,");
    std::fs::write(&types, bounded).unwrap();
    let out = command(&dir, rop, &["generate"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("error[compat.maximum]"), "{stderr}");
    assert!(stderr.contains("error: 1 change since v0.1.0 breaks objects or clients of the CRDs"), "{stderr}");
    assert_eq!(out.status.code(), Some(1));

    // Tags of another shape are not releases; `none` compares with nothing.
    let other_tags = Command::new(rop)
        .arg("generate")
        .current_dir(&dir)
        .env("CARGO_TARGET_DIR", shared_target_dir())
        .env("CARGO_INCREMENTAL", "0")
        .env("COMPAT_TAGS", "release-*")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&other_tags.stdout);
    assert!(other_tags.status.success() && stdout.starts_with("note: no release tag (release-*)"), "{stdout}");
    ok(&dir, rop, &["generate", "--check-compat=none"]);
}
