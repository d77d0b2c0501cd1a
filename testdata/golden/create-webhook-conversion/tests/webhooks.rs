// Copyright 2026.
// SPDX-License-Identifier: Apache-2.0

//! The project's webhooks on a real API server (rop-testenv): `webhook::server()` served with a
//! test certificate and registered as `config/webhook` registers it, each converted kind's CRD
//! pointing at its `/convert`, so the objects below go through the API server's admission and
//! conversion as in a cluster. `make testenv` installs etcd and kube-apiserver; without them
//! the tests say `skipped` and pass (they fail with `ROP_TESTENV_REQUIRE=1`).

use rop::kube::api::PostParams;
use rop::webhook::{Server, testing};
use rop_testenv::TestEnv;

/// The project's folder, where the manifests and samples are.
const PROJECT: &str = env!("CARGO_MANIFEST_DIR");

/// The webhook server the manager runs.
fn server() -> Server {
    memcached_operator::webhook::server().expect("the webhooks register")
}

/// A Memcached created as v1beta1 is stored as v1, comes back with nothing the sample said
/// lost, and reads as v1 as the conversion here converts it: the API server converts it
/// through the conversion webhook.
#[test]
fn memcached_v1beta1_is_converted_by_the_api_server() {
    type Hub = memcached_operator_api::v1::Memcached;
    type Spoke = memcached_operator_api::v1beta1::Memcached;
    let Some(env) = TestEnv::start_or_skip() else {
        return;
    };
    env.block_on(async {
        let webhooks = env.serve_webhooks(PROJECT, server()).await;
        let (api, hub) = (webhooks.api_of::<Spoke>(), webhooks.api_of::<Hub>());
        let sample = include_str!("../config/samples/cache_v1beta1_memcached.yaml");
        let object = testing::sample(sample);
        let created = api.create(&PostParams::default(), &object).await;
        let created = created.expect("the API server stores the sample");
        let lost = rop_testenv::lost(&object.spec, &created.spec);
        assert!(lost.is_empty(), "lost through v1 and back: {lost:?}");
        let name = created.metadata.name.clone().unwrap_or_default();
        let stored = hub.get(&name).await.expect("it reads as v1");
        let hub_version = "cache.example.com/v1";
        let converted = testing::convert(&server(), hub_version, &created).await;
        let converted: Hub = converted.expect("it converts to the hub");
        assert_eq!(stored.spec, converted.spec);
        let calls = webhooks.conversion_calls();
        assert!(calls > 0, "the API server called the conversion");
        webhooks.stop().await;
    });
}
// +rop:scaffold:webhook-tests
