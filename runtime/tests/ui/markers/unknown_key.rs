use rop::JsonSchema;

#[derive(JsonSchema)]
pub struct Spec {
    #[rop(min_lenght = 3)]
    pub name: String,
    #[rop(list_typ = "set")]
    pub tags: Vec<String>,
    // One error: the misspelling, not also "list_type = map needs list_map_keys".
    #[rop(list_type = "map", list_map_key = "name")]
    pub items: Vec<Item>,
}

#[derive(JsonSchema)]
pub struct Item {
    pub name: String,
}

fn main() {}
