//! Scaffold markers: lines such as `// +rop:scaffold:controllers` (or `# +rop:scaffold:...` in
//! YAML) in files that later commands extend. A fragment is inserted on the lines just before
//! its marker, indented like the marker, unless the same lines are already in the file, so
//! running a command twice changes nothing the second time.

/// Why a fragment could not be inserted.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum MarkerError {
    #[error(
        "{file} has no `+rop:scaffold:{marker}` marker line, where rop adds code: put the line back where it was (see a freshly scaffolded project), then run the command again"
    )]
    Missing { file: String, marker: String },
}

/// Inserts `fragment` (one or more lines, without indentation) before the `marker` line of
/// `text`, which is the content of `file`. Returns the new text; unchanged when every line of the
/// fragment is already present, ignoring leading and trailing white space.
///
/// # Errors
/// [`MarkerError::Missing`] when `text` has no such marker line.
pub fn insert(file: &str, text: &str, marker: &str, fragment: &str) -> Result<String, MarkerError> {
    let tag = format!("+rop:scaffold:{marker}");
    let lines: Vec<&str> = text.lines().collect();
    let marked = lines.iter().position(|l| {
        let t = l.trim();
        (t.starts_with("//") || t.starts_with('#')) && t.trim_start_matches(['/', '#']).trim() == tag
    });
    // A file from before its marker existed (a `use` marker added in a later release): a `use`
    // line goes among the file's first `use` lines, where rustfmt sorts it.
    let Some(at) = marked.or_else(|| end_of_first_uses(&lines).filter(|_| is_use_line(fragment))) else {
        return Err(MarkerError::Missing { file: file.into(), marker: marker.into() });
    };
    let wanted: Vec<&str> = fragment.lines().collect();
    if contains_block(&lines, &wanted) {
        return Ok(text.to_string());
    }
    // The other lines are kept byte for byte (split with their endings): nothing reformats the file.
    let raw: Vec<&str> = text.split_inclusive('\n').collect();
    let indent: String = lines[at].chars().take_while(|c| c.is_whitespace()).collect();
    let ending = if raw[at].ends_with("\r\n") { "\r\n" } else { "\n" };
    // rustfmt sorts consecutive `mod` (or `use`) items: a single one goes to its place among
    // those just above the marker.
    let at = match wanted[..] {
        [line] => sorted_place(&lines, at, line),
        _ => at,
    };
    let mut out: String = raw[..at].concat();
    for l in &wanted {
        if !l.is_empty() {
            out.push_str(&indent);
            out.push_str(l);
        }
        out.push_str(ending);
    }
    out.push_str(&raw[at..].concat());
    Ok(out)
}

/// Removes the first run of lines that holds `fragment` (see [`find_block`]) from `text`: the
/// reverse of [`insert`], also after rustfmt rewrapped the fragment. Text without the fragment
/// comes back unchanged.
pub fn remove(text: &str, fragment: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let block: Vec<&str> = fragment.lines().collect();
    let Some((start, end)) = find_block(&lines, &block) else {
        return text.to_string();
    };
    let mut out: Vec<&str> = lines[..start].to_vec();
    out.extend(&lines[end..]);
    let mut joined = out.join("\n");
    if text.ends_with('\n') {
        joined.push('\n');
    }
    joined
}

/// Whether `a` and `b` hold the same code, ignoring layout (as [`normalized`] does): a file
/// rop wrote is still its own after rustfmt.
pub fn same_code(a: &str, b: &str) -> bool {
    normalized(a) == normalized(b)
}

/// The code of `text` without layout: no white space, and no comma just before a closing
/// bracket (rustfmt adds those when it wraps a call over several lines).
fn normalized(text: &str) -> String {
    let mut normalized = Normalizer::default();
    normalized.push(&text.chars().filter(|c| !c.is_whitespace()).collect::<String>());
    if normalized.comma {
        normalized.out.push(',');
    }
    normalized.out
}

