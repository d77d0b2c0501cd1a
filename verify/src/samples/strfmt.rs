//! The string formats of kube-openapi's `strfmt` registry, as the API server checks them on
//! custom objects and on defaults (`pkg/validation/strfmt/default.go`, `time.go`, `date.go`,
//! `duration.go`, and the govalidator checks the registry uses). The names are compared with
//! dashes removed (`date-time` is `datetime`), as the registry normalises them.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::sync::LazyLock;

use regex::Regex;

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("valid regex")
}

static DATE: LazyLock<Regex> = LazyLock::new(|| re(r"^\d{4}-\d{2}-\d{2}$"));
static TIME: LazyLock<Regex> =
    LazyLock::new(|| re(r"^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$"));
static UUID: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$"));
static UUID3: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$"));
static UUID4: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$"));
static UUID5: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$"));
static MAC: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^[0-9a-f]{12}$|^[0-9a-f]{16}$|^[0-9a-f]{40}$|^([0-9a-f]{2}[:-]){5}[0-9a-f]{2}$|^([0-9a-f]{2}[:-]){7}[0-9a-f]{2}$|^([0-9a-f]{2}[:-]){19}[0-9a-f]{2}$|^([0-9a-f]{4}\.){2}[0-9a-f]{4}$|^([0-9a-f]{4}\.){3}[0-9a-f]{4}$|^([0-9a-f]{4}\.){9}[0-9a-f]{4}$",
    )
});
static HOSTNAME: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$",
    )
});
static DURATION_PART: LazyLock<Regex> = LazyLock::new(|| re(r"([0-9]+)\s*([A-Za-zµ]+)"));
static BASE64: LazyLock<Regex> =
    LazyLock::new(|| re(r"^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$"));
static HEX_COLOR: LazyLock<Regex> = LazyLock::new(|| re(r"^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$"));
static RGB_COLOR: LazyLock<Regex> = LazyLock::new(|| {
    let c = r"(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])";
    re(&format!(r"^rgb\(\s*{c}\s*,\s*{c}\s*,\s*{c}\s*\)$"))
});
static SSN: LazyLock<Regex> = LazyLock::new(|| re(r"^\d{3}[- ]?\d{2}[- ]?\d{4}$"));
static CREDIT_CARD: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|(222[1-9]|22[3-9][0-9]|2[3-6][0-9]{2}|27[01][0-9]|2720)[0-9]{12}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11}|6[27][0-9]{14})$",
    )
});
static EMAIL_ATOM: LazyLock<Regex> =
    LazyLock::new(|| re(r"^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$"));
static URI_SCHEME: LazyLock<Regex> = LazyLock::new(|| re(r"^[A-Za-z][A-Za-z0-9+.-]*:"));

/// Whether `s` is valid for the string format `format`; `None` for a format the registry does
/// not know (the server accepts any string there).
pub(crate) fn valid(format: &str, s: &str) -> Option<bool> {
    Some(match format.replace('-', "").as_str() {
        "datetime" => is_date_time(s),
        "date" => is_date(s),
        "uuid" => UUID.is_match(s),
        "uuid3" => UUID3.is_match(s),
        "uuid4" => UUID4.is_match(s),
        "uuid5" => UUID5.is_match(s),
        "byte" => BASE64.is_match(s),
        "ipv4" => sloppy_ip(s).is_some() && s.contains('.'),
        "ipv6" => s.parse::<Ipv6Addr>().is_ok(),
        "cidr" => is_cidr(s),
        "mac" => MAC.is_match(s),
        "hostname" => HOSTNAME.is_match(s) && s.len() <= 255 && s.split('.').all(|p| p.len() <= 63),
        "duration" => duration_nanos(s).is_some(),
        "email" => is_email(s),
        "uri" => is_request_uri(s),
        "bsonobjectid" => s.len() == 24 && s.bytes().all(|b| b.is_ascii_hexdigit()),
        "hexcolor" => HEX_COLOR.is_match(s),
        "rgbcolor" => RGB_COLOR.is_match(s),
        "ssn" => s.len() == 11 && SSN.is_match(s),
        "isbn" => is_isbn10(s) || is_isbn13(s),
        "isbn10" => is_isbn10(s),
        "isbn13" => is_isbn13(s),
        "creditcard" => is_credit_card(s),
        "k8sshortname" => rop_names::is_dns1123_label(s),
        "k8slongname" => rop_names::is_dns1123_subdomain(s),
        "password" => true,
        _ => return None,
    })
}

