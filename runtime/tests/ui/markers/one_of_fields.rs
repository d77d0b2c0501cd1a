use rop::JsonSchema;

#[derive(JsonSchema)]
#[rop(exactly_one_of(image, imag_ref))]
pub struct Spec {
    pub image: Option<String>,
    pub image_ref: Option<String>,
}

fn main() {}
