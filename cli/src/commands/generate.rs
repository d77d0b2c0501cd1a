//! `rop generate` (alias `rop manifests`): build and run the project's manifests generator,
//! then write the CRDs, RBAC and webhook configurations it reports under `config/`, and the RBAC
//! of self-managed webhook certificates (`config/webhook-self-managed/role.yaml`).

use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{Context, bail};
use rop_verify::Rule;

use crate::project::Project;
use crate::scaffold::plan::{self, Change, IfExists, Plan};
use crate::ui;

/// The kustomize component of self-managed webhook certificates, which `create webhook`
/// scaffolds; `rop generate` writes its role.yaml ([`rop::manifests::WEBHOOK_CERT_ROLES`]).
pub const SELF_MANAGED_KUSTOMIZATION: &str = "config/webhook-self-managed/kustomization.yaml";

/// Flags of `rop generate`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  rop generate          # write config/crd/bases and config/rbac/role.yaml\n  rop generate --check  # in CI: fail if those files are out of date\n\nExample, compare with main's CRDs instead of the last v* tag:\n  rop generate --check-compat=main"
)]
pub struct GenerateArgs {
    /// Write nothing; exit non-zero if any generated file would change.
    #[arg(long)]
    pub check: bool,

    /// Compare the generated CRDs with config/crd/bases/ at this git revision (`HEAD`, the last
    /// commit, when given without a value) and stop before writing if a change breaks stored
    /// objects or clients (`rop verify --against`'s compat.* rules). Without the flag the
    /// revision is the last release: the newest tag matching --compat-tags, else the merge
    /// base with the default branch (origin/HEAD), else none; `none` checks nothing.
    /// Deliberate breaks are acknowledged in config/crd/compat-acknowledged.yaml.
    #[arg(long, value_name = "REF", num_args = 0..=1, require_equals = true, default_missing_value = "HEAD")]
    pub check_compat: Option<String>,

    /// The tags that are releases, as a git glob: the newest one reachable from HEAD is the
    /// revision the CRDs are compared with when --check-compat is not given.
    #[arg(long, value_name = "GLOB", env = "COMPAT_TAGS", default_value = "v*")]
    pub compat_tags: String,
}

/// Builds and runs `cargo run -p <project>-api --bin manifests`, showing a spinner; returns
/// its stdout (the bundle JSON).
fn run_generator(root: &Path, project: &Project) -> anyhow::Result<String> {
    let package = format!("{}-api", project.project_name);
    ui::detail(&format!("running `cargo run --quiet --package {package} --bin manifests` in {}", root.display()));
    // The first build of a project takes minutes: a spinner, or lines in a log, say why.
    let step = ui::Step::start(&format!(
        "building and running the manifests generator (cargo run -p {package} --bin manifests)"
    ));
    let output = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["run", "--quiet", "--package", &package, "--bin", "manifests"])
        .current_dir(root)
        .stdin(Stdio::null())
        .output()
        .context("cannot run cargo: is the Rust toolchain installed and on PATH?")?;
    step.finish(if output.status.success() { "done" } else { "failed" });
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        bail!("the manifests generator failed to build or run; cargo said:\n{}", stderr.trim_end());
    }
    // The compiler's warnings about the types (an `Option` serde writes as `null`, ...) are
    // for the user, who runs `rop generate` after editing them rather than `cargo build`;
    // cargo replays them on every run until they are fixed.
    if stderr.contains("warning") {
        eprintln!("{}", stderr.trim_end());
    }
    String::from_utf8(output.stdout).context("the manifests generator printed something that is not UTF-8")
}

/// Prints `finding` about `source` (an error plainly, a warning as a warning); returns 1 for an
/// error, 0 for a warning.
fn print_finding(source: &str, finding: &rop_verify::Finding) -> usize {
    // The finding starts with its own `error[...]` / `warning[...]`.
    eprintln!("{source}: {finding}");
    usize::from(finding.is_error())
}

