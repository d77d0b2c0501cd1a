// Copyright 2026 The Memcached Authors.
// SPDX-License-Identifier: Apache-2.0

//! Controller for `Memcached`: runs `memcached:1.6.26-alpine` as a Deployment that each `Memcached` owns.
//!
//! Observe → Diff → Act: read the object and its Deployment, compare the Deployment with the
//! one `spec` asks for, create or update it only where it differs, then report what was seen
//! in `status` and as Events. A converged object is left alone: no write at all.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use futures::future::BoxFuture;
use k8s_openapi::api::apps::v1::{Deployment, DeploymentSpec};
use k8s_openapi::api::core::v1::{
    Capabilities, Container, ContainerPort, Pod, PodSecurityContext, PodSpec, PodTemplateSpec,
    SeccompProfile, SecurityContext,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, LabelSelector, ObjectMeta, Time};
use k8s_openapi::jiff::Timestamp;
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams, PostParams};
use kube::runtime::controller::{Action, Controller};
use kube::runtime::events::{Event as KubeEvent, EventType, Recorder, Reporter};
use kube::runtime::finalizer::{self, Event, finalizer};
use kube::runtime::watcher;
use kube::{Client, Resource, ResourceExt};
use memcached_operator_api::v1alpha1::{Memcached, MemcachedStatus};
use tokio_util::sync::CancellationToken;
use tracing::{debug, info, warn};

use super::{Context, error_chain, set_condition};

/// Name of this controller in logs, metrics and Events.
pub const CONTROLLER_NAME: &str = "memcached";
/// Finalizer that keeps a `Memcached` until `cleanup` has run.
pub const FINALIZER: &str = "cache.example.com/finalizer";
/// The image each `Memcached` runs, unless the manager's `MEMCACHED_IMAGE` variable names another
/// (so an image upgrade needs no new operator build).
pub const DEFAULT_IMAGE: &str = "memcached:1.6.26-alpine";
/// Environment variable of the manager that overrides [`DEFAULT_IMAGE`].
pub const IMAGE_ENV: &str = "MEMCACHED_IMAGE";
/// Name of the container in the Deployment's Pods.
const CONTAINER_NAME: &str = "memcached";
/// The container's command (`--image-container-command`).
const COMMAND: &[&str] = &["memcached", "-m=64", "-o", "modern", "-v"];
/// The user the container runs as (`--run-as-user`).
const RUN_AS_USER: i64 = 1001;
/// Periodic re-check of a healthy object, to repair drift nobody told us about.
const REQUEUE_AFTER: Duration = Duration::from_secs(5 * 60);
/// Retry delay after a failed reconciliation.
const ERROR_REQUEUE_AFTER: Duration = Duration::from_secs(15);
/// Retry delay after a write lost a race with another writer: the next pass reads the new
/// version at once and applies the change again on top of it.
const CONFLICT_REQUEUE_AFTER: Duration = Duration::from_secs(1);

/// Why a reconciliation failed. `key` is the object's `namespace/name`.
/// Sources are boxed to keep `Result<_, Error>` small.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{key}: object has no namespace")]
    MissingNamespace { key: String },

    #[error("{key}: failed to get the object")]
    Get {
        key: String,
        #[source]
        source: Box<kube::Error>,
    },

    #[error("{key}: failed to {action} Deployment {name}")]
    Deployment {
        key: String,
        /// `get`, `create`, `update` or `delete`.
        action: &'static str,
        name: String,
        #[source]
        source: Box<kube::Error>,
    },

    #[error(
        "{key}: Deployment {name} exists and is not controlled by this Memcached: delete it or choose another name"
    )]
    NotOwned { key: String, name: String },

    #[error("{key}: failed to list the Pods")]
    ListPods {
        key: String,
        #[source]
        source: Box<kube::Error>,
    },

    #[error("{key}: failed to update the status")]
    PatchStatus {
        key: String,
        #[source]
        source: Box<kube::Error>,
    },

    #[error("{key}: failed to update the finalizer")]
    Finalizer {
        key: String,
        #[source]
        source: Box<finalizer::Error<Error>>,
    },
    // TODO(user): add variants for the errors of your own steps.
}

impl Error {
    /// Short label for the `reason` of `controller_runtime_reconcile_errors_total`.
    pub fn metric_label(&self) -> &'static str {
        if self.is_conflict() {
            return "conflict";
        }
        match self {
            Self::MissingNamespace { .. } => "missing_namespace",
            Self::Get { .. } => "get",
            Self::Deployment { .. } => "deployment",
            Self::NotOwned { .. } => "not_owned",
            Self::ListPods { .. } => "list_pods",
            Self::PatchStatus { .. } => "patch_status",
            Self::Finalizer { .. } => "finalizer",
        }
    }

    /// Whether a write was refused because the object changed since it was read (HTTP 409).
    pub fn is_conflict(&self) -> bool {
        let source = match self {
            Self::Get { source, .. }
            | Self::Deployment { source, .. }
            | Self::ListPods { source, .. }
            | Self::PatchStatus { source, .. } => source.as_ref(),
            _ => return false,
        };
        matches!(source, kube::Error::Api(status) if status.code == 409)
    }
}

