//! The StatefulSet controller and the kubelet, played for tests: rop-testenv runs neither (no
//! kube-controller-manager, no nodes), so a StatefulSet never gets Pods by itself.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use k8s_openapi::api::apps::v1::StatefulSet;
use k8s_openapi::api::core::v1::{PersistentVolumeClaimVolumeSource, Pod, Volume};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::api::{Patch, PatchParams, PostParams};
use kube::{Api, Client, Resource};
use tokio::task::JoinHandle;

/// How often the kubelet looks.
const POLL: Duration = Duration::from_millis(100);

/// Plays the StatefulSet controller and the kubelet for one StatefulSet while it lives: creates
/// its missing Pods from its template (`<name>-<ordinal>`, each with the volumes of its claims
/// and the set as its owner, recording the order) and marks each ready, unless it is held.
pub struct Kubelet {
    held: Arc<Mutex<BTreeSet<String>>>,
    created: Arc<Mutex<Vec<String>>>,
    task: JoinHandle<()>,
}

impl Kubelet {
    /// Starts playing for the StatefulSet `name` in `namespace` (it may not exist yet).
    pub fn for_stateful_set(client: Client, namespace: &str, name: &str) -> Kubelet {
        let (held, created) = (Arc::default(), Arc::default());
        let sets: Api<StatefulSet> = Api::namespaced(client.clone(), namespace);
        let pods: Api<Pod> = Api::namespaced(client, namespace);
        let task = tokio::spawn(play(sets, pods, name.to_string(), Arc::clone(&held), Arc::clone(&created)));
        Kubelet { held, created, task }
    }

    /// Keeps the Pod `pod` from becoming ready (it is created, and shown not ready).
    pub fn hold(&self, pod: &str) {
        self.held.lock().unwrap_or_else(std::sync::PoisonError::into_inner).insert(pod.into());
    }

    /// Lets every held Pod become ready.
    pub fn release(&self) {
        self.held.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clear();
    }

    /// The Pods created since the last call, in the order they were created.
    pub fn take_created(&self) -> Vec<String> {
        std::mem::take(&mut *self.created.lock().unwrap_or_else(std::sync::PoisonError::into_inner))
    }
}

impl Drop for Kubelet {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn play(
    sets: Api<StatefulSet>,
    pods: Api<Pod>,
    name: String,
    held: Arc<Mutex<BTreeSet<String>>>,
    created: Arc<Mutex<Vec<String>>>,
) {
    loop {
        tokio::time::sleep(POLL).await;
        let Ok(Some(set)) = sets.get_opt(&name).await else { continue };
        for ordinal in 0..set.spec.replicas.unwrap_or(1) {
            let pod_name = format!("{name}-{ordinal}");
            let pod = match pods.get_opt(&pod_name).await {
                Ok(Some(pod)) => pod,
                Ok(None) => {
                    let Ok(pod) = pods.create(&PostParams::default(), &pod_of(&set, &pod_name)).await else { continue };
                    created.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(pod_name.clone());
                    pod
                }
                Err(_) => continue,
            };
            let ready = !held.lock().unwrap_or_else(std::sync::PoisonError::into_inner).contains(&pod_name);
            let conditions = pod.status.as_ref().and_then(|s| s.conditions.as_ref());
            let shown = conditions.is_some_and(|c| c.iter().any(|c| c.type_ == "Ready" && c.status == "True"));
            if shown != ready {
                let status = if ready { "True" } else { "False" };
                let patch = serde_json::json!({
                    "status": { "phase": "Running", "conditions": [{ "type": "Ready", "status": status }] }
                });
                // A failure (the Pod just went) is retried on the next round.
                let _ = pods.patch_status(&pod_name, &PatchParams::default(), &Patch::Merge(&patch)).await;
            }
        }
    }
}

/// Pod `name` of `set`, as the StatefulSet controller makes it: the template, with the volume
/// of each of the replica's claims (`<claim>-<pod>`) and the set as its owner.
fn pod_of(set: &StatefulSet, name: &str) -> Pod {
    let template = set.spec.template.clone();
    let mut spec = template.spec.unwrap_or_default();
    for claim in set.spec.volume_claim_templates.iter().flatten() {
        let claim = claim.metadata.name.clone().unwrap_or_default();
        spec.volumes.get_or_insert_with(Vec::new).push(Volume {
            name: claim.clone(),
            persistent_volume_claim: Some(PersistentVolumeClaimVolumeSource {
                claim_name: format!("{claim}-{name}"),
                ..PersistentVolumeClaimVolumeSource::default()
            }),
            ..Volume::default()
        });
    }
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
