//! What the benchmark sees of the cluster while it waits: the Deployments and the custom
//! objects as two watches last delivered them. Listing them every 100 ms instead would load
//! the API server the managers share with the benchmark more than the work it measures: at
//! 10,000 objects one list of the Deployments is tens of megabytes of JSON.

use std::collections::BTreeSet;
use std::future::ready;

use futures::StreamExt;
use k8s_openapi::api::apps::v1::Deployment;
use kube::api::{Api, ApiResource, DynamicObject};
use kube::runtime::reflector::{self, Store, reflector, store::Writer};
use kube::runtime::{WatchStreamExt, watcher};
use tokio::task::JoinHandle;

use super::NAMESPACE;

/// The Deployments and the objects in [`NAMESPACE`], kept up to date by watches that run until
/// the view is dropped.
pub(crate) struct View {
    deployments: Store<Deployment>,
    objects: Store<DynamicObject>,
    watches: JoinHandle<()>,
}

impl View {
    /// Starts both watches and waits for their first lists.
    ///
    /// # Errors
    /// A watch ended before it listed (the task was cancelled).
    pub(crate) async fn watch(client: &kube::Client, resource: &ApiResource) -> anyhow::Result<View> {
        let (deployments, deployments_writer) = reflector::store::<Deployment>();
        let objects_writer = Writer::new(resource.clone());
        let objects = objects_writer.as_reader();
        let config = watcher::Config::default();
        let deployment_api = Api::<Deployment>::namespaced(client.clone(), NAMESPACE);
        let object_api = Api::<DynamicObject>::namespaced_with(client.clone(), NAMESPACE, resource);
        let deployment_watch = reflector(deployments_writer, watcher(deployment_api, config.clone()).default_backoff());
        let object_watch = reflector(objects_writer, watcher(object_api, config).default_backoff());
        let watches = tokio::spawn(async move {
            futures::join!(deployment_watch.for_each(|_| ready(())), object_watch.for_each(|_| ready(())));
        });
        deployments.wait_until_ready().await?;
        objects.wait_until_ready().await?;
        Ok(View { deployments, objects, watches })
    }

    /// The names of the Deployments with `replicas` and a uid not in `old` (an object's
    /// Deployment has the object's name, in both operators).
    pub(crate) fn deployed(&self, replicas: i32, old: &BTreeSet<String>) -> BTreeSet<String> {
        self.deployments
            .state()
            .iter()
            .filter(|d| d.spec.replicas == Some(replicas))
            .filter(|d| d.metadata.uid.as_ref().is_some_and(|uid| !old.contains(uid)))
            .filter_map(|d| d.metadata.name.clone())
            .filter(|name| name.starts_with("bench-"))
            .collect()
    }

    /// The uids of the Deployments there are.
    pub(crate) fn deployment_uids(&self) -> BTreeSet<String> {
        self.deployments.state().iter().filter_map(|d| d.metadata.uid.clone()).collect()
    }

    /// The names of the objects whose status has a condition of `type_`.
    pub(crate) fn with_condition(&self, type_: &str) -> BTreeSet<String> {
        self.objects
            .state()
            .iter()
            .filter(|o| o.data["status"]["conditions"].as_array().is_some_and(|c| c.iter().any(|c| c["type"] == type_)))
            .filter_map(|o| o.metadata.name.clone())
            .collect()
    }
}

impl Drop for View {
    fn drop(&mut self) {
        self.watches.abort();
    }
}
