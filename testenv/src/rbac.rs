//! A project's manager RBAC on the test server, so that a controller under test has the
//! permissions a deployed manager has, and no more.

use std::path::Path;

use k8s_openapi::api::core::v1::ServiceAccount;
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, Role, RoleBinding, RoleRef, Subject};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::Api;
use kube::api::PostParams;
use serde::Deserialize;

use crate::manifests::ManifestError;

/// The namespace the manager's ServiceAccount is created in on the test server.
pub const MANAGER_NAMESPACE: &str = "default";
/// The manager's ServiceAccount (`config/rbac/service_account.yaml` names it so).
pub const MANAGER_SERVICE_ACCOUNT: &str = "controller-manager";

/// Creates the roles of `role_yaml` (a project's `config/rbac/role.yaml` as `rop generate`
/// writes it: the `manager-role` ClusterRole, or a `Role` for a namespace-scoped manager, and
/// `Role`s for rules with a namespace), the ServiceAccount [`MANAGER_SERVICE_ACCOUNT`] in
/// [`MANAGER_NAMESPACE`], and a binding of each role to it, as `config/rbac/role_binding.yaml`
/// does in a cluster. A `Role` without a namespace goes to [`MANAGER_NAMESPACE`]. Then
/// [`crate::TestEnv::client_as_service_account`] gives the client the manager would have.
///
/// # Errors
/// The file cannot be read or holds something other than roles, or the server refuses an
/// object (run `make manifests` first).
pub async fn install_manager_rbac(client: &kube::Client, role_yaml: &Path) -> Result<(), ManifestError> {
    let text =
        std::fs::read_to_string(role_yaml).map_err(|source| ManifestError::Read { path: role_yaml.into(), source })?;
    let parse = |what: &'static str| move |source| ManifestError::Parse { path: role_yaml.into(), what, source };
    let service_account = ServiceAccount {
        metadata: ObjectMeta { name: Some(MANAGER_SERVICE_ACCOUNT.into()), ..ObjectMeta::default() },
        ..ServiceAccount::default()
    };
    create(Api::namespaced(client.clone(), MANAGER_NAMESPACE), &service_account).await?;
    let subject = Subject {
        kind: "ServiceAccount".into(),
        name: MANAGER_SERVICE_ACCOUNT.into(),
        namespace: Some(MANAGER_NAMESPACE.into()),
        ..Subject::default()
    };
    for document in serde_yaml::Deserializer::from_str(&text) {
        let value = serde_yaml::Value::deserialize(document).map_err(parse("YAML document"))?;
        match value.get("kind").and_then(serde_yaml::Value::as_str) {
            None if value.is_null() => {}
            Some("ClusterRole") => {
                let role: ClusterRole = serde_yaml::from_value(value).map_err(parse("ClusterRole"))?;
                let name = role.metadata.name.clone().unwrap_or_default();
                create(Api::all(client.clone()), &role).await?;
                let binding = ClusterRoleBinding {
                    metadata: ObjectMeta { name: Some(format!("{name}-binding")), ..ObjectMeta::default() },
                    role_ref: role_ref("ClusterRole", &name),
                    subjects: Some(vec![subject.clone()]),
                };
                create(Api::all(client.clone()), &binding).await?;
            }
            Some("Role") => {
                let mut role: Role = serde_yaml::from_value(value).map_err(parse("Role"))?;
                let namespace = role.metadata.namespace.get_or_insert_with(|| MANAGER_NAMESPACE.into()).clone();
                let name = role.metadata.name.clone().unwrap_or_default();
                create(Api::namespaced(client.clone(), &namespace), &role).await?;
                let binding = RoleBinding {
                    metadata: ObjectMeta { name: Some(format!("{name}-binding")), ..ObjectMeta::default() },
                    role_ref: role_ref("Role", &name),
                    subjects: Some(vec![subject.clone()]),
                };
                create(Api::namespaced(client.clone(), &namespace), &binding).await?;
            }
            _ => {
                let error = <serde_yaml::Error as serde::de::Error>::custom("expected a ClusterRole or a Role");
                return Err(parse("role")(error));
            }
        }
    }
    Ok(())
}

fn role_ref(kind: &str, name: &str) -> RoleRef {
    RoleRef { api_group: Some("rbac.authorization.k8s.io".into()), kind: kind.into(), name: name.into() }
}

/// Creates `object`; one that exists already (a second test on the same server) is fine.
async fn create<K>(api: Api<K>, object: &K) -> Result<(), ManifestError>
where
    K: kube::Resource<DynamicType = ()> + Clone + std::fmt::Debug + serde::Serialize + serde::de::DeserializeOwned,
{
    match api.create(&PostParams::default(), object).await {
        Ok(_) => Ok(()),
        Err(kube::Error::Api(status)) if status.code == 409 => Ok(()),
        Err(source) => {
            let name = object.meta().name.clone().unwrap_or_default();
            let what = format!("creating {} {name}", K::kind(&()));
            Err(ManifestError::Server { what, source: Box::new(source) })
        }
    }
}
