//! `rop import crd`: the files it writes for a CRD (golden trees), and one clear error for each
//! kind of bad input, with nothing written. The round trip through `rop generate` is
//! `import_round_trip.rs`.

mod common;

use std::path::{Path, PathBuf};

use common::{assert_golden_tree, changes, rop, rop_ok, testdata, tree};

fn init(dir: &Path, extra: &[&str]) {
    let mut args =
        vec!["init", "--domain", "example.com", "--repo", "github.com/example/shop-operator", "--rop-version", "0.1.0"];
    args.extend(extra);
    rop_ok(dir, &args);
}

fn project(extra: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("shop-operator");
    std::fs::create_dir(&dir).unwrap();
    init(&dir, extra);
    (tmp, dir)
}

fn widgets(dir: &Path) {
    std::fs::copy(testdata().join("import/widgets.yaml"), dir.join("widgets.yaml")).unwrap();
}

fn shared_crd(name: &str) -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/testdata/crds-in-the-wild").join(name);
    path.is_file().then_some(path)
}

/// Two versions, CEL rules, enums, bounds, defaults, maps, lists, junctors and JSON names
/// that are not Rust names: the types, registrations and PROJECT entries.
#[test]
fn widgets_tree() {
    let (_tmp, dir) = project(&[]);
    widgets(&dir);
    let before = tree(&dir);
    let out = rop(&dir, &["import", "crd", "widgets.yaml"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "warning: widgets.yaml: widgets.shop.example.com.spec.versions[v1beta1].subresources.status: not imported: the status subresource without a status schema\n"
    );
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .ends_with("Next: run `make manifests` to regenerate the CRDs from the types\n")
    );
    assert_golden_tree("import-widgets", &changes(&before, &tree(&dir)));
}

/// cert-manager's Certificate as types the project consumes: no manifests registration, PROJECT
/// marks it external, its group keeps its own domain.
#[test]
fn types_only_tree() {
    let Some(crd) = shared_crd("cert-manager_Certificate.yaml") else {
        eprintln!("skipped: ../shared/testdata/crds-in-the-wild is not beside the checkout");
        return;
    };
    let (_tmp, dir) = project(&[]);
    std::fs::copy(crd, dir.join("certificates.yaml")).unwrap();
    let before = tree(&dir);
    let out = rop_ok(&dir, &["import", "crd", "--types-only", "certificates.yaml"]);
    assert!(out.ends_with("no CRD is written for them\n"), "{out}");
    // The CRD is kept for the project's tests to install, as read but for what a cluster adds.
    let kept = dir.join("config/crd/external/cert-manager.io_certificates.yaml");
    let read =
        |path: &Path| -> serde_json::Value { serde_yaml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap() };
    let (kept_crd, original) = (read(&kept), read(&dir.join("certificates.yaml")));
    assert_eq!(kept_crd["spec"], original["spec"]);
    assert_eq!(
        kept_crd["metadata"],
        serde_json::json!({"name": "certificates.cert-manager.io", "annotations": original["metadata"]["annotations"]})
    );
    assert_eq!(kept_crd.as_object().unwrap().keys().collect::<Vec<_>>(), ["apiVersion", "kind", "metadata", "spec"]);
    // Not in the golden tree: it is the shared test data's CRD.
    std::fs::remove_dir_all(dir.join("config/crd/external")).unwrap();
    assert_golden_tree("import-types-only", &changes(&before, &tree(&dir)));
}

/// Runs `rop import crd` with `args`, expects exit code `code` and exactly `message` on
/// stderr, and checks that nothing in the project changed.
fn refused(dir: &Path, args: &[&str], code: i32, message: &str) {
    let before = tree(dir);
    let mut all = vec!["import", "crd"];
    all.extend(args);
    let out = rop(dir, &all);
    assert_eq!(out.status.code(), Some(code), "{}", String::from_utf8_lossy(&out.stderr));
    pretty_assertions::assert_eq!(String::from_utf8_lossy(&out.stderr), message);
    pretty_assertions::assert_eq!(before, tree(dir), "a refused import changed the project");
}

