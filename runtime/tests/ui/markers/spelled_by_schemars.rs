use rop::JsonSchema;

#[derive(JsonSchema)]
pub struct Spec {
    #[rop(minimum = 1)]
    pub replicas: i32,
    #[rop(max_length = 63)]
    pub name: String,
    #[rop(pattern = "^a")]
    pub prefix: String,
    #[rop(unique_items)]
    pub tags: Vec<String>,
    #[rop(title = "T")]
    pub title: String,
}

fn main() {}
