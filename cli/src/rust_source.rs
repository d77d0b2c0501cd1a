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

/// A `webhook(...)` setting in a `#[rop(...)]` attribute of a type: the attribute's lines,
/// `first` and one `past` its last (0-based), and the webhook type (`mutating` or
/// `validating`, wherever it stands in the list, as the derive takes it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookAttribute {
    pub first: usize,
    pub past: usize,
    /// The attribute's text in the file, from `#` to `]`, as a byte range.
    pub text: std::ops::Range<usize>,
    pub which: String,
    /// The attribute holds this webhook and nothing else (`#[rop(webhook(...))]`), so
    /// removing its lines removes only the webhook.
    pub alone: bool,
}

/// `text` without the attribute `attribute`: its lines when nothing else stands on them, else
/// only its own text (and the blanks after it), so code sharing a line with it stays.
pub fn without_attribute(text: &str, attribute: &WebhookAttribute) -> String {
    let range = &attribute.text;
    let line_start = text[..range.start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[range.end..].find('\n').map_or(text.len(), |i| range.end + i + 1);
    let before = &text[line_start..range.start];
    let after = &text[range.end..line_end];
    if before.trim().is_empty() && after.trim().is_empty() {
        return format!("{}{}", &text[..line_start], &text[line_end..]);
    }
    let rest = &text[range.end..];
    let blanks = rest.len() - rest.trim_start_matches([' ', '\t']).len();
    format!("{}{}", &text[..range.start], &text[range.end + blanks..])
}

/// Where `text` stops parsing as Rust, for a message: ` (line L, column C)`, or nothing when
/// the error has no place (a lexer error spans the whole input).
pub fn error_place(e: &syn::Error) -> String {
    let start = e.span().start();
    if start.line == 0 { String::new() } else { format!(" (line {}, column {})", start.line, start.column + 1) }
}

/// Where the struct `name` of a types file is declared and which webhook attributes it has,
/// by line (0-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeAttributes {
    /// The line of the declaration (`pub struct <name>`), below its attributes.
    pub declaration: usize,
    /// Its `#[rop(webhook(...))]` attributes, in order, also those wrapped over lines.
    pub webhooks: Vec<WebhookAttribute>,
}

/// The declaration line and webhook attributes of the top-level struct `name` in `text`;
/// `Ok(None)` when `text` declares no such struct.
///
/// # Errors
/// `text` does not parse as Rust.
pub fn type_attributes(text: &str, name: &str) -> syn::Result<Option<TypeAttributes>> {
    let file = syn::parse_file(text)?;
    let line_starts: Vec<usize> = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
    // Spans give lines from 1 and columns in characters.
    let offset = |at: proc_macro2::LineColumn| {
        let start = line_starts[at.line - 1];
        start + text[start..].chars().take(at.column).map(char::len_utf8).sum::<usize>()
    };
    let item = file.items.iter().find_map(|item| match item {
        syn::Item::Struct(s) if s.ident == name => Some(s),
        _ => None,
    });
    let Some(item) = item else { return Ok(None) };
    // Spans count lines from 1.
    let declaration = match &item.vis {
        syn::Visibility::Inherited => item.struct_token.span.start().line,
        vis => syn::spanned::Spanned::span(vis).start().line,
    } - 1;
    let webhooks = item
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("rop"))
        .filter_map(|a| a.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated).ok().map(|s| (a, s)))
        .flat_map(|(a, settings)| {
            let first = a.pound_token.span.start().line - 1;
            let past = a.bracket_token.span.close().end().line;
            let range = offset(a.pound_token.span.start())..offset(a.bracket_token.span.close().end());
            let alone = settings.len() == 1;
            settings.into_iter().filter_map(move |setting| {
                let Meta::List(list) = setting else { return None };
                if !list.path.is_ident("webhook") {
                    return None;
                }
                let options = list.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated).ok()?;
                let which = options.iter().find_map(|o| match o {
                    Meta::Path(p) if p.is_ident("mutating") || p.is_ident("validating") => p.get_ident(),
                    _ => None,
                })?;
                Some(WebhookAttribute { first, past, text: range.clone(), which: which.to_string(), alone })
            })
        })
        .collect();
    Ok(Some(TypeAttributes { declaration, webhooks }))
}

