use rop::JsonSchema;

#[derive(JsonSchema)]
#[rop(at_most_one_of(image))]
pub struct Spec {
    pub image: Option<String>,
}

fn main() {}
