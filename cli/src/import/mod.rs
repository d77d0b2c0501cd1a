//! `rop import crd`: existing CRDs become Rust types in the api crate that `rop generate`
//! turns back into the same CRDs, validations, defaults and CEL rules included (docs/import.md).

pub mod idents;
pub mod kind;
pub mod literal;
pub mod render;
pub mod types;

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use crate::commands::UsageError;
use crate::project::{self, Api, Project};
use crate::scaffold::kind::KindNames;
use crate::scaffold::layout;
use crate::scaffold::plan::{self, IfExists, Plan};
use crate::scaffold::resource;
use crate::scaffold::spec::Insert;
use crate::ui;
use kind::KindVersion;

/// `rop import ...`.
#[derive(Debug, clap::Subcommand)]
pub enum ImportCommand {
    /// Write Rust types for CustomResourceDefinitions, which `rop generate` turns back into them.
    Crd(ImportCrdArgs),
}

/// Flags of `rop import crd`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  rop import crd certificates.yaml\n\nExample, types for a kind the project watches but does not own:\n  rop import crd --types-only gateway-api.yaml \\\n      --group-version-kinds gateway.networking.k8s.io/v1/HTTPRoute"
)]
pub struct ImportCrdArgs {
    /// CRD YAML or JSON files (several documents each, `kubectl get crd -o yaml` lists too);
    /// `-` reads standard input.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Import only these, each `GROUP/VERSION/KIND` or `GROUP/KIND` (every version), separated
    /// by commas; default every CRD in the files.
    #[arg(long, value_delimiter = ',', value_name = "GROUP/VERSION/KIND")]
    pub group_version_kinds: Vec<String>,
    /// Types for kinds the project uses but does not own (another operator's CRDs): usable with
    /// `Api<T>` and by type in `owns(...)` and `watches(...)`, no CRD generated for them.
    #[arg(long)]
    pub types_only: bool,
    /// Overwrite existing types of the same kind version (their edits are lost).
    #[arg(long)]
    pub force: bool,
    /// Print the files that would be written, and write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// One CRD read from a file, with the versions to import.
struct Imported {
    source: String,
    /// The CRD, as read.
    crd: serde_json::Value,
    versions: Vec<KindVersion>,
    /// What the import leaves to the user (a conversion webhook), said once it succeeded.
    notes: Vec<String>,
}

/// Runs `rop import crd` in the project at `root`; `cwd` resolves relative file names.
///
/// # Errors
/// Outside a project; a file that cannot be read, is not YAML or holds no CRD; a CRD the API
/// server would refuse (its findings listed); a kind version the project has without
/// `--force`; a group that needs `rop edit --multigroup`. Nothing is written then.
pub fn run(root: &Path, cwd: &Path, args: &ImportCrdArgs) -> anyhow::Result<()> {
    let mut project = Project::load(root)?;
    project.check_tree(root)?;
    let filters = Filter::parse(&args.group_version_kinds)?;
    let mut imported = Vec::new();
    for file in &args.files {
        imported.extend(read_file(&cwd.join(file), file, &filters, args.types_only)?);
    }
    for f in &filters {
        if !f.used.get() {
            bail!(UsageError::new(format!(
                "--group-version-kinds {}: no CRD in the files has that kind{}",
                f.text,
                if f.version.is_some() { " version" } else { "" }
            )));
        }
    }
    if imported.is_empty() {
        bail!(UsageError::new("no CustomResourceDefinition to import in the files"));
    }
    let header = resource::header_of(root);
    let mut plan = Plan::new(root);
    let mut needs_serde_json = false;
    let mut seen = std::collections::BTreeMap::new();
    let mut warnings: Vec<String> = imported.iter().flat_map(|crd| crd.notes.iter().cloned()).collect();
    for crd in &imported {
        if args.types_only {
            // What the project's tests install beside its own CRDs (rop-testenv's
            // `start_controller`); `make install` leaves it to the operator that owns it.
            let (group, plural) = (&crd.crd["spec"]["group"], &crd.crd["spec"]["names"]["plural"]);
            let file = format!(
                "config/crd/external/{}_{}.yaml",
                group.as_str().unwrap_or_default(),
                plural.as_str().unwrap_or_default()
            );
            plan.file(&file, external_crd_yaml(&crd.crd)?, IfExists::Refuse);
        }
        for kv in &crd.versions {
            if let Some(first) = seen.insert((&kv.group, &kv.version, &kv.kind), &crd.source) {
                bail!(UsageError::new(format!(
                    "{}/{} {} is in {first} and again in {}: import each kind version once",
                    kv.group, kv.version, kv.kind, crd.source
                )));
            }
            let (group, domain) = split_group(&kv.group, &project.domain);
            check_names(kv, &crd.source)?;
            check_project(&project, kv, &group, args.force, args.types_only)?;
            // A kind version the project has keeps the layout it was created with.
            let k = match project.find(&group, &kv.version, &kv.kind) {
                Some(existing) => KindNames::of(&project, existing),
                None => {
                    let mut k = KindNames::new(&project, &group, &kv.version, &kv.kind, &kv.plural);
                    k.full_group = kv.group.clone();
                    // A consumed CRD's types go under `api/src/<group>/<version>/`, whatever
                    // the layout of the project's own kinds.
                    k.multigroup |= args.types_only;
                    k
                }
            };
            let file = format!("{}/{}.rs", k.api_dir(), k.snake);
            let shown =
                Path::new(&crd.source).file_name().map_or(crd.source.clone(), |n| n.to_string_lossy().into_owned());
            let text = format_rust(root, &render::file(kv, &header, &shown));
            plan.file(&file, text, IfExists::Refuse);
            register(&mut plan, &project, &k, kv, &header)?;
            needs_serde_json |= kv.types.uses.contains("Value");
            let path = format!("{}::{}::{}", project.api_crate(), k.api_module(), kv.kind);
            let api = Api { crd_version: "v1".into(), namespaced: kv.namespaced };
            project.record_api((&group, &kv.version, &kv.kind), &kv.plural, path, api, false);
            if let Some(r) = project.find_mut(false, &group, &kv.version, &kv.kind) {
                r.domain = domain;
                r.external = args.types_only;
            }
            warnings.extend(
                kv.types
                    .losses
                    .iter()
                    .map(|loss| format!("{}: {}: not imported: {}", crd.source, loss.path, loss.what)),
            );
        }
    }
    if needs_serde_json {
        add_serde_json(&mut plan)?;
    }
    plan.file(project::FILE, project.to_text(), IfExists::Overwrite);
    let changes = plan.finish(args.force, args.dry_run, "rop import crd would write")?;
    for warning in &warnings {
        ui::warning(warning);
    }
    let Some(changes) = changes else { return Ok(()) };
    ui::info(&plan::summary(&changes));
    ui::info(if args.types_only {
        "Next: use the types with Api<T> or by type in owns(...) and watches(...); they are not in the manifests generator, so no CRD is written for them"
    } else {
        "Next: run `make manifests` to regenerate the CRDs from the types"
    });
    Ok(())
}

/// A consumed CRD as the project keeps it in `config/crd/external/`: what creating it needs,
/// without what a cluster added when it was read back (`status`, `metadata.uid`,
/// `resourceVersion`, `managedFields`, kubectl's last-applied annotation).
fn external_crd_yaml(crd: &serde_json::Value) -> anyhow::Result<String> {
    let mut metadata = serde_json::Map::new();
    metadata.insert("name".into(), crd["metadata"]["name"].clone());
    for key in ["labels", "annotations"] {
        let Some(map) = crd["metadata"][key].as_object() else { continue };
        let kept: serde_json::Map<_, _> = map
            .iter()
            .filter(|(k, _)| *k != "kubectl.kubernetes.io/last-applied-configuration")
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if !kept.is_empty() {
            metadata.insert(key.into(), kept.into());
        }
    }
    let kept = serde_json::json!({
        "apiVersion": crd["apiVersion"],
        "kind": crd["kind"],
        "metadata": metadata,
        "spec": crd["spec"],
    });
    Ok(format!("---\n{}", serde_yaml::to_string(&kept)?))
}

/// The group as PROJECT records it: without the project's domain when it ends with it
/// (`cache.example.com` → `cache` in domain `example.com`), else whole with an empty domain.
fn split_group(full: &str, domain: &str) -> (String, String) {
    match full.strip_suffix(domain).and_then(|g| g.strip_suffix('.')) {
        Some(group) if !domain.is_empty() && !group.is_empty() => (group.to_string(), domain.to_string()),
        _ => (full.to_string(), String::new()),
    }
}

/// The kind and version become Rust module names: they must be identifiers that are no
/// keyword, and the kind no name the generated code already uses (as `rop create api` checks).
fn check_names(kv: &KindVersion, source: &str) -> anyhow::Result<()> {
    let crd = format!("{}.{}", kv.plural, kv.group);
    if let Err(e) = crate::names::check_kind(&kv.kind) {
        bail!(
            "{source}: {crd}: its kind cannot be imported: {e}; rename the kind in a copy of the CRD to import it under another name"
        );
    }
    let identifier = kv.version.starts_with(|c: char| c.is_ascii_lowercase())
        && kv.version.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if !identifier {
        bail!(
            "{source}: {crd}: version {} cannot be imported: rop names a version's Rust module after it, so it must be lower-case letters, digits and `_` (v1, v1beta1); import the other versions with --group-version-kinds",
            kv.version
        );
    }
    Ok(())
}

fn check_project(
    project: &Project,
    kv: &KindVersion,
    group: &str,
    force: bool,
    types_only: bool,
) -> anyhow::Result<()> {
    if let Some(r) = project.find(group, &kv.version, &kv.kind)
        && r.api.is_some()
        && !force
    {
        bail!(
            "{}/{} {} already exists in PROJECT: pass --force to replace its types with the imported ones (their edits are lost)",
            kv.group,
            kv.version,
            kv.kind
        );
    }
    // Types of a CRD the project consumes live in a module of their group in any project, as
    // kubebuilder's external APIs leave the project's layout alone.
    if !project.multigroup
        && !types_only
        && let Some(other) = project.resources.iter().find(|r| !r.core && !r.external && r.group != group)
    {
        bail!(
            "this project has group \"{}\" and is not multigroup, so it cannot also hold {}: run `rop edit --multigroup` first",
            other.full_group(),
            kv.group
        );
    }
    Ok(())
}

/// The inserts that make the new module part of the api crate and, unless the types are for
/// a consumed kind, of the manifests generator and the CRD kustomization.
fn register(plan: &mut Plan, project: &Project, k: &KindNames, kv: &KindVersion, header: &str) -> anyhow::Result<()> {
    let dir = k.api_dir();
    let version_mod = format!("{dir}/mod.rs");
    let mut inserts = Vec::new();
    let version_doc =
        format!("{header}//! Version `{}` of the `{}` API group.\n\n// +rop:scaffold:kinds\n", k.version, k.full_group);
    skip_if_present(plan, &version_mod, version_doc)?;
    // Types an earlier `rop create api` wrote for this kind (replaced with --force) may be
    // exported by name.
    if let Some(current) = plan.current(&version_mod)?
        && let Some(kept) = layout::without_listed_exports(&current, &k.snake)
    {
        plan.edit(&version_mod, kept);
    }
    inserts.push((version_mod, "kinds", layout::kind_exports(&k.snake)));
    let manifests = "api/src/bin/manifests.rs";
    if k.multigroup {
        let group_mod = format!("api/src/{}/mod.rs", k.group_module());
        let group_doc = format!(
            "{header}//! The `{}` API group: one module per version.\n\n// +rop:scaffold:group-versions\n",
            k.full_group
        );
        skip_if_present(plan, &group_mod, group_doc)?;
        inserts.push((group_mod, "group-versions", format!("pub mod {};", k.version)));
        inserts.push(("api/src/lib.rs".into(), "api-versions", format!("pub mod {};", k.group_module())));
        if !kv.types_only {
            let import = format!("use {}::{} as {};", project.api_crate(), k.api_module(), k.api_alias());
            inserts.push((manifests.into(), "imports", import));
        }
    } else {
        inserts.push(("api/src/lib.rs".into(), "api-versions", format!("pub mod {};", k.version)));
        if !kv.types_only {
            inserts.push((manifests.into(), "imports", format!("use {}::{};", project.api_crate(), k.version)));
        }
    }
    if !kv.types_only {
        let kind_type = format!("{}::{}", k.api_alias(), k.kind);
        let call = layout::generic_call(8, "rop::manifests::kind", &kind_type, "", ",");
        inserts.push((manifests.into(), "manifest-kinds", call));
        let crd = format!("- bases/{}_{}.yaml", k.full_group, k.plural);
        inserts.push(("config/crd/kustomization.yaml".into(), "crd-resources", crd));
        inserts.push(("config/default/kustomization.yaml".into(), "crd", "- ../crd".into()));
    }
    for (file, marker, text) in inserts {
        plan.insert(&Insert::new(&file, marker, text))?;
    }
    Ok(())
}

/// Plans `path` with `text` unless it exists (on disk or in the plan): a module another kind
/// already made.
fn skip_if_present(plan: &mut Plan, path: &str, text: String) -> anyhow::Result<()> {
    if plan.current(path)?.is_none() {
        plan.file(path, text, IfExists::Refuse);
    }
    Ok(())
}

/// `serde_json.workspace = true` in the api crate's dependencies, for `serde_json::Value`.
fn add_serde_json(plan: &mut Plan) -> anyhow::Result<()> {
    let manifest = "api/Cargo.toml";
    let Some(text) = plan.current(manifest)? else { bail!("{manifest} is missing: restore it from version control") };
    let mut doc: toml_edit::DocumentMut = text.parse().with_context(|| format!("{manifest} is not TOML"))?;
    let deps = doc["dependencies"].or_insert(toml_edit::table());
    if deps.get("serde_json").is_some() {
        return Ok(());
    }
    let mut dep = toml_edit::InlineTable::new();
    dep.insert("workspace", true.into());
    deps["serde_json"] = toml_edit::value(dep);
    if let Some(t) = deps.as_table_mut()
        && let Some(mut key) = t.key_mut("serde_json")
    {
        key.leaf_decor_mut().set_prefix("# Free-form fields of imported types (`serde_json::Value`).\n");
    }
    let text = doc.to_string().replace("serde_json = { workspace = true }", "serde_json.workspace = true");
    plan.edit(manifest, text);
    Ok(())
}

/// `source` formatted by rustfmt, run in the project so its `rustfmt.toml` applies; as it is
/// when rustfmt is not installed or fails (the code compiles either way).
fn format_rust(root: &Path, source: &str) -> String {
    use std::io::Write as _;
    let child = std::process::Command::new("rustfmt")
        .args(["--edition", "2024", "--emit", "stdout", "--quiet"])
        .current_dir(root)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn();
    let Ok(mut child) = child else {
        ui::warning(
            "rustfmt is not installed: the imported types are written unformatted (`rustup component add rustfmt`)",
        );
        return source.to_string();
    };
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(source.as_bytes());
    }
    match child.wait_with_output() {
        Ok(out) if out.status.success() && !out.stdout.is_empty() => String::from_utf8_lossy(&out.stdout).into_owned(),
        _ => source.to_string(),
    }
}

