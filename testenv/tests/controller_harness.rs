//! `TestEnv::start_controller` on a project folder as `rop generate` writes it: the CRD and
//! the manager's role installed, the reconciler run as the manager's ServiceAccount, its passes
//! counted per object, `touch` and `settled` for idempotence, `stop` failing with the manager's
//! error; and `Kubelet` creating a StatefulSet's Pods in order, holding one back.

use std::sync::Arc;

use k8s_openapi::api::apps::v1::{StatefulSet, StatefulSetSpec};
use k8s_openapi::api::core::v1::{ConfigMap, Container, PodSpec, PodTemplateSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, LabelSelector, ObjectMeta};
use kube::ResourceExt;
use kube::api::{Api, PostParams};
use rop::CustomResource;
use rop::JsonSchema;
use rop::conditions::{self, HasConditions};
use rop::controller::{Action, Config, Context, Reconciler, Watch};
use rop_testenv::{Kubelet, TEST_NAMESPACE, TestEnv};
use serde::{Deserialize, Serialize};

mod support;

/// A widget publishes `value` in a ConfigMap it owns.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[rop(group = "harness.rop.dev", version = "v1", kind = "Widget", plural = "widgets")]
#[rop(namespaced, storage, status = "WidgetStatus", derive = "Default", derive = "PartialEq")]
#[rop(owns(k8s_openapi::api::core::v1::ConfigMap))]
#[rop(rbac(groups = ["events.k8s.io"], resources = ["events"], verbs = ["create", "patch"]))]
pub struct WidgetSpec {
    /// What the ConfigMap holds.
    pub value: String,
}

/// What the widget's controller observed.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WidgetStatus {
    /// `Available` once the ConfigMap holds the value.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
    /// The generation the status was computed from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
}

struct Widgets;

impl Reconciler for Widgets {
    type Kind = Widget;
    type Error = kube::Error;

    async fn reconcile(&self, widget: Arc<Widget>, ctx: &Context<Widget>) -> Result<Action, kube::Error> {
        let config_map = ConfigMap {
            metadata: ObjectMeta { name: Some(widget.name_any()), ..ObjectMeta::default() },
            data: Some([("value".to_string(), widget.spec.value.clone())].into()),
            ..ConfigMap::default()
        };
        ctx.apply(&widget, config_map).await?;
        let mut status = widget.status.clone().unwrap_or_default();
        status.set_condition(conditions::new("Available", true, "Published", "", widget.metadata.generation));
        status.observed_generation = widget.metadata.generation;
        ctx.update_status(&widget, status).await?;
        Ok(Action::await_change())
    }
}

/// Widgets whose ConfigMap also says when it was last written: every pass writes it.
struct Restless;

impl Reconciler for Restless {
    type Kind = Widget;
    type Error = kube::Error;

    async fn reconcile(&self, widget: Arc<Widget>, ctx: &Context<Widget>) -> Result<Action, kube::Error> {
        let at = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
        // Not owned, so not watched: the write does not start another pass.
        let config_map = serde_json::json!({
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": { "name": format!("{}-last", widget.name_any()) },
            "data": { "at": at.to_string() },
        });
        let api: Api<ConfigMap> = Api::namespaced(ctx.client().clone(), TEST_NAMESPACE);
        let params = kube::api::PatchParams::apply("restless").force();
        api.patch(&format!("{}-last", widget.name_any()), &params, &kube::api::Patch::Apply(config_map)).await?;
        Ok(Action::await_change())
    }
}

/// Widgets whose `Config` selects Secrets, a kind the attributes do not name: the manager
/// refuses to start.
struct Misconfigured;

impl Reconciler for Misconfigured {
    type Kind = Widget;
    type Error = kube::Error;

    async fn reconcile(&self, _widget: Arc<Widget>, _ctx: &Context<Widget>) -> Result<Action, kube::Error> {
        Ok(Action::await_change())
    }

    fn config(&self) -> Config<Widget> {
        Config::default().watch::<k8s_openapi::api::core::v1::Secret>(Watch::default())
    }
}

/// Widgets whose reconciler reads a Secret, which the widget's role does not grant.
struct Snooping;

impl Reconciler for Snooping {
    type Kind = Widget;
    type Error = kube::Error;

    async fn reconcile(&self, widget: Arc<Widget>, ctx: &Context<Widget>) -> Result<Action, kube::Error> {
        let secrets: Api<k8s_openapi::api::core::v1::Secret> =
            Api::namespaced(ctx.client().clone(), &widget.namespace().unwrap_or_default());
        secrets.get_opt("credentials").await?;
        Ok(Action::await_change())
    }
}