/// kube-openapi's `strfmt.ParseDuration`, in nanoseconds: Go's `time.ParseDuration`
/// (`1h30m`, `-1.5s`, `0`), else the sum of every `<digits><letters>` part whose unit it knows,
/// case-insensitively (`ns`, `us`/`µs`, `ms`, `s`, `m`, `h`, `d`, `w`, and words starting with
/// `nano`, `micro`, `milli`, `sec`, `min`, `hour`/`hr`, `day`, `week`/`wk`): `3 Days`, `1H`,
/// even `x 5s`. `None` when neither reads it.
pub(crate) fn duration_nanos(s: &str) -> Option<f64> {
    go_duration(s).or_else(|| lenient_duration(s))
}

fn go_duration(s: &str) -> Option<f64> {
    const UNITS: &[(&str, f64)] =
        &[("ns", 1.0), ("us", 1e3), ("µs", 1e3), ("μs", 1e3), ("ms", 1e6), ("s", 1e9), ("m", 60e9), ("h", 3600e9)];
    let (sign, rest) = match s.strip_prefix('-') {
        Some(r) => (-1.0, r),
        None => (1.0, s.strip_prefix('+').unwrap_or(s)),
    };
    if rest == "0" {
        return Some(0.0);
    }
    let mut rest = rest;
    let mut total = 0.0;
    if rest.is_empty() {
        return None;
    }
    while !rest.is_empty() {
        let number_end = rest.find(|c: char| !c.is_ascii_digit() && c != '.').unwrap_or(rest.len());
        let number = &rest[..number_end];
        if number.is_empty() || number == "." {
            return None;
        }
        let value: f64 = number.parse().ok()?;
        let after = &rest[number_end..];
        let unit_end = after.find(|c: char| c.is_ascii_digit() || c == '.').unwrap_or(after.len());
        let (_, nanos) = UNITS.iter().find(|(unit, _)| *unit == &after[..unit_end])?;
        total += value * nanos;
        rest = &after[unit_end..];
    }
    Some(sign * total)
}

fn lenient_duration(s: &str) -> Option<f64> {
    const UNITS: &[(&[&str], f64)] = &[
        (&["ns", "nano"], 1.0),
        (&["us", "µs", "micro"], 1e3),
        (&["ms", "milli"], 1e6),
        (&["s", "sec"], 1e9),
        (&["m", "min"], 60e9),
        (&["h", "hr", "hour"], 3600e9),
        (&["d", "day"], 86400e9),
        (&["w", "wk", "week"], 604800e9),
    ];
    let mut total = 0.0;
    let mut known = false;
    for part in DURATION_PART.captures_iter(s) {
        let factor: i64 = part[1].parse().ok()?;
        let unit = part[2].to_lowercase();
        for (variants, nanos) in UNITS {
            let last = variants.len() - 1;
            for (i, variant) in variants.iter().enumerate() {
                if (i == last && unit.starts_with(variant)) || unit == *variant {
                    known = true;
                    total += factor as f64 * nanos;
                }
            }
        }
    }
    known.then_some(total)
}

/// `time.Parse("2006-01-02", s)`: four-digit year, a real calendar day.
fn is_date(s: &str) -> bool {
    DATE.is_match(s) && chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").is_ok()
}

/// strfmt's `IsDateTime`: a date, `t` or `T`, then `hh:mm:ss[.frac]` and `Z` or `±hh:mm`.
fn is_date_time(s: &str) -> bool {
    let lower = s.to_lowercase();
    let parts: Vec<&str> = lower.split('t').collect();
    if s.len() < 4 || parts.len() < 2 || !is_date(parts[0]) {
        return false;
    }
    TIME.captures(parts[1]).is_some_and(|c| &c[1] <= "23" && &c[2] <= "59" && &c[3] <= "59")
}

