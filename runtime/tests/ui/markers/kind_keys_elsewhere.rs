use rop::JsonSchema;

// A kind-level key on a type that does not derive CustomResource would do nothing.
#[derive(JsonSchema)]
#[rop(shortname = "w", list_type = "atomic")]
pub struct Items(pub Vec<String>);

fn main() {}