/// The lines `start..end` of `lines` that hold `block`: the same lines ignoring surrounding
/// white space, or else lines whose code is the block's once layout is ignored (the fragment
/// as rustfmt wrapped it).
fn find_block(lines: &[&str], block: &[&str]) -> Option<(usize, usize)> {
    if block.is_empty() || block.len() > lines.len() {
        return None;
    }
    if let Some(at) = lines.windows(block.len()).position(|w| w.iter().zip(block).all(|(a, b)| a.trim() == b.trim())) {
        return Some((at, at + block.len()));
    }
    let wanted = normalized(&block.join("\n"));
    if wanted.is_empty() {
        return None;
    }
    let compact: Vec<String> = lines.iter().map(|line| line.chars().filter(|c| !c.is_whitespace()).collect()).collect();
    for start in 0..lines.len() {
        let mut window = Normalizer::default();
        for (end, line) in compact.iter().enumerate().skip(start) {
            window.push(line);
            if window.is(&wanted) {
                return Some((start, end + 1));
            }
            // What the window holds stays its prefix whatever lines follow.
            if !wanted.starts_with(&window.out) {
                break;
            }
        }
    }
    None
}

/// [`normalized`] of lines added one at a time (each already without white space), so that a
/// window of lines grows without being normalized again from its start.
#[derive(Default)]
struct Normalizer {
    /// The normalized text so far, without a comma that the next character may still drop.
    out: String,
    /// A comma was the last character: dropped if a closing bracket follows.
    comma: bool,
}

impl Normalizer {
    fn push(&mut self, compact: &str) {
        for c in compact.chars() {
            if std::mem::take(&mut self.comma) && !matches!(c, ')' | ']' | '}') {
                self.out.push(',');
            }
            if c == ',' {
                self.comma = true;
            } else {
                self.out.push(c);
            }
        }
    }

    /// Whether the lines pushed normalize to `wanted` (a comma at the end stays).
    fn is(&self, wanted: &str) -> bool {
        match wanted.strip_suffix(',') {
            Some(head) if self.comma => self.out == head,
            _ => !self.comma && self.out == wanted,
        }
    }
}

/// Where the single line `line` goes among the lines just above `marker` (the marker's own
/// index when it goes last): when `line` is a `mod` or `use` item on one line, before the first
/// of the consecutive items of its sort just above the marker that rustfmt puts after it.
/// Whether `fragment` is one top-level `use` line.
fn is_use_line(fragment: &str) -> bool {
    let mut lines = fragment.lines();
    lines.next().is_some_and(|l| l.starts_with("use ") && l.ends_with(';')) && lines.next().is_none()
}

/// The index of the line after the file's first run of top-level `use` lines, when a line
/// follows it.
fn end_of_first_uses(lines: &[&str]) -> Option<usize> {
    let start = lines.iter().position(|l| l.starts_with("use "))?;
    let end = start + lines[start..].iter().take_while(|l| l.starts_with("use ")).count();
    (end < lines.len()).then_some(end)
}

fn sorted_place(lines: &[&str], marker: usize, line: &str) -> usize {
    let Some(key) = SortKey::of(line) else { return marker };
    let mut start = marker;
    while start > 0 && SortKey::of(lines[start - 1]).is_some_and(|k| k.same_sort(&key)) {
        start -= 1;
    }
    (start..marker).find(|&i| SortKey::of(lines[i]).is_some_and(|k| key.before(&k))).unwrap_or(marker)
}

/// How rustfmt orders a one-line `mod x;` or `use a::b;` item among its neighbours.
enum SortKey {
    /// `mod` items sort by name, whatever their visibility.
    Mod(String),
    /// `use` items sort by path, segment by segment, in version order.
    Use(Vec<String>),
}

impl SortKey {
    fn of(line: &str) -> Option<SortKey> {
        let item = line.trim().strip_suffix(';')?;
        let item = item.strip_prefix("pub ").unwrap_or(item);
        let ident = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if let Some(name) = item.strip_prefix("mod ") {
            return ident(name).then(|| SortKey::Mod(name.to_string()));
        }
        let path = item.strip_prefix("use ")?;
        let (path, alias) = match path.split_once(" as ") {
            Some((path, alias)) => (path, Some(alias)),
            None => (path, None),
        };
        // A last segment may be a group of names, `{Defaulter, Denied}`: rustfmt sorts it
        // after every plain name (`{` after the letters), and by its text among groups.
        let (path, group) = match path.split_once("::{") {
            Some((path, names)) => {
                let names = names.strip_suffix('}')?;
                if alias.is_some() || !names.split(',').all(|n| ident(n.trim())) {
                    return None;
                }
                (path, Some(format!("{{{names}}}")))
            }
            None => (path, None),
        };
        let mut segments: Vec<String> = path.split("::").map(str::to_string).collect();
        if segments.iter().any(|s| !ident(s) || ["self", "super", "crate"].contains(&s.as_str())) {
            return None;
        }
        segments.extend(group);
        if let Some(alias) = alias {
            if !ident(alias) {
                return None;
            }
            // The alias counts after the name it renames.
            let last = segments.pop().unwrap_or_default();
            segments.push(format!("{last} as {alias}"));
        }
        Some(SortKey::Use(segments))
    }

