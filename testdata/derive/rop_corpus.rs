// The corpus as rop kinds: `corpus!` puts `#[derive(rop::CustomResource)]` in group
// corpus.rop.dev, version v1, on each spec. Included by runtime/tests/derive_corpus.rs and
// testenv/tests/derive_crds.rs.

macro_rules! corpus {
    ($kind:literal, [$($extra:tt)*], $(#[$attr:meta])* pub struct $name:ident $body:tt) => {
        #[derive(rop::CustomResource)]
        #[rop(group = "corpus.rop.dev", version = "v1", kind = $kind, $($extra)*)]
        $(#[$attr])*
        pub struct $name $body
    };
    ($kind:literal, $(#[$attr:meta])* pub struct $name:ident $body:tt) => {
        corpus!($kind, [], $(#[$attr])* pub struct $name $body);
    };
}

include!("corpus.rs");
include!("corpus_kinds.rs");
