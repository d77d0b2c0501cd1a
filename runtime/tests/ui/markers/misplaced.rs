use rop::JsonSchema;

#[derive(JsonSchema)]
#[rop(required)]
pub struct Spec {
    #[rop(exactly_one_of(a, b))]
    pub a: Option<String>,
    #[rop(items(required))]
    pub list: Vec<String>,
}

#[derive(JsonSchema)]
pub enum Mode {
    #[rop(nullable)]
    Fast { speed: i32 },
    Slow {},
}

fn main() {}