#[test]
fn a_file_without_a_crd_is_refused() {
    let (_tmp, dir) = project(&[]);
    std::fs::write(dir.join("pod.yaml"), "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n").unwrap();
    refused(
        &dir,
        &["pod.yaml"],
        2,
        "error: pod.yaml: no CustomResourceDefinition in it (it holds a v1 Pod): rop import reads CRD YAML or JSON (apiextensions.k8s.io/v1), such as `kubectl get crd NAME -o yaml` writes\n",
    );
    std::fs::write(dir.join("empty.yaml"), "# nothing yet\n").unwrap();
    refused(
        &dir,
        &["empty.yaml"],
        2,
        "error: empty.yaml: no CustomResourceDefinition in it (it holds no YAML documents): rop import reads CRD YAML or JSON (apiextensions.k8s.io/v1), such as `kubectl get crd NAME -o yaml` writes\n",
    );
    refused(
        &dir,
        &["missing.yaml"],
        2,
        "error: missing.yaml: cannot read it: No such file or directory (os error 2)\n",
    );
    std::fs::write(dir.join("bad.yaml"), "a: [\n").unwrap();
    let out = rop(&dir, &["import", "crd", "bad.yaml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error: bad.yaml: not valid YAML: "));
}

#[test]
fn a_crd_the_server_would_refuse_is_not_imported() {
    let (_tmp, dir) = project(&[]);
    let crd = std::fs::read_to_string(testdata().join("import/widgets.yaml")).unwrap();
    // A property without a type is not structural.
    let broken = crd.replacen(
        "              mode:\n                type: string\n",
        "              mode:\n                description: no type\n",
        1,
    );
    assert_ne!(broken, crd);
    std::fs::write(dir.join("widgets.yaml"), broken).unwrap();
    refused(
        &dir,
        &["widgets.yaml"],
        1,
        "error: widgets.yaml: document 0 (widgets.shop.example.com): the API server would refuse this CRD, so rop does not import it:\n  error[structural.missing-type] spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[mode].type: Required value: must not be empty for specified object fields\nfix the CRD (`rop verify widgets.yaml` says how), then import it\n",
    );
}

#[test]
fn an_existing_kind_needs_force() {
    let (_tmp, dir) = project(&[]);
    widgets(&dir);
    rop_ok(&dir, &["import", "crd", "widgets.yaml"]);
    refused(
        &dir,
        &["widgets.yaml"],
        1,
        "error: shop.example.com/v1 Widget already exists in PROJECT: pass --force to replace its types with the imported ones (their edits are lost)\n",
    );
    let (_tmp2, other) = project(&[]);
    rop_ok(&other, &["create", "api", "--group", "shop", "--version", "v1", "--kind", "Widget", "--controller=false"]);
    widgets(&other);
    refused(
        &other,
        &["widgets.yaml"],
        1,
        "error: shop.example.com/v1 Widget already exists in PROJECT: pass --force to replace its types with the imported ones (their edits are lost)\n",
    );
    let out = rop_ok(&other, &["import", "crd", "--force", "widgets.yaml"]);
    assert!(out.contains("  update    api/src/v1/widget.rs\n"), "{out}");
    // The scaffolded export gives way to the import's.
    let version_mod = std::fs::read_to_string(other.join("api/src/v1/mod.rs")).unwrap();
    assert_eq!(version_mod.matches("mod widget;").count(), 1, "{version_mod}");
    assert!(version_mod.contains("mod widget;\npub use widget::*;\n"), "{version_mod}");
}

