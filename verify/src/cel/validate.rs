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
    for name in checked.qualified.values().filter(|n| n.starts_with("google.protobuf.")) {
        if !matches!(name.as_str(), "google.protobuf.Duration" | "google.protobuf.Timestamp") {
            out.push(Problem::Instantiation(format!("reference to undefined type: {name}")));
        }
    }
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
                    Some(f) if !f.equivalent(&t) => {
                        out.push(Problem::Issue(item.id, format!("expected type '{f}' but found '{t}'")));
                        break;
                    }
                    // An empty literal first takes the type of the next element.
                    Some(f) if f.has_free() => first = Some(t),
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
                        if !fk.equivalent(&k) {
                            out.push(Problem::Issue(me.key.id, format!("expected type '{fk}' but found '{k}'")));
                        }
                        if !fv.equivalent(&v) {
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
                        && super::go_regex::check(&re).is_err()
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
                        && let Err(message) = super::go_regex::check(&re)
                    {
                        out.push(Problem::Instantiation(format!("error parsing regexp: {message}")));
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
/// unit (`ns`, `us`, `µs`, `ms`, `s`, `m`, `h`); `0` alone is allowed; the total must fit in
/// an int64 of nanoseconds.
fn go_duration(text: &str) -> bool {
    let s = text.strip_prefix(['-', '+']).unwrap_or(text);
    if s == "0" {
        return true;
    }
    if s.is_empty() {
        return false;
    }
    let mut rest = s;
    let mut total: u128 = 0;
    while !rest.is_empty() {
        let end = rest.find(|c: char| !c.is_ascii_digit() && c != '.').unwrap_or(rest.len());
        let number = &rest[..end];
        let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
        if (whole.is_empty() && fraction.is_empty()) || fraction.contains('.') {
            return false;
        }
        rest = &rest[end..];
        let units: [(&str, u128); 8] = [
            ("ns", 1),
            ("us", 1_000),
            ("µs", 1_000),
            ("μs", 1_000),
            ("ms", 1_000_000),
            ("s", 1_000_000_000),
            ("m", 60_000_000_000),
            ("h", 3_600_000_000_000),
        ];
        let Some((unit, scale)) = units.into_iter().find(|(u, _)| rest.starts_with(u)) else { return false };
        rest = &rest[unit.len()..];
        let whole: u128 = if whole.is_empty() { 0 } else { whole.parse().unwrap_or(u128::MAX / 2) };
        let digits = fraction.len().min(30) as u32;
        let fraction: u128 = if fraction.is_empty() { 0 } else { fraction[..digits as usize].parse().unwrap_or(0) };
        total = total.saturating_add(whole.saturating_mul(scale)).saturating_add(fraction * scale / 10u128.pow(digits));
    }
    total <= i64::MAX as u128
}

/// RFC 3339 timestamps as Go's `time.Parse` reads them (upper-case `T` and `Z`, `.` or `,`
/// before the fraction), within CEL's range of years 1 to 9999 once the offset is applied.
fn rfc3339(text: &str) -> bool {
    let b = text.as_bytes();
    let digits = |r: std::ops::Range<usize>| b.get(r.clone()).is_some_and(|s| s.iter().all(u8::is_ascii_digit));
    if b.len() < 20 || !digits(0..4) || b[4] != b'-' || !digits(5..7) || b[7] != b'-' || !digits(8..10) {
        return false;
    }
    if b[10] != b'T' || !digits(11..13) || b[13] != b':' || !digits(14..16) || b[16] != b':' || !digits(17..19) {
        return false;
    }
    let number = |r: std::ops::Range<usize>| text[r].parse::<i64>().unwrap_or(i64::MAX);
    let (year, month, day) = (number(0..4), number(5..7), number(8..10));
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    let (hour, minute, second) = (number(11..13), number(14..16), number(17..19));
    if day == 0 || day > days || hour > 23 || minute > 59 || second > 59 {
        return false;
    }
    let mut i = 19;
    if matches!(b[i], b'.' | b',') {
        i += 1;
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            return false;
        }
    }
    let offset_minutes = match &b[i..] {
        [b'Z'] => 0,
        [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] if [h1, h2, m1, m2].iter().all(|c| c.is_ascii_digit()) => {
            let h = i64::from((h1 - b'0') * 10 + (h2 - b'0'));
            let m = i64::from((m1 - b'0') * 10 + (m2 - b'0'));
            if h > 23 || m > 59 {
                return false;
            }
            if *sign == b'+' { h * 60 + m } else { -(h * 60 + m) }
        }
        _ => return false,
    };
    // Minutes from 0001-01-01T00:00 UTC, which must lie within years 1 to 9999.
    let local = days_from_civil(year, month, day) * 1440 + hour * 60 + minute;
    let utc = local - offset_minutes;
    (0..days_from_civil(10000, 1, 1) * 1440).contains(&utc)
}

/// Days from 0001-01-01 to the given date (proleptic Gregorian).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let (y, m) = if month <= 2 { (year - 1, month + 9) } else { (year, month - 3) };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * m + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 306
}

#[cfg(test)]
mod tests {
    #[test]
    fn go_durations() {
        for ok in ["0", "1s", "1.5h", "-2m30s", "300ms", "1h2m3s4ms5us6ns"] {
            assert!(super::go_duration(ok), "{ok}");
        }
        for bad in ["x", "1", "", "1d", "s", "1.2.3s", "3000000h", "9223372037s"] {
            assert!(!super::go_duration(bad), "{bad}");
        }
    }

    #[test]
    fn timestamps() {
        assert!(super::rfc3339("2000-01-01T00:00:00Z"));
        assert!(super::rfc3339("2000-01-01T00:00:00.5+01:00"));
        assert!(super::go_duration("9223372036s"));
        assert!(!super::rfc3339("2000-01-01"));
        assert!(!super::rfc3339("yesterday"));
        assert!(!super::rfc3339("2024-13-01T00:00:00Z"));
        assert!(!super::rfc3339("2023-02-29T00:00:00Z"));
        assert!(super::rfc3339("2024-02-29T23:59:59Z"));
        assert!(super::rfc3339("2024-01-01T00:00:00,5Z"));
        assert!(super::rfc3339("0001-01-01T00:00:00Z"));
        assert!(!super::rfc3339("2024-01-01t00:00:00z"));
        assert!(!super::rfc3339("2024-01-01T00:00:00+25:00"));
        assert!(!super::rfc3339("0001-01-01T00:00:00+01:00"));
        assert!(!super::rfc3339("9999-12-31T23:59:59-01:00"));
    }
}
