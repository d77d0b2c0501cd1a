//! Whether Go's `regexp/syntax` (RE2 as Go implements it, which kube-apiserver compiles CEL
//! regexes with) accepts a pattern. The `regex-syntax` crate parses nearly the same language;
//! this module bridges the differences that show up in CRD rules: Go rejects repeat counts over
//! 1000, nested repetition (`a**`), flags other than `imsU`, `\u` escapes and Unicode classes
//! it has no table for (`\p{Lowercase}`), and it reads a `{` that starts no repetition, `\Q…\E`,
//! octal escapes, a `-` after a class escape and repeated group names literally, where
//! `regex-syntax` refuses them.

/// `Err` holds Go's message after `error parsing regexp: `.
pub(crate) fn check(re: &str) -> Result<(), String> {
    go_only_errors(re)?;
    let translated = translate(re);
    regex_syntax::ParserBuilder::new()
        .octal(true)
        .build()
        .parse(&translated)
        .map(|_| ())
        .map_err(|e| go_message(re, &e))
}

/// `re` compiled to match as Go's `regexp` matches: besides [`check`]'s translation, the Perl
/// classes are ASCII (`\d` is `[0-9]`, `\w` `[0-9A-Za-z_]`, `\s` `[\t\n\f\r ]`, and their
/// negations), where the `regex` crate's are Unicode.
pub(crate) fn compile(re: &str) -> Result<regex::Regex, regex::Error> {
    regex::Regex::new(&ascii_perl_classes(&translate(re)))
}

fn ascii_perl_classes(re: &str) -> String {
    let mut out = String::with_capacity(re.len());
    let mut chars = re.chars().peekable();
    let mut in_class = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let Some(next) = chars.next() else {
                    out.push(c);
                    break;
                };
                let (set, negated) = match next {
                    'd' => ("0-9", false),
                    'D' => ("0-9", true),
                    'w' => ("0-9A-Za-z_", false),
                    'W' => ("0-9A-Za-z_", true),
                    's' => ("\\t\\n\\f\\r ", false),
                    'S' => ("\\t\\n\\f\\r ", true),
                    'b' | 'B' if !in_class => {
                        out.push_str(&format!("(?-u:\\{next})"));
                        continue;
                    }
                    other => {
                        out.push(c);
                        out.push(other);
                        continue;
                    }
                };
                match (in_class, negated) {
                    (true, false) => out.push_str(set),
                    (false, false) => out.push_str(&format!("[{set}]")),
                    (_, true) => out.push_str(&format!("[^{set}]")),
                }
            }
            '[' if !in_class => {
                in_class = true;
                out.push(c);
                // A `]` (after an optional `^`) right at the start is a literal.
                if chars.peek() == Some(&'^') {
                    out.push(chars.next().unwrap_or('^'));
                }
                if chars.peek() == Some(&']') {
                    out.push(chars.next().unwrap_or(']'));
                }
            }
            ']' if in_class => {
                in_class = false;
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// Binary Unicode properties `regex-syntax` knows and Go does not.
const NOT_IN_GO: &[&str] = &[
    "Alphabetic",
    "Lowercase",
    "Uppercase",
    "White_Space",
    "Emoji",
    "Math",
    "Dash",
    "Hyphen",
    "Ideographic",
    "Any",
    "ASCII",
    "Assigned",
];

/// What Go refuses and `regex-syntax` accepts.
fn go_only_errors(re: &str) -> Result<(), String> {
    let chars: Vec<char> = re.chars().collect();
    let mut i = 0;
    let mut in_class = false;
    // The repetition operator just read, and whether a lazy `?` followed it.
    let mut after_repeat: Option<(String, bool)> = None;
    // Go's `repeatIsValid`: counted repeats nested in each other may not multiply past 1000.
    // Per open group, the largest product inside it; and the product of the last item.
    let mut groups: Vec<u64> = vec![1];
    let mut last: u64 = 1;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' {
            last = 1;
            let next = chars.get(i + 1).copied();
            match next {
                Some('u' | 'U') => return Err(format!("invalid escape sequence: `\\{}`", next.unwrap())),
                Some('p' | 'P') => {
                    let name: String = if chars.get(i + 2) == Some(&'{') {
                        chars[i + 3..].iter().take_while(|c| **c != '}').collect()
                    } else {
                        chars.get(i + 2).map(|c| c.to_string()).unwrap_or_default()
                    };
                    let bare = name.trim_start_matches('^');
                    if NOT_IN_GO.contains(&bare) || bare.contains('_') && bare.len() > 2 {
                        return Err(format!("invalid character class range: `\\{}{{{name}}}`", next.unwrap()));
                    }
                }
                _ => {}
            }
            i += 2;
            after_repeat = None;
            continue;
        }
        if in_class {
            if c == ']' {
                in_class = false;
            }
            i += 1;
            continue;
        }
        match c {
            '[' => {
                in_class = true;
                last = 1;
                // `[]a]` and `[^]a]` start with a literal `]`.
                if chars.get(i + 1) == Some(&'^') {
                    i += 1;
                }
                if chars.get(i + 1) == Some(&']') {
                    i += 1;
                }
                after_repeat = None;
            }
            '(' => {
                groups.push(1);
                after_repeat = None;
                if chars.get(i + 1) == Some(&'?') {
                    let flags: String = chars[i + 2..].iter().take_while(|c| !matches!(c, ')' | ':')).collect();
                    let named = flags.starts_with('P') || flags.starts_with('<');
                    if !named && !flags.chars().all(|f| "imsU-".contains(f)) {
                        return Err(format!(
                            "invalid or unsupported Perl syntax: `(?{}`",
                            flags.chars().next().unwrap_or(')')
                        ));
                    }
                }
            }
            ')' => {
                last = groups.pop().unwrap_or(1);
                if let Some(outer) = groups.last_mut() {
                    *outer = (*outer).max(last);
                }
                after_repeat = None;
            }
            '*' | '+' | '?' => match after_repeat.take() {
                // `a*?` is a lazy star; anything else after a repetition nests it.
                Some((prev, false)) if c == '?' => after_repeat = Some((format!("{prev}?"), true)),
                Some((prev, _)) => return Err(format!("invalid nested repetition operator: `{prev}{c}`")),
                None => after_repeat = Some((c.to_string(), false)),
            },
            '{' => match repeat_at(&chars, i) {
                Some((end, min, max)) => {
                    let text: String = chars[i..=end].iter().collect();
                    let times = max.unwrap_or(min);
                    let size = if times == 0 { 1 } else { times.saturating_mul(last.max(1)) };
                    if min > 1000
                        || max.is_some_and(|m| m > 1000)
                        || ((min >= 2 || max.is_some_and(|m| m >= 2)) && size > 1000)
                    {
                        return Err(format!("invalid repeat count: `{text}`"));
                    }
                    last = size;
                    if let Some(group) = groups.last_mut() {
                        *group = (*group).max(size);
                    }
                    if let Some((prev, _)) = &after_repeat {
                        return Err(format!("invalid nested repetition operator: `{prev}{text}`"));
                    }
                    after_repeat = Some((text, false));
                    i = end;
                }
                None => {
                    after_repeat = None;
                    last = 1;
                }
            },
            _ => {
                after_repeat = None;
                last = 1;
            }
        }
        i += 1;
    }
    Ok(())
}