/// Runs `rop verify`'s checks on every generated CRD and reports each finding against the Rust
/// type of the version it is in. Warnings are printed; errors stop `rop generate` before it
/// writes anything, since the API server would reject the CRD.
///
/// A CRD whose kind has a conversion webhook in PROJECT gets it from
/// `config/crd/patches/webhook_in_<plural>.yaml` at kustomize time, so the warning for
/// versions that differ under `strategy: None` does not apply to its base file.
fn check_crds(
    project: &Project,
    bundle: &rop::manifests::Bundle,
    files: &[rop::manifests::OutputFile],
) -> anyhow::Result<()> {
    let converted = project.converted_crds();
    let rust_type = |crd: &str, version: &str| {
        bundle
            .kinds
            .iter()
            .find(|k| k.crd.metadata.name.as_deref() == Some(crd) && k.crd.spec.versions[0].name == version)
            .map(|k| k.rust_type.clone())
    };
    let mut errors = 0;
    let mut hints = std::collections::BTreeSet::new();
    for file in files.iter().filter(|f| f.path.starts_with("config/crd/bases/")) {
        let crd: serde_json::Value = serde_yaml::from_str(&file.content)?;
        let name = crd["metadata"]["name"].as_str().unwrap_or_default();
        for finding in rop_verify::verify_crd(&crd) {
            if finding.rule == Rule::ConversionNoneSchemasDiffer && converted.contains(name) {
                continue;
            }
            // The version a finding is in names the Rust type it comes from.
            let version = finding.version.and_then(|n| crd["spec"]["versions"][n]["name"].as_str());
            let rust = version.and_then(|v| rust_type(name, v));
            let source = rust.as_ref().map(|t| format!(" ({t})")).unwrap_or_default();
            errors += print_finding(&format!("{}{source}", file.path), &finding);
            let hint = default_hint(&finding, rust.as_deref().unwrap_or("the kind"))
                .or_else(|| unsigned_hint(&finding, rust.as_deref().unwrap_or("the kind")));
            if let Some(hint) = hint {
                eprintln!("  help: {hint}");
            }
            for hint in bound_hints(&finding, rust.as_deref().unwrap_or("the kind")) {
                // The total's findings repeat the rule's bounds: each hint once.
                if hints.insert(hint.clone()) {
                    eprintln!("  help: {hint}");
                }
            }
        }
    }
    if errors > 0 {
        bail!(
            "{errors} generated CRD problem{} the API server would reject (listed above); fix the Rust types and run `rop generate` again; nothing was written",
            crate::ui::plural(errors)
        );
    }
    Ok(())
}

/// For a finding about a `default` (`defaults.*`), the Rust field and the attributes that set
/// it: `the default of spec.mode (in v1::Widget) comes from #[rop(default = …)] ...`.
fn default_hint(finding: &rop_verify::Finding, rust_type: &str) -> Option<String> {
    if !matches!(finding.rule, Rule::DefaultsInvalid | Rule::DefaultsCel | Rule::DefaultsNotPruned) {
        return None;
    }
    let field = rop_verify::compat::field_of(&finding.path)?;
    Some(format!(
        "the default of {field} (in {rust_type}) comes from #[rop(default = …)] or #[rop(default_json = …)] on that \
         field, or from #[serde(default)] and its type's Default: change it so the check above holds"
    ))
}

/// For an unsigned integer field (`format: uint16`, from a Rust `u16`), the Rust spelling of
/// the fix the API conventions ask for: a signed type with the same bounds.
fn unsigned_hint(finding: &rop_verify::Finding, rust_type: &str) -> Option<String> {
    if finding.rule != Rule::LintUnsigned {
        return None;
    }
    let field = rop_verify::compat::field_of(&finding.path)?;
    Some(format!(
        "{field} (in {rust_type}) is an unsigned Rust integer: make it i32 (or i64 for u32 and wider) with \
         #[schemars(range(min = 0))], and the type's upper bound if it matters (u16: max = 65535)"
    ))
}

