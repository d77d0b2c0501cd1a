//! The webhook server end to end: attributes → manifests, and AdmissionReview /
//! ConversionReview requests in, responses out, in memory and over HTTPS.

use pretty_assertions::assert_eq;
use rop::CustomResource;
use rop::conversion::{ConversionError, Spoke};
use rop::webhook::{Defaulter, Denied, HubConversion, Registration, Request, Server, SetupError, Validator, Verdict};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

pub mod v1 {
    use super::*;

    /// A cache.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
    #[rop(group = "cache.example.com", version = "v1", kind = "Cache", storage, derive = "PartialEq")]
    #[rop(webhook(mutating))]
    #[rop(webhook(
        validating,
        operations = ["CREATE", "UPDATE", "DELETE"],
        failure_policy = "Ignore",
        timeout_seconds = 5,
        match_policy = "Equivalent",
        namespace_selector = "webhooks=enabled,env in (prod,staging),!legacy",
    ))]
    #[serde(rename_all = "camelCase")]
    pub struct CacheSpec {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub size: Option<i32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub memory_mib: Option<i32>,
    }
}

pub mod v2 {
    use super::*;

    /// A cache, with its size in a nested struct.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
    #[rop(group = "cache.example.com", version = "v2", kind = "Cache")]
    #[rop(webhook(
        mutating,
        name = "defaults.v2.cache.example.com",
        path = "/default-cache-v2",
        reinvocation_policy = "IfNeeded",
        side_effects = "NoneOnDryRun",
        object_selector = "tier!=test"
    ))]
    #[serde(rename_all = "camelCase")]
    pub struct CacheSpec {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub capacity: Option<Capacity>,
    }

    #[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
    #[serde(rename_all = "camelCase")]
    pub struct Capacity {
        pub replicas: i32,
        pub memory_mib: i32,
    }
}

impl Spoke<v1::Cache> for v2::Cache {
    fn convert_to_hub(self) -> Result<v1::Cache, ConversionError> {
        let capacity = self.spec.capacity;
        if capacity.as_ref().is_some_and(|c| c.replicas > 1000) {
            return Err(ConversionError::new("v1 holds at most 1000 replicas"));
        }
        Ok(v1::Cache {
            metadata: self.metadata,
            spec: v1::CacheSpec {
                size: capacity.as_ref().map(|c| c.replicas),
                memory_mib: capacity.as_ref().map(|c| c.memory_mib),
            },
        })
    }

    fn convert_from_hub(hub: v1::Cache) -> Result<Self, ConversionError> {
        let capacity =
            hub.spec.size.map(|replicas| v2::Capacity { replicas, memory_mib: hub.spec.memory_mib.unwrap_or(0) });
        Ok(v2::Cache { metadata: hub.metadata, spec: v2::CacheSpec { capacity } })
    }
}

struct SizeDefaulter;

impl Defaulter for SizeDefaulter {
    type Kind = v1::Cache;
    async fn default(&self, object: &mut v1::Cache, _: &Request<'_, Self::Kind>) -> Result<(), Denied> {
        if object.spec.memory_mib == Some(0) {
            return Err(Denied::new("memoryMib 0 cannot be defaulted: leave it out"));
        }
        object.spec.size.get_or_insert(3);
        object.spec.memory_mib.get_or_insert(64);
        Ok(())
    }
}

struct SizeValidator;

impl Validator for SizeValidator {
    type Kind = v1::Cache;
    async fn validate_create(&self, object: &v1::Cache, _: &Request<'_, Self::Kind>) -> Verdict {
        match object.spec.size {
            Some(size) if size > 10 => {
                Err(Denied::new(format!("size {size} is above 10")).with_warning("see the docs"))
            }
            Some(size) if size > 5 => Ok(vec![format!("size {size} is large")]),
            _ => Ok(vec![]),
        }
    }
    async fn validate_update(&self, old: &v1::Cache, new: &v1::Cache, request: &Request<'_, Self::Kind>) -> Verdict {
        if new.spec.size < old.spec.size {
            return Err(Denied::new("size cannot shrink"));
        }
        self.validate_create(new, request).await
    }
    async fn validate_delete(&self, object: &v1::Cache, _: &Request<'_, Self::Kind>) -> Verdict {
        if object.metadata.labels.as_ref().is_some_and(|l| l.contains_key("protected")) {
            return Err(Denied::new("the object is protected"));
        }
        Ok(vec![])
    }
}

fn server() -> Server {
    Server::build([
        Registration::defaulter(SizeDefaulter),
        Registration::validator(SizeValidator),
        Registration::conversion(HubConversion::<v1::Cache>::hub().spoke::<v2::Cache>()),
    ])
    .expect("the test webhooks register")
}