/// `net.ParseCIDR`: an address, `/`, a prefix length within its size.
fn is_cidr(s: &str) -> bool {
    s.split_once('/').is_some_and(|(ip, bits)| {
        let max = match sloppy_ip(ip) {
            Some(IpAddr::V4(_)) => 32,
            Some(IpAddr::V6(_)) => 128,
            None => return false,
        };
        !bits.is_empty()
            && bits.len() <= 3
            && bits.bytes().all(|b| b.is_ascii_digit())
            && bits.parse::<u8>().is_ok_and(|b| b <= max)
    })
}

/// `netutils.ParseIPSloppy`: an IPv4 address whose parts may have leading zeros (read as
/// decimal), or an IPv6 address.
fn sloppy_ip(s: &str) -> Option<IpAddr> {
    if s.contains(':') {
        return s.parse::<Ipv6Addr>().ok().map(IpAddr::V6);
    }
    let parts: Vec<&str> = s.split('.').collect();
    if parts.len() != 4 || parts.iter().any(|p| p.is_empty() || p.len() > 3 || !p.bytes().all(|b| b.is_ascii_digit())) {
        return None;
    }
    let mut octets = [0u8; 4];
    for (octet, part) in octets.iter_mut().zip(&parts) {
        *octet = part.parse().ok()?;
    }
    Some(IpAddr::V4(Ipv4Addr::from(octets)))
}

/// `net/mail.ParseAddress` for the usual shapes: `local@domain` (dot-atoms or a quoted local
/// part, a `[literal]` domain), optionally inside `Name <...>`.
fn is_email(s: &str) -> bool {
    let address = match (s.find('<'), s.strip_suffix('>')) {
        (Some(open), Some(rest)) => &rest[open + 1..],
        (None, None) => s.trim(),
        _ => return false,
    };
    let Some((local, domain)) = address.rsplit_once('@') else { return false };
    let local_ok = EMAIL_ATOM.is_match(local)
        || (local.len() >= 2
            && local.starts_with('"')
            && local.ends_with('"')
            && !local[1..local.len() - 1].contains('"'));
    let domain_ok = EMAIL_ATOM.is_match(domain) || (domain.starts_with('[') && domain.ends_with(']'));
    local_ok && domain_ok
}

/// `net/url.ParseRequestURI`: an absolute URI (with a scheme) or an absolute path, with valid
/// `%` escapes and no spaces or control characters.
fn is_request_uri(s: &str) -> bool {
    if s.is_empty() || !(s.starts_with('/') || URI_SCHEME.is_match(s)) {
        return false;
    }
    if s.chars().any(|c| c.is_control() || c == ' ') || !authority_ok(s) {
        return false;
    }
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3);
            if !hex.is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) {
                return false;
            }
            i += 3;
        } else {
            i += 1;
        }
    }
    true
}

/// The host and port of `scheme://[user@]host[:port]/...`, as `net/url` checks them: an IPv6
/// literal closed by `]`, and a port of digits only. Anything without `//` has no authority.
fn authority_ok(s: &str) -> bool {
    let Some((_, rest)) = s.split_once("://") else { return true };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let port = match host_port.strip_prefix('[') {
        Some(v6) => match v6.split_once(']') {
            Some((_, "")) => return true,
            Some((_, after)) => match after.strip_prefix(':') {
                Some(port) => port,
                None => return false,
            },
            None => return false,
        },
        None => host_port.rsplit_once(':').map_or("", |(_, p)| p),
    };
    port.bytes().all(|b| b.is_ascii_digit())
}

/// govalidator's `IsISBN10`: ten characters once spaces and dashes are dropped, the last
/// possibly `X`, with the ISBN-10 checksum.
fn is_isbn10(s: &str) -> bool {
    let digits: Vec<char> = s.chars().filter(|c| *c != ' ' && *c != '-').collect();
    if digits.len() != 10 || !digits[..9].iter().all(char::is_ascii_digit) {
        return false;
    }
    let last = match digits[9] {
        'X' => 10,
        c => match c.to_digit(10) {
            Some(d) => d,
            None => return false,
        },
    };
    let sum: u32 = digits[..9].iter().zip(1..).map(|(c, w)| c.to_digit(10).unwrap_or(0) * w).sum::<u32>() + last * 10;
    sum.is_multiple_of(11)
}

