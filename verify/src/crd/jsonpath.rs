//! Kubernetes JSONPath templates, parsed the way client-go's `util/jsonpath` parser does
//! (`parser.go`), which kube-apiserver uses for a CRD's printer columns: a path that parser
//! refuses is accepted in the CRD but breaks the table the server prints. Only whether the text
//! parses, and the parser's error message, matter here, so no tree is built.

/// Parses `text` (a whole template such as `{.status.phase}`); the error is client-go's.
pub(crate) fn parse(text: &str) -> Result<(), String> {
    Parser { input: text, pos: 0, start: 0, width: 0, after_recursive: false }.text()
}

/// Parses one action, as client-go's `parseAction` does for unions, dictionary keys and filters.
fn parse_action(text: &str) -> Result<(), String> {
    parse(&format!("{{{text}}}"))
}

struct Parser<'a> {
    input: &'a str,
    pos: usize,
    start: usize,
    width: usize,
    /// The last node of the current list is a recursive descent (`..`).
    after_recursive: bool,
}

impl Parser<'_> {
    fn next(&mut self) -> Option<char> {
        let c = self.input[self.pos..].chars().next();
        self.width = c.map_or(0, char::len_utf8);
        self.pos += self.width;
        c
    }

    fn backup(&mut self) {
        self.pos -= self.width;
    }

    fn peek(&mut self) -> Option<char> {
        let c = self.next();
        self.backup();
        c
    }

    fn consume(&mut self) -> &str {
        let value = &self.input[self.start..self.pos];
        self.start = self.pos;
        value
    }

    fn rest(&self) -> &str {
        &self.input[self.pos..]
    }

    /// The byte before the current position's previous character: an escaping `\`?
    fn escaped(&self) -> bool {
        self.pos >= 2 && self.input.as_bytes()[self.pos - 2] == b'\\'
    }

    fn text(&mut self) -> Result<(), String> {
        loop {
            if self.rest().starts_with('{') {
                self.pos += 1;
                self.consume();
                self.after_recursive = false;
                return self.inside_action();
            }
            if self.next().is_none() {
                return Ok(());
            }
        }
    }

    fn inside_action(&mut self) -> Result<(), String> {
        loop {
            if self.rest().starts_with('}') {
                self.pos += 1;
                self.consume();
                return self.text();
            }
            if self.rest().starts_with("[?(") {
                self.filter()?;
                continue;
            }
            if self.rest().starts_with("..") {
                if self.after_recursive {
                    return Err("invalid multiple recursive descent".into());
                }
                self.pos += 2;
                self.consume();
                self.after_recursive = true;
                if self.peek().is_some_and(alphanumeric) {
                    self.field();
                }
                continue;
            }
            match self.next() {
                None | Some('\r' | '\n') => return Err("unclosed action".into()),
                Some(' ' | '@' | '$') => {
                    self.consume();
                }
                Some('[') => self.array()?,
                Some(q @ ('"' | '\'')) => self.quote(q)?,
                Some('.') => self.field(),
                Some(c) if c == '+' || c == '-' || c.is_numeric() => {
                    self.backup();
                    self.number()?;
                }
                Some(c) if alphanumeric(c) => {
                    self.backup();
                    while !self.next().is_none_or(terminator) {}
                    self.backup();
                    self.consume();
                    self.after_recursive = false;
                }
                Some(c) => return Err(format!("unrecognized character in action: U+{:04X} '{c}'", c as u32)),
            }
        }
    }

    fn number(&mut self) -> Result<(), String> {
        if matches!(self.peek(), Some('+' | '-')) {
            self.next();
        }
        while self.next().is_some_and(|c| c == '.' || c.is_numeric()) {}
        self.backup();
        let value = self.consume().to_string();
        self.after_recursive = false;
        if value.parse::<i64>().is_ok() || value.parse::<f64>().is_ok() {
            Ok(())
        } else {
            Err(format!("cannot parse number {value}"))
        }
    }

    fn array(&mut self) -> Result<(), String> {
        loop {
            match self.next() {
                None | Some('\n') => return Err("unterminated array".into()),
                Some(']') => break,
                _ => {}
            }
        }
        let consumed = self.consume().to_string();
        self.after_recursive = false;
        let mut text = &consumed[1..consumed.len() - 1];
        if text == "*" {
            text = ":";
        }
        let parts: Vec<&str> = text.split(',').collect();
        if parts.len() > 1 {
            return parts.iter().try_for_each(|p| parse_action(&format!("[{}]", p.trim_matches(' '))));
        }
        if let Some(key) = text.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')).filter(|k| !k.contains('\'')) {
            return parse_action(&format!(".{key}"));
        }
        // `^(-?[\d]*)(:-?[\d]*)?(:-?[\d]*)?$`, then each part must be a number.
        let slices: Vec<&str> = text.split(':').collect();
        let valid = slices.len() <= 3
            && slices.iter().all(|s| {
                let digits = s.strip_prefix('-').unwrap_or(s);
                digits.chars().all(|c| c.is_ascii_digit())
            });
        if !valid {
            return Err(format!("invalid array index {text}"));
        }
        for s in &slices {
            if !s.is_empty() && s.parse::<i64>().is_err() {
                return Err(format!("array index {s} is not a number"));
            }
        }
        Ok(())
    }

    fn filter(&mut self) -> Result<(), String> {
        self.pos += 3;
        self.consume();
        let (mut begin, mut end, mut pair) = (false, false, '\0');
        loop {
            match self.next() {
                None | Some('\n') => return Err("unterminated filter".into()),
                Some(q @ ('"' | '\'')) => {
                    if !begin {
                        begin = true;
                        pair = q;
                        continue;
                    }
                    if !self.escaped() && q == pair {
                        end = true;
                    }
                }
                Some(')') if begin == end => break,
                _ => {}
            }
        }
        if self.next() != Some(']') {
            return Err("unclosed array expect ]".into());
        }
        let consumed = self.consume().to_string();
        self.after_recursive = false;
        let text = &consumed[..consumed.len() - 2];
        // `^([^!<>=]+)([!<>=]+)(.+?)$`
        let operator = |c: char| "!<>=".contains(c);
        match text.find(operator) {
            Some(at) if at > 0 => {
                let after = &text[at..];
                let op_len = after.find(|c: char| !operator(c)).unwrap_or(after.len());
                let right = &after[op_len..];
                if right.is_empty() {
                    return parse_action(text);
                }
                parse_action(&text[..at])?;
                parse_action(right)
            }
            _ => parse_action(text),
        }
    }

    fn quote(&mut self, end: char) -> Result<(), String> {
        loop {
            match self.next() {
                None | Some('\n') => return Err("unterminated quoted string".into()),
                Some(c) if c == end && !self.escaped() => break,
                _ => {}
            }
        }
        let value = self.consume().to_string();
        self.after_recursive = false;
        unquote(&value, end).map_err(|e| format!("unquote string {value} error {e}"))
    }

    fn field(&mut self) {
        self.consume();
        loop {
            match self.next() {
                Some('\\') => {
                    self.next();
                }
                c if c.is_none_or(terminator) => {
                    self.backup();
                    break;
                }
                _ => {}
            }
        }
        self.consume();
        self.after_recursive = false;
    }
}

