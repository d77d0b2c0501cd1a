//! Code laid out as rustfmt (edition 2024, default settings: generated projects have no
//! rustfmt.toml) lays it out, for the few constructs whose layout depends on the length of
//! the names in them: rop starts no formatter, so what it writes must already be formatted.
//!
//! Each function decides between rustfmt's one-line and wrapped forms with rustfmt's own
//! widths; `cli/tests/formatted.rs` checks the results against rustfmt with short and long names.

/// rustfmt's `max_width`.
const MAX_WIDTH: usize = 100;
/// rustfmt's `attr_fn_like_width`: the longest list of items an attribute keeps on one line.
const ATTR_FN_LIKE_WIDTH: usize = 70;

/// One item of an attribute's list: a word or `key = "value"`, or a nested `name(items)`.
#[derive(Debug)]
enum Item {
    Plain(String),
    Nested(String, Vec<String>),
}

impl Item {
    fn one_line(&self) -> String {
        match self {
            Item::Plain(text) => text.clone(),
            Item::Nested(name, items) => format!("{name}({})", items.join(", ")),
        }
    }
}

/// `text` with every line that is a one-line attribute (`#[name(...)]`) laid out as rustfmt
/// lays it out at that line's indentation (see [`attribute`]); other lines unchanged. The
/// `attributes` filter of the templates.
pub fn attributes(text: &str) -> String {
    text.split_inclusive('\n')
        .map(|line| {
            let body = line.trim_end_matches(['\n', '\r']);
            let ending = &line[body.len()..];
            let indent = body.len() - body.trim_start().len();
            format!("{}{ending}", attribute(&body[..indent], body.trim_start()))
        })
        .collect()
}

/// The one-line attribute `text` (`#[rop(group = "g", version = "v1")]`), put at the start of a
/// line after `indent`, as rustfmt writes it: on one line when its list (the items between the
/// parentheses) fits `attr_fn_like_width` and the line `max_width`, else one item a line,
/// without a trailing comma. A single item stays on the line unless the line is too long; a
/// single nested list (`#[rop(webhook(a, b))]`) opens on the attribute's line. Anything else
/// (not `#[name(...)]`, an array in the list, which rustfmt leaves as it is) comes back unchanged.
pub fn attribute(indent: &str, text: &str) -> String {
    let unchanged = format!("{indent}{text}");
    let Some((name, items)) = parse(text) else { return unchanged };
    let width = indent.len() + text.len();
    let inner = format!("{indent}    ");
    match &items[..] {
        [Item::Nested(nested, sub)] => {
            let fits = width < MAX_WIDTH && (sub.len() < 2 || sub.join(", ").len() <= ATTR_FN_LIKE_WIDTH);
            if fits {
                return unchanged;
            }
            let lines: Vec<String> = sub.iter().map(|s| format!("{inner}{s}")).collect();
            format!("{indent}#[{name}({nested}(\n{}\n{indent}))]", lines.join(",\n"))
        }
        [Item::Plain(item)] => {
            if width <= MAX_WIDTH {
                return unchanged;
            }
            format!("{indent}#[{name}(\n{inner}{item}\n{indent})]")
        }
        _ => {
            let list: Vec<String> = items.iter().map(Item::one_line).collect();
            if list.join(", ").len() <= ATTR_FN_LIKE_WIDTH && width <= MAX_WIDTH {
                return unchanged;
            }
            let lines: Vec<String> = list.iter().map(|s| format!("{inner}{s}")).collect();
            format!("{indent}#[{name}(\n{}\n{indent})]", lines.join(",\n"))
        }
    }
}

/// `text` with every line that is a one-line function signature (`fn name(params) -> Ret {`)
/// or `impl Trait for Type {` laid out as rustfmt lays it out (see [`signature`]); other lines
/// unchanged. The `signatures` filter of the templates.
pub fn signatures(text: &str) -> String {
    text.split_inclusive('\n')
        .map(|line| {
            let body = line.trim_end_matches(['\n', '\r']);
            let ending = &line[body.len()..];
            let indent = body.len() - body.trim_start().len();
            format!("{}{ending}", signature(&body[..indent], body.trim_start()))
        })
        .collect()
}