fn object(spec: Value) -> Value {
    json!({
        "apiVersion": "cache.example.com/v1",
        "kind": "Cache",
        "metadata": {"name": "c", "namespace": "default", "uid": "u-1"},
        "spec": spec,
    })
}

fn review(operation: &str, object: Option<Value>, old: Option<Value>) -> Value {
    json!({
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "request": {
            "uid": "req-1",
            "kind": {"group": "cache.example.com", "version": "v1", "kind": "Cache"},
            "resource": {"group": "cache.example.com", "version": "v1", "resource": "caches"},
            "operation": operation,
            "userInfo": {"username": "alice"},
            "object": object,
            "oldObject": old,
            "dryRun": false,
        }
    })
}

fn response(answer: Option<Value>) -> Value {
    let answer = answer.expect("the path is served");
    assert_eq!(answer["apiVersion"], "admission.k8s.io/v1");
    assert_eq!(answer["kind"], "AdmissionReview");
    answer["response"].clone()
}

#[test]
fn attributes_give_the_definitions() {
    let [mutating, validating] = v1::Cache::DEFINITION.webhooks else { panic!("two webhooks") };
    assert_eq!(
        *mutating,
        rop::Webhook {
            mutating: true,
            name: "mcache-v1.cache.example.com",
            path: "/mutate-cache-example-com-v1-cache",
            failure_policy: "Fail",
            side_effects: "None",
            operations: &["CREATE", "UPDATE"],
            admission_review_versions: &["v1"],
            timeout_seconds: None,
            match_policy: None,
            reinvocation_policy: None,
            namespace_selector: None,
            object_selector: None,
        }
    );
    assert_eq!(validating.path, "/validate-cache-example-com-v1-cache");
    assert_eq!(
        validating.namespace_selector,
        Some(rop::LabelSelector {
            match_labels: &[("webhooks", "enabled")],
            match_expressions: &[
                rop::SelectorRequirement { key: "env", operator: "In", values: &["prod", "staging"] },
                rop::SelectorRequirement { key: "legacy", operator: "DoesNotExist", values: &[] },
            ],
        })
    );
}

#[test]
fn generate_writes_the_webhook_configurations_sorted_by_name() {
    let bundle = rop::manifests::bundle(&[rop::manifests::kind::<v2::Cache>(), rop::manifests::kind::<v1::Cache>()]);
    // Through JSON, as `rop generate` reads it from the generator's stdout.
    let bundle = serde_json::from_str(&serde_json::to_string(&bundle).unwrap()).unwrap();
    let files = rop::manifests::assemble(&bundle, false).unwrap();
    let manifests = files.iter().find(|f| f.path == "config/webhook/manifests.yaml").expect("written");
    assert_eq!(
        manifests.content,
        r#"---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: mutating-webhook-configuration
webhooks:
- admissionReviewVersions:
  - v1
  clientConfig:
    service:
      name: webhook-service
      namespace: system
      path: /default-cache-v2
  failurePolicy: Fail
  name: defaults.v2.cache.example.com
  objectSelector:
    matchExpressions:
    - key: tier
      operator: NotIn
      values:
      - test
  reinvocationPolicy: IfNeeded
  rules:
  - apiGroups:
    - cache.example.com
    apiVersions:
    - v2
    operations:
    - CREATE
    - UPDATE
    resources:
    - caches
  sideEffects: NoneOnDryRun
- admissionReviewVersions:
  - v1
  clientConfig:
    service:
      name: webhook-service
      namespace: system
      path: /mutate-cache-example-com-v1-cache
  failurePolicy: Fail
  name: mcache-v1.cache.example.com
  rules:
  - apiGroups:
    - cache.example.com
    apiVersions:
    - v1
    operations:
    - CREATE
    - UPDATE
    resources:
    - caches
  sideEffects: None
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: validating-webhook-configuration
webhooks:
- admissionReviewVersions:
  - v1
  clientConfig:
    service:
      name: webhook-service
      namespace: system
      path: /validate-cache-example-com-v1-cache
  failurePolicy: Ignore
  matchPolicy: Equivalent
  name: vcache-v1.cache.example.com
  namespaceSelector:
    matchExpressions:
    - key: env
      operator: In
      values:
      - prod
      - staging
    - key: legacy
      operator: DoesNotExist
    matchLabels:
      webhooks: enabled
  rules:
  - apiGroups:
    - cache.example.com
    apiVersions:
    - v1
    operations:
    - CREATE
    - UPDATE
    - DELETE
    resources:
    - caches
  sideEffects: None
  timeoutSeconds: 5
"#
    );
}