/// `{n}`, `{n,}` or `{n,m}` at `i`: its closing index and bounds.
fn repeat_at(chars: &[char], i: usize) -> Option<(usize, u64, Option<u64>)> {
    let close = chars[i..].iter().position(|c| *c == '}')? + i;
    let body: String = chars[i + 1..close].iter().collect();
    let (min, max) = match body.split_once(',') {
        None => {
            let n = body.parse().ok()?;
            (n, Some(n))
        }
        Some((min, "")) => (min.parse().ok()?, None),
        Some((min, max)) => (min.parse().ok()?, Some(max.parse().ok()?)),
    };
    if !body.chars().all(|c| c.is_ascii_digit() || c == ',') {
        return None;
    }
    Some((close, min, max))
}

/// The pattern with what Go reads literally escaped for `regex-syntax`.
fn translate(re: &str) -> String {
    let chars: Vec<char> = re.chars().collect();
    let mut out = String::with_capacity(re.len());
    let mut i = 0;
    let mut in_class = false;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' if chars.get(i + 1) == Some(&'Q') => {
                let rest: String = chars[i + 2..].iter().collect();
                let (quoted, after) = rest.split_once("\\E").unwrap_or((rest.as_str(), ""));
                out.push_str(&regex_syntax::escape(quoted));
                i = chars.len() - after.chars().count();
                continue;
            }
            '\\' => {
                let next = chars.get(i + 1).copied();
                out.push(c);
                if let Some(n) = next {
                    out.push(n);
                }
                i += 2;
                // `\p{Greek}`, `\x{263a}`: the braces belong to the escape.
                if matches!(next, Some('p' | 'P' | 'x')) && chars.get(i) == Some(&'{') {
                    let close = chars[i..].iter().position(|c| *c == '}').map_or(chars.len() - 1, |p| p + i);
                    out.extend(&chars[i..=close]);
                    i = close + 1;
                }
                // Go reads a `-` after a class escape inside a class as a literal.
                if in_class && matches!(next, Some('d' | 'D' | 'w' | 'W' | 's' | 'S')) && chars.get(i) == Some(&'-') {
                    out.push_str("\\-");
                    i += 1;
                }
                continue;
            }
            '[' if !in_class => {
                in_class = true;
                out.push(c);
                for lead in ['^', ']'] {
                    if chars.get(i + 1) == Some(&lead) {
                        out.push(if lead == ']' { '\\' } else { '^' });
                        if lead == ']' {
                            out.push(']');
                        }
                        i += 1;
                    }
                }
            }
            ']' if in_class => {
                in_class = false;
                out.push(c);
            }
            '{' if !in_class => match repeat_at(&chars, i) {
                Some((end, ..)) => {
                    out.extend(&chars[i..=end]);
                    i = end;
                }
                None => out.push_str("\\{"),
            },
            '}' if !in_class => out.push_str("\\}"),
            '(' if !in_class && chars.get(i + 1) == Some(&'?') => {
                // Group names may repeat in Go; drop them for the check.
                let rest: String = chars[i + 2..].iter().collect();
                let name_end = if rest.starts_with("P<") || rest.starts_with('<') { rest.find('>') } else { None };
                match name_end {
                    Some(end) => {
                        out.push('(');
                        i += 2 + end + 1;
                        continue;
                    }
                    None => out.push(c),
                }
            }
            _ => out.push(c),
        }
        i += 1;
    }
    out
}

