//! `rop::workload::roll` on a real API server, with `Kubelet` playing the StatefulSet
//! controller and the kubelet: an update goes one ordinal at a time, highest first, waits for
//! each new Pod to be ready, stops where the disruption budget would break and says why, and a
//! budget that is no number stops the object instead of being read as anything; and with
//! `Changes::Spec` for the StatefulSet in its `Config`, the StatefulSet's status updates start
//! no pass. A project's scaffolded StatefulSet test checks its own kind's rollout; these
//! orderings are checked here, once, where the machinery lives.

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::apps::v1::StatefulSet;
use k8s_openapi::api::core::v1::Container;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use kube::api::{Patch, PatchParams};
use rop::CustomResource;
use rop::JsonSchema;
use rop::controller::{Action, Cache, Changes, Config, Context, ObjectRef, Reconciler, Watch, Watched};
use rop::workload::{self, Error, Rollout};
use rop_testenv::{Kubelet, TEST_NAMESPACE, check_controller, find_condition, rolled_out};
use serde::{Deserialize, Serialize};
use serde_json::json;

mod support;

/// A store runs `replicas` Pods of `version`, keeping `minAvailable` of them ready.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[rop(group = "workload.rop.dev", version = "v1", kind = "Store", plural = "stores")]
#[rop(namespaced, storage, status = "StoreStatus", derive = "Default", derive = "PartialEq")]
#[rop(owns(k8s_openapi::api::apps::v1::StatefulSet), watches(k8s_openapi::api::core::v1::Pod))]
#[rop(rbac(groups = [""], resources = ["pods"], verbs = ["get", "list", "watch", "delete"]))]
#[rop(rbac(groups = ["events.k8s.io"], resources = ["events"], verbs = ["create", "patch"]))]
#[serde(rename_all = "camelCase")]
pub struct StoreSpec {
    /// How many Pods run.
    pub replicas: i32,
    /// How many of them stay ready during an update: a count or a percentage. No rule of
    /// the schema checks it, so that the controller's own check is what the test sees.
    pub min_available: IntOrString,
    /// What the Pods run: a change rolls them.
    pub version: String,
}

/// What the store's controller observed.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StoreStatus {
    /// `Available`, `Progressing` and `Degraded`, as `rop::workload::report_rollout` sets them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
    /// The generation the status was computed from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
}

/// The operator, in the `app.kubernetes.io/managed-by` label of what it runs.
const MANAGED_BY: &str = "rollout-test";
/// The Pod template's annotation with the hash of what the Pods run.
const TEMPLATE_HASH: &str = "workload.rop.dev/template-hash";

/// Reconciles stores as the scaffolded StatefulSet controller does, with nothing but the
/// StatefulSet.
struct Stores;

impl Reconciler for Stores {
    type Kind = Store;
    type Error = Error;

    async fn reconcile(&self, store: Arc<Store>, ctx: &Context<Store>) -> Result<Action, Error> {
        let rolled = roll(&store, ctx).await;
        let generation = store.metadata.generation;
        let status = |rollout: &Rollout| {
            let mut status =
                StoreStatus { observed_generation: generation, ..store.status.clone().unwrap_or_default() };
            workload::report_rollout(&mut status.conditions, generation, rollout);
            status
        };
        let rollout = workload::write_status(ctx, &store, rolled, status).await?;
        Ok(rollout.next_look(Duration::from_secs(300)))
    }

    fn map_watched(&self, pod: &Watched, _: &Cache<Store>) -> Vec<ObjectRef<Store>> {
        workload::instance_of(pod, MANAGED_BY)
    }

    /// The rollout reads the Pods, not the StatefulSet's status.
    fn config(&self) -> Config<Store> {
        Config::default().watch::<StatefulSet>(Watch::default().changes(Changes::Spec))
    }
}

async fn roll(store: &Store, ctx: &Context<Store>) -> Result<Rollout, Error> {
    let keep = workload::min_available(store.spec.replicas, &store.spec.min_available).map_err(Error::MinAvailable)?;
    let labels = workload::labels(store, MANAGED_BY);
    let container = Container { name: "store".into(), image: Some("store".into()), ..Container::default() };
    let pod = workload::restricted_pod(vec![container], None);
    let mut set = workload::stateful_set(store, &labels, store.spec.replicas, pod, Vec::new());
    workload::stamp_template(&mut set.spec.template, TEMPLATE_HASH, &store.spec.version);
    let set = ctx.apply(store, set).await?;
    workload::roll(ctx, store, &set, TEMPLATE_HASH, keep).await
}