#[test]
fn a_project_without_webhooks_gets_no_webhook_manifests() {
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[rop(group = "plain.example.com", version = "v1", kind = "Plain", storage)]
    struct PlainSpec {}
    let files = rop::manifests::assemble(&rop::manifests::bundle(&[rop::manifests::kind::<Plain>()]), false).unwrap();
    let paths: Vec<_> = files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["config/crd/bases/plain.example.com_plains.yaml", "config/rbac/role.yaml"]);
}

/// A controller for the built-in v1 ServiceAccount that owns Secrets and reads ConfigMaps.
#[derive(rop::BuiltinKind)]
#[rop(group = "", version = "v1", kind = "ServiceAccount", plural = "serviceaccounts")]
#[rop(object = "k8s_openapi::api::core::v1::ServiceAccount", controller(finalizer = "example.com/finalizer"))]
#[rop(owns(k8s_openapi::api::core::v1::Secret), watches(k8s_openapi::api::core::v1::ConfigMap))]
#[rop(rbac(groups = [""], resources = ["events"], verbs = ["create"]))]
struct ServiceAccountV1;

#[test]
fn a_built_in_kind_controller_gets_the_rules_kubebuilder_scaffolds() {
    let bundle = rop::manifests::bundle(&[
        rop::manifests::builtin::<ServiceAccountV1>(),
        // Webhooks only: no rules.
        rop::manifests::builtin::<DeploymentV1>(),
    ]);
    let files = rop::manifests::assemble(&bundle, false).unwrap();
    let role = files.iter().find(|f| f.path == "config/rbac/role.yaml").unwrap();
    pretty_assertions::assert_eq!(
        role.content,
        r#"---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: manager-role
rules:
- apiGroups:
  - ""
  resources:
  - configmaps
  verbs:
  - get
  - list
  - watch
- apiGroups:
  - ""
  resources:
  - events
  verbs:
  - create
- apiGroups:
  - ""
  resources:
  - secrets
  - serviceaccounts
  verbs:
  - create
  - delete
  - get
  - list
  - patch
  - update
  - watch
- apiGroups:
  - ""
  resources:
  - serviceaccounts/finalizers
  verbs:
  - update
- apiGroups:
  - ""
  resources:
  - serviceaccounts/status
  verbs:
  - get
  - patch
  - update
- apiGroups:
  - events.k8s.io
  resources:
  - events
  verbs:
  - create
  - patch
"#
    );
    let controller = <ServiceAccountV1 as rop::ControllerTarget>::CONTROLLER;
    assert_eq!((controller.kind, controller.finalizer), ("ServiceAccount", "example.com/finalizer"));
    assert_eq!(<DeploymentV1 as rop::BuiltinKind>::CONTROLLER, None);
}

#[tokio::test]
async fn defaulting_answers_with_a_patch_that_gives_the_defaulted_object() {
    let server = server();
    let sent = object(json!({"memoryMib": 128}));
    let answer =
        response(server.handle("/mutate-cache-example-com-v1-cache", review("CREATE", Some(sent.clone()), None)).await);
    assert_eq!(answer["uid"], "req-1");
    assert_eq!(answer["allowed"], true);
    assert_eq!(answer["patchType"], "JSONPatch");
    let patch_bytes: Vec<u8> = serde_json::from_value(answer["patch"].clone()).unwrap();
    let patch: json_patch::Patch = serde_json::from_slice(&patch_bytes).unwrap();
    let mut patched = sent;
    json_patch::patch(&mut patched, &patch).unwrap();
    assert_eq!(patched, object(json!({"memoryMib": 128, "size": 3})));
}

#[tokio::test]
async fn defaulting_a_complete_object_sends_no_patch_and_a_denial_refuses() {
    let server = server();
    let path = "/mutate-cache-example-com-v1-cache";
    let answer =
        response(server.handle(path, review("CREATE", Some(object(json!({"size": 1, "memoryMib": 8}))), None)).await);
    assert_eq!((answer["allowed"].clone(), answer.get("patch")), (json!(true), None));
    let answer = response(server.handle(path, review("UPDATE", Some(object(json!({"memoryMib": 0}))), None)).await);
    assert_eq!(answer["allowed"], false);
    assert_eq!(answer["status"]["message"], "memoryMib 0 cannot be defaulted: leave it out");
    assert_eq!(answer["status"]["code"], 403);
}