/// The one-line signature `text` (`async fn f(&self, a: A) -> R {`, or `impl T for U {`) after
/// `indent`, as rustfmt writes it: unchanged when the line fits `max_width`, else a function's
/// parameters one a line (with a trailing comma) and `) -> R {` on a line of its own, or the
/// `for` part of an `impl` and its brace on lines of their own.
pub fn signature(indent: &str, text: &str) -> String {
    let unchanged = format!("{indent}{text}");
    if unchanged.len() <= MAX_WIDTH || !text.ends_with(" {") {
        return unchanged;
    }
    let inner = format!("{indent}    ");
    if let Some(rest) = text.strip_prefix("impl ") {
        let Some((trait_, ty)) = rest.strip_suffix(" {").and_then(|r| r.split_once(" for ")) else { return unchanged };
        return format!("{indent}impl {trait_}\n{inner}for {ty}\n{indent}{{");
    }
    let words = ["pub ", "pub(crate) ", "async ", "const ", "unsafe "];
    let mut head = text;
    while let Some(rest) = words.iter().find_map(|w| head.strip_prefix(w)) {
        head = rest;
    }
    if !head.starts_with("fn ") {
        return unchanged;
    }
    let Some(open) = text.find('(') else { return unchanged };
    let Some(close) = matching(text, open) else { return unchanged };
    let params = &text[open + 1..close];
    if params.trim().is_empty() {
        // No parameter to wrap: rustfmt moves the brace, one column in.
        return format!("{indent}{}\n{indent} {{", text.strip_suffix(" {").unwrap_or(text));
    }
    let Some(items) = split(params) else { return unchanged };
    let lines: Vec<String> = items.iter().map(|p| format!("{inner}{p},")).collect();
    format!("{indent}{}\n{}\n{indent}{}", &text[..=open], lines.join("\n"), &text[close..])
}

