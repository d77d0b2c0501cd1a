// What a controller does belongs to a marker with `controller`.
#[derive(rop::BuiltinKind)]
#[rop(group = "", version = "v1", kind = "ServiceAccount", plural = "serviceaccounts")]
#[rop(object = "k8s_openapi::api::core::v1::ServiceAccount", owns(k8s_openapi::api::core::v1::Secret))]
pub struct ServiceAccountV1;

// A finalizer needs a domain.
#[derive(rop::BuiltinKind)]
#[rop(group = "", version = "v1", kind = "ConfigMap", plural = "configmaps")]
#[rop(object = "k8s_openapi::api::core::v1::ConfigMap", controller(finalizer = "cleanup"))]
pub struct ConfigMapV1;

// The names must be those of the object type: the core group is "".
#[derive(rop::BuiltinKind)]
#[rop(group = "core", version = "v1", kind = "Pod", plural = "pods")]
#[rop(object = "k8s_openapi::api::core::v1::Pod", controller)]
pub struct PodV1;

// A marker with webhooks only is no kind a controller reconciles.
#[derive(rop::BuiltinKind)]
#[rop(group = "", version = "v1", kind = "Secret", plural = "secrets")]
#[rop(object = "k8s_openapi::api::core::v1::Secret", webhook(validating, name = "vsecret-v1.example.com"))]
pub struct SecretV1;

fn reconciled<K: rop::ControllerTarget>() {}

fn main() {
    reconciled::<SecretV1>();
}