/// For a CEL cost finding, the Rust attribute that bounds each schema node the estimate assumed
/// unbounded: `add #[schemars(length(max = …))] to the field for spec.targets (in v1::Widget)`.
/// Lists take `length` (maxItems), strings `length` (maxLength), maps `#[rop(max_properties =
/// …)]`; the items of a list or values of a map take the same through `inner(...)` /
/// `items(...)`.
fn bound_hints(finding: &rop_verify::Finding, rust_type: &str) -> Vec<String> {
    finding
        .unbounded
        .iter()
        .filter_map(|u| {
            let (_, rest) = u.path.split_once(".openAPIV3Schema")?;
            let mut fields = Vec::new();
            let mut element_steps = 0;
            let mut map_values = false;
            let mut steps = rest;
            while !steps.is_empty() {
                if let Some(r) = steps.strip_prefix(".properties[") {
                    let (name, r) = r.split_once(']')?;
                    if element_steps > 0 {
                        return None;
                    }
                    fields.push(name);
                    steps = r;
                } else if let Some(r) = steps.strip_prefix(".items") {
                    element_steps += 1;
                    steps = r;
                } else if let Some(r) = steps.strip_prefix(".additionalProperties") {
                    element_steps += 1;
                    map_values = true;
                    steps = r;
                } else {
                    return None;
                }
            }
            let field = fields.join(".");
            if map_values {
                // No attribute reaches a map's values: bound them through their own type.
                let what = if u.keyword == "maxProperties" { "max_properties" } else { "length(max = …)" };
                return (element_steps == 1).then(|| {
                    format!("bound the values of the map {field} (in {rust_type}) with a newtype that carries {what}, e.g. `pub struct Value(#[schemars(length(max = 64))] pub String)`")
                });
            }
            let attribute = match (u.keyword, element_steps) {
                ("maxProperties", 0) => "#[rop(max_properties = …)]",
                ("maxProperties", 1) => "#[rop(items(max_properties = …))]",
                (_, 0) => "#[schemars(length(max = …))]",
                (_, 1) => "#[schemars(inner(length(max = …)))]",
                _ => return None,
            };
            Some(format!("add {attribute} to the field for {field} (in {rust_type})"))
        })
        .collect()
}

/// Validates every `config/samples/*.yaml` against the CRDs just generated, as the API server
/// would on create ([`rop_verify::samples`]): pruned fields are warnings, anything the server would
/// reject is an error that stops `rop generate` before it writes.
fn check_samples(root: &Path, files: &[rop::manifests::OutputFile]) -> anyhow::Result<()> {
    let crds: Vec<serde_json::Value> = files
        .iter()
        .filter(|f| f.path.starts_with("config/crd/bases/"))
        .map(|f| serde_yaml::from_str(&f.content))
        .collect::<Result<_, _>>()?;
    let Ok(entries) = std::fs::read_dir(root.join("config/samples")) else { return Ok(()) };
    let mut samples: Vec<_> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml" || e == "yml"))
        .collect();
    samples.sort();
    let mut errors = 0;
    for sample in samples {
        let shown = format!("config/samples/{}", sample.file_name().unwrap_or_default().to_string_lossy());
        let text = std::fs::read_to_string(&sample).with_context(|| format!("cannot read {shown}"))?;
        for (_, object) in rop_verify::yaml_documents(&text).with_context(|| shown.clone())? {
            let findings = match sample_crd(&crds, &object) {
                Ok(Some(crd)) => rop_verify::samples::validate_object(crd, &object),
                Ok(None) => Vec::new(),
                Err(finding) => vec![finding],
            };
            for finding in findings {
                errors += print_finding(&shown, &finding);
            }
        }
    }
    if errors > 0 {
        bail!(
            "{errors} sample problem{} the API server would reject (listed above); fix the samples or the types, then run `rop generate` again; nothing was written",
            crate::ui::plural(errors)
        );
    }
    Ok(())
}