/// One `--group-version-kinds` entry.
struct Filter {
    text: String,
    group: String,
    version: Option<String>,
    kind: String,
    used: std::cell::Cell<bool>,
}

impl Filter {
    fn parse(entries: &[String]) -> anyhow::Result<Vec<Filter>> {
        entries
            .iter()
            .map(|e| {
                let parts: Vec<&str> = e.split('/').collect();
                let (group, version, kind) = match parts[..] {
                    [g, v, k] if !g.is_empty() && !v.is_empty() && !k.is_empty() => (g, Some(v), k),
                    [g, k] if !g.is_empty() && !k.is_empty() => (g, None, k),
                    _ => bail!(UsageError::new(format!(
                        "--group-version-kinds {e}: write GROUP/VERSION/KIND (cert-manager.io/v1/Certificate) or GROUP/KIND for every version"
                    ))),
                };
                Ok(Filter {
                    text: e.clone(),
                    group: group.into(),
                    version: version.map(String::from),
                    kind: kind.into(),
                    used: false.into(),
                })
            })
            .collect()
    }

    fn selects(filters: &[Filter], group: &str, version: &str, kind: &str) -> bool {
        if filters.is_empty() {
            return true;
        }
        let mut any = false;
        for f in filters {
            if f.group == group && f.kind == kind && f.version.as_deref().is_none_or(|v| v == version) {
                f.used.set(true);
                any = true;
            }
        }
        any
    }
}