/// A project folder with the widget's CRD, the manager's role and a sample.
fn project() -> tempfile::TempDir {
    let sample = "apiVersion: harness.rop.dev/v1\nkind: Widget\nmetadata:\n  name: sample\nspec:\n  value: one\n";
    support::project::<Widget>("harness_v1_widget.yaml", sample)
}

#[test]
fn a_project_s_controller_runs_as_it_deploys_and_counts_its_passes() {
    let Some(env) = TestEnv::start_or_skip() else { return };
    let project = project();
    env.block_on(async {
        let controller = env.start_controller(project.path(), Widgets).await;
        let widget = controller.create_sample("harness_v1_widget.yaml").await;
        assert_eq!(widget.namespace().as_deref(), Some(TEST_NAMESPACE));
        let available = |w: &Widget| w.status.as_ref().is_some_and(|s| s.is_condition_true("Available"));
        let reconciled = controller.wait_for(&widget, available).await;
        let config_maps = controller.api_of::<ConfigMap>();
        assert_eq!(config_maps.get("sample").await.unwrap().data.unwrap()["value"], "one");

        controller.settled().await;
        let passes = controller.passes(&reconciled);
        assert!(passes >= 1, "{passes} passes");
        let touched = controller.touch(&reconciled).await;
        assert_eq!(controller.passes(&reconciled), passes + 1, "one more pass, and it wrote nothing");
        assert_eq!(controller.api().get("sample").await.unwrap().resource_version(), touched.resource_version());

        controller.delete(&touched).await;
        controller.stop().await;
    });
}

#[test]
fn owned_objects_are_found_healed_and_left_alone_once_converged() {
    let Some(env) = TestEnv::start_or_skip() else { return };
    let project = project();
    env.block_on(async {
        let controller = env.start_controller(project.path(), Widgets).await;
        let widget = controller.create_sample("harness_v1_widget.yaml").await;
        let reconciled = controller.wait_for(&widget, rop_testenv::condition("Available")).await;
        assert!(rop_testenv::caught_up(&reconciled));
        let config_map: ConfigMap = controller.owned(&reconciled).await;
        assert_eq!(config_map.data.as_ref().unwrap()["value"], "one");

        controller.heals(&config_map, serde_json::json!({ "data": { "value": "two" } })).await;
        let changed = controller.patch_spec(&widget, serde_json::json!({ "value": "three" })).await.unwrap();
        let converged = controller.wait_for(&changed, rop_testenv::caught_up).await;
        let config_map: ConfigMap = controller.owned(&converged).await;
        assert_eq!(config_map.data.unwrap()["value"], "three");
        controller.assert_idempotent(&converged).await;

        let refused = controller.patch_spec(&widget, serde_json::json!({ "value": 3 })).await.unwrap_err();
        assert!(refused.to_string().contains("spec.value: Invalid value: \"integer\""), "{refused}");
        controller.delete(&widget).await;
        controller.stop().await;
    });
}

/// What goes down under a running controller.
#[derive(Clone, Copy)]
enum Fault {
    ApiServer,
    Etcd,
}

/// Converges the sample, restarts what `fault` names after `down`, changes the sample as soon
/// as the API server is ready, and returns how long the change took to reach its ConfigMap.
fn reconciled_after(fault: Fault, down: std::time::Duration) -> Option<std::time::Duration> {
    let env = TestEnv::start_or_skip()?;
    let project = project();
    Some(env.block_on(async {
        let controller = env.start_controller(project.path(), Widgets).await;
        let widget = controller.create_sample("harness_v1_widget.yaml").await;
        controller.wait_for(&widget, rop_testenv::caught_up).await;

        match fault {
            Fault::ApiServer => env.restart_api_server(down).await.unwrap(),
            Fault::Etcd => env.restart_etcd(down).await.unwrap(),
        }
        let back = std::time::Instant::now();
        let changed = controller.patch_spec(&widget, serde_json::json!({ "value": "two" })).await.unwrap();
        let config_maps = controller.api_of::<ConfigMap>();
        let two = |c: &ConfigMap| c.data.as_ref().is_some_and(|d| d["value"] == "two");
        rop_testenv::wait_for(&config_maps, "sample", two).await;
        let took = back.elapsed();
        controller.wait_for(&changed, rop_testenv::caught_up).await;
        controller.delete(&widget).await;
        controller.stop().await;
        took
    }))
}

/// An API server down for 20 s, long enough that a backoff shared by all the controller's
/// watches would reach its 30 s cap, and its watches answered with `410 Gone` once it is back:
/// each watch retries on its own and lists again at once, so a change made as soon as the
/// server is ready is acted on within seconds (kube-runtime's default took 20 s and more).
#[test]
fn a_change_after_an_api_server_restart_is_reconciled_within_seconds() {
    let Some(took) = reconciled_after(Fault::ApiServer, std::time::Duration::from_secs(20)) else { return };
    let bound = std::time::Duration::from_secs(12);
    assert!(took < bound, "reconciled {took:?} after the API server's return, not within {bound:?}");
}

