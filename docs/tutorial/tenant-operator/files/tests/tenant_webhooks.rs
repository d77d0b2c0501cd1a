//! The Tenant webhooks on a real API server beyond the scaffolded checks of `webhooks.rs`:
//! the validator refuses a namespace another Tenant has (it lists them through the manager's
//! client), and the admins v1alpha1 cannot hold survive a v1alpha1 read and write.

use rop::kube::api::{Patch, PatchParams, PostParams};
use rop_testenv::TestEnv;

/// The project's folder, where the manifests and samples are.
const PROJECT: &str = env!("CARGO_MANIFEST_DIR");

/// The webhook server the manager runs.
fn server() -> rop::webhook::Server {
    tenant_operator::webhook::server().expect("the webhooks register")
}

/// The API server refuses a second Tenant that claims a namespace of the first, created as v1
/// or as v1alpha1 (converted to v1 for the validator), and an update that adds one: the
/// validator lists the Tenants through the manager's client.
#[test]
fn a_tenant_claiming_a_namespace_of_another_is_refused_by_the_api_server() {
    use tenant_operator_api::{v1, v1alpha1};
    let Some(env) = TestEnv::start_or_skip() else {
        return;
    };
    env.block_on(async {
        let webhooks = env.serve_webhooks(PROJECT, server()).await;
        let api = webhooks.api_of::<v1::Tenant>();
        let post = PostParams::default();
        let sample = include_str!("../config/samples/tenancy_v1_tenant.yaml");
        let acme: v1::Tenant = rop::webhook::testing::sample(sample);
        api.create(&post, &acme)
            .await
            .expect("the first Tenant is admitted");

        let claims = |namespaces: &[&str]| v1::TenantSpec {
            namespaces: namespaces.iter().map(|n| n.to_string()).collect(),
            ..acme.spec.clone()
        };
        let initech = v1::Tenant::new("initech", claims(&["initech-dev", "acme-prod"]));
        let refused = api.create(&post, &initech).await;
        assert_eq!(
            refusal(refused),
            (
                403,
                "admission webhook \"vtenant-v1.tenancy.example.com\" denied the request: \
                 spec.namespaces: namespace acme-prod belongs to the Tenant acme: \
                 a namespace can belong to one Tenant only"
                    .to_string()
            )
        );
        assert_eq!(webhooks.validator_calls::<v1::Tenant>(), 2);

        // As v1alpha1: the API server converts it to v1 for the validator.
        let spec = v1alpha1::TenantSpec {
            namespaces: vec!["acme-dev".into()],
            ..v1alpha1::TenantSpec::default()
        };
        let alpha = v1alpha1::Tenant::new("initech", spec);
        let refused = webhooks
            .api_of::<v1alpha1::Tenant>()
            .create(&post, &alpha)
            .await;
        assert_eq!(refusal(refused), (403, ACME_DEV_TAKEN.to_string()));
        assert!(
            webhooks.conversion_calls() > 0,
            "converted for the validator"
        );

        // With namespaces of its own it is admitted; an update cannot take one of acme's.
        let initech = v1::Tenant::new("initech", claims(&["initech-dev"]));
        api.create(&post, &initech).await.expect("admitted");
        let take = serde_json::json!({ "spec": { "namespaces": ["initech-dev", "acme-dev"] } });
        let refused = api
            .patch("initech", &PatchParams::default(), &Patch::Merge(&take))
            .await;
        assert_eq!(refusal(refused), (403, ACME_DEV_TAKEN.to_string()));
        // A Tenant keeps its own namespaces through an update.
        let more =
            serde_json::json!({ "spec": { "admins": ["alice@example.com", "bob@example.com"] } });
        api.patch("acme", &PatchParams::default(), &Patch::Merge(&more))
            .await
            .expect("acme's own namespaces are no conflict");
        webhooks.stop().await;
    });
}

/// v1alpha1 has one admin: a v1 Tenant with two reads as v1alpha1 with the second in an
/// annotation, and written back as v1alpha1 it still has both. The API server converts both
/// ways through the conversion webhook.
#[test]
fn a_v1_tenant_keeps_every_admin_through_v1alpha1() {
    use tenant_operator_api::{v1, v1alpha1};
    let Some(env) = TestEnv::start_or_skip() else {
        return;
    };
    env.block_on(async {
        let webhooks = env.serve_webhooks(PROJECT, server()).await;
        let (hub, spoke) = (
            webhooks.api_of::<v1::Tenant>(),
            webhooks.api_of::<v1alpha1::Tenant>(),
        );
        let sample = include_str!("../config/samples/tenancy_v1_tenant.yaml");
        let mut acme: v1::Tenant = rop::webhook::testing::sample(sample);
        acme.spec.admins = vec!["alice@example.com".into(), "bob@example.com".into()];
        hub.create(&PostParams::default(), &acme)
            .await
            .expect("admitted");

        let mut alpha = spoke.get("acme").await.expect("it reads as v1alpha1");
        assert_eq!(
            alpha.spec,
            v1alpha1::TenantSpec {
                namespaces: acme.spec.namespaces.clone(),
                admin: Some("alice@example.com".into()),
                cpu: "8".into(),
                memory: "16Gi".into(),
                pods: 50,
            }
        );
        let annotations = alpha.metadata.annotations.clone().unwrap_or_default();
        assert_eq!(
            annotations.get("tenancy.example.com/additional-admins"),
            Some(&r#"["bob@example.com"]"#.to_string())
        );

        alpha.spec.pods = 60;
        spoke
            .replace("acme", &PostParams::default(), &alpha)
            .await
            .expect("the v1alpha1 update is admitted");
        let stored = hub.get("acme").await.expect("it reads as v1");
        assert_eq!(stored.spec.admins, acme.spec.admins, "no admin lost");
        assert_eq!(stored.spec.quota.pods, 60);
        let annotations = stored.metadata.annotations.unwrap_or_default();
        assert!(
            !annotations.contains_key("tenancy.example.com/additional-admins"),
            "v1 stores no annotation: {annotations:?}"
        );
        assert!(webhooks.conversion_calls() >= 2, "converted both ways");
        webhooks.stop().await;
    });
}
// +rop:scaffold:webhook-tests

/// The validator's refusal of a Tenant that claims acme's `acme-dev`.
const ACME_DEV_TAKEN: &str = "admission webhook \"vtenant-v1.tenancy.example.com\" denied the request: \
    spec.namespaces: namespace acme-dev belongs to the Tenant acme: \
    a namespace can belong to one Tenant only";

/// The HTTP code and message of the API server's refusal.
fn refusal<T: std::fmt::Debug>(result: Result<T, rop::kube::Error>) -> (u16, String) {
    match result {
        Err(rop::kube::Error::Api(status)) => (status.code, status.message),
        other => panic!("the API server did not refuse: {other:?}"),
    }
}
