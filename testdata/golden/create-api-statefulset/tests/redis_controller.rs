// Copyright 2026 The Memcached Authors.
// SPDX-License-Identifier: Apache-2.0

//! The Redis controller against a real API server: etcd and kube-apiserver started by
//! rop-testenv (envtest for Rust), with the CRDs from `config/crd/bases` and the sample from
//! `config/samples`. Run `make manifests` first.
//!
//! No kube-controller-manager or kubelet runs here, so the test plays both for the
//! StatefulSet: it creates the missing Pods from its template and marks them ready, or holds
//! one back to show that the rollout waits for it.
//!
//! It needs the two binaries: `make testenv` (`rop testenv install`) installs them, or point
//! `ROP_TESTENV_DIR` or `KUBEBUILDER_ASSETS` (setup-envtest's) at a folder holding `etcd` and
//! `kube-apiserver`. Without them the test prints `skipped: ...` and passes; set
//! `ROP_TESTENV_REQUIRE=1` to make that a failure. Logs of the controller (`RUST_LOG`) show
//! with `cargo test -- --nocapture` or when the test fails.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rop::k8s_openapi::api::apps::v1::StatefulSet;
use rop::k8s_openapi::api::core::v1::{PersistentVolumeClaimVolumeSource, Pod, Service, Volume};
use rop::k8s_openapi::api::policy::v1::PodDisruptionBudget;
use rop::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rop::kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use rop::kube::{Resource, ResourceExt};
use rop::manager::{Manager, Options};
use rop_testenv::{TestEnv, wait_for, wait_until_gone};

use memcached_operator::controller::redis::RedisReconciler;
use memcached_operator_api::v1alpha1::Redis;

/// The sample `rop create api` wrote, which the test creates.
const SAMPLE: &str = "config/samples/cache_v1alpha1_redis.yaml";

/// Pods the kubelet played here keeps from becoming ready.
type Held = Arc<Mutex<BTreeSet<String>>>;

