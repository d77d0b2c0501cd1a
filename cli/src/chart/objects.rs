//! One kustomize object to one chart template: which value switches it on, where its file goes,
//! and which of its parts come from values.yaml, the release's name and its namespace.

use std::collections::BTreeSet;

use serde_yaml::{Mapping, Value};

use super::emit::{Emitter, NINDENT};
use super::kustomize::Build;

/// The first line of every template `rop helm` writes; a template without it is the user's and
/// is never replaced or removed.
pub const HEADER: &str = "# Written by `rop helm` from config/ (kubectl kustomize config/default): changes here are replaced on the next run.";

/// What the objects of a build are, for the templates and the default values.
#[derive(Debug)]
pub struct Context {
    /// The chart's name, which prefixes its named templates (`<chart>.labels`).
    pub chart: String,
    pub(super) namespace: String,
    name_prefix: String,
    /// The names kustomize prefixed: every object's name that starts with the prefix.
    names: BTreeSet<String>,
    /// The Service webhook configurations and conversion webhooks call.
    webhook_service: Option<String>,
    /// The Secret cert-manager writes the webhook serving certificate into.
    pub(super) cert_secret: Option<String>,
    /// The manager's volume of the webhook serving certificate's Secret.
    cert_volume: Option<String>,
    /// The two ways to the webhook certificate, when the project has config/webhook-self-managed.
    certificates: Option<Certificates>,
    /// What config/default includes, which the switches in values.yaml default to.
    pub defaults: Switches,
}

/// What differs between config/default with cert-manager and with config/webhook-self-managed.
#[derive(Debug)]
struct Certificates {
    /// Kinds and names of the objects only the self-managed build has: its Secret and RBAC.
    self_managed_only: BTreeSet<(String, String)>,
    /// The Secret the manager's certificate volume mounts with cert-manager, and self-managed.
    secrets: (Option<String>, Option<String>),
}

/// The parts of the chart values.yaml switches on and off.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Switches {
    pub webhook: bool,
    pub cert_manager: bool,
    pub prometheus: bool,
    pub network_policy: bool,
    pub rbac_helpers: bool,
    /// config/default has config/webhook-self-managed on (`webhook.certificates`).
    pub self_managed: bool,
}

/// `webhook.certificates`: the manager issues its own webhook certificate.
pub const SELF_MANAGED: &str = "self-managed";
/// `webhook.certificates`: cert-manager issues it.
pub const CERT_MANAGER: &str = "cert-manager";

