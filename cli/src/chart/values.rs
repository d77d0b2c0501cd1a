//! The chart's values.yaml: defaults taken from the kustomize objects, so that the default
//! values render what config/default builds.

use serde_yaml::{Mapping, Value};

use super::objects::Context;
use crate::scaffold::templates::Templates;

/// The default values, as values.yaml's text and as a value.
pub struct Values {
    pub text: String,
    pub value: Value,
}

/// The defaults of the chart: the manager's settings from its Deployment (`manager`), the
/// switches from what config/default includes.
///
/// # Errors
/// values.yaml's template fails to render, or renders YAML that does not parse (a bug).
pub fn defaults(manager: Option<&Value>, context: &Context, templates: &Templates) -> anyhow::Result<Values> {
    let pod = manager.map(|m| &m["spec"]["template"]["spec"]).cloned().unwrap_or_default();
    let container = pod["containers"]
        .as_sequence()
        .and_then(|c| c.iter().find(|c| c["name"] == "manager").or(c.first()))
        .cloned()
        .unwrap_or_default();
    let (repository, tag) = split_image(container["image"].as_str().unwrap_or("controller:latest"));
    let switches = context.defaults;
    let mut tera = tera::Context::new();
    tera.insert("chart", &context.chart);
    tera.insert("namespace", &context.namespace);
    tera.insert("replicas", &manager.and_then(|m| m["spec"]["replicas"].as_u64()).unwrap_or(1));
    tera.insert("image_repository", repository);
    tera.insert("image_tag", tag);
    let mut args = container["args"].clone();
    if context.has_certificate_choice() {
        // The chart adds the flag from webhook.certificates.
        if let Some(args) = args.as_sequence_mut() {
            args.retain(|a| !a.as_str().is_some_and(|a| a.starts_with("--webhook-cert-mode=")));
        }
    }
    tera.insert("args", &block(&args, Value::Sequence(Vec::new())));
    tera.insert("env", &block(&container["env"], Value::Sequence(Vec::new())));
    tera.insert("resources", &block(&container["resources"], Value::Mapping(Mapping::new())));
    tera.insert("security_context", &block(&container["securityContext"], Value::Mapping(Mapping::new())));
    tera.insert("pod_security_context", &block(&pod["securityContext"], Value::Mapping(Mapping::new())));
    tera.insert("termination_grace_period", &pod["terminationGracePeriodSeconds"].as_u64());
    tera.insert("rbac_helpers", &switches.rbac_helpers);
    tera.insert("webhook", &switches.webhook);
    tera.insert("cert_manager", &switches.cert_manager);
    let certificates = if switches.self_managed { super::objects::SELF_MANAGED } else { super::objects::CERT_MANAGER };
    tera.insert("certificates", &context.has_certificate_choice().then_some(certificates));
    tera.insert("cert_secret", context.cert_secret.as_deref().unwrap_or("webhook-server-cert"));
    tera.insert("prometheus", &switches.prometheus);
    tera.insert("network_policy", &switches.network_policy);
    let text = templates.render("helm/values.yaml.tera", &tera)?;
    let value = serde_yaml::from_str(&text).map_err(|e| anyhow::anyhow!("values.yaml does not parse: {e}"))?;
    Ok(Values { text, value })
}

/// `repository` and `tag` of an image, split as `make set-image` splits IMG: at the last `:`
/// after the last `/` (so `localhost:5000/op` has no tag); a digest stays in the repository.
fn split_image(image: &str) -> (&str, &str) {
    let last = image.rsplit('/').next().unwrap_or(image);
    match last.rsplit_once(':') {
        Some((_, tag)) if !image.contains('@') => (&image[..image.len() - tag.len() - 1], tag),
        _ => (image, ""),
    }
}

/// `value` (or `empty` when it is missing) as YAML lines indented under a key of `manager:`.
fn block(value: &Value, empty: Value) -> String {
    let value = if value.is_null() { &empty } else { value };
    let text = super::emit::yaml(value);
    text.lines().map(|line| format!("    {line}")).collect::<Vec<_>>().join("\n")
}

/// What `kept` (a values.yaml on disk) lacks of `defaults`: keys it does not have, switches it
/// has off that config/default has on, and the manager's flags and environment variables it
/// has not got. One line each.
pub fn missing(kept: &str, defaults: &Value) -> Vec<String> {
    let kept = match serde_yaml::from_str::<Value>(kept) {
        Ok(kept) => kept,
        Err(e) => return vec![format!("it is not YAML ({e}), so Helm cannot read it either")],
    };
    let mut out = Vec::new();
    walk("", defaults, &kept, &mut out);
    out
}

fn walk(path: &str, default: &Value, kept: &Value, out: &mut Vec<String>) {
    match default {
        Value::Mapping(map) => {
            for (key, value) in map {
                let key = key.as_str().unwrap_or_default();
                let path = if path.is_empty() { key.to_string() } else { format!("{path}.{key}") };
                match kept.get(key) {
                    None => out.push(format!("{path} is missing (default: {})", inline(value))),
                    Some(kept) => walk(&path, value, kept, out),
                }
            }
        }
        Value::Sequence(items) if path == "manager.env" || path == "manager.args" => {
            let kept = kept.as_sequence().cloned().unwrap_or_default();
            let names = |item: &Value| item.get("name").cloned().unwrap_or_else(|| item.clone());
            for item in items.iter().filter(|item| !kept.iter().any(|k| names(k) == names(item))) {
                out.push(format!("{path} has no {}", inline(&names(item))));
            }
        }
        Value::Bool(true) if path.ends_with(".enabled") && kept == &Value::Bool(false) => {
            out.push(format!("{path} is false, but config/default has it"));
        }
        _ => {}
    }
}

/// `value` as one line of YAML (flow style for lists and maps).
fn inline(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_default().trim_matches('"').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_split_as_make_set_image_splits_them() {
        assert_eq!(split_image("controller:latest"), ("controller", "latest"));
        assert_eq!(split_image("localhost:5000/op"), ("localhost:5000/op", ""));
        assert_eq!(split_image("localhost:5000/op:v1"), ("localhost:5000/op", "v1"));
        assert_eq!(split_image("op@sha256:abc"), ("op@sha256:abc", ""));
    }

    #[test]
    fn a_kept_values_file_is_told_what_it_lacks() {
        let defaults: Value = serde_yaml::from_str(
            "manager:\n  env:\n  - name: A\n    value: a\n  - name: B\n    value: b\n  args: [--x, --y]\nwebhook:\n  enabled: true\nprometheus:\n  enabled: false\n",
        )
        .unwrap();
        let kept = "manager:\n  env:\n  - name: A\n    value: changed\n  args: [--x]\nwebhook:\n  enabled: false\n";
        assert_eq!(
            missing(kept, &defaults),
            [
                "manager.env has no B",
                "manager.args has no --y",
                "webhook.enabled is false, but config/default has it",
                "prometheus is missing (default: {\"enabled\":false})",
            ]
        );
    }
}
