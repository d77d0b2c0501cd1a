//! Admission webhooks of Tenant v1. Their settings (path, failure policy,
//! operations, selectors) are the `#[rop(webhook(...))]` attributes on `TenantSpec` in
//! api/src/v1/tenant.rs; run `make manifests` after changing them.
//!
//! A namespace belongs to one Tenant at most: two Tenants in one namespace would fight over
//! its quota and its admins. The schema cannot say that (it sees one object), so the validator
//! lists the other Tenants through the manager's client and refuses a Tenant that claims a
//! namespace one of them has. A v1alpha1 Tenant is checked too: the API server converts it to
//! v1 for this webhook.

use rop::kube::ResourceExt;
use rop::kube::api::{Api, ListParams};
use rop::webhook::{Denied, Request, Validator, Verdict};
use tenant_operator_api::v1::Tenant;

/// Refuses a Tenant that claims a namespace another Tenant has.
pub struct TenantValidator;

impl Validator for TenantValidator {
    type Kind = Tenant;

    async fn validate_create(&self, tenant: &Tenant, request: &Request<'_, Tenant>) -> Verdict {
        check_claims(tenant, &tenant.spec.namespaces, request).await
    }

    async fn validate_update(
        &self,
        old: &Tenant,
        new: &Tenant,
        request: &Request<'_, Tenant>,
    ) -> Verdict {
        // Only the namespaces the update adds: those the Tenant had were checked when it got them.
        let added: Vec<String> = new
            .spec
            .namespaces
            .iter()
            .filter(|namespace| !old.spec.namespaces.contains(namespace))
            .cloned()
            .collect();
        check_claims(new, &added, request).await
    }

    async fn validate_delete(&self, _tenant: &Tenant, _request: &Request<'_, Tenant>) -> Verdict {
        // Called only if `operations` in the webhook's attribute include "DELETE".
        Ok(vec![])
    }
}
// +rop:scaffold:webhook-impls

/// Allows `tenant` to claim the namespaces `claimed` unless another Tenant has one of them.
async fn check_claims(
    tenant: &Tenant,
    claimed: &[String],
    request: &Request<'_, Tenant>,
) -> Verdict {
    if claimed.is_empty() {
        return Ok(vec![]);
    }
    let tenants: Api<Tenant> = Api::all(request.client().clone());
    let others = tenants.list(&ListParams::default()).await.map_err(|e| {
        Denied::new(format!(
            "cannot check the namespaces against the other Tenants: listing them failed: {e}"
        ))
    })?;
    match taken(&tenant.name_any(), claimed, &others.items) {
        Some(message) => Err(Denied::new(message)),
        None => Ok(vec![]),
    }
}

/// Why the Tenant `name` cannot have the namespaces `claimed`, given the `tenants` there are
/// (itself among them on an update): each namespace another Tenant has, and which Tenant.
/// `None` when it can have them all.
fn taken(name: &str, claimed: &[String], tenants: &[Tenant]) -> Option<String> {
    let mut taken = Vec::new();
    for namespace in claimed {
        let others = tenants.iter().filter(|other| other.name_any() != name);
        if let Some(other) = others
            .into_iter()
            .find(|other| other.spec.namespaces.contains(namespace))
        {
            let deleted = if other.metadata.deletion_timestamp.is_some() {
                " (it is being deleted: try again once it is gone)"
            } else {
                ""
            };
            taken.push(format!(
                "namespace {namespace} belongs to the Tenant {}{deleted}",
                other.name_any()
            ));
        }
    }
    if taken.is_empty() {
        return None;
    }
    Some(format!(
        "spec.namespaces: {}: a namespace can belong to one Tenant only",
        taken.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rop::WebhookTarget as _;
    use rop::k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
    use rop::webhook::testing;
    use tenant_operator_api::v1::TenantSpec;

    fn tenant(name: &str, namespaces: &[&str]) -> Tenant {
        let spec = TenantSpec {
            namespaces: namespaces.iter().map(|n| n.to_string()).collect(),
            ..TenantSpec::default()
        };
        Tenant::new(name, spec)
    }

    fn claims(namespaces: &[&str]) -> Vec<String> {
        namespaces.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn a_namespace_of_another_tenant_is_refused_naming_both() {
        let tenants = [tenant("acme", &["acme-dev", "acme-prod"])];

        assert_eq!(
            taken("globex", &claims(&["globex-dev", "acme-prod"]), &tenants).as_deref(),
            Some(
                "spec.namespaces: namespace acme-prod belongs to the Tenant acme: a namespace can belong to one Tenant only"
            )
        );
    }

    #[test]
    fn every_namespace_taken_is_named() {
        let tenants = [
            tenant("acme", &["acme-dev"]),
            tenant("initech", &["shared"]),
        ];

        assert_eq!(
            taken("globex", &claims(&["acme-dev", "shared"]), &tenants).as_deref(),
            Some(
                "spec.namespaces: namespace acme-dev belongs to the Tenant acme, namespace shared belongs to the Tenant initech: a namespace can belong to one Tenant only"
            )
        );
    }

    #[test]
    fn a_tenant_being_deleted_still_has_its_namespaces() {
        let mut leaving = tenant("acme", &["acme-dev"]);
        leaving.metadata.deletion_timestamp = Some(Time(Default::default()));

        let message = taken("globex", &claims(&["acme-dev"]), &[leaving]).unwrap();
        assert!(
            message.contains("namespace acme-dev belongs to the Tenant acme (it is being deleted: try again once it is gone)"),
            "{message}"
        );
    }

    #[test]
    fn free_namespaces_and_the_tenants_own_are_allowed() {
        let tenants = [
            tenant("acme", &["acme-dev"]),
            tenant("globex", &["globex-dev"]),
        ];

        assert_eq!(
            taken("globex", &claims(&["globex-dev", "globex-prod"]), &tenants),
            None
        );
    }

    /// Through the webhook server: a create lists the Tenants through the client (which a
    /// server with no manager has not: tests/webhooks.rs checks the answers on a real API
    /// server), an update that adds no namespace and a delete need no list.
    #[tokio::test]
    async fn the_server_lists_through_the_client_only_for_new_claims() {
        let object = tenant("acme", &["acme-dev"]);
        let mut renamed_admins = object.clone();
        renamed_admins.spec.admins = vec!["bob@example.com".into()];
        let path = Tenant::TARGET
            .validating_webhook()
            .expect("a validating webhook")
            .path;
        let server = crate::webhook::server().expect("the webhooks register");

        let review = testing::admission_review("CREATE", Some(&object), None);
        let answer = server
            .handle(path, review)
            .await
            .expect("the path is served");
        let denied = testing::verdict(&answer).unwrap_err();
        assert!(
            denied.message.starts_with(
                "cannot check the namespaces against the other Tenants: listing them failed: "
            ) && denied.message.contains("this webhook server has no client"),
            "{}",
            denied.message
        );

        let review = testing::admission_review("UPDATE", Some(&renamed_admins), Some(&object));
        let answer = server
            .handle(path, review)
            .await
            .expect("the path is served");
        assert_eq!(testing::verdict(&answer), Ok(vec![]));

        let review = testing::admission_review("DELETE", None, Some(&object));
        let answer = server
            .handle(path, review)
            .await
            .expect("the path is served");
        assert_eq!(testing::verdict(&answer), Ok(vec![]));
    }
    // +rop:scaffold:webhook-tests
}