    fn same_sort(&self, other: &SortKey) -> bool {
        matches!((self, other), (SortKey::Mod(_), SortKey::Mod(_)) | (SortKey::Use(_), SortKey::Use(_)))
    }

    /// Whether rustfmt puts `self` before `other`.
    fn before(&self, other: &SortKey) -> bool {
        match (self, other) {
            (SortKey::Mod(a), SortKey::Mod(b)) => a < b,
            (SortKey::Use(a), SortKey::Use(b)) => {
                for (x, y) in a.iter().zip(b) {
                    match version_order(x, y) {
                        std::cmp::Ordering::Equal => {}
                        ordering => return ordering.is_lt(),
                    }
                }
                a.len() < b.len()
            }
            _ => false,
        }
    }
}

/// rustfmt's "version sorting" (style edition 2024) of two names: runs of digits compare as
/// numbers, `_` before every other character, other characters by code point.
fn version_order(a: &str, b: &str) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i].is_ascii_digit() && b[j].is_ascii_digit() {
            let end_a = a[i..].iter().position(|c| !c.is_ascii_digit()).map_or(a.len(), |n| i + n);
            let end_b = b[j..].iter().position(|c| !c.is_ascii_digit()).map_or(b.len(), |n| j + n);
            let trim = |d: &[u8]| d.iter().position(|&c| c != b'0').map_or(&[][..], |n| &d[n..]).to_vec();
            let (x, y) = (trim(&a[i..end_a]), trim(&b[j..end_b]));
            let ordering = x.len().cmp(&y.len()).then_with(|| x.cmp(&y));
            if ordering != Ordering::Equal {
                return ordering;
            }
            (i, j) = (end_a, end_b);
            continue;
        }
        let key = |c: u8| if c == b'_' { 0 } else { u32::from(c) + 1 };
        match key(a[i]).cmp(&key(b[j])) {
            Ordering::Equal => (i, j) = (i + 1, j + 1),
            ordering => return ordering,
        }
    }
    (a.len() - i).cmp(&(b.len() - j))
}