fn alphanumeric(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

fn terminator(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n' | '.' | ',' | '[' | ']' | '$' | '@' | '{' | '}')
}

/// Go's `strconv.UnquoteChar` over a quoted string, as client-go's `UnquoteExtend` uses it.
fn unquote(s: &str, quote: char) -> Result<(), &'static str> {
    let inner = &s[1..s.len() - 1];
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == quote {
            return Err("invalid syntax");
        }
        if c != '\\' {
            continue;
        }
        match chars.next() {
            Some('a' | 'b' | 'f' | 'n' | 'r' | 't' | 'v' | '\\') => {}
            Some(q @ ('\'' | '"')) if q == quote => {}
            Some('x') => hex(&mut chars, 2)?,
            Some('u') => hex(&mut chars, 4)?,
            Some('U') => hex(&mut chars, 8)?,
            Some(d @ '0'..='7') => {
                let rest: String = chars.by_ref().take(2).collect();
                let digits = format!("{d}{rest}");
                if digits.len() != 3 || u32::from_str_radix(&digits, 8).map_or(true, |v| v > 255) {
                    return Err("invalid syntax");
                }
            }
            _ => return Err("invalid syntax"),
        }
    }
    Ok(())
}

fn hex(chars: &mut std::str::Chars, n: usize) -> Result<(), &'static str> {
    let digits: String = chars.by_ref().take(n).collect();
    if digits.len() == n && digits.chars().all(|c| c.is_ascii_hexdigit()) { Ok(()) } else { Err("invalid syntax") }
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn client_go_accepts() {
        for ok in [
            "{.status.phase}",
            "{.metadata.labels['app\\.kubernetes\\.io/name']}",
            "{.status.conditions[?(@.type==\"Ready\")].status}",
            "{.status.conditions[?(@.type==\"Re\\\"ady\")].status}",
            "{.spec.containers[*].image}",
            "{.items[0:2]}",
            "{.items[-1:]}",
            "{..name}",
            "{.a['b','c']}",
            "{.status.replicas}/{.spec.replicas}",
        ] {
            assert_eq!(parse(ok), Ok(()), "{ok}");
        }
    }

    #[test]
    fn client_go_refuses() {
        for (bad, error) in [
            // A quote after an escaped backslash still counts as escaped there.
            ("{.status.conditions[?(@.type==\"Ready\\\\\")].status}", "unterminated filter"),
            ("{.status.phase", "unclosed action"),
            ("{.items[0}", "unterminated array"),
            ("{.items[a]}", "invalid array index a"),
            ("{....a}", "invalid multiple recursive descent"),
            ("{!}", "unrecognized character in action: U+0021 '!'"),
            ("{.a['b}", "unterminated array"),
        ] {
            assert_eq!(parse(bad), Err(error.to_string()), "{bad}");
        }
    }
}