#[tokio::test]
async fn validation_allows_warns_and_denies() {
    let server = server();
    let path = "/validate-cache-example-com-v1-cache";
    let answer = response(server.handle(path, review("CREATE", Some(object(json!({"size": 2}))), None)).await);
    assert_eq!((answer["allowed"].clone(), answer.get("warnings")), (json!(true), None));

    let answer = response(server.handle(path, review("CREATE", Some(object(json!({"size": 7}))), None)).await);
    assert_eq!(answer["allowed"], true);
    assert_eq!(answer["warnings"], json!(["size 7 is large"]));

    let answer = response(server.handle(path, review("CREATE", Some(object(json!({"size": 11}))), None)).await);
    assert_eq!(answer["allowed"], false);
    assert_eq!(
        answer["status"],
        json!({"status": "Failure", "message": "size 11 is above 10", "reason": "Forbidden", "code": 403})
    );
    assert_eq!(answer["warnings"], json!(["see the docs"]));

    let update = review("UPDATE", Some(object(json!({"size": 1}))), Some(object(json!({"size": 2}))));
    let answer = response(server.handle(path, update).await);
    assert_eq!(
        (answer["allowed"].clone(), answer["status"]["message"].clone()),
        (json!(false), json!("size cannot shrink"))
    );

    let mut protected = object(json!({}));
    protected["metadata"]["labels"] = json!({"protected": "yes"});
    let answer = response(server.handle(path, review("DELETE", None, Some(protected))).await);
    assert_eq!(answer["status"]["message"], "the object is protected");
}

#[tokio::test]
async fn a_malformed_review_or_object_is_refused_with_the_reason() {
    let server = server();
    let path = "/validate-cache-example-com-v1-cache";
    let answer =
        response(server.handle(path, json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview"})).await);
    assert_eq!(
        (answer["allowed"].clone(), answer["status"]["message"].clone()),
        (json!(false), json!("the AdmissionReview has no request"))
    );

    let answer = response(server.handle(path, review("CREATE", Some(object(json!({"size": "three"}))), None)).await);
    assert_eq!(answer["allowed"], false);
    let message = answer["status"]["message"].as_str().unwrap();
    assert!(
        message.starts_with(
            "the object does not decode as webhook_server::v1::Cache: invalid type: string \"three\", expected i32"
        ),
        "{message}"
    );
    assert_eq!(server.handle("/nothing-here", json!({})).await, None);
}

fn conversion_review(desired: &str, objects: Vec<Value>) -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "ConversionReview",
        "request": {"uid": "conv-1", "desiredAPIVersion": desired, "objects": objects}
    })
}

#[tokio::test]
async fn conversion_goes_through_the_hub_and_back_without_loss() {
    let server = server();
    let v2_object = json!({
        "apiVersion": "cache.example.com/v2",
        "kind": "Cache",
        "metadata": {"name": "c", "namespace": "default", "labels": {"app": "x"}},
        "spec": {"capacity": {"replicas": 4, "memoryMib": 256}},
    });
    let answer =
        server.handle("/convert", conversion_review("cache.example.com/v1", vec![v2_object.clone()])).await.unwrap();
    let response = &answer["response"];
    assert_eq!(response["uid"], "conv-1");
    assert_eq!(response["result"]["status"], "Success");
    let v1_object = response["convertedObjects"][0].clone();
    assert_eq!(
        v1_object,
        json!({
            "apiVersion": "cache.example.com/v1",
            "kind": "Cache",
            "metadata": {"name": "c", "namespace": "default", "labels": {"app": "x"}},
            "spec": {"size": 4, "memoryMib": 256},
        })
    );
    let back = server
        .handle("/convert", conversion_review("cache.example.com/v2", vec![v1_object, v2_object.clone()]))
        .await
        .unwrap();
    assert_eq!(back["response"]["convertedObjects"], json!([v2_object.clone(), v2_object]));
}

#[tokio::test]
async fn a_failed_conversion_fails_the_whole_review() {
    let server = server();
    let too_big = json!({
        "apiVersion": "cache.example.com/v2", "kind": "Cache", "metadata": {"name": "c"},
        "spec": {"capacity": {"replicas": 5000, "memoryMib": 1}},
    });
    let answer = server.handle("/convert", conversion_review("cache.example.com/v1", vec![too_big])).await.unwrap();
    assert_eq!(answer["response"]["result"]["status"], "Failure");
    assert_eq!(answer["response"]["result"]["message"], "v1 holds at most 1000 replicas");
    assert_eq!(answer["response"]["convertedObjects"], json!([]));

    let other = json!({"apiVersion": "cache.example.com/v1", "kind": "Queue", "metadata": {"name": "q"}});
    let answer = server.handle("/convert", conversion_review("cache.example.com/v2", vec![other])).await.unwrap();
    assert_eq!(
        answer["response"]["result"]["message"],
        "this server has no conversion for cache.example.com Queue: register it with Registration::conversion"
    );
}

