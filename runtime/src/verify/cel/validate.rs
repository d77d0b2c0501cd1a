//! The checks the API server runs on a type-checked rule before accepting it: cel-go's AST
//! validators for literals (`cel.ASTValidators` with duration, timestamp and regex literal
//! validation, Kubernetes 1.29+), the strings extension's `format` checker, and the regex
//! compilation of the Kubernetes `find`/`findAll` functions when the program is built.

use cel::common::ast::{Expr, IdedExpr, LiteralValue};

use super::check::Checked;
use super::types::Type;

/// An error of the compile step (`compilation failed:` issues) or of program instantiation.
pub(crate) enum Problem {
    /// `(expression id, message)`, printed like a checker error.
    Issue(u64, String),
    /// `program instantiation failed: …`.
    Instantiation(String),
}

/// Runs the validators over `e`.
pub(crate) fn validate(e: &IdedExpr, checked: &Checked, out: &mut Vec<Problem>) {
    walk(e, checked, false, out);
}

/// `in_format`: `e` is the argument list of a `format` call, which the homogeneous-literal
/// check exempts (Kubernetes lists `format` in `HomogeneousAggregateLiteralExemptFunctions`).
fn walk(e: &IdedExpr, checked: &Checked, in_format: bool, out: &mut Vec<Problem>) {
    let ty = |e: &IdedExpr| checked.types.get(&e.id).cloned().unwrap_or(Type::Dyn);
    match &e.expr {
        Expr::List(l) if !in_format => {
            let mut first: Option<Type> = None;
            for (i, item) in l.elements.iter().enumerate() {
                let mut t = ty(item);
                if l.optional_indices.contains(&i)
                    && let Type::Optional(inner) = t
                {
                    t = *inner;
                }
                match &first {
                    None => first = Some(t),
                    Some(f) if *f != t => {
                        out.push(Problem::Issue(item.id, format!("expected type '{f}' but found '{t}'")));
                        break;
                    }
                    _ => {}
                }
            }
        }
        Expr::Map(m) if !in_format => {
            let mut first: Option<(Type, Type)> = None;
            for entry in &m.entries {
                let cel::common::ast::EntryExpr::MapEntry(me) = &entry.expr else { continue };
                let (k, mut v) = (ty(&me.key), ty(&me.value));
                if me.optional
                    && let Type::Optional(inner) = v
                {
                    v = *inner;
                }
                match &first {
                    None => first = Some((k, v)),
                    Some((fk, fv)) => {
                        if *fk != k {
                            out.push(Problem::Issue(me.key.id, format!("expected type '{fk}' but found '{k}'")));
                        }
                        if *fv != v {
                            out.push(Problem::Issue(me.value.id, format!("expected type '{fv}' but found '{v}'")));
                        }
                    }
                }
            }
        }
        _ => {}
    }
    match &e.expr {
        Expr::Call(call) => {
            let string_arg = |i: usize| match call.args.get(i).map(|a| &a.expr) {
                Some(Expr::Literal(LiteralValue::String(s))) => Some((call.args[i].id, s.inner().to_string())),
                _ => None,
            };
            match (call.func_name.as_str(), call.target.is_some(), call.args.len()) {
                ("matches", true, 1) => {
                    if let Some((id, re)) = string_arg(0)
                        && regex_syntax::Parser::new().parse(&re).is_err()
                    {
                        out.push(Problem::Issue(id, "invalid matches argument".into()));
                    }
                }
                ("duration", false, 1) => {
                    if let Some((id, text)) = string_arg(0)
                        && !go_duration(&text)
                    {
                        out.push(Problem::Issue(id, "invalid duration argument".into()));
                    }
                }
                ("timestamp", false, 1) => {
                    if let Some((id, text)) = string_arg(0)
                        && !rfc3339(&text)
                    {
                        out.push(Problem::Issue(id, "invalid timestamp argument".into()));
                    }
                }
                ("find" | "findAll", true, _) | ("matches", false, 2) => {
                    let string_arg = |i: usize| string_arg(i + usize::from(call.target.is_none()));
                    if let Some((_, re)) = string_arg(0)
                        && let Err(err) = regex_syntax::Parser::new().parse(&re)
                    {
                        out.push(Problem::Instantiation(format!(
                            "error parsing regexp: {}",
                            go_regex_error(&re, &err)
                        )));
                    }
                }
                ("format", true, 1) => format(e.id, call, checked, out),
                _ => {}
            }
            if let Some(t) = &call.target {
                walk(t, checked, false, out);
            }
            let format_call = call.func_name == "format" && call.target.is_some();
            call.args.iter().for_each(|a| walk(a, checked, format_call, out));
        }
        Expr::Select(s) => walk(&s.operand, checked, false, out),
        Expr::Comprehension(c) => {
            for sub in [&c.iter_range, &c.accu_init, &c.loop_cond, &c.loop_step, &c.result] {
                walk(sub, checked, false, out);
            }
        }
        Expr::List(l) => l.elements.iter().for_each(|x| walk(x, checked, false, out)),
        Expr::Map(m) => {
            for entry in &m.entries {
                if let cel::common::ast::EntryExpr::MapEntry(me) = &entry.expr {
                    walk(&me.key, checked, false, out);
                    walk(&me.value, checked, false, out);
                }
            }
        }
        _ => {}
    }
}