impl Context {
    /// The context of `build`, for a chart named `chart`.
    pub fn new(chart: &str, build: &Build) -> Context {
        let other = build.certificates.as_ref().map(|v| v.objects.as_slice()).unwrap_or_default();
        let all = || build.objects.iter().chain(&build.optional).chain(other);
        let names = all()
            .filter(|o| !build.name_prefix.is_empty() && kind(o) != "Namespace")
            .filter_map(|o| o["metadata"]["name"].as_str())
            .filter(|n| n.starts_with(&build.name_prefix))
            .map(str::to_string)
            .collect();
        let webhook_service = all()
            .find_map(|o| {
                let config = o["webhooks"][0]["clientConfig"]["service"]["name"].as_str();
                config.or(o["spec"]["conversion"]["webhook"]["clientConfig"]["service"]["name"].as_str())
            })
            .map(str::to_string);
        let cert_secret = all()
            .find(|o| group(o) == "cert-manager.io" && kind(o) == "Certificate")
            .and_then(|o| o["spec"]["secretName"].as_str())
            .map(str::to_string);
        let included = |f: &dyn Fn(&Value) -> bool| build.objects.iter().any(f);
        let self_managed = build.certificates.as_ref().is_some_and(|v| v.self_managed);
        // The build with cert-manager, and the one without (when the project has both).
        let (with_cert_manager, without) = match &build.certificates {
            Some(v) if v.self_managed => (&v.objects[..], Some(&build.objects[..])),
            Some(v) => (&build.objects[..], Some(&v.objects[..])),
            None => (&build.objects[..], None),
        };
        let cert_volume = manager_of(&build.objects).and_then(|manager| {
            let volumes = manager["spec"]["template"]["spec"]["volumes"].as_sequence()?;
            let secrets: Vec<&str> = [cert_secret.as_deref(), Some(CERT_SECRET_SUFFIX)].into_iter().flatten().collect();
            let mounts = |v: &&Value| {
                v["secret"]["secretName"]
                    .as_str()
                    .is_some_and(|s| secrets.iter().any(|c| s == *c || s.ends_with(&format!("-{c}"))))
            };
            volumes.iter().find(mounts).and_then(|v| v["name"].as_str()).map(str::to_string)
        });
        let certificates = without.map(|without| {
            let keys = |objects: &[Value]| -> BTreeSet<(String, String)> {
                objects
                    .iter()
                    .map(|o| (kind(o).to_string(), o["metadata"]["name"].as_str().unwrap_or_default().to_string()))
                    .collect()
            };
            let secret = |objects: &[Value]| {
                let volumes = manager_of(objects)?["spec"]["template"]["spec"]["volumes"].as_sequence()?;
                let volume = volumes.iter().find(|v| v["name"].as_str() == cert_volume.as_deref())?;
                volume["secret"]["secretName"].as_str().map(str::to_string)
            };
            Certificates {
                self_managed_only: keys(without).difference(&keys(with_cert_manager)).cloned().collect(),
                secrets: (secret(with_cert_manager), secret(without)),
            }
        });
        let defaults = Switches {
            webhook: webhook_service.is_some(),
            cert_manager: with_cert_manager.iter().any(|o| group(o) == "cert-manager.io"),
            prometheus: included(&|o| kind(o) == "ServiceMonitor"),
            network_policy: included(&|o| kind(o) == "NetworkPolicy"),
            rbac_helpers: included(&|o| is_helper_role(o, &build.name_prefix)),
            self_managed,
        };
        Context {
            chart: chart.to_string(),
            namespace: build.namespace.clone(),
            name_prefix: build.name_prefix.clone(),
            names,
            webhook_service,
            cert_secret,
            cert_volume,
            certificates,
            defaults,
        }
    }

    /// Whether the chart offers both ways to the webhook certificate (`webhook.certificates`).
    pub fn has_certificate_choice(&self) -> bool {
        self.certificates.is_some()
    }

    /// `webhook.certificates` as a Go-template expression, whose default (for a values.yaml
    /// written before it) is config/default's.
    fn certificates_value(&self) -> String {
        let default = if self.defaults.self_managed { SELF_MANAGED } else { CERT_MANAGER };
        format!("(.Values.webhook.certificates | default \"{default}\")")
    }

    /// The Go-template test that the webhook certificate is self-managed.
    fn self_managed(&self) -> String {
        format!("eq {} \"{SELF_MANAGED}\"", self.certificates_value())
    }

    /// The condition of cert-manager's objects and CA injection.
    fn cert_manager(&self) -> String {
        match self.certificates {
            Some(_) => format!(
                "and .Values.webhook.enabled .Values.certManager.enabled (ne {} \"{SELF_MANAGED}\")",
                self.certificates_value()
            ),
            None => "and .Values.webhook.enabled .Values.certManager.enabled".to_string(),
        }
    }

    /// The Go-template text of a prefixed name: the release's full name, then the rest.
    fn name(&self, prefixed: &str) -> String {
        let suffix = &prefixed[self.name_prefix.len()..];
        format!("{{{{ include \"{}.resourceName\" (dict \"suffix\" \"{suffix}\" \"context\" $) }}}}", self.chart)
    }