/// Runs the controller until `shutdown` is cancelled, then lets running
/// reconciliations finish.
pub fn run(
    client: Client,
    ctx: Arc<Context>,
    shutdown: CancellationToken,
) -> BoxFuture<'static, ()> {
    Box::pin(async move {
        info!(controller = CONTROLLER_NAME, "starting controller");
        ctx.metrics.init_controller(CONTROLLER_NAME);
        // The kinds in `#[rop(owns(...))]` on the types are watched too: a change to a
        // Deployment (a rollout, a manual scale) reconciles the Memcached that owns it.
        let controller = Controller::new(watched(client.clone()), watcher::Config::default());
        super::watch_related(controller, &client)
            .graceful_shutdown_on(shutdown.cancelled_owned())
            .run(reconcile, error_policy, ctx)
            .for_each(|result| async move {
                match result {
                    Ok((object, action)) => debug!(%object, ?action, "reconciled"),
                    Err(err) => warn!(error = error_chain(&err), "reconcile failed"),
                }
            })
            .await;
        info!(controller = CONTROLLER_NAME, "controller stopped");
    })
}

/// The `Memcached`s this controller watches: those in `WATCH_NAMESPACE` when it is set (a
/// namespace-scoped manager, see `rop edit --namespaced`), else every namespace.
fn watched(client: Client) -> Api<Memcached> {
    match std::env::var("WATCH_NAMESPACE") {
        Ok(namespace) if !namespace.is_empty() => Api::namespaced(client, &namespace),
        _ => Api::all(client),
    }
}

/// Brings the cluster in line with one `Memcached`, in a span naming it, counted in the metrics.
pub async fn reconcile(obj: Arc<Memcached>, ctx: Arc<Context>) -> Result<Action, Error> {
    super::instrumented(
        &ctx,
        CONTROLLER_NAME,
        obj.as_ref(),
        reconcile_object(&obj, &ctx),
    )
    .await
}

/// Decides when to retry a failed reconciliation: soon after a conflict, later otherwise.
pub fn error_policy(_obj: Arc<Memcached>, err: &Error, ctx: Arc<Context>) -> Action {
    ctx.metrics
        .reconcile_failed(CONTROLLER_NAME, err.metric_label());
    if err.is_conflict() {
        Action::requeue(CONFLICT_REQUEUE_AFTER)
    } else {
        Action::requeue(ERROR_REQUEUE_AFTER)
    }
}

async fn reconcile_object(obj: &Memcached, ctx: &Context) -> Result<Action, Error> {
    let key = key(obj);
    let api = api(obj, ctx)?;

    // Observe: the watch cache can lag behind, so read the latest version.
    let latest = api
        .get_opt(&obj.name_any())
        .await
        .map_err(|source| Error::Get {
            key: key.clone(),
            source: Box::new(source),
        })?;
    let Some(latest) = latest else {
        debug!(%key, "object is gone");
        return Ok(Action::await_change());
    };

    finalizer(&api, FINALIZER, Arc::new(latest), |event| async move {
        match event {
            Event::Apply(obj) => apply(&obj, ctx).await,
            Event::Cleanup(obj) => cleanup(&obj, ctx).await,
        }
    })
    .await
    .map_err(|err| match err {
        finalizer::Error::ApplyFailed(err) | finalizer::Error::CleanupFailed(err) => err,
        other => Error::Finalizer {
            key,
            source: Box::new(other),
        },
    })
}

/// What [`converge_deployment`] changed.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Change {
    Created,
    /// The fields that had drifted from the spec, e.g. `["replicas", "image"]`.
    Updated(Vec<&'static str>),
}

/// Makes the Deployment match `obj.spec`, then reports it in `obj.status` and as Events.
async fn apply(obj: &Memcached, ctx: &Context) -> Result<Action, Error> {
    let key = key(obj);
    let recorder = recorder(ctx);
    let image = image();
    let (deployment, change) = match converge_deployment(obj, ctx, &image).await {
        Ok(converged) => converged,
        Err(err) => {
            // A conflict is routine (another writer was first) and is retried at once;
            // anything else is reported where the user looks: status and Events.
            if !err.is_conflict() {
                report_failure(obj, ctx, &recorder, &err).await;
            }
            return Err(err);
        }
    };
    if let Some(change) = &change {
        let name = deployment.name_any();
        let (reason, note) = match change {
            Change::Created => (
                "Created",
                format!("Created Deployment {name} running {image}"),
            ),
            Change::Updated(fields) => (
                "Updated",
                format!(
                    "Updated Deployment {name}: {} set from the spec",
                    fields.join(", ")
                ),
            ),
        };
        info!(%key, "{note}");
        publish(&recorder, obj, EventType::Normal, reason, note).await;
    }

    let waiting = if available_replicas(&deployment) < obj.spec.size {
        waiting_pods(obj, ctx).await?
    } else {
        Vec::new()
    };
    let status = desired_status(
        obj,
        &deployment,
        change.as_ref(),
        &waiting,
        Time(Timestamp::now()),
    );
    write_status(obj, ctx, &status).await?;
    Ok(Action::requeue(REQUEUE_AFTER))
}

