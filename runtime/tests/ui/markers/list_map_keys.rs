use rop::JsonSchema;

#[derive(JsonSchema)]
pub struct Item {
    pub name: String,
}

#[derive(JsonSchema)]
pub struct Spec {
    #[rop(list_type = "map")]
    pub a: Vec<Item>,
    #[rop(list_map_keys = ["name"])]
    pub b: Vec<Item>,
    #[rop(list_type = "set", list_map_keys = ["name"])]
    pub c: Vec<Item>,
}

fn main() {}