    /// `text` with the prefixed names and the namespace in it (whole, or as parts between
    /// `.` and `/`, as in `svc.ns.svc` and `ns/certificate`) written as Go-template text, or
    /// `None` when it holds neither.
    fn templated(&self, text: &str) -> Option<String> {
        if self.names.contains(text) {
            return Some(self.name(text));
        }
        let mut out = String::new();
        let mut changed = false;
        for part in text.split_inclusive(['.', '/']) {
            let (word, delimiter) = match part.strip_suffix(['.', '/']) {
                Some(word) => (word, &part[word.len()..]),
                None => (part, ""),
            };
            if word == self.namespace {
                out.push_str("{{ .Release.Namespace }}");
                changed = true;
            } else if self.names.contains(word) {
                out.push_str(&self.name(word));
                changed = true;
            } else {
                out.push_str(word);
            }
            out.push_str(delimiter);
        }
        changed.then_some(out)
    }

    /// Replaces every string in `value` that names a prefixed object or the namespace.
    fn template_strings(&self, value: &mut Value, emitter: &mut Emitter) {
        match value {
            Value::String(text) => {
                if let Some(expression) = self.templated(text) {
                    *value = emitter.inline(expression);
                }
            }
            Value::Sequence(items) => items.iter_mut().for_each(|v| self.template_strings(v, emitter)),
            Value::Mapping(map) => map.values_mut().for_each(|v| self.template_strings(v, emitter)),
            _ => {}
        }
    }
}

/// One chart template: its path under `templates/` and its text.
#[derive(Debug, PartialEq, Eq)]
pub struct Template {
    pub path: String,
    pub text: String,
}

/// The template of `object`, or `None` for an object the chart leaves out: the Namespace,
/// which Helm creates (`helm install --create-namespace`) and which holds the release.
pub fn template(object: &Value, context: &Context) -> Option<Template> {
    let mut object = object.clone();
    escape_actions(&mut object);
    let mut emitter = Emitter::default();
    let (folder, condition) = place(&object, context)?;
    let name = object["metadata"]["name"].as_str().unwrap_or("object").to_string();
    // Actions before the object (variables it uses).
    let mut prelude = String::new();
    match (group(&object), kind(&object)) {
        ("apiextensions.k8s.io", "CustomResourceDefinition") => crd(&mut object, context, &mut emitter),
        ("apps", "Deployment") if folder == "manager" => {
            context.template_strings(&mut object, &mut emitter);
            manager(&mut object, context, &mut emitter);
            if context.certificates.is_some() {
                prelude = self_managed_args(context);
            }
        }
        _ => {
            for (key, part) in object.as_mapping_mut().expect("an object is a mapping") {
                if key != "apiVersion" && key != "kind" {
                    context.template_strings(part, &mut emitter);
                }
            }
            annotations(&mut object, &[], &context.cert_manager(), &mut emitter);
        }
    }
    labels(&mut object, context, &mut emitter);
    let body = format!("{prelude}{}", emitter.render(&object));
    let text = match condition {
        Some(condition) => format!("{HEADER}\n{{{{- if {condition} }}}}\n{body}{{{{- end }}}}\n"),
        None => format!("{HEADER}\n{body}"),
    };
    let file = name.strip_prefix(&context.name_prefix).filter(|_| kind(&object) != "CustomResourceDefinition");
    Some(Template { path: format!("{folder}/{}.yaml", file.unwrap_or(&name)), text })
}

/// Writes every `{{` in `value`'s strings and keys (a description with `{{ .Name }}`, a
/// ConfigMap of Go templates) as the template action that prints it, so that Helm renders it
/// as it was.
fn escape_actions(value: &mut Value) {
    match value {
        Value::String(text) if text.contains("{{") => *text = text.replace("{{", "{{`{{`}}"),
        Value::Sequence(items) => items.iter_mut().for_each(escape_actions),
        Value::Mapping(map) => {
            let entries = std::mem::take(map);
            for (mut key, mut value) in entries {
                escape_actions(&mut key);
                escape_actions(&mut value);
                map.insert(key, value);
            }
        }
        _ => {}
    }
}

