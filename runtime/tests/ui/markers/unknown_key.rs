use rop::JsonSchema;

#[derive(JsonSchema)]
pub struct Spec {
    #[rop(min_lenght = 3)]
    pub name: String,
    #[rop(list_typ = "set")]
    pub tags: Vec<String>,
}

fn main() {}
