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
    let Some(at) = lines.iter().position(|l| {
        let t = l.trim();
        (t.starts_with("//") || t.starts_with('#')) && t.trim_start_matches(['/', '#']).trim() == tag
    }) else {
        return Err(MarkerError::Missing { file: file.into(), marker: marker.into() });
    };
    let wanted: Vec<&str> = fragment.lines().collect();
    if contains_block(&lines, &wanted) {
        return Ok(text.to_string());
    }
    let indent: String = lines[at].chars().take_while(|c| c.is_whitespace()).collect();
    let mut out: Vec<String> = lines[..at].iter().map(|l| l.to_string()).collect();
    out.extend(wanted.iter().map(|l| if l.is_empty() { String::new() } else { format!("{indent}{l}") }));
    out.extend(lines[at..].iter().map(|l| l.to_string()));
    let mut joined = out.join("\n");
    if text.ends_with('\n') {
        joined.push('\n');
    }
    Ok(joined)
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
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let mut out = String::with_capacity(compact.len());
    let mut chars = compact.chars().peekable();
    while let Some(c) = chars.next() {
        if c == ',' && matches!(chars.peek(), Some(')' | ']' | '}')) {
            continue;
        }
        out.push(c);
    }
    out
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
    for start in 0..lines.len() {
        let mut window = String::new();
        for (end, line) in lines.iter().enumerate().skip(start) {
            window.push_str(line);
            window.push('\n');
            let have = normalized(&window);
            if have == wanted {
                return Some((start, end + 1));
            }
            // One more character than wanted can still be a comma the next line drops.
            if have.len() > wanted.len() + 1 {
                break;
            }
        }
    }
    None
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
