//! What the targets share.

/// libFuzzer's hook aborts on every panic, even one the code catches: the verifier catches
/// the `cel` crate's parser panics (`catch_unwind` in `verify/src/cel/mod.rs`), which are its
/// errors, not crashes. A panic nobody catches still aborts: libfuzzer-sys catches it at the
/// top and aborts.
pub fn quiet_caught_parser_panics() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let in_cel_parser =
            info.location().is_some_and(|l| l.file().contains("/cel-0.") && l.file().contains("/parser/"));
        if !in_cel_parser {
            default(info);
        }
    }));
}