/// cel-go's `string.format` checker: with a literal format and a literal list of arguments,
/// every clause must suit its argument's type.
fn format(call_id: u64, call: &cel::common::ast::CallExpr, checked: &Checked, out: &mut Vec<Problem>) {
    let (Some(target), Some(arg)) = (&call.target, call.args.first()) else { return };
    let (Expr::Literal(LiteralValue::String(fmt)), Expr::List(list)) = (&target.expr, &arg.expr) else { return };
    let ty = |e: &IdedExpr| checked.types.get(&e.id).cloned().unwrap_or(Type::Dyn);
    let mut index = 0;
    let mut chars = fmt.inner().chars().peekable();
    let mut parse_error = |message: String| out.push(Problem::Issue(call_id, message));
    while let Some(c) = chars.next() {
        if c != '%' {
            continue;
        }
        if chars.peek() == Some(&'%') {
            chars.next();
            continue;
        }
        if chars.peek().is_none() {
            return parse_error("unexpected end of string".into());
        }
        if index >= list.elements.len() {
            return parse_error(format!("index {index} out of range"));
        }
        if chars.peek() == Some(&'.') {
            chars.next();
            while chars.peek().is_some_and(char::is_ascii_digit) {
                chars.next();
            }
            if chars.peek().is_none() {
                return parse_error(
                    "could not parse formatting clause: error while parsing precision: could not find end of precision specifier"
                        .into(),
                );
            }
        }
        let Some(verb) = chars.next() else { return };
        if !"sdfebxXo".contains(verb) {
            return parse_error(format!(
                "could not parse formatting clause: unrecognized formatting clause \"{verb}\""
            ));
        }
        let item = &list.elements[index];
        index += 1;
        let t = ty(item);
        if t.is_dyn() {
            continue;
        }
        let kind_is = |kinds: &[&str]| kinds.contains(&kind(&t));
        let message = match verb {
            's' => string_clause(item, checked).map(|bad| {
                format!("string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given {bad}")
            }),
            'd' if !kind_is(&["int", "uint"]) => {
                Some(format!("decimal clause can only be used on integers, was given {}", type_name(&t)))
            }
            'f' if !kind_is(&["double", "string"]) => {
                Some(format!("fixed-point clause can only be used on doubles, was given {}", type_name(&t)))
            }
            'e' if !kind_is(&["double", "string"]) => {
                Some(format!("scientific clause can only be used on doubles, was given {}", type_name(&t)))
            }
            'b' if !kind_is(&["int", "uint", "bool"]) => {
                Some(format!("only integers and bools can be formatted as binary, was given {}", type_name(&t)))
            }
            'x' | 'X' if !kind_is(&["int", "uint", "string", "bytes"]) => Some(format!(
                "only integers, byte buffers, and strings can be formatted as hex, was given {}",
                type_name(&t)
            )),
            'o' if !kind_is(&["int", "uint"]) => {
                Some(format!("octal clause can only be used on integers, was given {}", type_name(&t)))
            }
            _ => None,
        };
        if let Some(m) = message {
            out.push(Problem::Issue(item.id, format!("error during formatting: {m}")));
            return;
        }
    }
    if list.elements.len() > index {
        out.push(Problem::Issue(
            call_id,
            format!("too many arguments supplied to string.format (expected {index}, got {})", list.elements.len()),
        ));
    }
}

/// The type name of a `%s` argument that cannot be printed, looking into literal lists and maps.
fn string_clause(e: &IdedExpr, checked: &Checked) -> Option<String> {
    let t = checked.types.get(&e.id).cloned().unwrap_or(Type::Dyn);
    if !t.is_dyn()
        && !["list", "map", "int", "uint", "double", "bool", "string", "timestamp", "bytes", "duration", "type", "null"]
            .contains(&kind(&t))
    {
        return Some(type_name(&t));
    }
    match &e.expr {
        Expr::List(l) => l.elements.iter().find_map(|x| string_clause(x, checked)),
        Expr::Map(m) => m.entries.iter().find_map(|entry| match &entry.expr {
            cel::common::ast::EntryExpr::MapEntry(me) => {
                string_clause(&me.key, checked).or_else(|| string_clause(&me.value, checked))
            }
            _ => None,
        }),
        _ => None,
    }
}

