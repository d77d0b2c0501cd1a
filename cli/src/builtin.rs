//! Kinds Kubernetes itself serves that `rop create webhook` can add webhooks for and `rop create
//! api --resource=false` a controller for, as kubebuilder's core types: group (`core` stands for
//! the core group `""`), version, kind, plural and the k8s-openapi type.

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

impl Builtin {
    /// The type as generated code names it, through rop's re-export of k8s-openapi:
    /// `rop::k8s_openapi::api::apps::v1::Deployment` (projects have no k8s-openapi dependency).
    pub fn rust_path(&self) -> String {
        format!("rop::{}", self.object)
    }

    /// Whether its objects live in a namespace (not a Namespace, Node, PersistentVolume,
    /// ClusterRole, ClusterRoleBinding, StorageClass or IngressClass).
    pub fn namespaced(&self) -> bool {
        !CLUSTER_SCOPED.contains(&self.kind)
    }
}

/// The listed kinds whose objects are cluster-scoped.
const CLUSTER_SCOPED: [&str; 7] =
    ["Namespace", "Node", "PersistentVolume", "ClusterRole", "ClusterRoleBinding", "StorageClass", "IngressClass"];

const fn b(
    group: &'static str,
    version: &'static str,
    kind: &'static str,
    plural: &'static str,
    object: &'static str,
) -> Builtin {
    Builtin { group, version, kind, plural, object }
}