#[cfg(test)]
mod tests {
    use super::{WebhookAttribute, rop_flag, type_attributes, without_attribute};

    #[test]
    fn finds_a_flag_among_the_settings_only() {
        let stored = "/// storage is not here\n#[rop(group = \"a.b\", version = \"v1\")]\n#[rop(namespaced, storage)]\npub struct FooSpec {}\n";
        assert_eq!(rop_flag(stored, "storage"), Some(true));
        let named = "#[rop(doc = \"storage\", storage = false)]\npub struct FooSpec {}\n";
        assert_eq!(rop_flag(named, "storage"), Some(false));
        assert_eq!(rop_flag("#[rop(storage = true)] pub struct FooSpec;", "storage"), Some(true));
        assert_eq!(rop_flag("pub struct {", "storage"), None);
    }

    #[test]
    fn finds_the_webhook_attributes_of_one_type_by_line() {
        let text = "/// Doc.\n#[derive(CustomResource)]\n#[rop(webhook(validating, path = \"/v\"))]\n#[rop(\n    webhook(mutating),\n)]\npub struct FooSpec {}\n\n#[rop(webhook(mutating))]\nstruct Other;\n";
        let lines = |w: Vec<WebhookAttribute>| -> Vec<WebhookAttribute> {
            w.into_iter().map(|w| WebhookAttribute { text: 0..0, ..w }).collect()
        };
        let webhook =
            |first, past, which: &str| WebhookAttribute { first, past, text: 0..0, which: which.into(), alone: true };
        assert_eq!(
            type_attributes(text, "FooSpec").unwrap().map(|t| (t.declaration, lines(t.webhooks))),
            Some((6, vec![webhook(2, 3, "validating"), webhook(3, 6, "mutating")]))
        );
        assert_eq!(
            type_attributes(text, "Other").unwrap().map(|t| (t.declaration, lines(t.webhooks))),
            Some((9, vec![webhook(8, 9, "mutating")]))
        );
        assert_eq!(type_attributes(text, "Missing").unwrap(), None);
        assert!(type_attributes("pub struct {", "FooSpec").is_err());
        let mixed = "#[rop(webhook(failure_policy = \"Ignore\", validating))]\n#[rop(namespaced, webhook(mutating))]\npub struct FooSpec;\n";
        assert_eq!(
            type_attributes(mixed, "FooSpec").unwrap().unwrap().webhooks,
            [
                WebhookAttribute { first: 0, past: 1, text: 0..54, which: "validating".into(), alone: true },
                WebhookAttribute { first: 1, past: 2, text: 55..92, which: "mutating".into(), alone: false },
            ]
        );
        assert_eq!(&mixed[55..92], "#[rop(namespaced, webhook(mutating))]");
        let broken = syn::parse_file("pub struct FooSpec {\n    pub size Option<i32>,\n}\n").unwrap_err();
        assert_eq!(super::error_place(&broken), " (line 2, column 14)");
    }

    #[test]
    fn an_attribute_goes_with_its_lines_or_alone_from_a_shared_line() {
        let remove = |text: &str| {
            let found = type_attributes(text, "FooSpec").unwrap().unwrap();
            without_attribute(text, &found.webhooks[0])
        };
        let own_lines = "/// Doc.\n#[rop(\n    webhook(mutating), // why\n)]\n#[serde(default)]\npub struct FooSpec;\n";
        assert_eq!(remove(own_lines), "/// Doc.\n#[serde(default)]\npub struct FooSpec;\n");
        let shared = "#[rop(webhook(mutating))]  #[serde(rename_all = \"camelCase\")]\npub struct FooSpec;\n";
        assert_eq!(remove(shared), "#[serde(rename_all = \"camelCase\")]\npub struct FooSpec;\n");
        let on_item = "\t#[rop(webhook(validating))] pub struct FooSpec { é: u8 }\n";
        assert_eq!(remove(on_item), "\tpub struct FooSpec { é: u8 }\n");
        let after_unicode = "/// é ü\n#[rop(webhook(validating))]\npub struct FooSpec;";
        assert_eq!(remove(after_unicode), "/// é ü\npub struct FooSpec;");
    }
}