#[test]
fn redis_rolls_out_one_ordinal_at_a_time_within_its_budget() {
    let Some(env) = TestEnv::start_or_skip() else {
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    env.block_on(async {
        let client = env.client();
        rop_testenv::install_crds(&client, &root.join("config/crd/bases"))
            .await
            .expect("the CRDs install (run `make manifests` first)");
        // The controller acts as the manager's ServiceAccount with the rules `make manifests`
        // wrote: a permission missing from config/rbac/role.yaml fails here as in a cluster.
        let role = root.join("config/rbac/role.yaml");
        rop_testenv::install_manager_rbac(&client, &role)
            .await
            .expect("the manager's RBAC installs");
        let account = rop_testenv::MANAGER_SERVICE_ACCOUNT;
        let as_manager = env
            .client_as_service_account(rop_testenv::MANAGER_NAMESPACE, account)
            .expect("a client as the manager");
        let mut manager = Manager::with_client("test", Options::for_tests(), as_manager);
        manager.add_controller(RedisReconciler);
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let running = tokio::spawn(manager.run_until(async {
            let _ = stopped.await;
        }));

        let sample = rop_testenv::object_from_file(&root.join(SAMPLE));
        let sample: Redis = sample.expect("the sample");
        let api = Api::namespaced(client.clone(), "default");
        let name = sample.name_any();
        api.create(&PostParams::default(), &sample)
            .await
            .expect("the API server accepts the sample");
        let held = Held::default();
        let created = Arc::new(Mutex::new(Vec::new()));
        let kubelet = tokio::spawn(play_kubelet(
            client.clone(),
            name.clone(),
            held.clone(),
            created.clone(),
        ));

        // Every replica ready, the objects as the spec asks.
        let replicas = sample.spec.replicas;
        settled(&api, &name).await;
        let sets: Api<StatefulSet> = Api::namespaced(client.clone(), "default");
        let set = sets.get(&name).await.unwrap();
        assert_eq!(set.spec.replicas, Some(replicas));
        let strategy = set.spec.update_strategy.as_ref().unwrap();
        assert_eq!(strategy.type_.as_deref(), Some("OnDelete"));
        let budgets: Api<PodDisruptionBudget> = Api::namespaced(client.clone(), "default");
        let budget = budgets.get(&name).await.unwrap().spec.unwrap();
        assert_eq!(budget.min_available, Some(sample.spec.min_available.clone()));
        let services: Api<Service> = Api::namespaced(client.clone(), "default");
        let service = services.get(&name).await.unwrap().spec.unwrap();
        assert_eq!(service.cluster_ip.as_deref(), Some("None"));

        // A new configuration rolls the replicas, highest ordinal first; the rollout halts
        // while the new Pod is not ready, and goes on when it is.
        let last = format!("{name}-{}", replicas - 1);
        held.lock().unwrap().insert(last.clone());
        created.lock().unwrap().clear();
        let config = serde_json::json!({ "spec": { "config": { "app.conf": "version 2" } } });
        api.patch(&name, &PatchParams::default(), &Patch::Merge(&config))
            .await
            .unwrap();
        let waiting = format!("waiting for Pod {last} to be ready");
        let halted = wait_for(&api, &name, |object| {
            progressing(object).is_some_and(|(_, message)| message.ends_with(&waiting))
        })
        .await;
        assert_eq!(halted.status.as_ref().unwrap().updated_replicas, 1);
        tokio::time::sleep(Duration::from_secs(3)).await;
        let only_last = std::slice::from_ref(&last);
        assert_eq!(*created.lock().unwrap(), only_last, "no other Pod went");
        held.lock().unwrap().clear();
        settled(&api, &name).await;
        let order: Vec<String> = (0..replicas).rev().map(|o| format!("{name}-{o}")).collect();
        assert_eq!(*created.lock().unwrap(), order, "one ordinal at a time, highest first");

        // An update the budget cannot afford stops, and says why, until the budget allows it.
        created.lock().unwrap().clear();
        let strict = serde_json::json!({
            "spec": { "minAvailable": "100%", "config": { "app.conf": "version 3" } }
        });
        api.patch(&name, &PatchParams::default(), &Patch::Merge(&strict))
            .await
            .unwrap();
        let blocked = wait_for(&api, &name, |object| {
            progressing(object).is_some_and(|(reason, _)| reason == "RolloutBlocked")
        })
        .await;
        let (_, message) = progressing(&blocked).unwrap();
        assert_eq!(
            message,
            format!(
                "updating Pod {last} would leave {} of {replicas} replicas ready, and the disruption budget keeps {replicas}",
                replicas - 1
            )
        );
        assert!(created.lock().unwrap().is_empty(), "no Pod went");
        let relaxed = serde_json::json!({ "spec": { "minAvailable": sample.spec.min_available } });
        api.patch(&name, &PatchParams::default(), &Patch::Merge(&relaxed))
            .await
            .unwrap();
        settled(&api, &name).await;
        assert_eq!(created.lock().unwrap().len(), replicas as usize);

        // The volumes are fixed once the StatefulSet exists: the API server refuses a change.
        let resize = serde_json::json!({ "spec": { "storageSize": "5Gi" } });
        let refused = api
            .patch(&name, &PatchParams::default(), &Patch::Merge(&resize))
            .await
            .expect_err("storageSize cannot change");
        let refused = refused.to_string();
        assert!(
            refused.contains("storageSize and storageClassName cannot change"),
            "{refused}"
        );
        // A budget that is neither a count nor a percentage is refused, not read as 100 %.
        let half = Patch::Merge(serde_json::json!({ "spec": { "minAvailable": "half" } }));
        let refused = api.patch(&name, &PatchParams::default(), &half).await;
        let refused = refused.expect_err("minAvailable: half").to_string();
        assert!(refused.contains("or a percentage from"), "{refused}");

        // Deleting the object lets it go: no finalizer holds it (in a cluster the garbage
        // collector then deletes the StatefulSet it owns).
        kubelet.abort();
        api.delete(&name, &DeleteParams::default()).await.unwrap();
        wait_until_gone(&api, &name).await;
        stop.send(()).unwrap();
        running.await.unwrap().expect("the manager stops cleanly");
    });
}

/// `Progressing`'s reason and message.
fn progressing(object: &Redis) -> Option<(String, String)> {
    let status = object.status.as_ref()?;
    let condition = rop::conditions::find(&status.conditions, "Progressing")?;
    Some((condition.reason.clone(), condition.message.clone()))
}

/// Waits until every replica of `name` is ready and updated, for the current generation.
async fn settled(api: &Api<Redis>, name: &str) -> Redis {
    wait_for(api, name, |object| {
        let Some(status) = object.status.as_ref() else {
            return false;
        };
        let replicas = object.spec.replicas;
        status.observed_generation == object.metadata.generation
            && (status.ready_replicas, status.updated_replicas) == (replicas, replicas)
            && rop::conditions::is_true(&status.conditions, "Available")
            && progressing(object).is_some_and(|(reason, _)| reason == "RolloutComplete")
    })
    .await
}

/// Plays the StatefulSet controller and the kubelet for StatefulSet `name`, which do not run
/// here: creates its missing Pods from its template (`<name>-<ordinal>`, with the volume of
/// their claim; `created` records them in order) and marks each ready, unless `held`.
async fn play_kubelet(
    client: rop::kube::Client,
    name: String,
    held: Held,
    created: Arc<Mutex<Vec<String>>>,
) {
    let sets: Api<StatefulSet> = Api::namespaced(client.clone(), "default");
    let pods: Api<Pod> = Api::namespaced(client, "default");
    loop {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let Ok(Some(set)) = sets.get_opt(&name).await else {
            continue;
        };
        for ordinal in 0..set.spec.replicas.unwrap_or(1) {
            let pod_name = format!("{name}-{ordinal}");
            let pod = match pods.get_opt(&pod_name).await {
                Ok(Some(pod)) => pod,
                Ok(None) => {
                    let pod = pod_of(&set, &pod_name);
                    let Ok(pod) = pods.create(&PostParams::default(), &pod).await else {
                        continue;
                    };
                    created.lock().unwrap().push(pod_name.clone());
                    pod
                }
                Err(_) => continue,
            };
            let ready = !held.lock().unwrap().contains(&pod_name);
            let conditions = pod.status.as_ref().and_then(|s| s.conditions.as_ref());
            let shown = conditions
                .is_some_and(|c| c.iter().any(|c| c.type_ == "Ready" && c.status == "True"));
            if shown != ready {
                let status = if ready { "True" } else { "False" };
                let patch = serde_json::json!({
                    "status": { "phase": "Running", "conditions": [{ "type": "Ready", "status": status }] }
                });
                // A failure (the Pod just went) is retried on the next round.
                let _ = pods
                    .patch_status(&pod_name, &PatchParams::default(), &Patch::Merge(&patch))
                    .await;
            }
        }
    }
}

/// Pod `name` of `set`, as the StatefulSet controller makes it: the template, with the
/// replica's claim as its data volume and the set as its owner.
fn pod_of(set: &StatefulSet, name: &str) -> Pod {
    let template = set.spec.template.clone();
    let mut spec = template.spec.unwrap_or_default();
    let claim = format!("data-{name}");
    spec.volumes.get_or_insert_with(Vec::new).push(Volume {
        name: "data".into(),
        persistent_volume_claim: Some(PersistentVolumeClaimVolumeSource {
            claim_name: claim,
            ..PersistentVolumeClaimVolumeSource::default()
        }),
        ..Volume::default()
    });
    let metadata = template.metadata.unwrap_or_default();
    Pod {
        metadata: ObjectMeta {
            name: Some(name.into()),
            labels: metadata.labels,
            annotations: metadata.annotations,
            owner_references: set.controller_owner_ref(&()).map(|owner| vec![owner]),
            ..ObjectMeta::default()
        },
        spec: Some(spec),
        ..Pod::default()
    }
}
