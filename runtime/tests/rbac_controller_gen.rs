//! The RBAC normaliser against controller-gen's own golden output: the 41 `+kubebuilder:rbac`
//! markers of controller-tools' `pkg/rbac/testdata` must give exactly its `role.yaml`,
//! compared as parsed documents, by position.

use std::path::PathBuf;

use rop::rbac::{Rule, roles};

fn shared_testdata() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/testdata/controller-gen");
    dir.is_dir().then_some(dir)
}

/// One marker line, `+kubebuilder:rbac:key=v1;v2,key=v`, as a rule.
fn parse_marker(line: &str) -> Rule {
    let body = line.trim().strip_prefix("+kubebuilder:rbac:").expect("an rbac marker");
    let mut rule = Rule::default();
    for pair in body.split(',') {
        let (key, value) = pair.split_once('=').expect("key=value");
        let list: Vec<String> = value.split(';').map(|v| v.trim_matches('"').to_string()).collect();
        match key {
            "groups" => rule.groups = list,
            "resources" => rule.resources = list,
            "resourceNames" => rule.resource_names = list,
            "verbs" => rule.verbs = list,
            "urls" => rule.urls = list,
            "namespace" => rule.namespace = value.to_string(),
            "roleName" => rule.role_name = value.to_string(),
            other => panic!("unknown marker key {other}"),
        }
    }
    rule
}

#[test]
fn normalisation_matches_controller_gen() {
    let Some(dir) = shared_testdata() else {
        eprintln!("skipped: ../shared/testdata/controller-gen is not beside the checkout");
        return;
    };
    let markers = std::fs::read_to_string(dir.join("rbac_input_markers.txt")).unwrap();
    let rules: Vec<Rule> = markers.lines().filter(|l| !l.trim().is_empty()).map(parse_marker).collect();
    assert_eq!(rules.len(), 41);

    let objects: Vec<_> = roles(&rules, "manager-role").iter().map(|r| r.to_object()).collect();
    let ours = rop::yaml::documents(&objects).unwrap();

    let parse = |text: &str| -> Vec<serde_yaml::Value> {
        serde_yaml::Deserializer::from_str(text).map(|d| serde::Deserialize::deserialize(d).unwrap()).collect()
    };
    let golden = parse(&std::fs::read_to_string(dir.join("rbac_role.yaml")).unwrap());
    let ours = parse(&ours);
    assert_eq!(ours.len(), golden.len(), "number of roles");
    for (i, (o, g)) in ours.iter().zip(&golden).enumerate() {
        pretty_assertions::assert_eq!(o, g, "document {i}");
    }
}
