//! RBAC rules a controller needs, and their normalisation into `ClusterRole`s and `Role`s.
//!
//! The rule model is the `+kubebuilder:rbac` marker's: groups, resources, resource names,
//! verbs, non-resource URLs, an optional namespace (giving a `Role` instead of the
//! `ClusterRole`) and an optional role name. [`roles`] normalises rules exactly as
//! controller-gen's `rbac` generator does, so projects moving from kubebuilder get the same
//! `config/rbac/role.yaml`.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::definition::{ControllerDefinition, KindDefinition};

/// One RBAC rule, as a `+kubebuilder:rbac` marker states it.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Rule {
    /// API groups; `core` is written as `""` in the output.
    pub groups: Vec<String>,
    /// Lower-case plural resource names, e.g. `deployments`, or subresources such as
    /// `memcacheds/status` (`rules[].resources`).
    pub resources: Vec<String>,
    /// Names of the objects the rule is limited to (`rules[].resourceNames`); empty for every
    /// object.
    pub resource_names: Vec<String>,
    /// Verbs allowed, e.g. `get`, `list`, `watch`, or `*` for all (`rules[].verbs`).
    pub verbs: Vec<String>,
    /// Non-resource URLs such as `/metrics`.
    pub urls: Vec<String>,
    /// Empty for cluster-wide rules (the `ClusterRole`); otherwise the `Role`'s namespace.
    pub namespace: String,
    /// Empty for the generator's role name (`manager-role`).
    pub role_name: String,
}

impl Rule {
    /// A cluster-wide rule on `resources` of `group` with `verbs`.
    pub fn new(group: &str, resources: &[&str], verbs: &[&str]) -> Self {
        let owned = |items: &[&str]| items.iter().map(|s| s.to_string()).collect();
        Rule { groups: vec![group.into()], resources: owned(resources), verbs: owned(verbs), ..Rule::default() }
    }

    /// The rules of a custom kind's controller: [`Rule::for_controller`] of its definition.
    pub fn for_kind(def: &KindDefinition) -> Vec<Rule> {
        Rule::for_controller(&ControllerDefinition {
            group: def.group,
            version: def.version,
            kind: def.kind,
            plural: def.plural,
            owns: def.owns,
            watches: def.watches,
            rbac: def.rbac,
            finalizer: "",
        })
    }

    /// The three rules kubebuilder puts on a kind's controller (built-in kinds too): the
    /// resource with get, list, watch, create, update, patch, delete; `<plural>/status` get,
    /// update, patch; `<plural>/finalizers` update.
    ///
    /// Then one rule per owned kind (get, list, watch, create, update, patch, delete), one per
    /// watched kind (get, list, watch), and the kind's `rbac(...)` rules as written.
    pub fn for_controller(def: &ControllerDefinition) -> Vec<Rule> {
        const ALL: [&str; 7] = ["get", "list", "watch", "create", "update", "patch", "delete"];
        let mut rules = vec![
            Rule::new(def.group, &[def.plural], &ALL),
            Rule::new(def.group, &[&format!("{}/status", def.plural)], &["get", "update", "patch"]),
            Rule::new(def.group, &[&format!("{}/finalizers", def.plural)], &["update"]),
        ];
        rules.extend(def.owns.iter().map(|k| Rule::new(k.group, &[k.plural], &ALL)));
        rules.extend(def.watches.iter().map(|k| Rule::new(k.group, &[k.plural], &["get", "list", "watch"])));
        rules.extend(def.rbac.iter().map(Rule::from_attribute));
        rules
    }

    /// The rule an `rbac(...)` attribute states, as written.
    pub fn from_attribute(r: &crate::definition::RbacRule) -> Rule {
        let owned = |items: &[&str]| items.iter().map(|s| s.to_string()).collect();
        Rule {
            groups: owned(r.groups),
            resources: owned(r.resources),
            resource_names: owned(r.resource_names),
            verbs: owned(r.verbs),
            urls: owned(r.urls),
            namespace: r.namespace.to_string(),
            role_name: r.role_name.to_string(),
        }
    }
}

/// A normalised role: a `ClusterRole` when `namespace` is empty, else a `Role`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Role {
    /// The role's `metadata.name`; from [`roles`], the rules' `role_name` or the default role
    /// name it is given (e.g. `manager-role`).
    pub name: String,
    /// The `Role`'s `metadata.namespace`; empty for a `ClusterRole`.
    pub namespace: String,
    /// The rules, written in this order as the object's `rules`; from [`roles`], normalised and
    /// sorted, with empty `namespace` and `role_name`.
    pub rules: Vec<Rule>,
}

impl Role {
    /// The role as a Kubernetes object (`rbac.authorization.k8s.io/v1`), keys sorted.
    pub fn to_object(&self) -> Value {
        self.to_object_for(false)
    }

    /// As [`Role::to_object`]; with `namespaced_manager`, the cluster-wide role becomes a
    /// `Role` without a namespace, which kustomize places in the manager's namespace (a
    /// namespace-scoped manager needs no cluster-wide permissions).
    pub fn to_object_for(&self, namespaced_manager: bool) -> Value {
        if namespaced_manager && self.namespace.is_empty() {
            let mut object = self.to_object_for(false);
            object["kind"] = json!("Role");
            return object;
        }
        let mut metadata = json!({ "name": self.name });
        let kind = if self.namespace.is_empty() {
            "ClusterRole"
        } else {
            metadata["namespace"] = json!(self.namespace);
            "Role"
        };
        let rules: Vec<Value> = self.rules.iter().map(policy_rule).collect();
        json!({
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": kind,
            "metadata": metadata,
            "rules": rules,
        })
    }
}