/// etcd down for 10 s under a running API server: the watches stay or come back, and a change
/// made once the server is ready again is reconciled, with no restart of anything else.
#[test]
fn a_change_after_an_etcd_restart_is_reconciled() {
    reconciled_after(Fault::Etcd, std::time::Duration::from_secs(10));
}

#[test]
fn a_controller_that_writes_on_every_pass_is_not_idempotent() {
    let Some(env) = TestEnv::start_or_skip() else { return };
    let project = project();
    env.block_on(async {
        let controller = env.start_controller(project.path(), Restless).await;
        let widget = controller.create_sample("harness_v1_widget.yaml").await;
        let config_maps = controller.api_of::<ConfigMap>();
        rop_testenv::wait_for(&config_maps, "sample-last", |_| true).await;
        let called = line!() + 1;
        let checked = tokio::spawn(async move { controller.assert_idempotent(&widget).await }).await;
        let panic = checked.expect_err("the check fails").into_panic();
        let message = from_line(panic.downcast_ref::<String>().expect("a formatted message"), called);
        let write = "PATCH /api/v1/namespaces/default/configmaps/sample-last?&force=true&fieldManager=restless";
        assert!(message.starts_with(&format!("a pass over the converged sample wrote:\n{write}")), "{message}");
    });
}

/// `message` without the place it starts with, which must be line `line` of this file
/// (`testenv/tests/controller_harness.rs:<line>:<column>: `): a failed check names the test's
/// line that called it, not a line of rop-testenv.
fn from_line(message: &str, line: u32) -> &str {
    let prefix = format!("{}:{line}:", file!());
    let rest = message.strip_prefix(&prefix).unwrap_or_else(|| panic!("{message:?} does not start with {prefix:?}"));
    let (column, rest) = rest.split_once(": ").unwrap_or_else(|| panic!("no column in {message:?}"));
    assert!(column.parse::<u32>().is_ok(), "{message}");
    rest
}

/// Runs `reconciler` on the sample and waits for its status: the wait's panic message, without
/// the test's line it starts with, and how long it took to come.
fn failed_wait(reconciler: impl Reconciler<Kind = Widget>) -> Option<(String, std::time::Duration)> {
    let env = TestEnv::start_or_skip()?;
    let project = project();
    let started = std::time::Instant::now();
    let called = line!() + 5;
    let waited = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        env.block_on(async {
            let controller = env.start_controller(project.path(), reconciler).await;
            let widget = controller.create_sample("harness_v1_widget.yaml").await;
            controller.wait_for(&widget, |w| w.status.is_some()).await;
        })
    }));
    let message = waited.expect_err("the wait fails");
    let message = message.downcast_ref::<String>().expect("a formatted message");
    Some((from_line(message, called).to_string(), started.elapsed()))
}

#[test]
fn a_wait_fails_at_once_with_the_error_of_a_manager_that_did_not_start() {
    let Some((message, waited)) = failed_wait(Misconfigured) else { return };
    assert_eq!(
        message,
        "while the test waited, the manager failed: controller widget: its config sets a watch of v1 Secret, which the kind neither is nor names in #[rop(owns(...))] or #[rop(watches(...))] (it names: v1 ConfigMap): add the kind there, or remove the watch"
    );
    assert!(waited < rop_testenv::WAIT, "not after the wait's time-out");
}

#[test]
fn a_wait_fails_at_once_naming_the_rule_the_manager_was_refused() {
    let Some((message, waited)) = failed_wait(Snooping) else { return };
    assert_eq!(
        message,
        "while the test waited, the API server refused the manager (403 Forbidden): its ServiceAccount may not get secrets (the core group) in namespace default. Grant it with #[rop(rbac(groups = [\"\"], resources = [\"secrets\"], verbs = [\"get\"]))] on the kind (an owned or watched kind gets its rules from owns(...) or watches(...)), then run `make manifests`"
    );
    assert!(waited < std::time::Duration::from_secs(5), "in under 5 s: {waited:?}");
}

/// Another project's kind, whose CRD `rop import crd --types-only` keeps in
/// `config/crd/external`.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[rop(group = "snapshots.example.org", version = "v1", kind = "Snapshot", namespaced, storage)]
pub struct SnapshotSpec {
    /// What was copied.
    pub source: String,
}