/// Creates the Deployment `obj` asks for, or updates the fields of the existing one that
/// drifted. Fields this controller does not manage (those the API server defaults, labels
/// others add) are kept, so a converged Deployment is never written again.
async fn converge_deployment(
    obj: &Memcached,
    ctx: &Context,
    image: &str,
) -> Result<(Deployment, Option<Change>), Error> {
    let key = key(obj);
    let desired = desired_deployment(obj, image);
    let name = desired.name_any();
    let deployments = Api::<Deployment>::namespaced(ctx.client.clone(), &namespace(obj)?);
    let failed = |action: &'static str| {
        let (key, name) = (key.clone(), name.clone());
        move |source| Error::Deployment {
            key,
            action,
            name,
            source: Box::new(source),
        }
    };

    let Some(mut live) = deployments.get_opt(&name).await.map_err(failed("get"))? else {
        let created = deployments
            .create(&PostParams::default(), &desired)
            .await
            .map_err(failed("create"))?;
        return Ok((created, Some(Change::Created)));
    };
    let uid = obj.meta().uid.as_deref();
    if uid.is_some()
        && !live
            .owner_references()
            .iter()
            .any(|o| o.controller == Some(true) && Some(o.uid.as_str()) == uid)
    {
        return Err(Error::NotOwned { key, name });
    }
    let drift = restore_drift(&mut live, desired);
    if drift.is_empty() {
        return Ok((live, None));
    }
    // `replace` sends the resourceVersion we read: if someone wrote in between, the API
    // server answers 409 Conflict instead of silently dropping their change or ours.
    let updated = deployments
        .replace(&name, &PostParams::default(), &live)
        .await
        .map_err(failed("update"))?;
    Ok((updated, Some(Change::Updated(drift))))
}

/// The Deployment `obj.spec` asks for, owned by `obj` so it is garbage-collected with it.
fn desired_deployment(obj: &Memcached, image: &str) -> Deployment {
    let labels = labels(obj);
    Deployment {
        metadata: ObjectMeta {
            name: Some(obj.name_any()),
            namespace: obj.namespace(),
            labels: Some(labels.clone()),
            // An object read from the API server always has a uid, hence an owner reference.
            owner_references: obj.controller_owner_ref(&()).map(|owner| vec![owner]),
            ..ObjectMeta::default()
        },
        spec: Some(DeploymentSpec {
            replicas: Some(obj.spec.size),
            selector: LabelSelector {
                match_labels: Some(labels.clone()),
                ..LabelSelector::default()
            },
            template: PodTemplateSpec {
                metadata: Some(ObjectMeta {
                    labels: Some(labels),
                    ..ObjectMeta::default()
                }),
                spec: Some(PodSpec {
                    // The "restricted" Pod Security Standard: no root, no privilege escalation,
                    // no capabilities, the runtime's default seccomp profile.
                    security_context: Some(PodSecurityContext {
                        run_as_non_root: Some(true),
                        seccomp_profile: Some(SeccompProfile {
                            type_: "RuntimeDefault".into(),
                            ..SeccompProfile::default()
                        }),
                        ..PodSecurityContext::default()
                    }),
                    containers: vec![desired_container(obj, image)],
                    ..PodSpec::default()
                }),
            },
            ..DeploymentSpec::default()
        }),
        ..Deployment::default()
    }
}

/// The Memcached container of the Deployment's Pods.
fn desired_container(obj: &Memcached, image: &str) -> Container {
    Container {
        name: CONTAINER_NAME.into(),
        image: Some(image.into()),
        image_pull_policy: Some("IfNotPresent".into()),
        command: Some(COMMAND.iter().map(|word| word.to_string()).collect()),
        // The protocol is spelled out because the API server defaults it: a missing field
        // would look like drift on every pass.
        ports: Some(vec![ContainerPort {
            container_port: obj.spec.container_port,
            name: Some("memcached".into()),
            protocol: Some("TCP".into()),
            ..ContainerPort::default()
        }]),
        security_context: Some(SecurityContext {
            run_as_non_root: Some(true),
            run_as_user: Some(RUN_AS_USER),
            allow_privilege_escalation: Some(false),
            capabilities: Some(Capabilities {
                drop: Some(vec!["ALL".into()]),
                ..Capabilities::default()
            }),
            ..SecurityContext::default()
        }),
        ..Container::default()
    }
}

/// Copies the fields this controller manages from `desired` into `live`; returns the names
/// of those that differed (empty: `live` is converged).
fn restore_drift(live: &mut Deployment, desired: Deployment) -> Vec<&'static str> {
    let mut drift = Vec::new();
    let desired_spec = desired.spec.unwrap_or_default();
    let live_spec = live.spec.get_or_insert_with(DeploymentSpec::default);
    if replace_if_differs(&mut live_spec.replicas, desired_spec.replicas) {
        drift.push("replicas");
    }
    let desired_pod = desired_spec.template.spec.unwrap_or_default();
    let live_pod = live_spec.template.spec.get_or_insert_with(PodSpec::default);
    if replace_if_differs(&mut live_pod.security_context, desired_pod.security_context) {
        drift.push("pod security context");
    }
    let desired_container = desired_pod
        .containers
        .into_iter()
        .next()
        .unwrap_or_default();
    match live_pod
        .containers
        .iter_mut()
        .find(|c| c.name == CONTAINER_NAME)
    {
        Some(live_container) => {
            let Container {
                image,
                command,
                ports,
                security_context,
                ..
            } = desired_container;
            if replace_if_differs(&mut live_container.image, image) {
                drift.push("image");
            }
            if replace_if_differs(&mut live_container.command, command) {
                drift.push("command");
            }
            if replace_if_differs(&mut live_container.ports, ports) {
                drift.push("ports");
            }
            if replace_if_differs(&mut live_container.security_context, security_context) {
                drift.push("security context");
            }
        }
        None => {
            live_pod.containers = vec![desired_container];
            drift.push("containers");
        }
    }
    let live_owners = live.metadata.owner_references.get_or_insert_with(Vec::new);
    for owner in desired.metadata.owner_references.unwrap_or_default() {
        if !live_owners.iter().any(|o| o.uid == owner.uid) {
            live_owners.push(owner);
            drift.push("owner reference");
        }
    }
    drift
}