#[tokio::test]
async fn a_field_of_the_wrong_shape_is_named_in_the_failure() {
    let server = server();
    let malformed = json!({
        "apiVersion": "cache.example.com/v2", "kind": "Cache", "metadata": {"name": "c"},
        "spec": {"capacity": {"replicas": "three", "memoryMib": 1}},
    });
    let answer = server.handle("/convert", conversion_review("cache.example.com/v1", vec![malformed])).await.unwrap();
    assert_eq!(
        answer["response"]["result"]["message"],
        "spec.capacity.replicas: invalid type: string \"three\", expected i32"
    );

    // v1's size is a number, v2's capacity a structure: converting by name cannot carry it.
    let v1 = v1::Cache::new("c", v1::CacheSpec { size: Some(3), memory_mib: None });
    let mut renamed = serde_json::to_value(&v1).unwrap();
    renamed["spec"]["capacity"] = json!(3);
    let error = rop::conversion::by_field_names::<_, v2::Cache>(renamed).unwrap_err();
    assert_eq!(
        error.to_string(),
        "cannot convert by field names: spec.capacity: invalid type: integer `3`, expected struct Capacity: write this field's conversion by hand"
    );
}

#[tokio::test]
async fn a_defaulted_object_that_does_not_serialise_is_denied_not_a_crash() {
    fn refuse_poison<S: serde::Serializer>(note: &Option<String>, s: S) -> Result<S::Ok, S::Error> {
        match note.as_deref() {
            Some("poison") => Err(serde::ser::Error::custom("a poisoned note cannot be written")),
            other => other.serialize(s),
        }
    }
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, JsonSchema)]
    #[rop(group = "cache.example.com", version = "v1", kind = "Cache")]
    #[rop(webhook(mutating, path = "/mutate-poison"))]
    struct CacheSpec {
        #[serde(default, serialize_with = "refuse_poison")]
        note: Option<String>,
    }
    struct Poisoner;
    impl Defaulter for Poisoner {
        type Kind = Cache;
        async fn default(&self, object: &mut Cache, _: &Request<'_, Self::Kind>) -> Result<(), Denied> {
            object.spec.note = Some("poison".into());
            Ok(())
        }
    }
    let server = Server::build([Registration::defaulter(Poisoner)]).unwrap();
    let answer = server.handle("/mutate-poison", review("CREATE", Some(object(json!({}))), None)).await;
    let response = response(answer);
    assert_eq!(response["allowed"], false);
    assert_eq!(response["status"]["code"], 403);
    assert_eq!(
        response["status"]["message"],
        "the defaulted object cannot be written as JSON: a poisoned note cannot be written"
    );
}

#[tokio::test]
async fn a_webhook_sees_the_request_and_outside_a_manager_its_client_says_so() {
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, JsonSchema)]
    #[rop(group = "cache.example.com", version = "v1", kind = "Cache")]
    #[rop(webhook(mutating, path = "/mutate-inspect"))]
    struct CacheSpec {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        size: Option<i32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    }
    struct Inspector;
    impl Defaulter for Inspector {
        type Kind = Cache;
        async fn default(&self, object: &mut Cache, request: &Request<'_, Self::Kind>) -> Result<(), Denied> {
            // An update keeps the size the object had.
            if let Some(old) = request.old_object() {
                object.spec.size = old.spec.size;
            }
            let caches: kube::Api<Cache> = kube::Api::all(request.client().clone());
            let listed = caches.list(&Default::default()).await.map(|_| ());
            let user = request.user_info().username.as_deref().unwrap_or_default();
            let error = listed.unwrap_err();
            object.spec.note =
                Some(format!("{:?} by {user}, dry run {}: {error}", request.operation(), request.dry_run()));
            Ok(())
        }
    }
    let server = Server::build([Registration::defaulter(Inspector)]).unwrap();
    let old = object(json!({ "size": 1 }));
    let answer =
        server.handle("/mutate-inspect", review("UPDATE", Some(object(json!({ "size": 5 }))), Some(old))).await;
    let patch = response(answer)["patch"].clone();
    let patch: Vec<u8> = serde_json::from_value(patch).unwrap();
    let patch: Value = serde_json::from_slice(&patch).unwrap();
    let note = patch.as_array().unwrap().iter().find(|op| op["path"] == "/spec/note").unwrap()["value"].clone();
    assert_eq!(
        note,
        "Update by alice, dry run false: ServiceError: this webhook server has no client: the manager gives it its own; a test gives it one with `Server::with_client` (rop-testenv's `TestEnv::client`)"
    );
    assert!(patch.as_array().unwrap().iter().any(|op| op["path"] == "/spec/size" && op["value"] == 1), "{patch}");
}

