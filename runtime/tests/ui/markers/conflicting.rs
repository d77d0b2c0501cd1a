use rop::JsonSchema;

#[derive(JsonSchema)]
pub struct Spec {
    #[rop(required, optional)]
    pub a: Option<String>,
    #[rop(int_or_string, type_ = "string")]
    pub b: String,
    #[rop(default = 1, default_json = "2")]
    pub c: i32,
    #[rop(nullable)]
    #[rop(nullable)]
    pub d: Option<String>,
    #[rop(map_type = "atomic", struct_type = "atomic")]
    pub e: std::collections::BTreeMap<String, String>,
}

fn main() {}
