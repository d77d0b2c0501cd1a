use rop::JsonSchema;

#[derive(JsonSchema)]
pub struct Spec {
    #[rop(list_type = "bag")]
    pub a: Vec<String>,
    #[rop(map_type = "fine")]
    pub b: std::collections::BTreeMap<String, String>,
    #[rop(type_ = "str")]
    pub c: String,
    #[rop(validation(rule = "self > 0", reason = "Oops"))]
    pub d: i32,
    #[rop(validation(rule = "self > 0", field_path = "spec.d"))]
    pub e: i32,
    #[rop(validation(message = "no rule"))]
    pub f: i32,
    #[rop(validation(rule = "self > 0", mesage = "typo"))]
    pub g: i32,
    #[rop(default_json = "{not json}")]
    pub h: String,
    #[rop(enum_values = [])]
    pub i: String,
}

fn main() {}
