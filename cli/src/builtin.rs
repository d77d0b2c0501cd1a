//! Kinds Kubernetes itself serves that `rop create webhook` can add webhooks for, as
//! kubebuilder's core types: group (`core` stands for the core group `""`), version, kind,
//! plural and the k8s-openapi type.

/// One built-in kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Builtin {
    /// The API group; `""` for the core group.
    pub group: &'static str,
    pub version: &'static str,
    pub kind: &'static str,
    pub plural: &'static str,
    /// The k8s-openapi type, e.g. `k8s_openapi::api::apps::v1::Deployment`.
    pub object: &'static str,
}

const fn b(
    group: &'static str,
    version: &'static str,
    kind: &'static str,
    plural: &'static str,
    object: &'static str,
) -> Builtin {
    Builtin { group, version, kind, plural, object }
}

/// The built-in kinds operators most often guard with webhooks.
pub const KINDS: &[Builtin] = &[
    b("", "v1", "Pod", "pods", "k8s_openapi::api::core::v1::Pod"),
    b("", "v1", "Service", "services", "k8s_openapi::api::core::v1::Service"),
    b("", "v1", "ConfigMap", "configmaps", "k8s_openapi::api::core::v1::ConfigMap"),
    b("", "v1", "Secret", "secrets", "k8s_openapi::api::core::v1::Secret"),
    b("", "v1", "Namespace", "namespaces", "k8s_openapi::api::core::v1::Namespace"),
    b("", "v1", "ServiceAccount", "serviceaccounts", "k8s_openapi::api::core::v1::ServiceAccount"),
    b("", "v1", "PersistentVolumeClaim", "persistentvolumeclaims", "k8s_openapi::api::core::v1::PersistentVolumeClaim"),
    b("apps", "v1", "Deployment", "deployments", "k8s_openapi::api::apps::v1::Deployment"),
    b("apps", "v1", "StatefulSet", "statefulsets", "k8s_openapi::api::apps::v1::StatefulSet"),
    b("apps", "v1", "DaemonSet", "daemonsets", "k8s_openapi::api::apps::v1::DaemonSet"),
    b("apps", "v1", "ReplicaSet", "replicasets", "k8s_openapi::api::apps::v1::ReplicaSet"),
    b("batch", "v1", "Job", "jobs", "k8s_openapi::api::batch::v1::Job"),
    b("batch", "v1", "CronJob", "cronjobs", "k8s_openapi::api::batch::v1::CronJob"),
    b("networking.k8s.io", "v1", "Ingress", "ingresses", "k8s_openapi::api::networking::v1::Ingress"),
    b("networking.k8s.io", "v1", "NetworkPolicy", "networkpolicies", "k8s_openapi::api::networking::v1::NetworkPolicy"),
    b(
        "policy",
        "v1",
        "PodDisruptionBudget",
        "poddisruptionbudgets",
        "k8s_openapi::api::policy::v1::PodDisruptionBudget",
    ),
];

/// The built-in kind `group`/`version`/`kind`, where `group` is as given on the command line
/// (`core` or `""` for the core group).
pub fn find(group: &str, version: &str, kind: &str) -> Option<&'static Builtin> {
    let group = if group == "core" { "" } else { group };
    KINDS.iter().find(|b| b.group == group && b.version == version && b.kind == kind)
}

/// The kinds, as `group/version Kind` (`core/v1 Pod`), for messages.
pub fn listed() -> String {
    KINDS
        .iter()
        .map(|b| format!("{}/{} {}", if b.group.is_empty() { "core" } else { b.group }, b.version, b.kind))
        .collect::<Vec<_>>()
        .join(", ")
}