#[test]
fn the_crds_of_other_projects_in_config_crd_external_are_installed_too() {
    let Some(env) = TestEnv::start_or_skip() else { return };
    let project = project();
    let external = project.path().join("config/crd/external");
    std::fs::create_dir_all(&external).unwrap();
    let crd = serde_yaml::to_string(&Snapshot::custom_resource_definition()).unwrap();
    std::fs::write(external.join("snapshots.example.org_snapshots.yaml"), crd).unwrap();
    env.block_on(async {
        let controller = env.start_controller(project.path(), Widgets).await;
        let snapshot = Snapshot::new("nightly", SnapshotSpec { source: "db".into() });
        let created = controller.api_of::<Snapshot>().create(&PostParams::default(), &snapshot).await.unwrap();
        assert_eq!(created.spec.source, "db");
        controller.stop().await;
    });
}

#[test]
fn without_its_crd_the_project_is_told_to_run_make_manifests() {
    let Some(env) = TestEnv::start_or_skip() else { return };
    let empty = tempfile::tempdir().unwrap();
    let called = line!() + 3;
    let started = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        env.block_on(async {
            env.start_controller(empty.path(), Widgets).await;
        })
    }));
    let message = started.unwrap_err();
    let message = from_line(message.downcast_ref::<String>().unwrap(), called);
    assert!(message.starts_with("the CRDs install (run `make manifests` first): "), "{message}");
}

#[test]
fn a_crd_older_than_the_types_is_named_when_the_sample_does_not_read_back() {
    let Some(env) = TestEnv::start_or_skip() else { return };
    let project = project();
    // The CRD as it was before `value` was added to the spec: the server prunes the field.
    let mut crd = serde_json::to_value(Widget::custom_resource_definition()).unwrap();
    let spec = crd.pointer_mut("/spec/versions/0/schema/openAPIV3Schema/properties/spec").unwrap();
    *spec = serde_json::json!({ "type": "object" });
    let file = project.path().join("config/crd/bases/widgets.harness.rop.dev.yaml");
    std::fs::write(file, serde_yaml::to_string(&crd).unwrap()).unwrap();
    let called = line!() + 4;
    let created = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        env.block_on(async {
            let controller = env.start_controller(project.path(), Widgets).await;
            controller.create_sample("harness_v1_widget.yaml").await;
        })
    }));
    let message = created.unwrap_err();
    let message = from_line(message.downcast_ref::<String>().unwrap(), called);
    let sample = project.path().join("config/samples/harness_v1_widget.yaml");
    let expected = format!(
        "the API server stored the sample {}, but it does not read back as Widget: missing field `value` at line 1 column ",
        sample.display()
    );
    assert!(message.starts_with(&expected), "{message}");
    assert!(
        message.ends_with(
            "is likely older than the types (the server drops fields its schema lacks): run `make manifests`"
        ),
        "{message}"
    );
}

#[test]
fn the_kubelet_creates_a_stateful_set_s_pods_in_order_and_holds_one_back() {
    let Some(env) = TestEnv::start_or_skip() else { return };
    env.block_on(async {
        let client = env.client();
        let kubelet = Kubelet::for_stateful_set(client.clone(), TEST_NAMESPACE, "db");
        kubelet.hold("db-1");
        let labels = std::collections::BTreeMap::from([("app".to_string(), "db".to_string())]);
        let set = StatefulSet {
            metadata: ObjectMeta { name: Some("db".into()), ..ObjectMeta::default() },
            spec: StatefulSetSpec {
                replicas: Some(2),
                selector: LabelSelector { match_labels: Some(labels.clone()), ..LabelSelector::default() },
                template: PodTemplateSpec {
                    metadata: Some(ObjectMeta { labels: Some(labels), ..ObjectMeta::default() }),
                    spec: Some(PodSpec {
                        containers: vec![Container {
                            name: "db".into(),
                            image: Some("db".into()),
                            ..Container::default()
                        }],
                        ..PodSpec::default()
                    }),
                },
                ..StatefulSetSpec::default()
            },
            ..StatefulSet::default()
        };
        Api::<StatefulSet>::namespaced(client.clone(), TEST_NAMESPACE)
            .create(&PostParams::default(), &set)
            .await
            .unwrap();
        let pods: Api<k8s_openapi::api::core::v1::Pod> = Api::namespaced(client, TEST_NAMESPACE);
        let ready = |pod: &k8s_openapi::api::core::v1::Pod| {
            let conditions = pod.status.as_ref().and_then(|s| s.conditions.as_ref());
            conditions.is_some_and(|c| c.iter().any(|c| c.type_ == "Ready" && c.status == "True"))
        };
        rop_testenv::wait_for(&pods, "db-0", ready).await;
        let held = rop_testenv::wait_for(&pods, "db-1", |p| p.status.is_some()).await;
        assert!(!ready(&held), "db-1 is held back");
        assert_eq!(kubelet.take_created(), ["db-0", "db-1"]);
        kubelet.release();
        rop_testenv::wait_for(&pods, "db-1", ready).await;
    });
}