/// The folder of `object`'s template and the value that switches it on.
fn place(object: &Value, context: &Context) -> Option<(&'static str, Option<String>)> {
    let name = object["metadata"]["name"].as_str().unwrap_or_default();
    let key = (kind(object).to_string(), name.to_string());
    if context.certificates.as_ref().is_some_and(|c| c.self_managed_only.contains(&key)) {
        let condition = format!("and .Values.webhook.enabled ({})", context.self_managed());
        return Some(("webhook-self-managed", Some(condition)));
    }
    let (folder, condition) = match (group(object), kind(object)) {
        ("cert-manager.io", _) => return Some(("cert-manager", Some(context.cert_manager()))),
        _ => place_by_kind(object, context, name)?,
    };
    Some((folder, condition.map(str::to_string)))
}

/// [`place`] for the objects of both builds.
fn place_by_kind(object: &Value, context: &Context, name: &str) -> Option<(&'static str, Option<&'static str>)> {
    Some(match (group(object), kind(object)) {
        ("", "Namespace") => return None,
        ("apiextensions.k8s.io", "CustomResourceDefinition") => ("crd", Some(".Values.crd.enabled")),
        ("admissionregistration.k8s.io", _) => ("webhook", Some(".Values.webhook.enabled")),
        ("monitoring.coreos.com", _) => ("prometheus", Some("and .Values.metrics.enabled .Values.prometheus.enabled")),
        ("networking.k8s.io", "NetworkPolicy") if name.contains("metrics") => {
            ("network-policy", Some("and .Values.metrics.enabled .Values.networkPolicy.enabled"))
        }
        ("networking.k8s.io", "NetworkPolicy") => ("network-policy", Some(".Values.networkPolicy.enabled")),
        ("", "Service") if context.webhook_service.as_deref() == Some(name) => {
            ("webhook", Some(".Values.webhook.enabled"))
        }
        ("", "Service") if name.ends_with("metrics-service") => ("metrics", Some(".Values.metrics.enabled")),
        ("rbac.authorization.k8s.io", _) if is_helper_role(object, &context.name_prefix) => {
            ("rbac", Some(".Values.rbac.helpers.enabled"))
        }
        ("rbac.authorization.k8s.io", _) | ("", "ServiceAccount") => ("rbac", None),
        ("apps", "Deployment") if object["metadata"]["labels"]["control-plane"] == "controller-manager" => {
            ("manager", None)
        }
        _ => ("other", None),
    })
}

/// A CRD: kept on uninstall when `crd.keep`, its conversion webhook only with the webhooks.
fn crd(object: &mut Value, context: &Context, emitter: &mut Emitter) {
    let conversion = object["spec"]["conversion"].clone();
    if conversion["strategy"] == "Webhook" {
        let mut conversion = conversion;
        context.template_strings(&mut conversion, emitter);
        let token = emitter.conditional_entry(".Values.webhook.enabled", "conversion", &conversion);
        replace_key(object["spec"].as_mapping_mut().expect("a CRD has a spec"), "conversion", token);
    }
    context.template_strings(&mut object["metadata"], emitter);
    let keep = [(".Values.crd.keep", "helm.sh/resource-policy", "keep")];
    annotations(object, &keep, &context.cert_manager(), emitter);
}

/// The annotation cert-manager injects its CA by, which needs cert-manager.
pub const INJECT_CA: &str = "cert-manager.io/inject-ca-from";