#[test]
fn another_group_needs_multigroup_unless_consumed_and_a_kind_is_imported_once() {
    let (_tmp, dir) = project(&[]);
    rop_ok(&dir, &["create", "api", "--group", "cache", "--version", "v1", "--kind", "Memcached"]);
    widgets(&dir);
    refused(
        &dir,
        &["widgets.yaml"],
        1,
        "error: this project has group \"cache.example.com\" and is not multigroup, so it cannot also hold shop.example.com: run `rop edit --multigroup` first\n",
    );
    // Types of a CRD the project consumes need no multigroup switch, and move nothing. Read
    // back from a cluster, the CRD is kept without what the cluster added.
    let mut live: serde_json::Value =
        serde_yaml::from_str(&std::fs::read_to_string(dir.join("widgets.yaml")).unwrap()).unwrap();
    live["metadata"]["resourceVersion"] = "1234".into();
    live["metadata"]["uid"] = "3f1c".into();
    live["status"] = serde_json::json!({"storedVersions": ["v1"]});
    std::fs::write(dir.join("widgets.yaml"), serde_yaml::to_string(&live).unwrap()).unwrap();
    rop_ok(&dir, &["import", "crd", "--types-only", "widgets.yaml"]);
    let kept = std::fs::read_to_string(dir.join("config/crd/external/shop.example.com_widgets.yaml")).unwrap();
    let kept: serde_json::Value = serde_yaml::from_str(&kept).unwrap();
    assert_eq!(
        (kept["metadata"].clone(), kept.get("status")),
        (
            serde_json::json!({"name": "widgets.shop.example.com", "annotations": {"api-approved.kubernetes.io": "unapproved, testing only"}}),
            None
        )
    );
    rop_ok(&dir, &["create", "api", "--group", "cache", "--version", "v1", "--kind", "Cluster"]);
    assert!(dir.join("api/src/shop/v1/widget.rs").is_file());
    assert!(dir.join("api/src/v1/memcached.rs").is_file() && dir.join("api/src/v1/cluster.rs").is_file());
    let lib = std::fs::read_to_string(dir.join("api/src/lib.rs")).unwrap();
    assert!(lib.contains("pub mod v1;") && lib.contains("pub mod shop;"), "{lib}");
    // `rop alpha generate` imports it again from the kept CRD: the same tree, but for the file
    // the types say they were imported from.
    let regenerated = dir.parent().unwrap().join("regenerated");
    rop_ok(&dir, &["alpha", "generate", "--input-dir", ".", "--output-dir", regenerated.to_str().unwrap()]);
    let (mut original, again) = (tree(&dir), tree(&regenerated));
    original.remove("widgets.yaml");
    assert_eq!(original.keys().collect::<Vec<_>>(), again.keys().collect::<Vec<_>>());
    for (path, text) in &original {
        let text = text.replace("imported from `widgets.yaml`", "imported from `shop.example.com_widgets.yaml`");
        assert_eq!(&text, &again[path], "{path}");
    }
    // Deleted (its types are the import's, so --force), the kind takes its kept CRD along.
    for version in ["v1", "v1beta1"] {
        rop_ok(&dir, &["delete", "api", "--group", "shop", "--version", version, "--kind", "Widget", "--force"]);
    }
    assert!(!dir.join("config/crd/external").exists() && !dir.join("api/src/shop").exists());
    let (_tmp2, dir) = project(&[]);
    widgets(&dir);
    refused(
        &dir,
        &["widgets.yaml", "widgets.yaml"],
        2,
        "error: shop.example.com/v1 Widget is in widgets.yaml and again in widgets.yaml: import each kind version once\n",
    );
    refused(
        &dir,
        &["widgets.yaml", "--group-version-kinds", "shop.example.com/v2/Widget"],
        2,
        "error: --group-version-kinds shop.example.com/v2/Widget: no CRD in the files has that kind version\n",
    );
    refused(
        &dir,
        &["widgets.yaml", "--group-version-kinds", "Widget"],
        2,
        "error: --group-version-kinds Widget: write GROUP/VERSION/KIND (cert-manager.io/v1/Certificate) or GROUP/KIND for every version\n",
    );
}

/// `--group-version-kinds` picks one version; `--dry-run` shows the plan and writes nothing.
#[test]
fn one_version_and_a_dry_run() {
    let (_tmp, dir) = project(&[]);
    widgets(&dir);
    let before = tree(&dir);
    let out = rop_ok(
        &dir,
        &["import", "crd", "widgets.yaml", "--group-version-kinds", "shop.example.com/v1beta1/Widget", "--dry-run"],
    );
    assert!(out.starts_with("rop import crd would write:\n"), "{out}");
    assert!(out.contains("create    api/src/v1beta1/widget.rs"), "{out}");
    assert!(!out.contains("api/src/v1/widget.rs"), "{out}");
    assert_eq!(before, tree(&dir));
}

/// The kind and the version name Rust modules: a keyword kind and a version that is no
/// identifier are refused, as `rop create api` refuses them.
#[test]
fn kinds_and_versions_that_cannot_be_modules_are_refused() {
    let (_tmp, dir) = project(&[]);
    let crd = std::fs::read_to_string(testdata().join("import/widgets.yaml")).unwrap();
    std::fs::write(
        dir.join("match.yaml"),
        crd.replace("kind: Widget", "kind: Match")
            .replace("plural: widgets", "plural: matches")
            .replace("widgets.shop", "matches.shop")
            .replace("singular: widget", "singular: match"),
    )
    .unwrap();
    refused(
        &dir,
        &["match.yaml"],
        1,
        "error: match.yaml: matches.shop.example.com: its kind cannot be imported: kind \"Match\" becomes the Rust module `match`, a keyword: choose another kind, e.g. MatchSet; rename the kind in a copy of the CRD to import it under another name\n",
    );
    std::fs::write(dir.join("dash.yaml"), crd.replace("- name: v1beta1", "- name: v1-beta")).unwrap();
    refused(
        &dir,
        &["dash.yaml"],
        1,
        "error: dash.yaml: widgets.shop.example.com: version v1-beta cannot be imported: rop names a version's Rust module after it, so it must be lower-case letters, digits and `_` (v1, v1beta1); import the other versions with --group-version-kinds\n",
    );
    rop_ok(&dir, &["import", "crd", "dash.yaml", "--group-version-kinds", "shop.example.com/v1/Widget"]);
}