/// Sets `*live` to `desired` when they differ; returns whether they did.
fn replace_if_differs<T: PartialEq>(live: &mut T, desired: T) -> bool {
    if *live == desired {
        return false;
    }
    *live = desired;
    true
}

/// Ready replicas of `deployment`, as its controller last reported them.
fn available_replicas(deployment: &Deployment) -> i32 {
    deployment
        .status
        .as_ref()
        .and_then(|s| s.available_replicas)
        .unwrap_or(0)
}

/// Why the Pods of `obj` are not running: `pod: reason` for every container that waits
/// (`ImagePullBackOff`, `CrashLoopBackOff`, ...), so the user sees it in the status.
async fn waiting_pods(obj: &Memcached, ctx: &Context) -> Result<Vec<String>, Error> {
    let pods = Api::<Pod>::namespaced(ctx.client.clone(), &namespace(obj)?);
    let selector = labels(obj)
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",");
    let list = pods
        .list(&ListParams::default().labels(&selector))
        .await
        .map_err(|source| Error::ListPods {
            key: key(obj),
            source: Box::new(source),
        })?;
    let mut waiting: Vec<String> = list
        .items
        .iter()
        .flat_map(|pod| {
            let statuses = pod
                .status
                .as_ref()
                .and_then(|s| s.container_statuses.clone())
                .unwrap_or_default();
            statuses.into_iter().filter_map(move |status| {
                let reason = status.state?.waiting?.reason?;
                Some(format!("{}: {reason}", pod.name_any()))
            })
        })
        .collect();
    waiting.sort();
    Ok(waiting)
}

/// The status `obj` reports for `deployment`: `Available` once every replica is, `Progressing`
/// while the Deployment was just written or still rolls out, `Degraded` false (a failure is
/// reported by [`report_failure`]). `now` stamps conditions that change.
fn desired_status(
    obj: &Memcached,
    deployment: &Deployment,
    change: Option<&Change>,
    waiting: &[String],
    now: Time,
) -> MemcachedStatus {
    let generation = obj.metadata.generation;
    let size = obj.spec.size;
    let available = available_replicas(deployment);
    let updated = deployment
        .status
        .as_ref()
        .and_then(|s| s.updated_replicas)
        .unwrap_or(0);
    let name = deployment.name_any();
    let mut status = MemcachedStatus {
        observed_generation: generation,
        ..obj.status.clone().unwrap_or_default()
    };
    let condition = |type_: &str, ok: bool, reason: &str, message: String| Condition {
        type_: type_.into(),
        status: if ok { "True" } else { "False" }.into(),
        reason: reason.into(),
        message,
        observed_generation: generation,
        last_transition_time: now.clone(),
    };

    let mut message = format!("{available} of {size} replicas of Deployment {name} are available");
    if !waiting.is_empty() {
        message = format!("{message}; waiting: {}", waiting.join(", "));
    }
    let (reason, ok) = if available >= size {
        ("MinimumReplicasAvailable", true)
    } else {
        ("ReplicasUnavailable", false)
    };
    set_condition(
        &mut status.conditions,
        condition("Available", ok, reason, message),
    );

    let progressing = match change {
        Some(Change::Created) => condition(
            "Progressing",
            true,
            "Created",
            format!("Created Deployment {name}"),
        ),
        Some(Change::Updated(fields)) => condition(
            "Progressing",
            true,
            "Updated",
            format!("Updated {} of Deployment {name}", fields.join(", ")),
        ),
        None if updated < size || available < size => condition(
            "Progressing",
            true,
            "RollingOut",
            format!("{updated} of {size} replicas of Deployment {name} are updated"),
        ),
        None => condition(
            "Progressing",
            false,
            "RolloutComplete",
            format!("Deployment {name} matches the spec"),
        ),
    };
    set_condition(&mut status.conditions, progressing);
    set_condition(
        &mut status.conditions,
        condition(
            "Degraded",
            false,
            "Reconciled",
            "The last reconciliation succeeded".into(),
        ),
    );
    status
}

/// Writes `status` unless `obj` already reports exactly that (no write when converged).
async fn write_status(
    obj: &Memcached,
    ctx: &Context,
    status: &MemcachedStatus,
) -> Result<(), Error> {
    if obj.status.as_ref() == Some(status) {
        return Ok(());
    }
    let patch = serde_json::json!({ "status": status });
    api(obj, ctx)?
        .patch_status(
            &obj.name_any(),
            &PatchParams::default(),
            &Patch::Merge(&patch),
        )
        .await
        .map_err(|source| Error::PatchStatus {
            key: key(obj),
            source: Box::new(source),
        })?;
    debug!(key = %key(obj), "status updated");
    Ok(())
}

