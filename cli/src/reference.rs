//! The commands' reference as the book shows it: clap-markdown's page of the CLI's help, with
//! what mdBook would misread made literal.

/// `page` (Markdown from clap-markdown) as mdBook renders it faithfully: the indented example
/// lines of a help text (`Example:` followed by `  rop init ...`) in a `sh` block, and, outside
/// code, `<placeholder>` and a lone `*` (`bases/*.yaml`) escaped, which would otherwise be read
/// as an HTML tag and as emphasis. Ends with one newline.
pub fn for_mdbook(page: &str) -> String {
    let mut out = Vec::new();
    let mut lines = page.trim_end().lines().peekable();
    while let Some(line) = lines.next() {
        let introduces_example = !line.starts_with(['*', ' ', '#']) && line.ends_with(':');
        if introduces_example && lines.peek().is_some_and(|next| next.starts_with("  ") && !next.trim().is_empty()) {
            out.push(literal_outside_code(line));
            out.push("```sh".to_string());
            while let Some(example) = lines.next_if(|next| next.starts_with("  ")) {
                out.push(example[2..].to_string());
            }
            out.push("```".to_string());
            continue;
        }
        out.push(literal_outside_code(line));
    }
    format!("{}\n", out.join("\n"))
}

/// `line` with `<`, `>` and single `*` escaped outside its `code spans`; a list item's leading
/// `* ` and `**bold**` stay.
fn literal_outside_code(line: &str) -> String {
    let (marker, rest) = match line.strip_prefix("* ") {
        Some(rest) => ("* ", rest),
        None => ("", line),
    };
    let mut out = String::from(marker);
    for (i, part) in rest.split('`').enumerate() {
        if i > 0 {
            out.push('`');
        }
        if i % 2 == 1 {
            out.push_str(part);
            continue;
        }
        let chars: Vec<char> = part.chars().collect();
        for (at, c) in chars.iter().enumerate() {
            let starred = |j: Option<usize>| j.and_then(|j| chars.get(j)) == Some(&'*');
            match c {
                '<' => out.push_str("&lt;"),
                '>' => out.push_str("&gt;"),
                '*' if !starred(at.checked_sub(1)) && !starred(Some(at + 1)) => out.push_str("\\*"),
                c => out.push(*c),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples_become_shell_blocks() {
        let page = "Start a project\n\nExample, in api/src/<group>/:\n  rop init --domain example.com \\\n      --repo x\n\n###### **Options:**\n\n* `--domain <DOMAIN>` — Domain\n\n  Default value: `my.domain`\n";
        assert_eq!(
            for_mdbook(page),
            "Start a project\n\nExample, in api/src/&lt;group&gt;/:\n```sh\nrop init --domain example.com \\\n    --repo x\n```\n\n###### **Options:**\n\n* `--domain <DOMAIN>` — Domain\n\n  Default value: `my.domain`\n"
        );
    }

    #[test]
    fn placeholders_and_stars_outside_code_are_literal() {
        assert_eq!(
            literal_outside_code("* `--plural <P>` — types under api/src/<group>/, bases/*.yaml, **Usage:** `*.yaml`"),
            "* `--plural <P>` — types under api/src/&lt;group&gt;/, bases/\\*.yaml, **Usage:** `*.yaml`"
        );
    }
}