#[test]
fn registration_errors_name_the_kind_and_the_fix() {
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, JsonSchema)]
    #[rop(group = "cache.example.com", version = "v3", kind = "Cache")]
    struct CacheSpec {}
    // The derive refuses a defaulter for a kind without its webhook at compile time
    // (tests/ui/webhooks/without_webhook.rs); a hand-written claim is caught here.
    impl rop::MutatingWebhookTarget for Cache {}
    struct V3Defaulter;
    impl Defaulter for V3Defaulter {
        type Kind = Cache;
        async fn default(&self, _: &mut Cache, _: &Request<'_, Self::Kind>) -> Result<(), Denied> {
            Ok(())
        }
    }
    let err = |r: Result<Server, SetupError>| r.err().expect("refused").to_string();
    assert_eq!(
        err(Server::build([Registration::defaulter(V3Defaulter)])),
        "cache.example.com/v3 Cache has no defaulting webhook: add #[rop(webhook(mutating))] to its spec type, or to its #[derive(rop::BuiltinKind)] type (`rop create webhook --defaulting` does), then `make manifests`"
    );
    assert_eq!(
        err(Server::build([Registration::conversion(HubConversion::<v2::Cache>::hub())])),
        "cache.example.com/v2 Cache is the hub of its conversion but not the kind's storage version: mark it `storage` in #[rop(...)], or make the storage version the hub"
    );
    assert_eq!(
        err(Server::build([Registration::defaulter(SizeDefaulter), Registration::defaulter(SizeDefaulter)])),
        "two webhooks are served at /mutate-cache-example-com-v1-cache: give one of them another `path` in #[rop(webhook(...))]"
    );
    assert_eq!(
        server().paths(),
        ["/convert", "/mutate-cache-example-com-v1-cache", "/validate-cache-example-com-v1-cache"]
    );
}