/// Rewrites `object`'s annotations: cert-manager's CA injection only when `cert_manager` holds,
/// and `extra` annotations `(condition, key, value)` only when their condition holds. When every
/// annotation is conditional, so is the `annotations` key (an empty `annotations:` is null).
fn annotations(object: &mut Value, extra: &[(&str, &str, &str)], cert_manager: &str, emitter: &mut Emitter) {
    let metadata = object["metadata"].as_mapping_mut().expect("an object has metadata");
    let existing = metadata.get("annotations").and_then(Value::as_mapping).cloned().unwrap_or_default();
    let mut plain = Mapping::new();
    let mut conditional: Vec<(&str, Value, Value)> = Vec::new();
    for (key, value) in existing {
        if key == INJECT_CA {
            // The Certificate it names is there only with cert-manager.
            conditional.push((cert_manager, key, value));
        } else {
            plain.insert(key, value);
        }
    }
    conditional
        .extend(extra.iter().map(|(condition, key, value)| (*condition, Value::from(*key), Value::from(*value))));
    let token = match (plain.is_empty(), conditional.as_slice()) {
        (_, []) => return,
        (true, [(condition, key, value)]) => {
            let mut one = Mapping::new();
            one.insert(key.clone(), value.clone());
            emitter.conditional_entry(condition, "annotations", &Value::Mapping(one))
        }
        (all_conditional, many) => {
            for (condition, key, value) in many {
                let key = key.as_str().expect("annotation keys are strings");
                plain.insert(emitter.conditional_entry(condition, key, value), Value::Null);
            }
            if !all_conditional {
                metadata.insert("annotations".into(), Value::Mapping(plain));
                return;
            }
            let any = many.iter().map(|(condition, ..)| format!("({condition})")).collect::<Vec<_>>().join(" ");
            emitter.conditional_entry(&format!("or {any}"), "annotations", &Value::Mapping(plain))
        }
    };
    match metadata.contains_key("annotations") {
        true => replace_key(metadata, "annotations", token),
        false => insert_after(metadata, "", token),
    }
}

/// Helm's labels on every object, in place of kustomize's `app.kubernetes.io/managed-by`.
fn labels(object: &mut Value, context: &Context, emitter: &mut Emitter) {
    let metadata = object["metadata"].as_mapping_mut().expect("an object has metadata");
    let labels = metadata.entry("labels".into()).or_insert_with(|| Value::Mapping(Mapping::new()));
    let labels = labels.as_mapping_mut().expect("labels are a mapping");
    labels.remove("app.kubernetes.io/managed-by");
    let helm = emitter.lines(format!("{{{{- include \"{}.labels\" $ | nindent {{column}} }}}}", context.chart));
    labels.insert(helm, Value::Null);
}