/// govalidator's `IsISBN13`: thirteen digits once spaces and dashes are dropped, with the
/// ISBN-13 checksum.
fn is_isbn13(s: &str) -> bool {
    let digits: Vec<u32> = s.chars().filter(|c| *c != ' ' && *c != '-').map(|c| c.to_digit(10).unwrap_or(99)).collect();
    if digits.len() != 13 || digits.iter().any(|d| *d > 9) {
        return false;
    }
    let sum: u32 = digits[..12].iter().enumerate().map(|(i, d)| if i % 2 == 0 { *d } else { d * 3 }).sum();
    (10 - sum % 10) % 10 == digits[12]
}

/// govalidator's `IsCreditCard`: the digits (anything else dropped) match a card number's
/// shape and pass the Luhn check.
fn is_credit_card(s: &str) -> bool {
    let digits: String = s.chars().filter(char::is_ascii_digit).collect();
    if !CREDIT_CARD.is_match(&digits) {
        return false;
    }
    let sum: u32 = digits
        .chars()
        .rev()
        .enumerate()
        .map(|(i, c)| {
            let d = c.to_digit(10).unwrap_or(0);
            if i % 2 == 1 { if d * 2 > 9 { d * 2 - 9 } else { d * 2 } } else { d }
        })
        .sum();
    sum.is_multiple_of(10)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_as_the_registry_checks_them() {
        let cases: &[(&str, &str, bool)] = &[
            ("date", "2024-02-29", true),
            ("date", "2023-02-29", false),
            ("date-time", "2024-01-02T03:04:05Z", true),
            ("date-time", "2024-01-02t03:04:05.5+01:00", true),
            ("date-time", "2024-02-30T00:00:00Z", false),
            ("date-time", "2024-01-02 03:04:05Z", false),
            ("date-time", "2024-01-02T03:04Z", false),
            ("hostname", "example.com", true),
            ("hostname", "Ünï.de", true),
            ("hostname", "a.b1", false),
            ("hostname", "1.2.3.4", false),
            ("byte", "aGk=", true),
            ("byte", "", false),
            ("email", "a@b", true),
            ("email", "Name <a@b.com>", true),
            ("email", "a@", false),
            ("email", "a b@c.com", false),
            ("email", "a@@b.com", false),
            ("uri", "https://x.io/a%20b", true),
            ("uri", "/abs/path", true),
            ("uri", "rel/path", false),
            ("uri", "x.io", false),
            ("uri", "/%zz", false),
            ("uri", "http://[::1", false),
            ("uri", "http://x:port/", false),
            ("uri", "http://[::1]x/", false),
            ("uri", "http://[::1]:80/a", true),
            ("uri", "http://u@x.io:8080/a", true),
            ("mac", "001a2b3c4d5e", true),
            ("mac", "001a2b3c4d5", false),
            ("duration", "1h30m", true),
            ("duration", "-1.5s", true),
            ("duration", "1H", true),
            ("duration", "2 Weeks", true),
            ("duration", "abc 5s", true),
            ("duration", "1d", true),
            ("duration", "5", false),
            ("duration", "soon", false),
            ("ipv4", "010.0.0.1", true),
            ("ipv4", "1.2.3", false),
            ("ipv4", "::ffff:1.2.3.4", true),
            ("cidr", "010.0.0.0/8", true),
            ("isbn10", "0321751043", true),
            ("isbn10", "0321751044", false),
            ("isbn13", "978-0321751041", true),
            ("bsonobjectid", "507f1f77bcf86cd799439011", true),
            ("bsonobjectid", "507f1f77", false),
            ("rgbcolor", "rgb(255, 0, 10)", true),
            ("rgbcolor", "rgb(256,0,0)", false),
            ("hexcolor", "#fff", true),
            ("ssn", "123-45-6789", true),
            ("ssn", "123456789", false),
            ("creditcard", "4111 1111 1111 1111", true),
            ("creditcard", "4111 1111 1111 1112", false),
            ("uuid4", "123e4567-e89b-42d3-a456-426614174000", true),
            ("uuid4", "123e4567-e89b-12d3-a456-426614174000", false),
            ("k8s-short-name", "my-name", true),
            ("k8s-short-name", "My.Name", false),
        ];
        for (format, s, want) in cases {
            assert_eq!(valid(format, s), Some(*want), "{format} {s:?}");
        }
        assert_eq!(valid("no-such-format", "x"), None);
    }
}
