//! The objects a chart is made from: `kubectl kustomize config/default`, plus the optional
//! parts config/default leaves commented out (the Prometheus ServiceMonitor, the metrics
//! NetworkPolicy), built with config/default's namespace and name prefix so that the chart can
//! offer them behind a value, and config/default built with config/webhook-self-managed
//! switched the other way, for the chart's choice of webhook certificate.

use std::path::Path;
use std::process::Command;

use anyhow::{Context as _, bail};
use serde::Deserialize as _;
use serde_yaml::Value;

/// The optional kustomize folders the chart offers even when config/default does not include them.
pub const OPTIONAL: [&str; 2] = ["config/prometheus", "config/network-policy"];

/// The kustomize output of a project.
#[derive(Debug)]
pub struct Build {
    /// Every object of `kubectl kustomize config/default`, in its order.
    pub objects: Vec<Value>,
    /// Objects of [`OPTIONAL`] folders that config/default does not include.
    pub optional: Vec<Value>,
    /// config/default's `namespace`.
    pub namespace: String,
    /// config/default's `namePrefix` (`<project>-`), or empty.
    pub name_prefix: String,
    /// config/default built the other way round for the webhook certificates, when the project
    /// has config/webhook-self-managed.
    pub certificates: Option<Variant>,
}

/// The folder of the kustomize component that has the manager issue its own webhook
/// certificate instead of cert-manager.
pub const SELF_MANAGED: &str = "config/webhook-self-managed";

/// config/default with [`SELF_MANAGED`] switched the other way: on when config/default has it
/// off, off when on.
#[derive(Debug)]
pub struct Variant {
    /// Whether config/default itself has the component on.
    pub self_managed: bool,
    /// Every object of the other build.
    pub objects: Vec<Value>,
}

/// Builds config/default of the project at `root` with `kubectl` (`$KUBECTL`, else `kubectl`
/// on PATH, whose built-in kustomize the Makefile uses too).
///
/// # Errors
/// kubectl is missing or fails (the kustomization does not build), or its output is not YAML.
pub fn build(root: &Path) -> anyhow::Result<Build> {
    let default = root.join("config/default");
    let kustomization = std::fs::read_to_string(default.join("kustomization.yaml")).with_context(|| {
        format!("cannot read {}: a chart is built from it", default.join("kustomization.yaml").display())
    })?;
    let kustomization: Value =
        serde_yaml::from_str(&kustomization).context("config/default/kustomization.yaml is not YAML")?;
    let namespace = kustomization["namespace"].as_str().unwrap_or("default").to_string();
    let name_prefix = kustomization["namePrefix"].as_str().unwrap_or_default().to_string();
    let objects = documents(&kustomize(root, &default, &[])?)?;

    let mut optional = Vec::new();
    let missing: Vec<&str> = OPTIONAL
        .into_iter()
        .filter(|folder| root.join(folder).join("kustomization.yaml").is_file())
        .filter(|folder| !includes(&kustomization, folder))
        .collect();
    if !missing.is_empty() {
        // A kustomization of the optional folders with config/default's namespace, prefix and
        // labels, in a temporary folder: it names them by a relative path out of that folder
        // (kustomize takes no absolute folder paths), which it allows only without its load
        // restrictor.
        let dir = tempfile::tempdir().context("cannot create a temporary folder")?;
        let from = dir.path().canonicalize().context("cannot resolve the temporary folder")?;
        let root = root.canonicalize().with_context(|| format!("cannot resolve {}", root.display()))?;
        let mut overlay = serde_yaml::Mapping::new();
        for key in ["namespace", "namePrefix", "labels", "commonLabels"] {
            if let Some(value) = kustomization.get(key) {
                overlay.insert(key.into(), value.clone());
            }
        }
        let resources = missing.iter().map(|folder| Value::String(relative(&from, &root.join(folder))));
        overlay.insert("resources".into(), Value::Sequence(resources.collect()));
        std::fs::write(dir.path().join("kustomization.yaml"), super::emit::yaml(&Value::Mapping(overlay)))
            .context("cannot write a temporary kustomization")?;
        optional = documents(&kustomize(&root, dir.path(), &["--load-restrictor", "LoadRestrictionsNone"])?)?;
    }
    let certificates = variant(root, &kustomization)?;
    Ok(Build { objects, optional, namespace, name_prefix, certificates })
}