/// One HTTP/1.1 request over TLS, trusting only `ca`; the status line and body.
async fn https_post(port: u16, ca: &rcgen::Certificate, path: &str, body: &str) -> (String, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut roots = rustls::RootCertStore::empty();
    roots.add(ca.der().clone()).unwrap();
    // ring's provider, as the manager uses (deprecated from rustls 0.23.48).
    #[allow(deprecated)]
    let config =
        rustls::ClientConfig::builder_with_provider(std::sync::Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(roots)
            .with_no_client_auth();
    let connector = tokio_rustls::TlsConnector::from(std::sync::Arc::new(config));
    let tcp = tokio::net::TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    let name = rustls::pki_types::ServerName::try_from("webhook-service.system.svc").unwrap();
    let mut tls = connector.connect(name, tcp).await.unwrap();
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    tls.write_all(request.as_bytes()).await.unwrap();
    let mut answer = String::new();
    tls.read_to_string(&mut answer).await.unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap();
    (head.lines().next().unwrap().to_string(), body.to_string())
}

#[tokio::test]
async fn serves_reviews_over_https_with_the_mounted_certificate() {
    let dir = std::env::temp_dir().join(format!("rop-webhook-tls-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let key = rcgen::KeyPair::generate().unwrap();
    let cert = rcgen::CertificateParams::new(vec!["webhook-service.system.svc".to_string()])
        .unwrap()
        .self_signed(&key)
        .unwrap();
    std::fs::write(dir.join("tls.crt"), cert.pem()).unwrap();
    std::fs::write(dir.join("tls.key"), key.serialize_pem()).unwrap();

    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let mut registry = prometheus_client::registry::Registry::default();
    let metrics = rop::webhook::Metrics::register(&mut registry);
    let serving = tokio::spawn({
        let (dir, metrics) = (dir.clone(), metrics.clone());
        async move {
            server()
                .with_metrics(metrics)
                .serve(([127, 0, 0, 1], port).into(), &dir, async {
                    let _ = stopped.await;
                })
                .await
        }
    });
    let mut attempt = 0;
    let (status, body) = loop {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        if tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_ok() || attempt > 100 {
            let body = review("CREATE", Some(object(json!({"size": 7}))), None).to_string();
            break https_post(port, &cert, "/validate-cache-example-com-v1-cache", &body).await;
        }
        attempt += 1;
    };
    assert_eq!(status, "HTTP/1.1 200 OK");
    let answer: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(answer["response"]["warnings"], json!(["size 7 is large"]));
    let (status, _) = https_post(port, &cert, "/nowhere", "{}").await;
    assert_eq!(status, "HTTP/1.1 404 Not Found");
    let (status, _) = https_post(port, &cert, "/validate-cache-example-com-v1-cache", "not JSON").await;
    assert_eq!(status, "HTTP/1.1 400 Bad Request");

    // controller-runtime's webhook metrics count the served paths only.
    assert_eq!(metrics.answered("/validate-cache-example-com-v1-cache"), 1);
    let mut text = String::new();
    prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
    let requests = |code| {
        format!(
            "controller_runtime_webhook_requests_total{{webhook=\"/validate-cache-example-com-v1-cache\",code=\"{code}\"}} 1\n"
        )
    };
    assert!(text.contains(&requests(200)) && text.contains(&requests(400)), "{text}");
    assert!(
        text.contains(
            "controller_runtime_webhook_requests_in_flight{webhook=\"/validate-cache-example-com-v1-cache\"} 0\n"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "controller_runtime_webhook_latency_seconds_count{webhook=\"/validate-cache-example-com-v1-cache\"} 2\n"
        ),
        "{text}"
    );
    assert!(!text.contains("nowhere"), "{text}");

    stop.send(()).unwrap();
    serving.await.unwrap().unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn a_missing_certificate_says_where_it_was_looked_for() {
    let dir = std::path::Path::new("/nonexistent/certs");
    let err = server().serve(([127, 0, 0, 1], 0).into(), dir, async {}).await.unwrap_err().to_string();
    assert_eq!(
        err,
        "cannot read the webhook server's TLS certificate /nonexistent/certs/tls.crt: No such file or directory (os error 2); mount one there (cert-manager does in a cluster, see config/default/manager_webhook_patch.yaml), pass --webhook-cert-dir, or run with ENABLE_WEBHOOKS=false"
    );
}

#[tokio::test]
async fn a_server_with_conversions_refuses_a_client_ca_before_it_serves() {
    let server =
        Server::build([rop::webhook::Registration::conversion(HubConversion::<v1::Cache>::hub().spoke::<v2::Cache>())])
            .unwrap()
            .client_ca_file("/any/ca.crt");
    let dir = std::path::Path::new("/nonexistent/certs");
    assert_eq!(
        server.serve(([127, 0, 0, 1], 0).into(), dir, async {}).await.unwrap_err().to_string(),
        "the webhook server converts cache.example.com Cache and was asked to admit only callers with a client certificate (--webhook-client-ca-file): kube-apiserver presents none to CRD conversion webhooks, so every conversion would fail; leave the flag out"
    );
    // Without the client CA, the same server gets as far as its certificate.
    let err = server_without_ca().serve(([127, 0, 0, 1], 0).into(), dir, async {}).await.unwrap_err();
    assert!(err.to_string().starts_with("cannot read the webhook server's TLS certificate"), "{err}");
}

fn server_without_ca() -> Server {
    Server::build([rop::webhook::Registration::conversion(HubConversion::<v1::Cache>::hub().spoke::<v2::Cache>())])
        .unwrap()
}

#[tokio::test]
async fn a_registration_list_builds_the_server_and_the_testing_helpers_read_its_answers() {
    use rop::webhook::testing;
    let server = Server::build([
        Registration::defaulter(SizeDefaulter),
        Registration::validator(SizeValidator),
        Registration::conversion(HubConversion::<v1::Cache>::hub()),
        // A second registration of the same hub adds its spokes.
        Registration::conversion(HubConversion::<v1::Cache>::hub().spoke::<v2::Cache>()),
    ])
    .unwrap();
    let mut object = v1::Cache::new("c", v1::CacheSpec { size: None, memory_mib: Some(8) });
    object.metadata.namespace = Some("default".into());

    let review = testing::admission_review("CREATE", Some(&object), None);
    assert_eq!(review["request"]["name"], "c");
    assert_eq!(review["request"]["resource"]["resource"], "caches");
    let answer = server.handle("/mutate-cache-example-com-v1-cache", review).await.unwrap();
    let defaulted: v1::Cache = testing::patched(&answer, &object);
    assert_eq!(defaulted.spec, v1::CacheSpec { size: Some(3), memory_mib: Some(8) });

    let big = v1::Cache::new("c", v1::CacheSpec { size: Some(20), memory_mib: None });
    let answer = server
        .handle("/validate-cache-example-com-v1-cache", testing::admission_review("CREATE", Some(&big), None))
        .await;
    assert_eq!(
        testing::verdict(&answer.unwrap()),
        Err(Denied::new("size 20 is above 10").with_warning("see the docs"))
    );
    let answer = server
        .handle("/validate-cache-example-com-v1-cache", testing::admission_review("DELETE", None, Some(&big)))
        .await;
    assert_eq!(testing::verdict(&answer.unwrap()), Ok(vec![]));

    let as_v2: v2::Cache = testing::convert(&server, "cache.example.com/v2", &defaulted).await.unwrap();
    assert_eq!(as_v2.spec.capacity, Some(v2::Capacity { replicas: 3, memory_mib: 8 }));
    let back: v1::Cache = testing::convert(&server, "cache.example.com/v1", &as_v2).await.unwrap();
    assert_eq!(back, defaulted);

    let two_hubs = Server::build([
        Registration::conversion(HubConversion::<v1::Cache>::hub()),
        Registration::conversion(HubConversion::<TwoHubCache>::hub()),
    ]);
    assert_eq!(
        two_hubs.err().unwrap().to_string(),
        "cache.example.com Cache has two hubs, v1 and v9: a kind has one hub, its storage version"
    );
}

mod v9 {
    use super::*;
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, JsonSchema)]
    #[rop(group = "cache.example.com", version = "v9", kind = "Cache", storage)]
    pub struct CacheSpec {}
}
use v9::Cache as TwoHubCache;

/// Webhooks for the built-in apps/v1 Deployment.
#[derive(rop::BuiltinKind)]
#[rop(group = "apps", version = "v1", kind = "Deployment", plural = "deployments")]
#[rop(object = "k8s_openapi::api::apps::v1::Deployment")]
#[rop(webhook(mutating, name = "mdeployment-v1.example.com"))]
struct DeploymentV1;

/// Webhooks for the core v1 Pod.
#[derive(rop::BuiltinKind)]
#[rop(group = "", version = "v1", kind = "Pod", plural = "pods", object = "k8s_openapi::api::core::v1::Pod")]
#[rop(webhook(validating, name = "vpod-v1.example.com", operations = ["CREATE"]))]
struct PodV1;

struct ReplicasDefaulter;

impl Defaulter for ReplicasDefaulter {
    type Kind = DeploymentV1;
    async fn default(
        &self,
        object: &mut k8s_openapi::api::apps::v1::Deployment,
        _: &Request<'_, Self::Kind>,
    ) -> Result<(), Denied> {
        object.spec.replicas.get_or_insert(2);
        Ok(())
    }
}

struct NoHostNetwork;

impl Validator for NoHostNetwork {
    type Kind = PodV1;
    async fn validate_create(&self, pod: &k8s_openapi::api::core::v1::Pod, _: &Request<'_, Self::Kind>) -> Verdict {
        match pod.spec.as_ref().and_then(|s| s.host_network) {
            Some(true) => Err(Denied::new("pods may not use the host network")),
            _ => Ok(vec![]),
        }
    }
    async fn validate_update(
        &self,
        _: &k8s_openapi::api::core::v1::Pod,
        new: &k8s_openapi::api::core::v1::Pod,
        request: &Request<'_, Self::Kind>,
    ) -> Verdict {
        self.validate_create(new, request).await
    }
    async fn validate_delete(&self, _: &k8s_openapi::api::core::v1::Pod, _: &Request<'_, Self::Kind>) -> Verdict {
        Ok(vec![])
    }
}

#[tokio::test]
async fn built_in_kinds_get_webhooks_too() {
    use k8s_openapi::api::apps::v1::Deployment;
    use k8s_openapi::api::core::v1::{Pod, PodSpec};
    use rop::WebhookTarget;
    use rop::webhook::testing;

    assert_eq!(DeploymentV1::TARGET.mutating_webhook().unwrap().path, "/mutate-apps-v1-deployment");
    // kubebuilder's path for the core group has an empty group: two dashes.
    assert_eq!(PodV1::TARGET.validating_webhook().unwrap().path, "/validate--v1-pod");
    assert_eq!(PodV1::TARGET.name(), "v1 Pod");

    let server =
        Server::build([Registration::defaulter(ReplicasDefaulter), Registration::validator(NoHostNetwork)]).unwrap();
    let mut deployment = Deployment::default();
    deployment.metadata.name = Some("web".into());
    let review = testing::admission_review("CREATE", Some(&deployment), None);
    assert_eq!(review["request"]["resource"], json!({"group": "apps", "version": "v1", "resource": "deployments"}));
    let answer = server.handle("/mutate-apps-v1-deployment", review).await.unwrap();
    let defaulted: Deployment = testing::patched(&answer, &deployment);
    assert_eq!(defaulted.spec.replicas, Some(2));

    let pod = Pod { spec: Some(PodSpec { host_network: Some(true), ..PodSpec::default() }), ..Pod::default() };
    let answer = server.handle("/validate--v1-pod", testing::admission_review("CREATE", Some(&pod), None)).await;
    assert_eq!(testing::verdict(&answer.unwrap()), Err(Denied::new("pods may not use the host network")));

    let bundle =
        rop::manifests::bundle(&[rop::manifests::builtin::<DeploymentV1>(), rop::manifests::builtin::<PodV1>()]);
    assert!(bundle.kinds.is_empty());
    let files = rop::manifests::assemble(&bundle, false).unwrap();
    let manifests = &files.iter().find(|f| f.path == "config/webhook/manifests.yaml").unwrap().content;
    assert!(manifests.contains("  - apiGroups:\n    - apps\n    apiVersions:\n    - v1\n"), "{manifests}");
    assert!(manifests.contains("  - apiGroups:\n    - \"\"\n    apiVersions:\n    - v1\n    operations:\n    - CREATE\n    resources:\n    - pods\n"), "{manifests}");
}