/// Reports a failed reconciliation: `Degraded` true with the error as its message, and a
/// Warning Event. Best effort: the error itself is returned and retried either way.
async fn report_failure(obj: &Memcached, ctx: &Context, recorder: &Recorder, err: &Error) {
    let message = error_chain(err);
    let mut status = obj.status.clone().unwrap_or_default();
    set_condition(
        &mut status.conditions,
        Condition {
            type_: "Degraded".into(),
            status: "True".into(),
            reason: "ReconcileFailed".into(),
            message: message.clone(),
            observed_generation: obj.metadata.generation,
            last_transition_time: Time(Timestamp::now()),
        },
    );
    if let Err(status_err) = write_status(obj, ctx, &status).await {
        warn!(key = %key(obj), error = error_chain(&status_err), "cannot report the failure in the status");
    }
    publish(
        recorder,
        obj,
        EventType::Warning,
        "ReconcileFailed",
        message,
    )
    .await;
}

/// Stops the workload before `obj` goes: deletes its Deployment (its Pods follow) and
/// records an Event. Idempotent: a Deployment already gone is fine.
async fn cleanup(obj: &Memcached, ctx: &Context) -> Result<Action, Error> {
    let key = key(obj);
    let name = obj.name_any();
    let deployments = Api::<Deployment>::namespaced(ctx.client.clone(), &namespace(obj)?);
    // TODO(user): release what lives outside the cluster (backups, DNS entries, ...) here.
    let deleted = match deployments.delete(&name, &DeleteParams::background()).await {
        Ok(_) => true,
        Err(kube::Error::Api(status)) if status.code == 404 => false,
        Err(source) => {
            return Err(Error::Deployment {
                key,
                action: "delete",
                name,
                source: Box::new(source),
            });
        }
    };
    let note = if deleted {
        format!("Deleted Deployment {name} before Memcached {key} goes")
    } else {
        format!("Memcached {key} goes; its Deployment {name} was already gone")
    };
    info!(%key, "{note}");
    publish(&recorder(ctx), obj, EventType::Normal, "Finalized", note).await;
    Ok(Action::await_change())
}

/// The image to run: `MEMCACHED_IMAGE` from the manager's environment, else [`DEFAULT_IMAGE`].
fn image() -> String {
    std::env::var(IMAGE_ENV)
        .ok()
        .filter(|image| !image.is_empty())
        .unwrap_or_else(|| DEFAULT_IMAGE.into())
}

/// Labels of the Deployment and its Pods; the selector matches them, so they must not change.
fn labels(obj: &Memcached) -> BTreeMap<String, String> {
    BTreeMap::from([
        (
            "app.kubernetes.io/name".to_string(),
            "memcached".to_string(),
        ),
        ("app.kubernetes.io/instance".to_string(), obj.name_any()),
        (
            "app.kubernetes.io/managed-by".to_string(),
            "memcached-operator".to_string(),
        ),
    ])
}

/// Records Events as this controller; made per reconciliation, as kube recommends.
fn recorder(ctx: &Context) -> Recorder {
    let reporter = Reporter {
        controller: format!("memcached-operator-{CONTROLLER_NAME}"),
        instance: std::env::var("POD_NAME").ok(),
    };
    Recorder::new(ctx.client.clone(), reporter)
}

/// Publishes an Event about `obj`. An Event that cannot be written is logged, never fatal.
async fn publish(
    recorder: &Recorder,
    obj: &Memcached,
    type_: EventType,
    reason: &str,
    note: String,
) {
    let event = KubeEvent {
        type_,
        reason: reason.into(),
        note: Some(note),
        action: "Reconcile".into(),
        secondary: None,
    };
    if let Err(err) = recorder.publish(&event, &obj.object_ref(&())).await {
        warn!(key = %key(obj), error = error_chain(&err), "cannot record an Event");
    }
}

/// `namespace/name` of `obj`, for logs and errors.
fn key(obj: &Memcached) -> String {
    format!("{}/{}", obj.namespace().unwrap_or_default(), obj.name_any())
}

/// The namespace of `obj`, where its Deployment lives.
fn namespace(obj: &Memcached) -> Result<String, Error> {
    obj.namespace()
        .ok_or_else(|| Error::MissingNamespace { key: key(obj) })
}

