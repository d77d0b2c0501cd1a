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

/// A Memcached v1 goes through the defaulter on the API server, once, and is stored
/// as the defaulter leaves it: defaulting the stored object again changes nothing.
#[test]
fn memcached_v1_is_defaulted_by_the_api_server() {
    use memcached_operator::webhook::memcached_v1::MemcachedDefaulter;
    use memcached_operator_api::v1::Memcached;
    let Some(env) = TestEnv::start_or_skip() else {
        return;
    };
    env.block_on(async {
        let webhooks = env.serve_webhooks(PROJECT, server()).await;
        let api = webhooks.api_of::<Memcached>();
        let sample = include_str!("../config/samples/cache_v1_memcached.yaml");
        let object = testing::sample(sample);
        let created = api.create(&PostParams::default(), &object).await;
        let created = created.expect("the API server admits the sample");
        let calls = webhooks.defaulter_calls::<Memcached>();
        assert_eq!(calls, 1, "the API server called the defaulter once");
        let defaulter = MemcachedDefaulter;
        let again = testing::defaulted(&defaulter, &created).await;
        let changed = rop_testenv::diff(&created, &again.expect("it is defaulted"));
        assert!(changed.is_empty(), "defaulted again: {changed:?}");
        webhooks.stop().await;
    });
}
// +rop:scaffold:webhook-tests