/// The CRD a sample `object` is checked against: the one of its group and kind. `Ok(None)` for
/// a group and kind the project does not serve (a sample of a built-in kind, or of another
/// project's), which is not ours to check. Else, as a finding: a kind its group lacks (an
/// error, naming the group's kinds, or the group's one CRD's check when it has one), and a
/// kind of the project's under another group (a warning: `kubectl apply -k config/samples`
/// fails unless the cluster serves that group too).
fn sample_crd<'a>(
    crds: &'a [serde_json::Value],
    object: &serde_json::Value,
) -> Result<Option<&'a serde_json::Value>, rop_verify::Finding> {
    let group = object["apiVersion"].as_str().and_then(|v| v.rsplit_once('/')).map_or("", |(g, _)| g);
    let in_group: Vec<&serde_json::Value> = crds.iter().filter(|crd| crd["spec"]["group"] == group).collect();
    let kind_of = |crd: &serde_json::Value| crd["spec"]["names"]["kind"].as_str().unwrap_or_default().to_string();
    let kind = object["kind"].as_str().unwrap_or_default();
    let finding = |severity, rule, path: &str, message: String, fix: String| rop_verify::Finding {
        severity,
        rule,
        path: path.into(),
        version: None,
        message,
        fix,
        unbounded: Vec::new(),
    };
    if let Some(crd) = in_group.iter().find(|crd| kind_of(crd) == kind) {
        return Ok(Some(crd));
    }
    match in_group.as_slice() {
        [] => match crds.iter().find(|crd| kind_of(crd) == kind) {
            Some(ours) if !kind.is_empty() => {
                let ours = ours["spec"]["group"].as_str().unwrap_or_default();
                Err(finding(
                    rop_verify::Severity::Warning,
                    rop_verify::Rule::SampleVersion,
                    "apiVersion",
                    format!("the project's kind {kind} is in group {ours}, not {group:?}"),
                    format!("write apiVersion: {ours}/<version>, unless the sample is of another project's {kind}"),
                ))
            }
            _ => Ok(None),
        },
        [one] => Ok(Some(one)),
        // No kind at all: any of the group's CRDs says it is required.
        [first, ..] if kind.is_empty() => Ok(Some(first)),
        several => {
            let mut kinds: Vec<String> = several.iter().map(|crd| kind_of(crd)).collect();
            kinds.sort();
            Err(finding(
                rop_verify::Severity::Error,
                rop_verify::Rule::SampleKind,
                "kind",
                format!("Invalid value: {kind:?}: group {group} has kinds {}", kinds.join(", ")),
                "set kind to one of them".into(),
            ))
        }
    }
}

/// Refuses two Rust types that declare one version of a kind: a version's file copied without
/// changing its `version = "..."`. Said before the comparison with PROJECT, which would
/// otherwise blame a stale build.
fn check_one_type_per_version(bundle: &rop::manifests::Bundle) -> anyhow::Result<()> {
    let mut claims: std::collections::BTreeMap<(String, String, String), Vec<&str>> = Default::default();
    for k in &bundle.kinds {
        let key = (k.crd.spec.group.clone(), k.crd.spec.versions[0].name.clone(), k.crd.spec.names.kind.clone());
        claims.entry(key).or_default().push(&k.rust_type);
    }
    if let Some(((group, version, kind), types)) = claims.iter().find(|(_, types)| types.len() > 1) {
        let misplaced: Vec<&str> = types.iter().copied().filter(|t| !t.starts_with(&format!("{version}::"))).collect();
        let fix = match misplaced.as_slice() {
            [one] => {
                let module = one.split("::").next().unwrap_or_default();
                format!("{one} is in module {module}: write `version = \"{module}\"` in its #[rop(...)]")
            }
            _ => "give each version's type its own `version = \"...\"` in #[rop(...)]".to_string(),
        };
        let all = if types.len() == 2 { "both" } else { "all" };
        bail!("{} {all} declare {group}/{version} {kind}: {fix}", types.join(" and "));
    }
    Ok(())
}

/// Checks that the generator reported exactly the kinds PROJECT lists. Cargo decides whether to
/// rebuild it from file times, so a copied project sharing a target folder can run another
/// copy's stale generator; its output must not be written.
fn check_bundle_matches_project(project: &Project, bundle: &rop::manifests::Bundle) -> anyhow::Result<()> {
    check_one_type_per_version(bundle)?;
    let reported: std::collections::BTreeSet<(String, String, String)> = bundle
        .kinds
        .iter()
        .map(|k| (k.crd.spec.group.clone(), k.crd.spec.versions[0].name.clone(), k.crd.spec.names.kind.clone()))
        .collect();
    let listed: std::collections::BTreeSet<(String, String, String)> = project
        .resources
        .iter()
        // Types-only kinds (`rop import crd --types-only`) are not in the manifests generator.
        .filter(|r| r.api.is_some() && !r.external)
        .map(|r| (r.full_group(), r.version.clone(), r.kind.clone()))
        .collect();
    if reported != listed {
        let show = |set: &std::collections::BTreeSet<(String, String, String)>| {
            set.iter().map(|(g, v, k)| format!("{g}/{v} {k}")).collect::<Vec<_>>().join(", ")
        };
        bail!(
            "the manifests generator reported [{}] but PROJECT lists [{}]: cargo ran an out-of-date build (a copied project sharing a target folder?) or api/src/bin/manifests.rs lost a kind; run `touch api/src/bin/manifests.rs` and `rop generate` again, and check that every kind is listed there",
            show(&reported),
            show(&listed)
        );
    }
    Ok(())
}