/// The index of the bracket that closes the one at `open` in `text`.
fn matching(text: &str, open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in text.char_indices().skip_while(|(i, _)| *i < open) {
        match c {
            '(' | '<' | '[' => depth += 1,
            ')' | '>' | ']' if !(c == '>' && text[..i].ends_with('-')) => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// `#[name(items)]` split into its name and items; `None` when rustfmt would not touch it.
fn parse(text: &str) -> Option<(String, Vec<Item>)> {
    let body = text.strip_prefix("#[")?.strip_suffix(")]")?;
    let (name, list) = body.split_once('(')?;
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':') {
        return None;
    }
    let items = split(list)?
        .into_iter()
        .map(|item| match item.split_once('(') {
            Some((nested, rest)) if !nested.contains(['"', '=']) => {
                Some(Item::Nested(nested.to_string(), split(rest.strip_suffix(')')?)?))
            }
            _ => Some(Item::Plain(item)),
        })
        .collect::<Option<Vec<Item>>>()?;
    if items.is_empty() { None } else { Some((name.to_string(), items)) }
}

/// `list` split at its top-level commas, each item trimmed; `None` for an array (`[`) outside a
/// string literal, unbalanced brackets or an unterminated string.
fn split(list: &str) -> Option<Vec<String>> {
    let mut items = Vec::new();
    let mut current = String::new();
    let mut depth = 0usize;
    let mut chars = list.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                current.push(c);
                loop {
                    let c = chars.next()?;
                    current.push(c);
                    if c == '\\' {
                        current.push(chars.next()?);
                    } else if c == '"' {
                        break;
                    }
                }
                continue;
            }
            '[' | '{' => return None,
            '(' | '<' => depth += 1,
            ')' | '>' => depth = depth.checked_sub(1)?,
            ',' if depth == 0 => {
                items.push(std::mem::take(&mut current).trim().to_string());
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    if depth != 0 {
        return None;
    }
    let last = current.trim();
    if !last.is_empty() {
        items.push(last.to_string());
    }
    if items.iter().any(String::is_empty) { None } else { Some(items) }
}

/// The lines of a version module that make kind `module` part of it: the module, and every
/// public item of it exported (`mod memcached;` / `pub use memcached::*;`), so a type the user
/// adds beside the kind's is `api::v1::Port` at once, as every type of a kubebuilder API
/// package is.
pub fn kind_exports(module: &str) -> String {
    format!("mod {module};\npub use {module}::*;")
}

/// `text` (a version module) without the two lines earlier rop releases exported kind `module`
/// with (`mod memcached;` and `pub use memcached::{...};`, the kind's three types by name), or
/// `None` when it has none.
pub fn without_listed_exports(text: &str, module: &str) -> Option<String> {
    let start = text.find(&format!("mod {module};\npub use {module}::{{"))?;
    let end = start + text[start..].find("};\n")? + 3;
    Some(format!("{}{}", &text[..start], &text[end..]))
}

/// The call `{callee}::<{ty}>({arg})` followed by `end` (`,` in a list) at column `column`, as
/// rustfmt writes it: on one line if it fits, else the argument on a line of its own, else
/// also the type. Lines after the first are indented relative to that column.
pub fn generic_call(column: usize, callee: &str, ty: &str, arg: &str, end: &str) -> String {
    let one = format!("{callee}::<{ty}>({arg}){end}");
    if column + one.len() <= MAX_WIDTH {
        return one;
    }
    let open = format!("{callee}::<{ty}>(");
    if !arg.is_empty() && column + open.len() <= MAX_WIDTH {
        return format!("{open}\n    {arg},\n){end}");
    }
    format!("{callee}::<\n    {ty},\n>({arg}){end}")
}

/// `let {binding} = {callee}({arg});` at column `column`, as rustfmt writes it: on one line if
/// it fits, else the right-hand side on the next line if it fits there, else the argument on a
/// line of its own. Lines after the first are indented relative to that column.
pub fn let_call(column: usize, binding: &str, callee: &str, arg: &str) -> String {
    let one = format!("let {binding} = {callee}({arg});");
    if column + one.len() <= MAX_WIDTH {
        return one;
    }
    let rhs = format!("{callee}({arg});");
    if column + 4 + rhs.len() <= MAX_WIDTH {
        return format!(
            "let {binding} =
    {rhs}"
        );
    }
    format!(
        "let {binding} = {callee}(
    {arg}
);"
    )
}

/// `type {name} = {path};` at column `column`, as rustfmt writes it: on one line if it fits,
/// else the path on the next line. Lines after the first are indented relative to that column.
pub fn type_alias(column: usize, name: &str, path: &str) -> String {
    let one = format!("type {name} = {path};");
    if column + one.len() <= MAX_WIDTH {
        return one;
    }
    format!("type {name} =\n    {path};")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_attributes_stay_on_one_line() {
        let text = "#[rop(group = \"g.a.io\", version = \"v1\", kind = \"K\", plural = \"ks\")]";
        assert_eq!(attribute("", text), text);
        assert_eq!(attribute("", "#[rop(webhook(mutating))]"), "#[rop(webhook(mutating))]");
    }

    #[test]
    fn a_list_longer_than_70_goes_one_item_a_line() {
        assert_eq!(
            attribute(
                "",
                "#[rop(group = \"cache.example.com\", version = \"v1\", kind = \"Memcached\", plural = \"memcacheds\")]"
            ),
            "#[rop(\n    group = \"cache.example.com\",\n    version = \"v1\",\n    kind = \"Memcached\",\n    plural = \"memcacheds\"\n)]"
        );
    }

    #[test]
    fn a_single_item_wraps_only_past_the_line_width() {
        let item = format!("kind = \"{}\"", "K".repeat(84));
        assert_eq!(attribute("", &format!("#[rop({item})]")), format!("#[rop(\n    {item}\n)]"));
        let item = format!("kind = \"{}\"", "K".repeat(83));
        assert_eq!(attribute("", &format!("#[rop({item})]")), format!("#[rop({item})]"));
    }

    #[test]
    fn a_nested_list_opens_on_the_attribute_line() {
        assert_eq!(
            attribute(
                "",
                "#[rop(printcolumn(name = \"Available\", type_ = \"string\", json_path = \".status.conditions[?(@.type==\\\"Available\\\")].status\"))]"
            ),
            "#[rop(printcolumn(\n    name = \"Available\",\n    type_ = \"string\",\n    json_path = \".status.conditions[?(@.type==\\\"Available\\\")].status\"\n))]"
        );
        let name = "x".repeat(74);
        assert_eq!(
            attribute("", &format!("#[rop(webhook(name = \"{name}\"))]")),
            format!("#[rop(webhook(\n    name = \"{name}\"\n))]")
        );
        let name = "x".repeat(73);
        assert_eq!(
            attribute("", &format!("#[rop(webhook(name = \"{name}\"))]")),
            format!("#[rop(webhook(name = \"{name}\"))]")
        );
    }

    #[test]
    fn arrays_are_left_alone() {
        let text = "#[rop(rbac(groups = [\"events.k8s.io\"], resources = [\"events\"], verbs = [\"create\", \"patch\"], verbs = [\"x\"]))]";
        assert_eq!(attribute("", text), text);
        assert_eq!(attributes(&format!("a\r\n{text}\n")), format!("a\r\n{text}\n"));
    }

    #[test]
    fn long_signatures_put_one_parameter_a_line() {
        let short = "    async fn validate_update(&self, old: &Kind, new: &Kind) -> rop::webhook::Verdict {";
        assert_eq!(signatures(&format!("{short}\n")), format!("{short}\n"));
        let k = "RedisCluster";
        assert_eq!(
            signature(
                "    ",
                &format!("async fn validate_update(&self, old: &{k}, new: &{k}) -> rop::webhook::Verdict {{")
            ),
            format!(
                "    async fn validate_update(\n        &self,\n        old: &{k},\n        new: &{k},\n    ) -> rop::webhook::Verdict {{"
            )
        );
        let k = "VeryLongKindNameForTestingTheFormatterLimits";
        assert_eq!(
            signature("", &format!("async fn annotate(api: &Api<{k}>, name: &str) -> {k} {{")),
            format!("async fn annotate(\n    api: &Api<{k}>,\n    name: &str,\n) -> {k} {{")
        );
        assert_eq!(
            signature("", &format!("impl Spoke<Hub{k}> for {k} {{")),
            format!("impl Spoke<Hub{k}>\n    for {k}\n{{")
        );
        let name = "x".repeat(90);
        assert_eq!(signature("    ", &format!("async fn {name}() {{")), format!("    async fn {name}()\n     {{"));
    }

    #[test]
    fn kind_exports_and_the_listed_form_before_them() {
        assert_eq!(kind_exports("memcached"), "mod memcached;\npub use memcached::*;");
        let listed = "//! v1\n\nmod a;\npub use a::{A, ASpec, AStatus};\nmod memcached;\npub use memcached::{\n    Memcached, MemcachedSpec,\n    MemcachedStatus,\n};\n// +rop:scaffold:kinds\n";
        assert_eq!(
            without_listed_exports(listed, "memcached").as_deref(),
            Some("//! v1\n\nmod a;\npub use a::{A, ASpec, AStatus};\n// +rop:scaffold:kinds\n")
        );
        assert_eq!(without_listed_exports("mod memcached;\npub use memcached::*;\n", "memcached"), None);
    }

    #[test]
    fn generic_calls() {
        let call = |ty: &str, arg: &str| generic_call(8, "rop::manifests::kind", ty, arg, ",");
        assert_eq!(call("v1::K", ""), "rop::manifests::kind::<v1::K>(),");
        let t = "averylonggroupname_v1alpha1::VeryLongKindNameForTestingTheFormatterLimits";
        assert_eq!(call(t, ""), format!("rop::manifests::kind::<\n    {t},\n>(),"));
        assert_eq!(call("v1::K", "\"v1::K\""), "rop::manifests::kind::<v1::K>(\"v1::K\"),");
        let k = "v1::VeryLongKindNameForTestingTheFormatterLimits";
        assert_eq!(call(k, &format!("\"{k}\"")), format!("rop::manifests::kind::<{k}>(\n    \"{k}\",\n),"));
        let t = "averylonggroupname_v1alpha1::VeryLongKindNameForTestingTheFormatterLimits";
        assert_eq!(call(t, "\"x\""), format!("rop::manifests::kind::<\n    {t},\n>(\"x\"),"));
    }
}
