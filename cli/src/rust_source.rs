//! Reading the user's Rust code with `syn` rather than by searching its text, so that
//! comments, strings and formatting cannot be taken for code.

use syn::punctuated::Punctuated;
use syn::{Expr, Lit, Meta, Token};

/// Whether a type declared at the top of `text` carries `#[rop(<key>)]` or `#[rop(<key> =
/// true)]` among its `#[rop(...)]` settings (the derive's flag forms, as `storage`);
/// `None` when `text` does not parse as Rust, so it says nothing.
pub fn rop_flag(text: &str, key: &str) -> Option<bool> {
    let file = syn::parse_file(text).ok()?;
    let attrs = file.items.iter().flat_map(|item| match item {
        syn::Item::Struct(s) => s.attrs.as_slice(),
        syn::Item::Enum(e) => e.attrs.as_slice(),
        _ => &[],
    });
    let settings = attrs
        .filter(|a| a.path().is_ident("rop"))
        .filter_map(|a| a.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated).ok())
        .flatten();
    let set = |meta: &Meta| match meta {
        Meta::Path(path) => path.is_ident(key),
        Meta::NameValue(nv) => {
            nv.path.is_ident(key) && matches!(&nv.value, Expr::Lit(e) if matches!(&e.lit, Lit::Bool(b) if b.value))
        }
        Meta::List(_) => false,
    };
    Some(settings.into_iter().any(|m| set(&m)))
}

#[cfg(test)]
mod tests {
    use super::rop_flag;

    #[test]
    fn finds_a_flag_among_the_settings_only() {
        let stored = "/// storage is not here\n#[rop(group = \"a.b\", version = \"v1\")]\n#[rop(namespaced, storage)]\npub struct FooSpec {}\n";
        assert_eq!(rop_flag(stored, "storage"), Some(true));
        let named = "#[rop(doc = \"storage\", storage = false)]\npub struct FooSpec {}\n";
        assert_eq!(rop_flag(named, "storage"), Some(false));
        assert_eq!(rop_flag("#[rop(storage = true)] pub struct FooSpec;", "storage"), Some(true));
        assert_eq!(rop_flag("pub struct {", "storage"), None);
    }
}