/// Refuses a conversion hub (PROJECT's `webhooks.conversion`) that is not its kind's storage
/// version: the manager would refuse to start (`rop::webhook::Conversion`), and the API server
/// stores objects in the storage version, so a hub elsewhere converts every read and write twice.
fn check_hubs_are_storage(project: &Project, bundle: &rop::manifests::Bundle) -> anyhow::Result<()> {
    for hub in project.resources.iter().filter(|r| r.webhooks.as_ref().is_some_and(|w| w.conversion)) {
        let crd = format!("{}.{}", hub.plural, hub.full_group());
        let versions: Vec<&rop::manifests::KindManifest> =
            bundle.kinds.iter().filter(|k| k.crd.metadata.name.as_deref() == Some(crd.as_str())).collect();
        let is_storage = |k: &rop::manifests::KindManifest| k.crd.spec.versions[0].storage;
        let Some(hub_kind) = versions.iter().find(|k| k.crd.spec.versions[0].name == hub.version) else { continue };
        if is_storage(hub_kind) {
            continue;
        }
        let storage = versions.iter().find(|k| is_storage(k)).map(|k| k.crd.spec.versions[0].name.clone());
        let Some(storage) = storage else { continue };
        bail!(
            "the conversion hub of {kind} is {hub} (PROJECT), but its storage version is {storage} ({rust}'s #[rop(...)] does not say `storage`): the hub must be the storage version. Either move `storage` back to {hub}, or move the conversion webhook: `rop delete webhook --group {group} --version {hub} --kind {kind} --conversion`, then `rop create webhook --group {group} --version {storage} --kind {kind} --conversion --spoke {hub}` (with every other version as a --spoke too)",
            kind = hub.kind,
            hub = hub.version,
            rust = hub_kind.rust_type,
            group = hub.group,
        );
    }
    Ok(())
}

