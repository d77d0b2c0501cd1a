//! The Helm chart of a project (`rop helm`): `dist/chart/`, made from the kustomize output of
//! config/default, as kubebuilder's helm plugin makes it. Every object becomes a template
//! under `templates/`, whose names start with the release's full name where kustomize's
//! `namePrefix` was, whose namespace is the release's, and whose optional parts (webhooks,
//! cert-manager or the manager's own webhook certificate, metrics, Prometheus, NetworkPolicy,
//! CRDs) are switched by values.yaml. With
//! the default values and release `<project>` in namespace `<project>-system`, the chart
//! renders the objects kustomize builds, plus Helm's labels and its keep annotation on CRDs,
//! without the Namespace (Helm's `--create-namespace` makes it).

mod emit;
mod kustomize;
mod objects;
mod values;

use std::path::Path;

use anyhow::Context as _;

use crate::scaffold::templates::Templates;

pub use objects::HEADER;

/// The files of a chart, by path under the chart's folder.
#[derive(Debug)]
pub struct Chart {
    /// `templates/...`: written again on every run.
    pub templates: Vec<(String, String)>,
    /// `Chart.yaml`, `values.yaml`, `templates/_helpers.tpl`, `templates/NOTES.txt` and
    /// `.helmignore`: written once, then the user's (kept unless `--force`).
    pub skeleton: Vec<(String, String)>,
    /// The default values, to compare with a values.yaml that is kept.
    pub values: serde_yaml::Value,
    /// Whether object names begin with the release's name: config/default has a `namePrefix`.
    pub names_follow_release: bool,
}

/// The chart named `chart` of the project at `root`.
///
/// # Errors
/// `kubectl kustomize` fails on config/default, or a template fails to render.
pub fn build(root: &Path, chart: &str, app_version: &str, templates: &Templates) -> anyhow::Result<Chart> {
    let build = kustomize::build(root)?;
    let context = objects::Context::new(chart, &build);
    let mut files: Vec<(String, String)> = Vec::new();
    for object in with_other_certificates(&build).iter().chain(&build.optional) {
        let Some(template) = objects::template(object, &context) else { continue };
        let mut path = format!("templates/{}", template.path);
        if files.iter().any(|(p, _)| *p == path) {
            // Two objects of one name (a Role and a ClusterRole): the kind tells them apart.
            let kind = objects::kind(object).to_lowercase();
            path = format!("{}-{kind}.yaml", path.trim_end_matches(".yaml"));
        }
        files.push((path, template.text));
    }
    let manager = build.objects.iter().find(|o| objects::kind(o) == "Deployment");
    let manager_name = manager.and_then(|m| m["metadata"]["name"].as_str()).unwrap_or("controller-manager");
    let manager_suffix = manager_name.strip_prefix(&build.name_prefix).unwrap_or(manager_name);
    let values = values::defaults(manager, &context, templates)?;
    let skeleton = vec![
        ("Chart.yaml".to_string(), chart_yaml(templates, chart, app_version)?),
        ("values.yaml".to_string(), values.text),
        ("templates/_helpers.tpl".to_string(), include_str!("helpers.tpl").replace("CHART", chart)),
        (
            "templates/NOTES.txt".to_string(),
            include_str!("NOTES.txt").replace("CHART", chart).replace("MANAGER", manager_suffix),
        ),
        (".helmignore".to_string(), templates.render("helm/_helmignore", &tera::Context::new())?),
    ];
    let names_follow_release = !build.name_prefix.is_empty();
    Ok(Chart { templates: files, skeleton, values: values.value, names_follow_release })
}

/// The objects of config/default, and with config/webhook-self-managed those only the other
/// way to the certificate has (cert-manager's Issuer and Certificate, or the manager's Secret
/// and RBAC), each template switched by `webhook.certificates`. An object both have gets
/// cert-manager's CA injection annotation from the cert-manager build.
fn with_other_certificates(build: &kustomize::Build) -> Vec<serde_yaml::Value> {
    let mut objects = build.objects.clone();
    let Some(other) = &build.certificates else { return objects };
    let key = |o: &serde_yaml::Value| (o["kind"].clone(), o["metadata"]["name"].clone());
    for object in &other.objects {
        match objects.iter_mut().find(|o| key(o) == key(object)) {
            Some(ours) if other.self_managed => {
                let inject = &object["metadata"]["annotations"][objects::INJECT_CA];
                if !inject.is_null() {
                    let metadata = ours["metadata"].as_mapping_mut().expect("an object has metadata");
                    let empty = || serde_yaml::Value::Mapping(serde_yaml::Mapping::new());
                    if let Some(annotations) =
                        metadata.entry("annotations".into()).or_insert_with(empty).as_mapping_mut()
                    {
                        annotations.insert(objects::INJECT_CA.into(), inject.clone());
                    }
                }
            }
            Some(_) => {}
            None => objects.push(object.clone()),
        }
    }
    objects
}

fn chart_yaml(templates: &Templates, chart: &str, app_version: &str) -> anyhow::Result<String> {
    let mut context = tera::Context::new();
    context.insert("chart", chart);
    context.insert("app_version", app_version);
    templates.render("helm/Chart.yaml.tera", &context).context("rendering Chart.yaml")
}

/// What a kept values.yaml lacks that the defaults have now, one line each (a switch or
/// setting added since, an environment variable or flag config/manager gained).
pub fn missing_values(kept: &str, chart: &Chart) -> Vec<String> {
    values::missing(kept, &chart.values)
}
