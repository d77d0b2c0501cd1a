//! One version of an imported CRD: its names and version settings as the kind-level keys of
//! `#[rop(...)]` (docs/markers.md, "CRD and version markers"), and its schema as Rust types.

use serde_json::{Map, Value};

use super::literal::string;
use super::types::{self, Loss, Types};

/// One version of a CRD, ready to be written as a Rust file.
#[derive(Debug)]
pub struct KindVersion {
    /// The CRD's group, e.g. `cert-manager.io`.
    pub group: String,
    pub version: String,
    pub kind: String,
    pub plural: String,
    pub namespaced: bool,
    /// Keys of the first kind-level `#[rop(...)]` after the names (scope, storage, status, ...).
    pub crd_keys: Vec<String>,
    /// Kind-level keys written one attribute each (printer columns, root rules, ...).
    pub crd_lists: Vec<String>,
    /// Whether two printer columns set one key to the same value (`type_ = "string"`).
    pub repeats_column_setting: bool,
    pub types: Types,
    /// Types for a kind the project consumes: not in the manifests generator, so no CRD.
    pub types_only: bool,
}

/// Reads version `v` (an entry of `spec.versions`) of `crd`, whose path in messages is `at`.
///
/// # Errors
/// A version without a name or without a schema (nothing to make types of).
pub fn read(crd: &Value, v: &Value, at: &str, types_only: bool) -> anyhow::Result<KindVersion> {
    let spec = &crd["spec"];
    let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
    let version = text(&v["name"]);
    let (group, kind, plural) = (text(&spec["group"]), text(&spec["names"]["kind"]), text(&spec["names"]["plural"]));
    let path = format!("{at}.spec.versions[{version}].schema.openAPIV3Schema");
    let Some(root) = v.pointer("/schema/openAPIV3Schema").and_then(Value::as_object) else {
        anyhow::bail!(
            "{at}: version {version} of {plural}.{group} has no schema.openAPIV3Schema: rop imports a CRD's types from its schema; add one (the API server requires it in apiextensions.k8s.io/v1)"
        );
    };
    let namespaced = spec["scope"].as_str() != Some("Cluster");
    let mut kv = KindVersion {
        group,
        version: version.clone(),
        kind: kind.clone(),
        plural,
        namespaced,
        crd_keys: Vec::new(),
        crd_lists: Vec::new(),
        repeats_column_setting: false,
        types: Types::default(),
        types_only,
    };
    kv.types.reserve(&[kind.clone(), format!("{kind}List")]);
    let mut root = root.clone();
    let properties = match root.remove("properties") {
        Some(Value::Object(p)) => p,
        _ => Map::new(),
    };
    let spec_name = format!("{kind}Spec");
    let empty = Map::new();
    let spec_schema = match properties.get("spec").and_then(Value::as_object) {
        Some(s) => s.clone(),
        None => {
            kv.types.losses.push(Loss {
                path: path.clone(),
                what: "the schema has no `spec`: rop's kinds always have one, and require it".into(),
            });
            let mut s = empty.clone();
            s.insert("type".into(), "object".into());
            s
        }
    };
    let spec_doc = kv.types.root_struct(&spec_name, &spec_schema, &format!("{path}.properties.spec"));
    kv.types.types[0].doc = spec_doc;
    if let Some(status) = properties.get("status").and_then(Value::as_object) {
        let name = format!("{kind}Status");
        let doc = kv.types.root_struct(&name, status, &format!("{path}.properties.status"));
        if let Some(t) = kv.types.types.iter_mut().find(|t| t.name == name) {
            t.doc = doc;
        }
    }
    // Scope, version settings, then the status (which needs the status subresource here).
    kv.crd_keys.push(if namespaced { "namespaced".into() } else { "namespaced = false".into() });
    if v["storage"] == Value::Bool(true) {
        kv.crd_keys.push("storage".into());
    }
    if v["served"] == Value::Bool(false) {
        kv.crd_keys.push("served = false".into());
    }
    if v["deprecated"] == Value::Bool(true) {
        match v["deprecationWarning"].as_str() {
            Some(w) => kv.crd_keys.push(format!("deprecated = {}", string(w))),
            None => kv.crd_keys.push("deprecated".into()),
        }
    }
    let has_status_subresource = v.pointer("/subresources/status").is_some();
    match (properties.contains_key("status"), has_status_subresource) {
        (true, true) => kv.crd_keys.push(format!("status = \"{kind}Status\"")),
        (true, false) => kv.crd_keys.push(format!("status = \"{kind}Status\", status_subresource = false")),
        (false, true) => kv.types.losses.push(Loss {
            path: format!("{at}.spec.versions[{version}].subresources.status"),
            what: "the status subresource without a status schema".into(),
        }),
        (false, false) => {}
    }
    names(&mut kv, spec);
    for key in
        properties.keys().filter(|k| !matches!(k.as_str(), "apiVersion" | "kind" | "metadata" | "spec" | "status"))
    {
        kv.types.losses.push(Loss {
            path: format!("{path}.properties.{key}"),
            what: "a root property other than apiVersion, kind, metadata, spec and status: the regenerated CRD prunes it from stored objects".into(),
        });
    }
    if let Some(meta) = properties.get("metadata").and_then(Value::as_object)
        && Value::Object(meta.clone()) != serde_json::json!({"type": "object"})
    {
        kv.types.losses.push(Loss {
            path: format!("{path}.properties.metadata"),
            what: format!("metadata's schema beyond `type: object`: {}", Value::Object(meta.clone())),
        });
    }
    for (name, expected) in [("apiVersion", rop::crd::API_VERSION_DESCRIPTION), ("kind", rop::crd::KIND_DESCRIPTION)] {
        let standard = serde_json::json!({"description": expected, "type": "string"});
        if properties.get(name) != Some(&standard) {
            kv.types.losses.push(Loss {
                path: format!("{path}.properties.{name}"),
                what: "its schema differs from the API conventions' (rop writes `type: string` with their description)"
                    .into(),
            });
        }
    }
    if properties.get("metadata").is_none() {
        kv.types.losses.push(Loss {
            path: format!("{path}.properties"),
            what: "no `metadata` (rop writes `metadata: {type: object}`)".into(),
        });
    }
    root_keys(&mut kv, root, &path);
    version_lists(&mut kv, v, at);
    crd_metadata(&mut kv, crd);
    Ok(kv)
}