/// API for `Memcached`s in the namespace of `obj`.
fn api(obj: &Memcached, ctx: &Context) -> Result<Api<Memcached>, Error> {
    Ok(Api::namespaced(ctx.client.clone(), &namespace(obj)?))
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};

    use kube::api::PostParams;
    use kube_fake_client::interceptor::ReplaceContext;
    use memcached_operator_api::v1alpha1::MemcachedSpec;
    use serde_json::{Value, json};

    use super::*;
    use crate::controller::testing::{BeforeReplace, FakeApi};
    use crate::metrics::{ErrorLabels, Metrics};

    const NAMESPACE: &str = "default";
    const NAME: &str = "test";

    fn spec(size: i32) -> MemcachedSpec {
        MemcachedSpec {
            size,
            container_port: 11211,
        }
    }

    /// A fake API server, the controller's context, and APIs for the object and its Deployment.
    struct Harness {
        fake: FakeApi,
        ctx: Arc<Context>,
        objects: Api<Memcached>,
        deployments: Api<Deployment>,
    }

    async fn harness(objects: Vec<Value>, before_replace: Option<BeforeReplace>) -> Harness {
        let fake = FakeApi::start::<Memcached>(objects, before_replace).await;
        let client = fake.client.clone();
        Harness {
            ctx: Arc::new(Context {
                client: client.clone(),
                metrics: Metrics::default(),
            }),
            objects: Api::namespaced(client.clone(), NAMESPACE),
            deployments: Api::namespaced(client, NAMESPACE),
            fake,
        }
    }

    impl Harness {
        async fn create(&self, size: i32) {
            let mut obj = Memcached::new(NAME, spec(size));
            obj.metadata.namespace = Some(NAMESPACE.into());
            self.objects
                .create(&PostParams::default(), &obj)
                .await
                .unwrap();
            assert_eq!(self.fake.take_writes(), ["create Memcached default/test"]);
        }

        async fn object(&self) -> Memcached {
            self.objects.get(NAME).await.unwrap()
        }

        async fn deployment(&self) -> Deployment {
            self.deployments.get(NAME).await.unwrap()
        }

        /// One pass of the controller over the latest version of the object.
        async fn reconcile(&self) -> Result<Action, Error> {
            reconcile(Arc::new(self.object().await), self.ctx.clone()).await
        }

        /// What the Deployment controller of a cluster does: reports every replica ready.
        async fn roll_out(&self) {
            let deployment = self.deployment().await;
            let replicas = deployment.spec.and_then(|spec| spec.replicas).unwrap_or(1);
            let status = json!({ "status": {
                "observedGeneration": deployment.metadata.generation,
                "replicas": replicas,
                "updatedReplicas": replicas,
                "readyReplicas": replicas,
                "availableReplicas": replicas,
            }});
            self.deployments
                .patch_status(NAME, &PatchParams::default(), &Patch::Merge(&status))
                .await
                .unwrap();
        }

        /// Creates the object with `size` replicas, reconciles until its Deployment is rolled
        /// out and the status says so, and forgets the writes that took.
        async fn converged(&self, size: i32) {
            self.create(size).await;
            assert_eq!(
                self.reconcile().await.unwrap(),
                Action::await_change(),
                "adds the finalizer"
            );
            assert_eq!(
                self.reconcile().await.unwrap(),
                Action::requeue(REQUEUE_AFTER),
                "creates the Deployment"
            );
            self.roll_out().await;
            self.reconcile().await.unwrap();
            self.fake.take_writes();
        }

        fn condition(&self, obj: &Memcached, type_: &str) -> (String, String, String) {
            let status = obj.status.as_ref().expect("status is set");
            let c = status
                .conditions
                .iter()
                .find(|c| c.type_ == type_)
                .expect(type_);
            assert_eq!(c.observed_generation, obj.metadata.generation, "{type_}");
            (c.status.clone(), c.reason.clone(), c.message.clone())
        }
    }

    fn cond(status: &str, reason: &str, message: &str) -> (String, String, String) {
        (status.into(), reason.into(), message.into())
    }

    #[tokio::test]
    async fn creates_a_restricted_deployment_owned_by_the_object() {
        let h = harness(Vec::new(), None).await;
        h.create(2).await;

        assert_eq!(h.reconcile().await.unwrap(), Action::await_change());
        assert_eq!(
            h.fake.take_writes(),
            ["patch default/test"],
            "only the finalizer"
        );
        assert_eq!(h.object().await.finalizers(), [FINALIZER]);

        assert_eq!(h.reconcile().await.unwrap(), Action::requeue(REQUEUE_AFTER));
        assert_eq!(
            h.fake.take_writes(),
            [
                "create Deployment default/test",
                "create Event default/test",
                "patch status default/test"
            ]
        );
        let obj = h.object().await;
        let deployment = h.deployment().await;
        let owner = &deployment.owner_references()[0];
        assert_eq!(
            (owner.kind.as_str(), owner.name.as_str(), owner.controller),
            ("Memcached", NAME, Some(true))
        );
        assert_eq!(Some(owner.uid.as_str()), obj.metadata.uid.as_deref());
        let spec = deployment.spec.unwrap();
        assert_eq!(spec.replicas, Some(2));
        assert_eq!(spec.selector.match_labels, Some(labels(&obj)));
        let pod = spec.template.spec.unwrap();
        let pod_security = pod.security_context.unwrap();
        assert_eq!(pod_security.run_as_non_root, Some(true));
        assert_eq!(
            pod_security.seccomp_profile.unwrap().type_,
            "RuntimeDefault"
        );
        let [container] = pod.containers.as_slice() else {
            panic!("one container: {:?}", pod.containers)
        };
        assert_eq!(container.image.as_deref(), Some(DEFAULT_IMAGE));
        assert_eq!(
            container.command.as_deref(),
            Some(
                &[
                    "memcached".to_string(),
                    "-m=64".to_string(),
                    "-o".to_string(),
                    "modern".to_string(),
                    "-v".to_string(),
                ][..]
            )
        );
        let ports = container.ports.as_deref().unwrap();
        assert_eq!(
            (ports[0].container_port, ports[0].protocol.as_deref()),
            (11211, Some("TCP"))
        );
        let security = container.security_context.as_ref().unwrap();
        assert_eq!(security.run_as_non_root, Some(true));
        assert_eq!(security.run_as_user, Some(1001));
        assert_eq!(security.allow_privilege_escalation, Some(false));
        assert_eq!(
            security.capabilities.as_ref().unwrap().drop.as_deref(),
            Some(&["ALL".to_string()][..])
        );

        let status = obj.status.as_ref().unwrap();
        assert_eq!(status.observed_generation, obj.metadata.generation);
        assert_eq!(
            h.condition(&obj, "Available"),
            cond(
                "False",
                "ReplicasUnavailable",
                "0 of 2 replicas of Deployment test are available"
            )
        );
        assert_eq!(
            h.condition(&obj, "Progressing"),
            cond("True", "Created", "Created Deployment test")
        );
        assert_eq!(
            h.condition(&obj, "Degraded"),
            cond("False", "Reconciled", "The last reconciliation succeeded")
        );

        h.roll_out().await;
        h.reconcile().await.unwrap();
        let obj = h.object().await;
        assert_eq!(
            h.condition(&obj, "Available"),
            cond(
                "True",
                "MinimumReplicasAvailable",
                "2 of 2 replicas of Deployment test are available"
            )
        );
        assert_eq!(
            h.condition(&obj, "Progressing"),
            cond(
                "False",
                "RolloutComplete",
                "Deployment test matches the spec"
            )
        );
    }

    #[tokio::test]
    async fn reconciling_a_converged_object_writes_nothing() {
        let h = harness(Vec::new(), None).await;
        h.converged(1).await;
        let (obj, deployment) = (h.object().await, h.deployment().await);

        for _ in 0..3 {
            assert_eq!(h.reconcile().await.unwrap(), Action::requeue(REQUEUE_AFTER));
        }

        assert_eq!(h.fake.take_writes(), Vec::<String>::new());
        assert_eq!(h.object().await.resource_version(), obj.resource_version());
        assert_eq!(
            h.deployment().await.resource_version(),
            deployment.resource_version()
        );
    }

    /// Breaks the converged Deployment with `damage`, then checks one reconcile repairs it.
    async fn heals(damage: fn(&mut Deployment), drifted: &str) {
        let h = harness(Vec::new(), None).await;
        h.converged(3).await;
        let mut deployment = h.deployment().await;
        damage(&mut deployment);
        h.deployments
            .replace(NAME, &PostParams::default(), &deployment)
            .await
            .unwrap();
        h.fake.take_writes();

        h.reconcile().await.unwrap();

        assert_eq!(
            h.fake.take_writes(),
            [
                "replace Deployment default/test",
                "create Event default/test",
                "patch status default/test"
            ]
        );
        let healed = h.deployment().await;
        let spec = healed.spec.unwrap();
        assert_eq!(spec.replicas, Some(3));
        assert_eq!(
            spec.template.spec.unwrap().containers[0].image.as_deref(),
            Some(DEFAULT_IMAGE)
        );
        let obj = h.object().await;
        let message = format!("Updated {drifted} of Deployment test");
        assert_eq!(
            h.condition(&obj, "Progressing"),
            cond("True", "Updated", &message)
        );
    }

    #[tokio::test]
    async fn a_scaled_down_deployment_is_scaled_back() {
        heals(|d| d.spec.as_mut().unwrap().replicas = Some(1), "replicas").await;
    }

    #[tokio::test]
    async fn a_changed_image_is_restored() {
        heals(
            |d| {
                d.spec
                    .as_mut()
                    .unwrap()
                    .template
                    .spec
                    .as_mut()
                    .unwrap()
                    .containers[0]
                    .image = Some("busybox".into())
            },
            "image",
        )
        .await;
    }

    #[tokio::test]
    async fn a_deleted_deployment_is_recreated() {
        let h = harness(Vec::new(), None).await;
        h.converged(1).await;
        h.deployments
            .delete(NAME, &DeleteParams::default())
            .await
            .unwrap();
        h.fake.take_writes();

        h.reconcile().await.unwrap();

        assert_eq!(
            h.fake.take_writes(),
            [
                "create Deployment default/test",
                "create Event default/test",
                "patch status default/test"
            ]
        );
        assert_eq!(h.deployment().await.spec.unwrap().replicas, Some(1));
    }

    #[tokio::test]
    async fn a_spec_change_reaches_the_deployment_and_the_status() {
        let h = harness(Vec::new(), None).await;
        h.converged(1).await;
        let resize = json!({ "spec": { "size": 3 } });
        h.objects
            .patch(NAME, &PatchParams::default(), &Patch::Merge(&resize))
            .await
            .unwrap();

        h.reconcile().await.unwrap();

        assert_eq!(h.deployment().await.spec.unwrap().replicas, Some(3));
        let obj = h.object().await;
        assert_eq!(
            obj.status.as_ref().unwrap().observed_generation,
            obj.metadata.generation
        );
        assert_eq!(
            h.condition(&obj, "Available"),
            cond(
                "False",
                "ReplicasUnavailable",
                "1 of 3 replicas of Deployment test are available"
            )
        );
        assert_eq!(
            h.condition(&obj, "Progressing"),
            cond("True", "Updated", "Updated replicas of Deployment test")
        );

        h.roll_out().await;
        h.reconcile().await.unwrap();
        let obj = h.object().await;
        assert_eq!(
            h.condition(&obj, "Available"),
            cond(
                "True",
                "MinimumReplicasAvailable",
                "3 of 3 replicas of Deployment test are available"
            )
        );
    }

    #[tokio::test]
    async fn deletion_runs_the_finalizer_once_and_leaves_nothing() {
        // The fake removes a deleted object at once; the API server instead sets
        // deletionTimestamp and waits for the finalizers. Start from that state.
        let converged = harness(Vec::new(), None).await;
        converged.converged(1).await;
        let mut obj = converged.object().await;
        obj.metadata.deletion_timestamp = Some(Time(Timestamp::now()));
        let deployment = converged.deployment().await;
        let objects = vec![
            serde_json::to_value(&obj).unwrap(),
            serde_json::to_value(&deployment).unwrap(),
        ];
        let h = harness(objects, None).await;

        assert_eq!(
            h.reconcile_stale(&obj).await.unwrap(),
            Action::await_change()
        );

        assert_eq!(
            h.fake.take_writes(),
            [
                "delete default/test",
                "create Event default/test",
                "patch default/test"
            ],
            "deletes the Deployment, records it, then removes the finalizer"
        );
        assert!(
            h.objects.get_opt(NAME).await.unwrap().is_none(),
            "the object is gone"
        );
        assert!(
            h.deployments.get_opt(NAME).await.unwrap().is_none(),
            "its Deployment is gone"
        );
        // The watch may still deliver the old object: nothing runs twice.
        assert_eq!(
            h.reconcile_stale(&obj).await.unwrap(),
            Action::await_change()
        );
        assert_eq!(h.fake.take_writes(), Vec::<String>::new());
    }

    impl Harness {
        async fn reconcile_stale(&self, obj: &Memcached) -> Result<Action, Error> {
            reconcile(Arc::new(obj.clone()), self.ctx.clone()).await
        }
    }

    #[tokio::test]
    async fn a_conflict_requeues_and_loses_no_write() {
        // Another writer labels the Deployment between our read and our update.
        let armed = Arc::new(AtomicBool::new(false));
        let trigger = armed.clone();
        let other_writer: BeforeReplace = Box::new(move |ctx: &ReplaceContext| {
            if trigger.swap(false, Ordering::SeqCst) {
                let mut theirs: Deployment = ctx.client.get(ctx.namespace, ctx.name).unwrap();
                theirs.labels_mut().insert("team".into(), "storage".into());
                ctx.client
                    .update(ctx.namespace, &theirs, &PostParams::default())
                    .unwrap();
            }
        });
        let h = harness(Vec::new(), Some(other_writer)).await;
        h.converged(2).await;
        let mut scaled = h.deployment().await;
        scaled.spec.as_mut().unwrap().replicas = Some(1);
        h.deployments
            .replace(NAME, &PostParams::default(), &scaled)
            .await
            .unwrap();
        armed.store(true, Ordering::SeqCst);

        let err = h.reconcile().await.unwrap_err();

        assert!(err.is_conflict(), "{err:?}");
        let action = error_policy(Arc::new(h.object().await), &err, h.ctx.clone());
        assert_eq!(action, Action::requeue(CONFLICT_REQUEUE_AFTER));
        let conflicts = ErrorLabels {
            controller: CONTROLLER_NAME,
            reason: "conflict",
        };
        assert_eq!(
            h.ctx
                .metrics
                .reconcile_errors
                .get_or_create(&conflicts)
                .get(),
            1
        );
        let obj = h.object().await;
        assert_eq!(
            h.condition(&obj, "Degraded").0,
            "False",
            "a conflict is routine, not a failure"
        );

        h.reconcile().await.unwrap();
        let deployment = h.deployment().await;
        assert_eq!(
            deployment.spec.unwrap().replicas,
            Some(2),
            "our change is applied"
        );
        assert_eq!(
            deployment.metadata.labels.unwrap()["team"],
            "storage",
            "theirs is kept"
        );
    }

    #[tokio::test]
    async fn a_deployment_of_someone_else_is_left_alone_and_reported() {
        let theirs = json!({
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": { "name": NAME, "namespace": NAMESPACE },
            "spec": { "selector": { "matchLabels": { "app": "theirs" } }, "template": {} },
        });
        let h = harness(vec![theirs], None).await;
        h.create(1).await;
        h.reconcile().await.unwrap();
        h.fake.take_writes();

        let err = h.reconcile().await.unwrap_err();

        assert_eq!(
            err.to_string(),
            "default/test: Deployment test exists and is not controlled by this Memcached: delete it or choose another name"
        );
        assert_eq!(
            h.fake.take_writes(),
            ["patch status default/test", "create Event default/test"]
        );
        let obj = h.object().await;
        assert_eq!(
            h.condition(&obj, "Degraded"),
            cond("True", "ReconcileFailed", &err.to_string())
        );
        assert!(h.deployment().await.owner_references().is_empty());
    }
}
