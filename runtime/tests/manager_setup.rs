//! What the manager checks of what it is given before it connects or starts anything: a
//! controller's `Config` (a watch of a kind the controller does not reconcile, own or watch, or
//! a label selector the API server would refuse), and the webhook servers added, whose
//! webhooks it serves together. Each stops it with an error that names the fix.

use std::sync::Arc;

use rop::controller::{Action, Changes, Config, Context, Reconciler, Watch};
use rop::k8s_openapi::api::apps::v1::Deployment;
use rop::k8s_openapi::api::apps::v1::StatefulSet;
use rop::k8s_openapi::api::core::v1::{ConfigMap, Pod};
use rop::k8s_openapi::api::policy::v1::PodDisruptionBudget;
use rop::kube::core::{Expression, Selector};
use rop::manager::{Manager, Options};
use rop::webhook::{Defaulter, Denied, Registration, Request, Server};

/// StatefulSets, owning PodDisruptionBudgets and watching Pods.
#[derive(rop::BuiltinKind)]
#[rop(group = "apps", version = "v1", kind = "StatefulSet", plural = "statefulsets")]
#[rop(object = "rop::k8s_openapi::api::apps::v1::StatefulSet")]
#[rop(controller)]
#[rop(owns(rop::k8s_openapi::api::policy::v1::PodDisruptionBudget))]
#[rop(watches(rop::k8s_openapi::api::core::v1::Pod))]
struct Sets;

/// A reconciler whose config is given.
struct Configured(Config<Sets>);

impl Reconciler for Configured {
    type Kind = Sets;
    type Error = rop::kube::Error;

    async fn reconcile(&self, _: Arc<StatefulSet>, _: &Context<Sets>) -> Result<Action, rop::kube::Error> {
        Ok(Action::await_change())
    }

    fn config(&self) -> Config<Sets> {
        self.0.clone()
    }
}

/// What the manager says when it runs the controller of `config`: `Ok` only if it got past the
/// check (it then fails for want of a cluster, or stops at once).
fn start(config: Config<Sets>) -> Result<(), String> {
    start_with(|manager| {
        manager.add_controller(Configured(config));
    })
}

/// As [`start`], with what `add` adds to the manager.
fn start_with(add: impl FnOnce(&mut Manager)) -> Result<(), String> {
    let mut manager = Manager::new("sets", Options::for_tests());
    add(&mut manager);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    match runtime.block_on(manager.run_until(async {})) {
        // Past the check, a manager without a cluster fails for want of a client.
        Err(err) if !err.to_string().starts_with("failed to create the Kubernetes client") => Err(err.to_string()),
        _ => Ok(()),
    }
}

#[test]
fn a_watch_of_a_kind_the_controller_does_not_name_stops_the_manager() {
    let config = Config::default().watch::<ConfigMap>(Watch::default());
    assert_eq!(
        start(config),
        Err("controller statefulset: its config sets a watch of v1 ConfigMap, which the kind neither is nor \
             names in #[rop(owns(...))] or #[rop(watches(...))] (it names: policy/v1 PodDisruptionBudget, v1 Pod): \
             add the kind there, or remove the watch"
            .into())
    );
}

#[test]
fn an_invalid_label_key_or_value_stops_the_manager() {
    let key = Selector::from_iter([("bad key", "x")]);
    assert_eq!(
        start(Config::default().watch::<Pod>(Watch::default().labels(key))),
        Err("controller statefulset: its watch of v1 Pod: the label key \"bad key\" is not a qualified name \
             ([prefix/]name: a DNS subdomain prefix, a name of 1-63 letters, digits, '-', '_' or '.' that starts \
             and ends with a letter or digit)"
            .into())
    );
    let value = Expression::In("app".into(), ["ok".into(), "-no".into()].into());
    assert_eq!(
        start(Config::default().watch::<Pod>(Watch::default().labels(value))),
        Err("controller statefulset: its watch of v1 Pod: the label value \"-no\" of \"app\" is not a label \
             value (at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit)"
            .into())
    );
}

#[test]
fn watches_of_the_kind_and_the_kinds_it_names_pass_the_check() {
    let managed = Selector::from_iter([("app.kubernetes.io/managed-by", "sets")]);
    let config = Config::default()
        .concurrency(2)
        .watch::<StatefulSet>(Watch::default().changes(Changes::All))
        .watch::<PodDisruptionBudget>(Watch::default().changes(Changes::Spec))
        .watch::<Pod>(Watch::default().labels(managed).fields("spec.nodeName=node-1"));
    assert_eq!(start(config), Ok(()));
}

#[test]
fn a_later_watch_of_a_kind_replaces_an_earlier_one() {
    let config = Config::<Sets>::default()
        .watch::<Pod>(Watch::default().fields("spec.nodeName=a"))
        .watch::<Pod>(Watch::default().changes(Changes::Spec));
    let debug = format!("{config:?}");
    assert!(!debug.contains("spec.nodeName=a"), "{debug}");
    assert!(debug.contains("Spec"), "{debug}");
}

/// Webhooks for the built-in apps/v1 Deployment.
#[derive(rop::BuiltinKind)]
#[rop(group = "apps", version = "v1", kind = "Deployment", plural = "deployments")]
#[rop(object = "rop::k8s_openapi::api::apps::v1::Deployment")]
#[rop(webhook(mutating, name = "mdeployment-v1.example.com"))]
struct DeploymentV1;

/// Leaves every Deployment as it is.
struct Unchanged;

impl Defaulter for Unchanged {
    type Kind = DeploymentV1;

    async fn default(&self, _: &mut Deployment, _: &Request<'_, DeploymentV1>) -> Result<(), Denied> {
        Ok(())
    }
}

#[test]
fn webhook_servers_are_added_together_not_replaced() {
    let server = || Server::build([Registration::defaulter(Unchanged)]).unwrap();
    // Added twice, the one webhook would be served twice at its path: the second server was
    // added to the first, not put in its place.
    let twice = start_with(|manager| {
        manager.add_webhooks(server()).add_webhooks(server());
    });
    assert_eq!(
        twice,
        Err("two webhooks are served at /mutate-apps-v1-deployment: give one of them another `path` in \
             #[rop(webhook(...))]"
            .into())
    );
    let empty = Server::build([]).unwrap();
    let server_and_empty = start_with(|manager| {
        manager.add_webhooks(server()).add_webhooks(empty);
    });
    assert_eq!(server_and_empty, Ok(()));
}