/// The built-in kinds operators most often guard with webhooks or reconcile.
pub const KINDS: &[Builtin] = &[
    b("", "v1", "Pod", "pods", "k8s_openapi::api::core::v1::Pod"),
    b("", "v1", "Service", "services", "k8s_openapi::api::core::v1::Service"),
    b("", "v1", "ConfigMap", "configmaps", "k8s_openapi::api::core::v1::ConfigMap"),
    b("", "v1", "Secret", "secrets", "k8s_openapi::api::core::v1::Secret"),
    b("", "v1", "Namespace", "namespaces", "k8s_openapi::api::core::v1::Namespace"),
    b("", "v1", "ServiceAccount", "serviceaccounts", "k8s_openapi::api::core::v1::ServiceAccount"),
    b("", "v1", "PersistentVolumeClaim", "persistentvolumeclaims", "k8s_openapi::api::core::v1::PersistentVolumeClaim"),
    b("", "v1", "PersistentVolume", "persistentvolumes", "k8s_openapi::api::core::v1::PersistentVolume"),
    b("", "v1", "Node", "nodes", "k8s_openapi::api::core::v1::Node"),
    b("", "v1", "Endpoints", "endpoints", "k8s_openapi::api::core::v1::Endpoints"),
    b("", "v1", "LimitRange", "limitranges", "k8s_openapi::api::core::v1::LimitRange"),
    b("", "v1", "ResourceQuota", "resourcequotas", "k8s_openapi::api::core::v1::ResourceQuota"),
    b("apps", "v1", "Deployment", "deployments", "k8s_openapi::api::apps::v1::Deployment"),
    b("apps", "v1", "StatefulSet", "statefulsets", "k8s_openapi::api::apps::v1::StatefulSet"),
    b("apps", "v1", "DaemonSet", "daemonsets", "k8s_openapi::api::apps::v1::DaemonSet"),
    b("apps", "v1", "ReplicaSet", "replicasets", "k8s_openapi::api::apps::v1::ReplicaSet"),
    b("batch", "v1", "Job", "jobs", "k8s_openapi::api::batch::v1::Job"),
    b("batch", "v1", "CronJob", "cronjobs", "k8s_openapi::api::batch::v1::CronJob"),
    b("networking.k8s.io", "v1", "Ingress", "ingresses", "k8s_openapi::api::networking::v1::Ingress"),
    b("networking.k8s.io", "v1", "NetworkPolicy", "networkpolicies", "k8s_openapi::api::networking::v1::NetworkPolicy"),
    b("networking.k8s.io", "v1", "IngressClass", "ingressclasses", "k8s_openapi::api::networking::v1::IngressClass"),
    b("rbac.authorization.k8s.io", "v1", "Role", "roles", "k8s_openapi::api::rbac::v1::Role"),
    b("rbac.authorization.k8s.io", "v1", "RoleBinding", "rolebindings", "k8s_openapi::api::rbac::v1::RoleBinding"),
    b("rbac.authorization.k8s.io", "v1", "ClusterRole", "clusterroles", "k8s_openapi::api::rbac::v1::ClusterRole"),
    b(
        "rbac.authorization.k8s.io",
        "v1",
        "ClusterRoleBinding",
        "clusterrolebindings",
        "k8s_openapi::api::rbac::v1::ClusterRoleBinding",
    ),
    b("storage.k8s.io", "v1", "StorageClass", "storageclasses", "k8s_openapi::api::storage::v1::StorageClass"),
    b(
        "autoscaling",
        "v2",
        "HorizontalPodAutoscaler",
        "horizontalpodautoscalers",
        "k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscaler",
    ),
    b("coordination.k8s.io", "v1", "Lease", "leases", "k8s_openapi::api::coordination::v1::Lease"),
    b("discovery.k8s.io", "v1", "EndpointSlice", "endpointslices", "k8s_openapi::api::discovery::v1::EndpointSlice"),
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

#[cfg(test)]
mod tests {
    use super::KINDS;

    /// Each entry is what its k8s-openapi type says: the names rop writes are never guessed.
    #[test]
    fn every_kind_is_its_types() {
        let mut checked = Vec::new();
        macro_rules! types {
            ($($t:ty),* $(,)?) => {$({
                use k8s_openapi::Resource as _;
                let object = format!("k8s_openapi::api::{}", stringify!($t).split_whitespace().collect::<String>());
                let b = KINDS.iter().find(|b| b.object == object).unwrap_or_else(|| panic!("{object} is not listed"));
                let namespaced = std::any::TypeId::of::<<$t as k8s_openapi::Resource>::Scope>()
                    == std::any::TypeId::of::<k8s_openapi::NamespaceResourceScope>();
                assert_eq!(
                    (b.group, b.version, b.kind, b.plural, b.namespaced()),
                    (<$t>::GROUP, <$t>::VERSION, <$t>::KIND, <$t>::URL_PATH_SEGMENT, namespaced),
                    "{object}"
                );
                checked.push(object);
            })*};
        }
        use k8s_openapi::api::{
            apps, autoscaling, batch, coordination, core, discovery, networking, policy, rbac, storage,
        };
        types!(
            core::v1::Pod,
            core::v1::Service,
            core::v1::ConfigMap,
            core::v1::Secret,
            core::v1::Namespace,
            core::v1::ServiceAccount,
            core::v1::PersistentVolumeClaim,
            core::v1::PersistentVolume,
            core::v1::Node,
            core::v1::Endpoints,
            core::v1::LimitRange,
            core::v1::ResourceQuota,
            apps::v1::Deployment,
            apps::v1::StatefulSet,
            apps::v1::DaemonSet,
            apps::v1::ReplicaSet,
            batch::v1::Job,
            batch::v1::CronJob,
            networking::v1::Ingress,
            networking::v1::NetworkPolicy,
            networking::v1::IngressClass,
            rbac::v1::Role,
            rbac::v1::RoleBinding,
            rbac::v1::ClusterRole,
            rbac::v1::ClusterRoleBinding,
            storage::v1::StorageClass,
            autoscaling::v2::HorizontalPodAutoscaler,
            coordination::v1::Lease,
            discovery::v1::EndpointSlice,
            policy::v1::PodDisruptionBudget,
        );
        assert_eq!(checked.len(), KINDS.len(), "every listed kind is checked");
    }
}