/// The manager's Deployment: replicas, image, flags, environment, resources, security
/// contexts and scheduling from values.yaml; the webhook port and certificate only with the
/// webhooks.
fn manager(object: &mut Value, context: &Context, emitter: &mut Emitter) {
    let to_yaml = |path: &str| format!("{{{{- toYaml .Values.manager.{path} | nindent {NINDENT} }}}}");
    object["spec"]["replicas"] = emitter.inline("{{ .Values.manager.replicas }}");
    let pod = &mut object["spec"]["template"]["spec"];
    let webhook = ".Values.webhook.enabled";
    let cert_volume = context.cert_volume.as_deref();
    // The webhook server's volumes: its serving certificate, and the client CA of
    // config/default/manager_webhook_client_ca_patch.yaml when that is switched on.
    let webhook_volume = |item: &Value| {
        let name = item["name"].as_str();
        name.is_some() && (name == cert_volume || name == Some("webhook-client-ca"))
    };
    if let Some(certificates) = &context.certificates {
        // The Secret the certificate volume mounts: cert-manager's, or the manager's own.
        let mut volumes = pod["volumes"].as_sequence_mut().into_iter().flatten();
        if let Some(volume) = volumes.find(|v| v["name"].as_str() == cert_volume) {
            let secret = |name: &Option<String>| {
                let name = name.as_deref().unwrap_or(CERT_SECRET_SUFFIX);
                context.templated(name).unwrap_or_else(|| name.to_string())
            };
            let (cert_manager, own) = (secret(&certificates.secrets.0), secret(&certificates.secrets.1));
            let expression =
                format!("{{{{ if {} }}}}{own}{{{{ else }}}}{cert_manager}{{{{ end }}}}", context.self_managed());
            volume["secret"]["secretName"] = emitter.inline(expression);
        }
    }
    if let Some(containers) = pod["containers"].as_sequence_mut() {
        let index = containers.iter().position(|c| c["name"] == "manager").unwrap_or(0);
        if let Some(container) = containers.get_mut(index).and_then(Value::as_mapping_mut) {
            let args = match &context.certificates {
                // With the flags of self_managed_args.
                Some(_) => format!(
                    "{{{{- toYaml (concat (.Values.manager.args | default list) $certificates) | nindent {NINDENT} }}}}"
                ),
                None => to_yaml("args"),
            };
            container.insert("args".into(), emitter.inline(args));
            let image =
                "\"{{ .Values.manager.image.repository }}{{ with .Values.manager.image.tag }}:{{ . }}{{ end }}\"";
            container.insert("image".into(), emitter.inline(image));
            let pull =
                emitter.lines("{{- with .Values.manager.image.pullPolicy }}\nimagePullPolicy: {{ . }}\n{{- end }}");
            insert_after(container, "image", pull);
            let mut env =
                "env:\n{{- with .Values.manager.env }}\n{{- toYaml . | nindent {column} }}\n{{- end }}".to_string();
            if context.defaults.webhook {
                env.push_str(&format!(
                    "\n{{{{- if not {webhook} }}}}\n- name: ENABLE_WEBHOOKS\n  value: \"false\"\n{{{{- end }}}}"
                ));
            }
            let env = emitter.lines(env);
            match container.contains_key("env") {
                true => replace_key(container, "env", env),
                false => insert_after(container, "command", env),
            };
            container.insert("resources".into(), emitter.inline(to_yaml("resources")));
            container.insert("securityContext".into(), emitter.inline(to_yaml("securityContext")));
            gate_items(container.get_mut("ports"), webhook, emitter, |p| p["name"] == "webhook-server");
            gate_items(container.get_mut("volumeMounts"), webhook, emitter, webhook_volume);
        }
    }
    gate_items(pod.get_mut("volumes"), webhook, emitter, webhook_volume);
    let pod = pod.as_mapping_mut().expect("a pod spec is a mapping");
    pod.insert("securityContext".into(), emitter.inline(to_yaml("podSecurityContext")));
    if pod.contains_key("terminationGracePeriodSeconds") {
        pod.insert(
            "terminationGracePeriodSeconds".into(),
            emitter.inline("{{ .Values.manager.terminationGracePeriodSeconds }}"),
        );
    }
    for key in ["imagePullSecrets", "nodeSelector", "affinity", "tolerations", "topologySpreadConstraints"] {
        let block = format!(
            "{{{{- with .Values.manager.{key} }}}}\n{key}: {{{{- toYaml . | nindent {NINDENT} }}}}\n{{{{- end }}}}"
        );
        pod.insert(emitter.lines(block), Value::Null);
    }
    pod.insert(
        emitter.lines("{{- with .Values.manager.priorityClassName }}\npriorityClassName: {{ . | quote }}\n{{- end }}"),
        Value::Null,
    );
}