/// The sample: three replicas, keeping two ready.
const SAMPLE: &str = "apiVersion: workload.rop.dev/v1\nkind: Store\nmetadata:\n  name: sample\n\
                      spec:\n  replicas: 3\n  minAvailable: 2\n  version: one\n";

/// `Progressing`'s reason and message (empty when the store has none).
fn progressing(store: &Store) -> (String, String) {
    find_condition(store, "Progressing").map(|c| (c.reason, c.message)).unwrap_or_default()
}

#[test]
fn an_update_goes_one_ordinal_at_a_time_highest_first_within_the_budget() {
    let project = support::project::<Store>("workload_v1_store.yaml", SAMPLE);
    check_controller(project.path(), Stores, "workload_v1_store.yaml", async |controller, store| {
        let kubelet = Kubelet::for_stateful_set(controller.client(), TEST_NAMESPACE, "sample");
        let ready = controller.wait_for(store, rolled_out).await;
        assert_eq!(kubelet.take_created(), ["sample-0", "sample-1", "sample-2"]);

        // `Changes::Spec`: an update of the StatefulSet's status starts no pass; its
        // deletion and a change of its spec do, and the StatefulSet is put back.
        controller.settled().await;
        let passes = controller.passes(&ready);
        let set: StatefulSet = controller.owned(&ready).await;
        let status = Patch::Merge(json!({ "status": { "replicas": 3, "currentReplicas": 3 } }));
        let sets = controller.api_of::<StatefulSet>();
        sets.patch_status("sample", &PatchParams::default(), &status).await.unwrap();
        // Long enough for the watch event, and a pass it would start, to arrive.
        tokio::time::sleep(Duration::from_secs(1)).await;
        controller.settled().await;
        assert_eq!(controller.passes(&ready), passes, "a status update of the StatefulSet started a pass");
        controller.heals(&set, json!({ "spec": { "replicas": 5 } })).await;
        controller.settled().await;
        kubelet.take_created();

        // The highest ordinal goes first; while its new Pod is not ready, no other goes.
        kubelet.hold("sample-2");
        controller.patch_spec(store, json!({ "version": "two" })).await.unwrap();
        let halted =
            |c: &Store| progressing(c).1 == "1 of 3 replicas are updated; waiting for Pod sample-2 to be ready";
        controller.wait_for(store, halted).await;
        controller.settled().await;
        assert_eq!(kubelet.take_created(), ["sample-2"], "no other Pod went");
        kubelet.release();
        let done = controller.wait_for(store, rolled_out).await;
        assert_eq!(kubelet.take_created(), ["sample-1", "sample-0"], "then the others, highest first");
        assert_eq!(progressing(&done).1, "3 of 3 replicas are updated");

        // An update the budget cannot afford stops and says why, until the budget allows it.
        controller.patch_spec(store, json!({ "minAvailable": "100%", "version": "three" })).await.unwrap();
        let blocked = controller.wait_for(store, |c| caught_up_with(c, "RolloutBlocked")).await;
        let why = "updating Pod sample-2 would leave 2 of 3 replicas ready, and the disruption budget keeps 3";
        assert_eq!(progressing(&blocked).1, why);
        controller.settled().await;
        assert!(kubelet.take_created().is_empty(), "no Pod went");
        controller.patch_spec(store, json!({ "minAvailable": "66%" })).await.unwrap();
        controller.wait_for(store, rolled_out).await;
        assert_eq!(kubelet.take_created(), ["sample-2", "sample-1", "sample-0"]);

        // A budget that is no number is reported, and nothing is rolled on its account.
        controller.patch_spec(store, json!({ "minAvailable": "half", "version": "four" })).await.unwrap();
        let stalled = controller.wait_for(store, rop_testenv::condition("Stalled")).await;
        let degraded = find_condition(&stalled, "Degraded").unwrap();
        let invalid = "spec.minAvailable is invalid: minAvailable \"half\" is neither a number of replicas (0 or more) \
                       nor a percentage from \"0%\" to \"100%\"";
        assert_eq!(degraded.message, invalid);
        controller.settled().await;
        assert!(kubelet.take_created().is_empty(), "no Pod went");
        controller.patch_spec(store, json!({ "minAvailable": 2 })).await.unwrap();
        controller.wait_for(store, rolled_out).await;
    });
}

/// Whether `store`'s status is of its current spec and `Progressing` has `reason`.
fn caught_up_with(store: &Store, reason: &str) -> bool {
    rop_testenv::caught_up(store) && progressing(store).0 == reason
}
