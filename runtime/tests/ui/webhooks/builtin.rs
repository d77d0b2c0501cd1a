#[derive(rop::BuiltinKind)]
#[rop(group = "apps", version = "v1", kind = "Deployment", plural = "deployments")]
#[rop(object = "k8s_openapi::api::apps::v1::Deployment", webhook(mutating))]
pub struct DeploymentV1;

#[derive(rop::BuiltinKind)]
#[rop(group = "core", version = "v1", kind = "Pod", plural = "pods", object = "k8s_openapi::api::core::v1::Pod")]
pub struct PodV1;

fn main() {}