/// The lines before the manager's Deployment that check `webhook.certificates` and set
/// `$certificates`, the flags the manager's `args` end with: with a self-managed certificate
/// the flag for it and, when the release's names are not config/default's, their prefix, by
/// which the manager finds its Secret, Service and webhook configurations. The names of the
/// objects it finds must share one prefix, so the full name may be at most [`FULLNAME_ROOM`]
/// characters, which leaves `-validating-webhook-configuration` room in 63.
fn self_managed_args(context: &Context) -> String {
    let chart = &context.chart;
    let fullname = format!("(include \"{chart}.fullname\" $)");
    let value = context.certificates_value();
    [
        format!("{{{{- if not (has {value} (list \"{CERT_MANAGER}\" \"{SELF_MANAGED}\")) }}}}"),
        format!("{{{{- fail (printf \"webhook.certificates %q: write {CERT_MANAGER} or {SELF_MANAGED}\" {value}) }}}}"),
        "{{- end }}".to_string(),
        "{{- $certificates := list }}".to_string(),
        format!("{{{{- if and .Values.webhook.enabled ({}) }}}}", context.self_managed()),
        format!("{{{{- if gt (len {fullname}) {FULLNAME_ROOM} }}}}"),
        format!("{{{{- fail (printf \"webhook.certificates {SELF_MANAGED}: the manager finds its objects by the release's full name, %s, which is longer than {FULLNAME_ROOM} characters: set a shorter fullnameOverride\" {fullname}) }}}}"),
        "{{- end }}".to_string(),
        "{{- $certificates = list \"--webhook-cert-mode=self-managed\" }}".to_string(),
        format!("{{{{- if ne {fullname} \"{chart}\" }}}}"),
        format!("{{{{- $certificates = append $certificates (printf \"--webhook-name-prefix=%s-\" {fullname}) }}}}"),
        "{{- end }}".to_string(),
        "{{- end }}".to_string(),
    ]
    .map(|line| format!("{line}\n"))
    .concat()
}

/// The longest release full name with which every object the manager finds by name (its
/// Secret, Service and webhook configurations) keeps the full name whole: 63 minus
/// `-validating-webhook-configuration`.
const FULLNAME_ROOM: usize = 30;

/// The name config/webhook-self-managed and config/certmanager give the certificate's Secret,
/// after kustomize's prefix.
const CERT_SECRET_SUFFIX: &str = rop::webhook_configuration::CERT_SECRET;

/// The manager's Deployment among `objects`.
fn manager_of(objects: &[Value]) -> Option<&Value> {
    objects.iter().find(|o| kind(o) == "Deployment" && o["metadata"]["labels"]["control-plane"] == "controller-manager")
}

/// Shows the items of `list` that `matches` picks only when `condition` holds.
fn gate_items(list: Option<&mut Value>, condition: &str, emitter: &mut Emitter, matches: impl Fn(&Value) -> bool) {
    let Some(items) = list.and_then(Value::as_sequence_mut) else { return };
    for item in items.iter_mut().filter(|item| matches(item)) {
        *item = emitter.conditional_item(condition, item);
    }
}

/// Puts `new_key` (with a null value) where `key` was, keeping the order of the others.
fn replace_key(map: &mut Mapping, key: &str, new_key: Value) {
    let entries = std::mem::take(map);
    for (k, v) in entries {
        if k == key {
            map.insert(new_key.clone(), Value::Null);
        } else {
            map.insert(k, v);
        }
    }
}

/// Puts `new_key` (with a null value) right after `key`, or last when there is no `key`.
fn insert_after(map: &mut Mapping, key: &str, new_key: Value) {
    let entries = std::mem::take(map);
    let mut placed = false;
    for (k, v) in entries {
        let after = k == key;
        map.insert(k, v);
        if after {
            map.insert(new_key.clone(), Value::Null);
            placed = true;
        }
    }
    if !placed {
        map.insert(new_key, Value::Null);
    }
}

/// The admin, editor and viewer ClusterRoles `create api` writes for each kind
/// (config/rbac/<kind>_{admin,editor,viewer}_role.yaml), which users bind to people.
fn is_helper_role(object: &Value, prefix: &str) -> bool {
    let name = object["metadata"]["name"].as_str().unwrap_or_default();
    kind(object) == "ClusterRole"
        && name.starts_with(prefix)
        && ["-admin-role", "-editor-role", "-viewer-role"].iter().any(|s| name.ends_with(s))
}

/// An object's `kind`.
pub fn kind(object: &Value) -> &str {
    object["kind"].as_str().unwrap_or_default()
}

/// An object's API group (empty for the core group).
pub fn group(object: &Value) -> &str {
    object["apiVersion"].as_str().and_then(|v| v.rsplit_once('/')).map(|(group, _)| group).unwrap_or_default()
}