fn policy_rule(rule: &Rule) -> Value {
    let mut out = serde_json::Map::new();
    for (key, list) in [
        ("apiGroups", &rule.groups),
        ("nonResourceURLs", &rule.urls),
        ("resourceNames", &rule.resource_names),
        ("resources", &rule.resources),
        ("verbs", &rule.verbs),
    ] {
        if !list.is_empty() || (key == "apiGroups" && !rule.resources.is_empty()) {
            out.insert(key.into(), json!(list));
        }
    }
    Value::Object(out)
}

/// Normalises `rules` into roles, as controller-gen's `GenerateRoles` does:
///
/// 1. bucket by (namespace, role name; empty means `default_role_name`) and split each rule
///    into one rule per resource;
/// 2. write group `core` as `""`; sort and dedupe every list;
/// 3. merge rules equal in groups, resources, resource names and URLs by uniting their verbs;
///    then merge rules that differ only in resources, then only in groups, then only in URLs;
/// 4. sort rules by their key (groups + resources + resource names + URLs); a rule holding
///    verb `*` keeps just `*`;
/// 5. the `ClusterRole` comes first, then `Role`s by namespace and name.
pub fn roles(rules: &[Rule], default_role_name: &str) -> Vec<Role> {
    let mut buckets: BTreeMap<(String, String), Vec<Rule>> = BTreeMap::new();
    for rule in rules {
        let name = if rule.role_name.is_empty() { default_role_name } else { &rule.role_name };
        let bucket = buckets.entry((rule.namespace.clone(), name.to_string())).or_default();
        if rule.resources.is_empty() {
            bucket.push(rule.clone());
        }
        for resource in &rule.resources {
            bucket.push(Rule { resources: vec![resource.clone()], ..rule.clone() });
        }
    }
    buckets
        .into_iter()
        .map(|((namespace, name), rules)| Role { name, namespace, rules: normalise(rules) })
        .filter(|role| !role.rules.is_empty())
        .collect()
}

fn sorted(mut list: Vec<String>) -> Vec<String> {
    list.sort();
    list.dedup();
    list
}

fn tidy(mut rule: Rule) -> Rule {
    for group in &mut rule.groups {
        if group == "core" {
            group.clear();
        }
    }
    rule.groups = sorted(rule.groups);
    rule.resources = sorted(rule.resources);
    rule.resource_names = sorted(rule.resource_names);
    rule.verbs = sorted(rule.verbs);
    rule.urls = sorted(rule.urls);
    rule.namespace.clear();
    rule.role_name.clear();
    rule
}

/// controller-gen's `ruleKey` string: `groups + resources + resourceNames + urls`, each list
/// joined with `&`; rules are sorted by it.
fn key(rule: &Rule) -> String {
    format!(
        "{} + {} + {} + {}",
        rule.groups.join("&"),
        rule.resources.join("&"),
        rule.resource_names.join("&"),
        rule.urls.join("&")
    )
}

/// Merges rules whose `partial_key` is equal, uniting the list `field` selects.
fn merge_by(
    rules: Vec<Rule>,
    partial_key: impl Fn(&Rule) -> String,
    field: fn(&mut Rule) -> &mut Vec<String>,
) -> Vec<Rule> {
    let mut merged: BTreeMap<String, Rule> = BTreeMap::new();
    for mut rule in rules {
        match merged.get_mut(&partial_key(&rule)) {
            Some(existing) => field(existing).append(field(&mut rule)),
            None => {
                merged.insert(partial_key(&rule), rule);
            }
        }
    }
    merged.into_values().map(tidy).collect()
}

fn normalise(rules: Vec<Rule>) -> Vec<Rule> {
    let rules: Vec<Rule> = rules.into_iter().map(tidy).collect();
    let rules = merge_by(rules, key, |r| &mut r.verbs);
    let verbs = |r: &Rule| r.verbs.join("&");
    let rules = merge_by(
        rules,
        |r| format!("{} + {} + {} + {}", r.groups.join("&"), r.resource_names.join("&"), r.urls.join("&"), verbs(r)),
        |r| &mut r.resources,
    );
    let rules = merge_by(
        rules,
        |r| format!("{} + {} + {} + {}", r.resources.join("&"), r.resource_names.join("&"), r.urls.join("&"), verbs(r)),
        |r| &mut r.groups,
    );
    let rules = merge_by(
        rules,
        |r| {
            format!(
                "{} + {} + {} + {}",
                r.groups.join("&"),
                r.resources.join("&"),
                r.resource_names.join("&"),
                verbs(r)
            )
        },
        |r| &mut r.urls,
    );
    let mut rules: Vec<Rule> = rules
        .into_iter()
        .map(|mut r| {
            if r.verbs.iter().any(|v| v == "*") {
                r.verbs = vec!["*".into()];
            }
            r
        })
        .collect();
    rules.sort_by_key(key);
    rules
}