/// `singular`, short names and categories, where they are not the defaults.
fn names(kv: &mut KindVersion, spec: &Value) {
    let names = &spec["names"];
    if let Some(singular) = names["singular"].as_str()
        && singular != kv.kind.to_lowercase()
    {
        kv.crd_keys.push(format!("singular = {}", string(singular)));
    }
    for short in names["shortNames"].as_array().into_iter().flatten().filter_map(Value::as_str) {
        kv.crd_keys.push(format!("shortname = {}", string(short)));
    }
    for category in names["categories"].as_array().into_iter().flatten().filter_map(Value::as_str) {
        kv.crd_keys.push(format!("category = {}", string(category)));
    }
    if let Some(list) = names["listKind"].as_str()
        && list != format!("{}List", kv.kind)
    {
        kv.types.losses.push(Loss {
            path: ".spec.names.listKind".into(),
            what: format!("listKind {list} (rop writes {}List)", kv.kind),
        });
    }
}

/// The root schema's description and rules; anything else on the root is lost.
fn root_keys(kv: &mut KindVersion, mut root: Map<String, Value>, path: &str) {
    root.remove("type");
    let required: Vec<&str> = match root.get("required") {
        Some(Value::Array(r)) => r.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    if required != ["spec"] {
        kv.types.losses.push(Loss {
            path: format!("{path}.required"),
            what: format!(
                "the root requires {required:?}; rop's kinds require exactly [\"spec\"], so the regenerated CRD refuses objects without a spec that this one accepts (`rop verify --against` the original lists every such break)"
            ),
        });
    }
    root.remove("required");
    match root.remove("description") {
        Some(Value::String(d)) => kv.crd_keys.push(format!("doc = {}", string(&d))),
        _ => kv.crd_keys.push("doc = \"\"".into()),
    }
    if let Some(Value::Array(rules)) = root.remove("x-kubernetes-validations") {
        for rule in &rules {
            match types::validation(rule) {
                Some(keys) => kv.crd_lists.push(format!("root_validation({keys})")),
                None => kv
                    .types
                    .losses
                    .push(Loss { path: path.into(), what: format!("a root rule rop cannot read: {rule}") }),
            }
        }
    }
    for (key, value) in root {
        kv.types.losses.push(Loss { path: format!("{path}.{key}"), what: format!("a root keyword: {value}") });
    }
}

/// Printer columns, the scale subresource and selectable fields of version `v`.
fn version_lists(kv: &mut KindVersion, v: &Value, at: &str) {
    let mut settings = std::collections::HashSet::new();
    for column in v["additionalPrinterColumns"].as_array().into_iter().flatten() {
        let mut keys = vec![
            format!("name = {}", string(column["name"].as_str().unwrap_or_default())),
            format!("type_ = {}", string(column["type"].as_str().unwrap_or_default())),
            format!("json_path = {}", string(column["jsonPath"].as_str().unwrap_or_default())),
        ];
        if let Some(d) = column["description"].as_str() {
            keys.push(format!("description = {}", string(d)));
        }
        if let Some(f) = column["format"].as_str() {
            keys.push(format!("format = {}", string(f)));
        }
        if let Some(p) = column["priority"].as_i64() {
            keys.push(format!("priority = {p}"));
        }
        for key in &keys {
            kv.repeats_column_setting |= !settings.insert(key.clone());
        }
        kv.crd_lists.push(format!("printcolumn({})", keys.join(", ")));
    }
    if let Some(scale) = v.pointer("/subresources/scale") {
        let mut keys = vec![
            format!("spec_replicas_path = {}", string(scale["specReplicasPath"].as_str().unwrap_or_default())),
            format!("status_replicas_path = {}", string(scale["statusReplicasPath"].as_str().unwrap_or_default())),
        ];
        if let Some(selector) = scale["labelSelectorPath"].as_str() {
            keys.push(format!("label_selector_path = {}", string(selector)));
        }
        kv.crd_lists.push(format!("scale({})", keys.join(", ")));
    }
    for field in v["selectableFields"].as_array().into_iter().flatten() {
        if let Some(path) = field["jsonPath"].as_str() {
            kv.crd_lists.push(format!("selectable_field = {}", string(path)));
        }
    }
    for key in v.as_object().into_iter().flat_map(|o| o.keys()) {
        if !matches!(
            key.as_str(),
            "name"
                | "served"
                | "storage"
                | "deprecated"
                | "deprecationWarning"
                | "schema"
                | "subresources"
                | "additionalPrinterColumns"
                | "selectableFields"
        ) {
            kv.types.losses.push(Loss {
                path: format!("{at}.spec.versions[{}].{key}", kv.version),
                what: "a version setting rop does not write".into(),
            });
        }
    }
}

/// The CRD's labels and annotations (controller-gen's version annotation names the tool that
/// wrote the original, not this one, and is left out).
fn crd_metadata(kv: &mut KindVersion, crd: &Value) {
    for (list, key) in [("labels", "label"), ("annotations", "annotation")] {
        for (name, value) in crd["metadata"][list].as_object().into_iter().flatten() {
            if name == "controller-gen.kubebuilder.io/version" {
                continue;
            }
            if let Some(value) = value.as_str() {
                kv.crd_lists.push(format!("{key}({}, {})", string(name), string(value)));
            }
        }
    }
}