fn kind(t: &Type) -> &'static str {
    match t {
        Type::Bool => "bool",
        Type::Int => "int",
        Type::Uint => "uint",
        Type::Double => "double",
        Type::String => "string",
        Type::Bytes => "bytes",
        Type::Null => "null",
        Type::Duration => "duration",
        Type::Timestamp => "timestamp",
        Type::List(_) => "list",
        Type::Map(..) => "map",
        Type::Meta(_) => "type",
        _ => "other",
    }
}

/// cel-go's `Type.TypeName()`: the kind's name without parameters.
fn type_name(t: &Type) -> String {
    match t {
        Type::List(_) => "list".into(),
        Type::Map(..) => "map".into(),
        Type::Optional(_) => "optional_type".into(),
        Type::Meta(_) => "type".into(),
        Type::Duration => "google.protobuf.Duration".into(),
        Type::Timestamp => "google.protobuf.Timestamp".into(),
        other => other.to_string(),
    }
}

/// Go's `time.ParseDuration`: an optional sign, then one or more decimal numbers each with a
/// unit (`ns`, `us`, `µs`, `ms`, `s`, `m`, `h`); `0` alone is allowed.
fn go_duration(text: &str) -> bool {
    let s = text.strip_prefix(['-', '+']).unwrap_or(text);
    if s == "0" {
        return true;
    }
    if s.is_empty() {
        return false;
    }
    let mut rest = s;
    while !rest.is_empty() {
        let digits = rest.find(|c: char| !c.is_ascii_digit() && c != '.').unwrap_or(rest.len());
        let number = &rest[..digits];
        if number.is_empty() || number == "." || number.matches('.').count() > 1 {
            return false;
        }
        rest = &rest[digits..];
        let unit = ["ns", "us", "µs", "μs", "ms", "s", "m", "h"].into_iter().find(|u| rest.starts_with(u));
        match unit {
            Some(u) => rest = &rest[u.len()..],
            None => return false,
        }
    }
    true
}

/// RFC 3339 timestamps, as cel-go's `timestamp(string)` parses them.
fn rfc3339(text: &str) -> bool {
    let b = text.as_bytes();
    let digits = |r: std::ops::Range<usize>| b.get(r.clone()).is_some_and(|s| s.iter().all(u8::is_ascii_digit));
    if b.len() < 20 || !digits(0..4) || b[4] != b'-' || !digits(5..7) || b[7] != b'-' || !digits(8..10) {
        return false;
    }
    if !matches!(b[10], b'T' | b't') || !digits(11..13) || b[13] != b':' || !digits(14..16) || b[16] != b':' {
        return false;
    }
    if !digits(17..19) {
        return false;
    }
    let number = |r: std::ops::Range<usize>| text[r].parse::<u32>().unwrap_or(u32::MAX);
    let (year, month, day) = (number(0..4), number(5..7), number(8..10));
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    if year == 0 || day == 0 || day > days || number(11..13) > 23 || number(14..16) > 59 || number(17..19) > 59 {
        return false;
    }
    let mut i = 19;
    if b[i] == b'.' {
        i += 1;
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            return false;
        }
    }
    match &b[i..] {
        [b'Z' | b'z'] => true,
        [b'+' | b'-', h1, h2, b':', m1, m2] => [h1, h2, m1, m2].iter().all(|c| c.is_ascii_digit()),
        _ => false,
    }
}

/// Go's `regexp/syntax` message for the commonest mistakes: `missing closing ]: `[0-9``.
fn go_regex_error(re: &str, err: &regex_syntax::Error) -> String {
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
            format!("invalid repeat count: `{}`", &re[span.start.offset..span.end.offset])
        }
        Some((ErrorKind::RepetitionMissing, span)) => {
            format!("missing argument to repetition operator: `{}`", &re[span.start.offset..span.end.offset])
        }
        _ => format!("invalid regular expression: `{re}`"),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn go_durations() {
        for ok in ["0", "1s", "1.5h", "-2m30s", "300ms", "1h2m3s4ms5us6ns"] {
            assert!(super::go_duration(ok), "{ok}");
        }
        for bad in ["x", "1", "", "1d", "s", "1.2.3s"] {
            assert!(!super::go_duration(bad), "{bad}");
        }
    }

    #[test]
    fn timestamps() {
        assert!(super::rfc3339("2000-01-01T00:00:00Z"));
        assert!(super::rfc3339("2000-01-01T00:00:00.5+01:00"));
        assert!(!super::rfc3339("2000-01-01"));
        assert!(!super::rfc3339("yesterday"));
        assert!(!super::rfc3339("2024-13-01T00:00:00Z"));
        assert!(!super::rfc3339("2023-02-29T00:00:00Z"));
        assert!(super::rfc3339("2024-02-29T23:59:59Z"));
    }
}