/// Runs `rop generate` in the project at `root`.
///
/// # Errors
/// Outside a project, a generator that fails to build, versions that cannot merge, a failed
/// write, or (with `--check`) files that are out of date.
pub fn run(root: &Path, args: &GenerateArgs) -> anyhow::Result<()> {
    let project = Project::load(root)?;
    let stdout = run_generator(root, &project)?;
    let bundle: rop::manifests::Bundle = serde_json::from_str(stdout.trim()).with_context(|| {
        format!("the manifests generator printed something that is not a manifests bundle: {:.200}", stdout.trim())
    })?;
    check_bundle_matches_project(&project, &bundle)?;
    check_hubs_are_storage(&project, &bundle)?;
    let files = rop::manifests::assemble(&bundle, project.namespaced).map_err(|e| match &e {
        // Name the Rust types of the kind, so the user knows which files to fix.
        rop::manifests::AssembleError::Merge(merge) => {
            let crd = merge.crd_name();
            let types: Vec<&str> = bundle
                .kinds
                .iter()
                .filter(|k| k.crd.metadata.name.as_deref() == Some(crd))
                .map(|k| k.rust_type.as_str())
                .collect();
            anyhow::anyhow!("{e} (Rust types: {})", types.join(", "))
        }
        _ => anyhow::Error::from(e),
    })?;
    check_crds(&project, &bundle, &files)?;
    check_samples(root, &files)?;
    let base = match args.check_compat.as_deref() {
        Some("none") => None,
        Some(rev) => Some(rev.to_string()),
        None => super::generate_compat::last_release(root, &args.compat_tags),
    };
    if let Some(rev) = &base {
        super::generate_compat::check(root, rev, &bundle, &files)?;
    }
    let mut plan = Plan::new(root);
    for file in files {
        plan.file(file.path, file.content, IfExists::Overwrite);
    }
    // The RBAC of self-managed webhook certificates, beside the component `create webhook`
    // scaffolds (a project without it, made before it existed, gets no lone file).
    if root.join(SELF_MANAGED_KUSTOMIZATION).is_file() {
        let converted: Vec<String> = project.converted_crds().into_iter().collect();
        if let Some(file) = rop::manifests::webhook_cert_roles(&bundle, &converted)? {
            plan.file(file.path, file.content, IfExists::Overwrite);
        }
    }
    if args.check {
        let entries = plan.check(true)?;
        let stale: Vec<&str> =
            entries.iter().filter(|e| e.change != Change::Unchanged).map(|e| e.path.as_str()).collect();
        if stale.is_empty() {
            ui::info("generated manifests are up to date");
            return Ok(());
        }
        bail!("generated manifests are out of date: {}; run `rop generate` and commit the result", stale.join(", "));
    }
    let has_crds = !bundle.kinds.is_empty();
    let changes = plan.write(true)?;
    ui::info(&plan::summary(&changes));
    if has_crds {
        ui::info("Next: `make install` to install the CRDs, or `make deploy IMG=<image>` to deploy the operator");
    } else {
        // Controllers and webhooks of built-in kinds only: there is no CRD to install.
        ui::info("Next: `make deploy IMG=<image>` to deploy the operator");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use rop_verify::{Finding, Rule, Severity, Unbounded};

    #[test]
    fn a_version_file_copied_without_its_version_is_named() {
        let kind = |rust_type: &str, version: &str| {
            serde_json::json!({
                "rust_type": rust_type,
                "rules": [],
                "crd": {
                    "metadata": {"name": "backups.ops.example.org"},
                    "spec": {
                        "group": "ops.example.org",
                        "names": {"kind": "Backup", "plural": "backups"},
                        "scope": "Namespaced",
                        "versions": [{"name": version, "served": true, "storage": true}],
                    },
                },
            })
        };
        let bundle = |kinds: Vec<serde_json::Value>| -> rop::manifests::Bundle {
            serde_json::from_value(serde_json::json!({"format": 2, "kinds": kinds})).unwrap()
        };
        let err = super::check_one_type_per_version(&bundle(vec![kind("v1::Backup", "v1"), kind("v2::Backup", "v1")]));
        assert_eq!(
            err.unwrap_err().to_string(),
            "v1::Backup and v2::Backup both declare ops.example.org/v1 Backup: v2::Backup is in module v2: write `version = \"v2\"` in its #[rop(...)]"
        );
        assert!(
            super::check_one_type_per_version(&bundle(vec![kind("v1::Backup", "v1"), kind("v2::Backup", "v2")]))
                .is_ok()
        );
    }

    #[test]
    fn cost_findings_name_the_rust_bound() {
        let schema = "spec.versions[0].schema.openAPIV3Schema.properties[spec]";
        let finding = Finding {
            severity: Severity::Error,
            rule: Rule::CelCost,
            path: format!("{schema}.x-kubernetes-validations[0].rule"),
            version: Some(0),
            message: String::new(),
            fix: String::new(),
            unbounded: vec![
                Unbounded { path: format!("{schema}.properties[targets]"), keyword: "maxItems" },
                Unbounded { path: format!("{schema}.properties[targets].items"), keyword: "maxLength" },
                Unbounded { path: format!("{schema}.properties[labels]"), keyword: "maxProperties" },
                Unbounded { path: format!("{schema}.properties[m].items.items"), keyword: "maxLength" },
                Unbounded { path: format!("{schema}.properties[env].additionalProperties"), keyword: "maxLength" },
            ],
        };
        assert_eq!(
            super::bound_hints(&finding, "v1::Widget"),
            [
                "add #[schemars(length(max = …))] to the field for spec.targets (in v1::Widget)",
                "add #[schemars(inner(length(max = …)))] to the field for spec.targets (in v1::Widget)",
                "add #[rop(max_properties = …)] to the field for spec.labels (in v1::Widget)",
                "bound the values of the map spec.env (in v1::Widget) with a newtype that carries length(max = …), e.g. `pub struct Value(#[schemars(length(max = 64))] pub String)`",
            ]
        );
    }

    #[test]
    fn default_findings_name_the_rust_field() {
        let schema = "spec.versions[0].schema.openAPIV3Schema.properties[spec]";
        let finding = |rule, path: String| Finding {
            severity: Severity::Error,
            rule,
            path,
            version: Some(0),
            message: String::new(),
            fix: String::new(),
            unbounded: vec![],
        };
        let child = finding(Rule::DefaultsCel, format!("{schema}.properties[window].default.start"));
        assert_eq!(
            super::default_hint(&child, "v1::Widget").as_deref(),
            Some(
                "the default of spec.window (in v1::Widget) comes from #[rop(default = …)] or #[rop(default_json = …)] \
                 on that field, or from #[serde(default)] and its type's Default: change it so the check above holds"
            )
        );
        let other = finding(Rule::CelCost, format!("{schema}.x-kubernetes-validations[0].rule"));
        assert_eq!(super::default_hint(&other, "v1::Widget"), None);
    }
}
