use rop::JsonSchema;

/// A count of replicas; it has no conversion from text.
#[derive(JsonSchema, serde::Serialize, Clone, Copy)]
pub struct Replicas(pub i32);

#[derive(JsonSchema, serde::Serialize)]
pub struct Spec {
    #[rop(default = "three")]
    pub replicas: Option<Replicas>,
}

fn main() {}