/// The other certificate variant of config/default (see [`Variant`]), built from a copy of
/// config/ whose config/default lists the component, or does not; `None` for a project
/// without the component.
fn variant(root: &Path, kustomization: &Value) -> anyhow::Result<Option<Variant>> {
    if !root.join(SELF_MANAGED).join("kustomization.yaml").is_file() {
        return Ok(None);
    }
    let name = SELF_MANAGED.rsplit('/').next().unwrap_or(SELF_MANAGED);
    let ours = |c: &Value| c.as_str().is_some_and(|c| c.trim_end_matches('/').rsplit('/').next() == Some(name));
    let mut components = kustomization["components"].as_sequence().cloned().unwrap_or_default();
    let self_managed = components.iter().any(ours);
    if self_managed {
        components.retain(|c| !ours(c));
    } else {
        let roles = root.join(rop::manifests::WEBHOOK_CERT_ROLES);
        if !roles.is_file() {
            bail!(
                "{} is missing: run `rop generate` (`make manifests`) first, which writes it; the chart offers {SELF_MANAGED} with it",
                rop::manifests::WEBHOOK_CERT_ROLES
            );
        }
        components.push(Value::String(format!("../{name}")));
    }
    let dir = tempfile::tempdir().context("cannot create a temporary folder")?;
    copy_tree(&root.join("config"), &dir.path().join("config"))?;
    let mut toggled = kustomization.clone();
    toggled["components"] = Value::Sequence(components);
    std::fs::write(dir.path().join("config/default/kustomization.yaml"), super::emit::yaml(&toggled))
        .context("cannot write a temporary kustomization")?;
    let switched = if self_managed { "off" } else { "on" };
    let text = kustomize(dir.path(), &dir.path().join("config/default"), &[])
        .with_context(|| format!("config/default with {SELF_MANAGED} switched {switched} does not build"))?;
    Ok(Some(Variant { self_managed, objects: documents(&text)? }))
}

/// Copies the folder `from` to `to`, following links.
fn copy_tree(from: &Path, to: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(to).with_context(|| format!("cannot create {}", to.display()))?;
    for entry in std::fs::read_dir(from).with_context(|| format!("cannot read {}", from.display()))? {
        let path = entry?.path();
        let target = to.join(path.file_name().expect("an entry has a name"));
        if path.is_dir() {
            copy_tree(&path, &target)?;
        } else {
            std::fs::copy(&path, &target).with_context(|| format!("cannot copy {}", path.display()))?;
        }
    }
    Ok(())
}

/// The path of `to` from folder `from`, both absolute: `../../project/config/prometheus`.
fn relative(from: &Path, to: &Path) -> String {
    let from: Vec<_> = from.components().collect();
    let to: Vec<_> = to.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let up = std::iter::repeat_n("..".to_string(), from.len() - common);
    let down = to[common..].iter().map(|c| c.as_os_str().to_string_lossy().into_owned());
    up.chain(down).collect::<Vec<_>>().join("/")
}

/// Whether `kustomization`'s resources name `folder` (`config/prometheus` as `../prometheus`).
fn includes(kustomization: &Value, folder: &str) -> bool {
    let name = folder.rsplit('/').next().unwrap_or(folder);
    kustomization["resources"].as_sequence().is_some_and(|r| {
        r.iter().filter_map(Value::as_str).any(|r| r.trim_end_matches('/').rsplit('/').next() == Some(name))
    })
}

fn kustomize(root: &Path, dir: &Path, flags: &[&str]) -> anyhow::Result<String> {
    // The Makefile's KUBECTL may carry flags (`kubectl --kubeconfig k`): the first word runs.
    let kubectl = std::env::var("KUBECTL").ok().filter(|k| !k.trim().is_empty()).unwrap_or_else(|| "kubectl".into());
    let mut words = kubectl.split_whitespace();
    let program = words.next().unwrap_or("kubectl");
    let output = Command::new(program)
        .args(words)
        .arg("kustomize")
        .args(flags)
        .arg(dir)
        .current_dir(root)
        .output()
        .with_context(|| {
            format!("cannot run `{kubectl} kustomize`: install kubectl (its built-in kustomize builds config/) or set KUBECTL")
        })?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let why = match stderr.trim() {
            "" => format!("it printed nothing and exited with {}", output.status),
            text => text.lines().map(str::trim).collect::<Vec<_>>().join(" "),
        };
        bail!("`{kubectl} kustomize {}` failed: {why}", dir.strip_prefix(root).unwrap_or(dir).display());
    }
    String::from_utf8(output.stdout).context("kustomize printed something that is not UTF-8")
}

fn documents(text: &str) -> anyhow::Result<Vec<Value>> {
    let mut objects = Vec::new();
    for document in serde_yaml::Deserializer::from_str(text) {
        let value = Value::deserialize(document).context("kustomize printed YAML that does not parse")?;
        if !value.is_null() {
            objects.push(value);
        }
    }
    Ok(objects)
}