fn contains_block(lines: &[&str], block: &[&str]) -> bool {
    block.is_empty() || find_block(lines, block).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    const RUST: &str = "fn main() {\n    run(&[\n        // +rop:scaffold:kinds\n    ]);\n}\n";

    #[test]
    fn inserts_before_marker_with_its_indentation() {
        let out = insert("src/main.rs", RUST, "kinds", "a(),\nb(),").unwrap();
        assert_eq!(
            out,
            "fn main() {\n    run(&[\n        a(),\n        b(),\n        // +rop:scaffold:kinds\n    ]);\n}\n"
        );
    }

    #[test]
    fn second_insert_is_a_no_op() {
        let once = insert("src/main.rs", RUST, "kinds", "a(),").unwrap();
        assert_eq!(insert("src/main.rs", &once, "kinds", "a(),").unwrap(), once);
    }

    #[test]
    fn remove_reverses_insert() {
        let inserted = insert("src/main.rs", RUST, "kinds", "a(),\nb(),").unwrap();
        assert_eq!(remove(&inserted, "a(),\nb(),"), RUST);
        assert_eq!(remove(RUST, "a(),"), RUST);
    }

    #[test]
    fn a_fragment_rustfmt_rewrapped_is_found_and_removed() {
        let wrapped = "    run(&[\n        register(\n            first::<A>()\n                .second::<B>(),\n        ),\n        // +rop:scaffold:kinds\n    ]);\n";
        let fragment = "register(first::<A>().second::<B>()),";
        assert_eq!(insert("src/main.rs", wrapped, "kinds", fragment).unwrap(), wrapped);
        assert_eq!(remove(wrapped, fragment), "    run(&[\n        // +rop:scaffold:kinds\n    ]);\n");
    }

    #[test]
    fn a_mod_or_use_line_goes_where_rustfmt_sorts_it() {
        let text = "use a::v1;\r\nuse a::v10;\r\n// +rop:scaffold:imports\r\npub mod v1;\npub mod v2;\n// +rop:scaffold:mods\n";
        let out = insert("f.rs", text, "imports", "use a::v9;").unwrap();
        assert_eq!(out, text.replace("use a::v10;", "use a::v9;\r\nuse a::v10;"));
        let out = insert("f.rs", text, "imports", "use a::cache::v1 as cache_v1;").unwrap();
        assert_eq!(out, text.replace("use a::v1;", "use a::cache::v1 as cache_v1;\r\nuse a::v1;"));
        let grouped = "use a::Request;\nuse a::{Server, SetupError};\n// +rop:scaffold:imports\n";
        let out = insert("f.rs", grouped, "imports", "use a::Registration;").unwrap();
        assert_eq!(out, grouped.replace("use a::Request;", "use a::Registration;\nuse a::Request;"));
        let out = insert("f.rs", grouped, "imports", "use a::{Defaulter, Denied};").unwrap();
        assert_eq!(out, grouped.replace("use a::{Server", "use a::{Defaulter, Denied};\nuse a::{Server"));
        let out = insert("f.rs", grouped, "imports", "use a::{Validator, Verdict};").unwrap();
        assert_eq!(out, grouped.replace("// +rop", "use a::{Validator, Verdict};\n// +rop"));
        let out = insert("f.rs", text, "mods", "pub mod builtin;").unwrap();
        assert_eq!(out, text.replace("pub mod v1;", "pub mod builtin;\npub mod v1;"));
        let out = insert("f.rs", text, "mods", "pub mod v10;").unwrap();
        assert_eq!(out, text.replace("pub mod v2;", "pub mod v10;\npub mod v2;"));
        let out = insert("f.rs", text, "mods", "mod v3;").unwrap();
        assert_eq!(out, text.replace("pub mod v2;\n", "pub mod v2;\nmod v3;\n"));
        assert_eq!(version_order("x_b", "xB"), std::cmp::Ordering::Less);
        assert_eq!(version_order("v1alpha1", "v1"), std::cmp::Ordering::Greater);
        assert_eq!(version_order("v9", "v10"), std::cmp::Ordering::Less);
    }

    #[test]
    fn a_use_line_goes_among_the_first_uses_of_a_file_without_its_marker() {
        let text = "//! A module.\n\nuse a::Memcached;\nuse b::Request;\n\nfn f() {}\n";
        let out = insert("f.rs", text, "webhook-uses", "use b::{Defaulter, Denied};").unwrap();
        assert_eq!(out, text.replace("use b::Request;\n", "use b::Request;\nuse b::{Defaulter, Denied};\n"));
        let out = insert("f.rs", text, "webhook-uses", "use a::Apple;").unwrap();
        assert_eq!(out, text.replace("use a::Memcached;", "use a::Apple;\nuse a::Memcached;"));
        // Other fragments still need their marker.
        assert!(insert("f.rs", text, "webhook-impls", "pub struct D;").is_err());
        assert!(insert("f.rs", "fn f() {}\n", "webhook-uses", "use a::B;").is_err());
    }

    #[test]
    fn yaml_marker() {
        let out = insert("k.yaml", "resources:\n# +rop:scaffold:samples\n", "samples", "- a.yaml").unwrap();
        assert_eq!(out, "resources:\n- a.yaml\n# +rop:scaffold:samples\n");
    }

    #[test]
    fn missing_marker_names_file_and_marker() {
        assert_eq!(
            insert("src/main.rs", "fn main() {}\n", "kinds", "a(),").unwrap_err().to_string(),
            "src/main.rs has no `+rop:scaffold:kinds` marker line, where rop adds code: put the line back where it was (see a freshly scaffolded project), then run the command again"
        );
    }

    mod properties {
        use proptest::prelude::*;

        use super::super::*;

        proptest! {
            /// Inserting the same fragment twice equals inserting it once, whatever surrounds
            /// the marker.
            #[test]
            fn insertion_is_idempotent(
                before in proptest::collection::vec("[a-z ]{0,12}", 0..5),
                after in proptest::collection::vec("[a-z ]{0,12}", 0..5),
                fragment in proptest::collection::vec("[a-z(),;]{1,12}", 1..4),
                indent in " {0,8}",
            ) {
                let mut lines = before.clone();
                lines.push(format!("{indent}// +rop:scaffold:kinds"));
                lines.extend(after.clone());
                let text = lines.join("\n") + "\n";
                let fragment = fragment.join("\n");
                let once = insert("f.rs", &text, "kinds", &fragment).unwrap();
                let twice = insert("f.rs", &once, "kinds", &fragment).unwrap();
                prop_assert_eq!(&once, &twice);
                let marker = format!("{indent}// +rop:scaffold:kinds");
                prop_assert!(once.contains(&marker));
            }
        }
    }
}