/// The CRDs of one file, each version that `filters` selects read into types.
fn read_file(path: &Path, shown: &Path, filters: &[Filter], types_only: bool) -> anyhow::Result<Vec<Imported>> {
    let name = shown.display().to_string();
    let text = crate::commands::read_input(path, &name)
        .map_err(|e| UsageError::new(format!("{name}: cannot read it: {e}")))?;
    let input = rop_verify::crd_documents(&text).map_err(|e| UsageError::new(format!("{name}: {e}")))?;
    if input.crds.is_empty() {
        bail!(UsageError::new(format!(
            "{name}: no CustomResourceDefinition in it (it holds {}): rop import reads CRD YAML or JSON (apiextensions.k8s.io/v1), such as `kubectl get crd NAME -o yaml` writes",
            input.held()
        )));
    }
    let mut out = Vec::new();
    for found in input.crds {
        let crd = found.crd;
        let crd_name = crd["metadata"]["name"].as_str().unwrap_or("(unnamed)").to_string();
        let item = found.item.map(|i| format!(" items[{i}]")).unwrap_or_default();
        let at = format!("{name}: document {}{item} ({crd_name})", found.document);
        let errors: Vec<String> = rop_verify::verify_crd(&crd)
            .into_iter()
            .filter(|f| f.severity == rop_verify::Severity::Error)
            .map(|f| format!("  error[{}] {}: {}", f.rule.id(), f.path, f.message))
            .collect();
        if !errors.is_empty() {
            bail!(
                "{at}: the API server would refuse this CRD, so rop does not import it:\n{}\nfix the CRD (`rop verify {name}` says how), then import it",
                errors.join("\n")
            );
        }
        let group = crd["spec"]["group"].as_str().unwrap_or_default();
        let kind = crd["spec"]["names"]["kind"].as_str().unwrap_or_default();
        let mut versions = Vec::new();
        let mut notes = Vec::new();
        for v in crd["spec"]["versions"].as_array().into_iter().flatten() {
            let version = v["name"].as_str().unwrap_or_default();
            if Filter::selects(filters, group, version, kind) {
                versions.push(kind::read(&crd, v, &crd_name, types_only)?);
            }
        }
        if let Some(conversion) = crd["spec"].get("conversion")
            && conversion["strategy"].as_str().is_some_and(|s| s != "None")
        {
            notes.push(format!(
                "{at}: its conversion webhook is not imported: add it with `rop create webhook --group {group} --version <hub> --kind {kind} --conversion --spoke <versions>`"
            ));
        }
        if !versions.is_empty() {
            out.push(Imported { source: name.clone(), crd, versions, notes });
        }
    }
    Ok(out)
}
