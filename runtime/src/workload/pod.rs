//! Pods under the "restricted" Pod Security Standard, spread across zones.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{
    Capabilities, Container, PodSecurityContext, PodSpec, SeccompProfile, SecurityContext, TopologySpreadConstraint,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

/// A Pod that runs `containers` under the "restricted" Pod Security Standard
/// (kubernetes.io/docs/concepts/security/pod-security-standards): every container runs as a
/// non-root user (`run_as_user` when given, which also owns the Pod's volumes through
/// `fsGroup`), without privilege escalation or capabilities, with the runtime's default seccomp
/// profile; its image is pulled only when the node lacks it (`IfNotPresent`, unless set).
pub fn restricted_pod(containers: Vec<Container>, run_as_user: Option<i64>) -> PodSpec {
    let containers = containers
        .into_iter()
        .map(|container| Container {
            image_pull_policy: container.image_pull_policy.or_else(|| Some("IfNotPresent".into())),
            security_context: Some(SecurityContext {
                run_as_non_root: Some(true),
                run_as_user,
                allow_privilege_escalation: Some(false),
                capabilities: Some(Capabilities { drop: Some(vec!["ALL".into()]), ..Capabilities::default() }),
                ..SecurityContext::default()
            }),
            ..container
        })
        .collect();
    PodSpec {
        security_context: Some(PodSecurityContext {
            run_as_non_root: Some(true),
            fs_group: run_as_user,
            seccomp_profile: Some(SeccompProfile { type_: "RuntimeDefault".into(), ..SeccompProfile::default() }),
            ..PodSecurityContext::default()
        }),
        containers,
        ..PodSpec::default()
    }
}

/// Spreads the Pods with `labels` across zones (`topology.kubernetes.io/zone`): no zone runs two
/// more than another, and a Pod that would break that waits unscheduled (`DoNotSchedule`).
/// Nodes without the zone label take no such Pod.
pub fn zone_spread(labels: &BTreeMap<String, String>) -> TopologySpreadConstraint {
    TopologySpreadConstraint {
        max_skew: 1,
        topology_key: "topology.kubernetes.io/zone".into(),
        when_unsatisfiable: "DoNotSchedule".into(),
        label_selector: Some(LabelSelector { match_labels: Some(labels.clone()), ..LabelSelector::default() }),
        ..TopologySpreadConstraint::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_container_and_the_pod_are_restricted() {
        let pod = restricted_pod(vec![Container { name: "app".into(), ..Container::default() }], Some(1001));

        let pod_security = pod.security_context.unwrap();
        assert_eq!((pod_security.run_as_non_root, pod_security.fs_group), (Some(true), Some(1001)));
        assert_eq!(pod_security.seccomp_profile.unwrap().type_, "RuntimeDefault");
        let container = &pod.containers[0];
        assert_eq!(container.image_pull_policy.as_deref(), Some("IfNotPresent"));
        let security = container.security_context.as_ref().unwrap();
        assert_eq!(security.run_as_user, Some(1001));
        assert_eq!(security.allow_privilege_escalation, Some(false));
        assert_eq!(security.capabilities.as_ref().unwrap().drop.as_deref(), Some(&["ALL".to_string()][..]));
    }
}