/// Go's wording for the errors `regex-syntax` finds: `missing closing ]: `[0-9``.
fn go_message(re: &str, err: &regex_syntax::Error) -> String {
    use regex_syntax::ast::ErrorKind;
    let ast_err = match err {
        regex_syntax::Error::Parse(e) => Some(e),
        _ => None,
    };
    let from = |offset: usize| re.get(offset..).unwrap_or(re);
    match ast_err.map(|e| (e.kind(), e.span())) {
        Some((ErrorKind::ClassUnclosed, span)) => format!("missing closing ]: `{}`", from(span.start.offset)),
        Some((ErrorKind::GroupUnclosed, _)) => format!("missing closing ): `{re}`"),
        Some((ErrorKind::GroupUnopened, _)) => format!("unexpected ): `{re}`"),
        Some((ErrorKind::RepetitionCountInvalid, span)) => {
            format!("invalid repeat count: `{}`", re.get(span.start.offset..span.end.offset).unwrap_or(re))
        }
        Some((ErrorKind::RepetitionMissing, span)) => format!(
            "missing argument to repetition operator: `{}`",
            re.get(span.start.offset..span.end.offset).unwrap_or(re)
        ),
        _ => format!("invalid regular expression: `{re}`"),
    }
}

#[cfg(test)]
mod tests {
    use super::{check, compile};

    #[test]
    fn perl_classes_are_ascii_as_in_go() {
        let matches = |re: &str, s: &str| compile(re).unwrap().is_match(s);
        assert!(matches(r"^\d+$", "123") && !matches(r"^\d+$", "١٢٣"));
        assert!(matches(r"^\w+$", "ab_1") && !matches(r"^\w+$", "café"));
        assert!(matches(r"^\S+$", "a\u{a0}b"), "a no-break space is not Go's \\s");
        assert!(matches(r"^[\d.]+$", "1.2") && !matches(r"^[\d.]+$", "1,2"));
        assert!(matches(r"^[^\s]+$", "ab") && !matches(r"^[^\s]+$", "a b"));
        assert!(matches(r"^[a\D]$", "x") && !matches(r"^[a\D]$", "1"));
        assert!(matches(r"\bcafé", "café") && matches(r"^[]a]+$", "]a"));
    }

    #[test]
    fn go_accepts() {
        for ok in [
            "^[a-z]+$",
            "^{[a-z]+}$",
            "^a{,5}",
            r"\Qa.b\E+",
            r"\101",
            r"[\d-z]",
            "(?P<n>a)(?P<n>b)",
            "a*?",
            "^.{1,1000}$",
            r"\p{Greek}",
            r"\pL",
            "(?i)abc",
            "[]a]",
            r"^([a-z0-9]{1,63}\.){1,15}[a-z]{2,63}$",
        ] {
            assert_eq!(check(ok), Ok(()), "{ok}");
        }
    }

    #[test]
    fn go_refuses() {
        for (bad, message) in [
            ("^.{1,1024}$", "invalid repeat count: `{1,1024}`"),
            ("a**", "invalid nested repetition operator: `**`"),
            ("a++", "invalid nested repetition operator: `++`"),
            ("(?x)a", "invalid or unsupported Perl syntax: `(?x`"),
            (r"[\u4e00-\u9fa5]", r"invalid escape sequence: `\u`"),
            ("[0-9+", "missing closing ]: `[0-9+`"),
            (r"^([a-z0-9]{1,63}\.){1,20}$", "invalid repeat count: `{1,20}`"),
            ("(a{10}){101}", "invalid repeat count: `{101}`"),
        ] {
            assert_eq!(check(bad), Err(message.to_string()), "{bad}");
        }
        assert!(check(r"\p{Lowercase}").is_err());
    }
}
