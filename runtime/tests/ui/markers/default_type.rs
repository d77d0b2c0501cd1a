use rop::JsonSchema;

#[derive(JsonSchema, serde::Serialize)]
pub struct Spec {
    #[rop(default = "three")]
    pub replicas: Option<i32>,
}

fn main() {}
