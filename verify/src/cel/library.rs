//! The functions a CRD validation rule can call on the API server rop targets (Kubernetes 1.37
//! with its default compatibility version 1.36): CEL's standard library, the Kubernetes
//! libraries (lists, regex, URLs, quantity, IP, CIDR, format, semver) and cel-go's extensions
//! the CRD environment enables (strings v2, sets, lists v3, optional types). Sources:
//! k8s.io/apiserver `pkg/cel/environment/base.go` and `pkg/cel/library/*.go`, cel-go
//! `checker/decls` and `ext/*.go`.
//!
//! `includes` (Kubernetes lists v1) is introduced at compatibility version 1.37, so a 1.37
//! server refuses it in new rules; it is left out.

use std::collections::HashMap;
use std::sync::LazyLock;

use super::types::Type;

/// One overload: `id` is cel-go's overload id where the cost estimate depends on it.
#[derive(Debug)]
pub(crate) struct Overload {
    pub(crate) id: &'static str,
    pub(crate) member: bool,
    /// For member overloads, the receiver first.
    pub(crate) params: Vec<Type>,
    pub(crate) result: Type,
}

/// `(overload id, function, signature)`; a signature is `(args) -> result` or
/// `receiver.(args) -> result`. Type names: the CEL primitives, `list(T)`, `map(K, V)`,
/// `optional(T)`, `type(T)`, parameters `A`, `B`, `K`, `V`, and the library types `URL`, `IP`,
/// `CIDR`, `Quantity`, `Semver`, `Format`.
const DECLS: &[(&str, &str, &str)] = &[
    // Operators.
    ("add_int64", "_+_", "(int, int) -> int"),
    ("add_uint64", "_+_", "(uint, uint) -> uint"),
    ("add_double", "_+_", "(double, double) -> double"),
    ("add_string", "_+_", "(string, string) -> string"),
    ("add_bytes", "_+_", "(bytes, bytes) -> bytes"),
    ("add_list", "_+_", "(list(A), list(A)) -> list(A)"),
    ("add_timestamp_duration", "_+_", "(timestamp, duration) -> timestamp"),
    ("add_duration_timestamp", "_+_", "(duration, timestamp) -> timestamp"),
    ("add_duration_duration", "_+_", "(duration, duration) -> duration"),
    ("subtract_int64", "_-_", "(int, int) -> int"),
    ("subtract_uint64", "_-_", "(uint, uint) -> uint"),
    ("subtract_double", "_-_", "(double, double) -> double"),
    ("subtract_timestamp_timestamp", "_-_", "(timestamp, timestamp) -> duration"),
    ("subtract_timestamp_duration", "_-_", "(timestamp, duration) -> timestamp"),
    ("subtract_duration_duration", "_-_", "(duration, duration) -> duration"),
    ("multiply_int64", "_*_", "(int, int) -> int"),
    ("multiply_uint64", "_*_", "(uint, uint) -> uint"),
    ("multiply_double", "_*_", "(double, double) -> double"),
    ("divide_int64", "_/_", "(int, int) -> int"),
    ("divide_uint64", "_/_", "(uint, uint) -> uint"),
    ("divide_double", "_/_", "(double, double) -> double"),
    ("modulo_int64", "_%_", "(int, int) -> int"),
    ("modulo_uint64", "_%_", "(uint, uint) -> uint"),
    ("negate_int64", "-_", "(int) -> int"),
    ("negate_double", "-_", "(double) -> double"),
    ("logical_not", "!_", "(bool) -> bool"),
    ("logical_and", "_&&_", "(bool, bool) -> bool"),
    ("logical_or", "_||_", "(bool, bool) -> bool"),
    ("conditional", "_?_:_", "(bool, A, A) -> A"),
    ("not_strictly_false", "@not_strictly_false", "(bool) -> bool"),
    ("equals", "_==_", "(A, A) -> bool"),
    ("not_equals", "_!=_", "(A, A) -> bool"),
    ("index_list", "_[_]", "(list(A), int) -> A"),
    ("index_map", "_[_]", "(map(K, V), K) -> V"),
    ("optional_list_index", "_[?_]", "(list(A), int) -> optional(A)"),
    ("optional_map_index", "_[?_]", "(map(K, V), K) -> optional(V)"),
    ("in_list", "@in", "(A, list(A)) -> bool"),
    ("in_map", "@in", "(K, map(K, V)) -> bool"),
    // Sizes and strings.
    ("size_string", "size", "(string) -> int"),
    ("size_bytes", "size", "(bytes) -> int"),
    ("size_list", "size", "(list(A)) -> int"),
    ("size_map", "size", "(map(K, V)) -> int"),
    ("string_size", "size", "string.() -> int"),
    ("bytes_size", "size", "bytes.() -> int"),
    ("list_size", "size", "list(A).() -> int"),
    ("map_size", "size", "map(K, V).() -> int"),
    ("contains_string", "contains", "string.(string) -> bool"),
    ("starts_with_string", "startsWith", "string.(string) -> bool"),
    ("ends_with_string", "endsWith", "string.(string) -> bool"),
    ("matches_string", "matches", "string.(string) -> bool"),
    ("matches", "matches", "(string, string) -> bool"),
    // Conversions.
    ("int64_to_int64", "int", "(int) -> int"),
    ("uint64_to_int64", "int", "(uint) -> int"),
    ("double_to_int64", "int", "(double) -> int"),
    ("string_to_int64", "int", "(string) -> int"),
    ("timestamp_to_int64", "int", "(timestamp) -> int"),
    ("duration_to_int64", "int", "(duration) -> int"),
    ("int64_to_uint64", "uint", "(int) -> uint"),
    ("uint64_to_uint64", "uint", "(uint) -> uint"),
    ("double_to_uint64", "uint", "(double) -> uint"),
    ("string_to_uint64", "uint", "(string) -> uint"),
    ("int64_to_double", "double", "(int) -> double"),
    ("uint64_to_double", "double", "(uint) -> double"),
    ("double_to_double", "double", "(double) -> double"),
    ("string_to_double", "double", "(string) -> double"),
    ("int64_to_string", "string", "(int) -> string"),
    ("uint64_to_string", "string", "(uint) -> string"),
    ("double_to_string", "string", "(double) -> string"),
    ("bool_to_string", "string", "(bool) -> string"),
    ("string_to_string", "string", "(string) -> string"),
    ("bytes_to_string", "string", "(bytes) -> string"),
    ("timestamp_to_string", "string", "(timestamp) -> string"),
    ("duration_to_string", "string", "(duration) -> string"),
    ("ip_to_string", "string", "(IP) -> string"),
    ("cidr_to_string", "string", "(CIDR) -> string"),
    ("bytes_to_bytes", "bytes", "(bytes) -> bytes"),
    ("string_to_bytes", "bytes", "(string) -> bytes"),
    ("bool_to_bool", "bool", "(bool) -> bool"),
    ("string_to_bool", "bool", "(string) -> bool"),
    ("duration_to_duration", "duration", "(duration) -> duration"),
    ("string_to_duration", "duration", "(string) -> duration"),
    ("timestamp_to_timestamp", "timestamp", "(timestamp) -> timestamp"),
    ("string_to_timestamp", "timestamp", "(string) -> timestamp"),
    ("int64_to_timestamp", "timestamp", "(int) -> timestamp"),
    ("to_dyn", "dyn", "(A) -> dyn"),
    ("type", "type", "(A) -> type(A)"),
    // Timestamps and durations.
    ("timestamp_to_year", "getFullYear", "timestamp.() -> int"),
    ("timestamp_to_year_with_tz", "getFullYear", "timestamp.(string) -> int"),
    ("timestamp_to_month", "getMonth", "timestamp.() -> int"),
    ("timestamp_to_month_with_tz", "getMonth", "timestamp.(string) -> int"),
    ("timestamp_to_day_of_year", "getDayOfYear", "timestamp.() -> int"),
    ("timestamp_to_day_of_year_with_tz", "getDayOfYear", "timestamp.(string) -> int"),
    ("timestamp_to_day_of_month_1_based", "getDate", "timestamp.() -> int"),
    ("timestamp_to_day_of_month_1_based_with_tz", "getDate", "timestamp.(string) -> int"),
    ("timestamp_to_day_of_month", "getDayOfMonth", "timestamp.() -> int"),
    ("timestamp_to_day_of_month_with_tz", "getDayOfMonth", "timestamp.(string) -> int"),
    ("timestamp_to_day_of_week", "getDayOfWeek", "timestamp.() -> int"),
    ("timestamp_to_day_of_week_with_tz", "getDayOfWeek", "timestamp.(string) -> int"),
    ("timestamp_to_hours", "getHours", "timestamp.() -> int"),
    ("timestamp_to_hours_with_tz", "getHours", "timestamp.(string) -> int"),
    ("duration_to_hours", "getHours", "duration.() -> int"),
    ("timestamp_to_minutes", "getMinutes", "timestamp.() -> int"),
    ("timestamp_to_minutes_with_tz", "getMinutes", "timestamp.(string) -> int"),
    ("duration_to_minutes", "getMinutes", "duration.() -> int"),
    ("timestamp_to_seconds", "getSeconds", "timestamp.() -> int"),
    ("timestamp_to_seconds_with_tz", "getSeconds", "timestamp.(string) -> int"),
    ("duration_to_seconds", "getSeconds", "duration.() -> int"),
    ("timestamp_to_milliseconds", "getMilliseconds", "timestamp.() -> int"),
    ("timestamp_to_milliseconds_with_tz", "getMilliseconds", "timestamp.(string) -> int"),
    ("duration_to_milliseconds", "getMilliseconds", "duration.() -> int"),
    // Optional types.
    ("optional_of", "optional.of", "(A) -> optional(A)"),
    ("optional_ofNonZeroValue", "optional.ofNonZeroValue", "(A) -> optional(A)"),
    ("optional_none", "optional.none", "() -> optional(free)"),
    ("optional_unwrap_list", "optional.unwrap", "(list(optional(A))) -> list(A)"),
    ("optional_value", "value", "optional(A).() -> A"),
    ("optional_hasValue", "hasValue", "optional(A).() -> bool"),
    ("optional_or_optional", "or", "optional(A).(optional(A)) -> optional(A)"),
    ("optional_orValue_value", "orValue", "optional(A).(A) -> A"),
    // Kubernetes lists (v0).
    ("list_int_is_sorted", "isSorted", "list(int).() -> bool"),
    ("list_uint_is_sorted", "isSorted", "list(uint).() -> bool"),
    ("list_double_is_sorted", "isSorted", "list(double).() -> bool"),
    ("list_bool_is_sorted", "isSorted", "list(bool).() -> bool"),
    ("list_string_is_sorted", "isSorted", "list(string).() -> bool"),
    ("list_bytes_is_sorted", "isSorted", "list(bytes).() -> bool"),
    ("list_duration_is_sorted", "isSorted", "list(duration).() -> bool"),
    ("list_timestamp_is_sorted", "isSorted", "list(timestamp).() -> bool"),
    ("list_int_sum", "sum", "list(int).() -> int"),
    ("list_uint_sum", "sum", "list(uint).() -> uint"),
    ("list_double_sum", "sum", "list(double).() -> double"),
    ("list_duration_sum", "sum", "list(duration).() -> duration"),
    ("list_int_min", "min", "list(int).() -> int"),
    ("list_int_max", "max", "list(int).() -> int"),
    ("list_uint_min", "min", "list(uint).() -> uint"),
    ("list_uint_max", "max", "list(uint).() -> uint"),
    ("list_double_min", "min", "list(double).() -> double"),
    ("list_double_max", "max", "list(double).() -> double"),
    ("list_bool_min", "min", "list(bool).() -> bool"),
    ("list_bool_max", "max", "list(bool).() -> bool"),
    ("list_string_min", "min", "list(string).() -> string"),
    ("list_string_max", "max", "list(string).() -> string"),
    ("list_bytes_min", "min", "list(bytes).() -> bytes"),
    ("list_bytes_max", "max", "list(bytes).() -> bytes"),
    ("list_duration_min", "min", "list(duration).() -> duration"),
    ("list_duration_max", "max", "list(duration).() -> duration"),
    ("list_timestamp_min", "min", "list(timestamp).() -> timestamp"),
    ("list_timestamp_max", "max", "list(timestamp).() -> timestamp"),
    ("list_index_of", "indexOf", "list(A).(A) -> int"),
    ("list_last_index_of", "lastIndexOf", "list(A).(A) -> int"),
    // Kubernetes regex.
    ("string_find", "find", "string.(string) -> string"),
    ("string_find_all", "findAll", "string.(string) -> list(string)"),
    ("string_find_all_n", "findAll", "string.(string, int) -> list(string)"),
    // Kubernetes URLs.
    ("string_to_url", "url", "(string) -> URL"),
    ("is_url_string", "isURL", "(string) -> bool"),
    ("url_get_scheme", "getScheme", "URL.() -> string"),
    ("url_get_host", "getHost", "URL.() -> string"),
    ("url_get_hostname", "getHostname", "URL.() -> string"),
    ("url_get_port", "getPort", "URL.() -> string"),
    ("url_get_escaped_path", "getEscapedPath", "URL.() -> string"),
    ("url_get_query", "getQuery", "URL.() -> map(string, list(string))"),
    // Kubernetes quantity.
    ("string_to_quantity", "quantity", "(string) -> Quantity"),
    ("is_quantity_string", "isQuantity", "(string) -> bool"),
    ("quantity_sign", "sign", "(Quantity) -> int"),
    ("quantity_is_integer", "isInteger", "Quantity.() -> bool"),
    ("quantity_get_int", "asInteger", "Quantity.() -> int"),
    ("quantity_get_float", "asApproximateFloat", "Quantity.() -> double"),
    ("quantity_add", "add", "Quantity.(Quantity) -> Quantity"),
    ("quantity_add_int", "add", "Quantity.(int) -> Quantity"),
    ("quantity_sub", "sub", "Quantity.(Quantity) -> Quantity"),
    ("quantity_sub_int", "sub", "Quantity.(int) -> Quantity"),
    ("quantity_less", "isLessThan", "Quantity.(Quantity) -> bool"),
    ("quantity_greater", "isGreaterThan", "Quantity.(Quantity) -> bool"),
    ("quantity_compare", "compareTo", "Quantity.(Quantity) -> int"),
    // Kubernetes IP and CIDR.
    ("string_to_ip", "ip", "(string) -> IP"),
    ("is_ip", "isIP", "(string) -> bool"),
    ("ip_is_canonical", "ip.isCanonical", "(string) -> bool"),
    ("ip_family", "family", "IP.() -> int"),
    ("ip_is_unspecified", "isUnspecified", "IP.() -> bool"),
    ("ip_is_loopback", "isLoopback", "IP.() -> bool"),
    ("ip_is_link_local_multicast", "isLinkLocalMulticast", "IP.() -> bool"),
    ("ip_is_link_local_unicast", "isLinkLocalUnicast", "IP.() -> bool"),
    ("ip_is_global_unicast", "isGlobalUnicast", "IP.() -> bool"),
    ("string_to_cidr", "cidr", "(string) -> CIDR"),
    ("is_cidr", "isCIDR", "(string) -> bool"),
    ("cidr_contains_ip_string", "containsIP", "CIDR.(string) -> bool"),
    ("cidr_contains_ip_ip", "containsIP", "CIDR.(IP) -> bool"),
    ("cidr_contains_cidr_string", "containsCIDR", "CIDR.(string) -> bool"),
    ("cidr_contains_cidr", "containsCIDR", "CIDR.(CIDR) -> bool"),
    ("cidr_ip", "ip", "CIDR.() -> IP"),
    ("cidr_masked", "masked", "CIDR.() -> CIDR"),
    ("cidr_prefix_length", "prefixLength", "CIDR.() -> int"),
    // Kubernetes format (1.31).
    ("format_named", "format.named", "(string) -> optional(Format)"),
    ("format_dns1123Label", "format.dns1123Label", "() -> Format"),
    ("format_dns1123Subdomain", "format.dns1123Subdomain", "() -> Format"),
    ("format_dns1035Label", "format.dns1035Label", "() -> Format"),
    ("format_qualifiedName", "format.qualifiedName", "() -> Format"),
    ("format_dns1123LabelPrefix", "format.dns1123LabelPrefix", "() -> Format"),
    ("format_dns1123SubdomainPrefix", "format.dns1123SubdomainPrefix", "() -> Format"),
    ("format_dns1035LabelPrefix", "format.dns1035LabelPrefix", "() -> Format"),
    ("format_labelValue", "format.labelValue", "() -> Format"),
    ("format_uri", "format.uri", "() -> Format"),
    ("format_uuid", "format.uuid", "() -> Format"),
    ("format_byte", "format.byte", "() -> Format"),
    ("format_date", "format.date", "() -> Format"),
    ("format_datetime", "format.datetime", "() -> Format"),
    ("format_validate", "validate", "Format.(string) -> optional(list(string))"),
    // Kubernetes semver (1.33).
    ("string_to_semver", "semver", "(string) -> Semver"),
    ("string_bool_to_semver", "semver", "(string, bool) -> Semver"),
    ("is_semver", "isSemver", "(string) -> bool"),
    ("is_semver_normalize", "isSemver", "(string, bool) -> bool"),
    ("semver_major", "major", "Semver.() -> int"),
    ("semver_minor", "minor", "Semver.() -> int"),
    ("semver_patch", "patch", "Semver.() -> int"),
    ("semver_less", "isLessThan", "Semver.(Semver) -> bool"),
    ("semver_greater", "isGreaterThan", "Semver.(Semver) -> bool"),
    ("semver_compare_to", "compareTo", "Semver.(Semver) -> int"),
    // cel-go strings extension, version 2.
    ("string_char_at_int", "charAt", "string.(int) -> string"),
    ("string_index_of_string", "indexOf", "string.(string) -> int"),
    ("string_index_of_string_int", "indexOf", "string.(string, int) -> int"),
    ("string_last_index_of_string", "lastIndexOf", "string.(string) -> int"),
    ("string_last_index_of_string_int", "lastIndexOf", "string.(string, int) -> int"),
    ("string_lower_ascii", "lowerAscii", "string.() -> string"),
    ("string_upper_ascii", "upperAscii", "string.() -> string"),
    ("string_replace_string_string", "replace", "string.(string, string) -> string"),
    ("string_replace_string_string_int", "replace", "string.(string, string, int) -> string"),
    ("string_split_string", "split", "string.(string) -> list(string)"),
    ("string_split_string_int", "split", "string.(string, int) -> list(string)"),
    ("string_substring_int", "substring", "string.(int) -> string"),
    ("string_substring_int_int", "substring", "string.(int, int) -> string"),
    ("string_trim", "trim", "string.() -> string"),
    ("list_join", "join", "list(string).() -> string"),
    ("list_join_string", "join", "list(string).(string) -> string"),
    ("string_format", "format", "string.(list(dyn)) -> string"),
    ("strings_quote", "strings.quote", "(string) -> string"),
    // cel-go sets extension.
    ("list_sets_contains_list", "sets.contains", "(list(A), list(A)) -> bool"),
    ("list_sets_equivalent_list", "sets.equivalent", "(list(A), list(A)) -> bool"),
    ("list_sets_intersects_list", "sets.intersects", "(list(A), list(A)) -> bool"),
    // cel-go lists extension, version 3.
    ("list_slice", "slice", "list(A).(int, int) -> list(A)"),
    ("list_flatten", "flatten", "list(list(A)).() -> list(A)"),
    ("list_flatten_int", "flatten", "list(dyn).(int) -> list(dyn)"),
    ("lists_range", "lists.range", "(int) -> list(int)"),
    ("list_reverse", "reverse", "list(A).() -> list(A)"),
    ("list_distinct", "distinct", "list(A).() -> list(A)"),
    ("list_sort", "sort", "list(int).() -> list(int)"),
    ("list_sort", "sort", "list(uint).() -> list(uint)"),
    ("list_sort", "sort", "list(double).() -> list(double)"),
    ("list_sort", "sort", "list(bool).() -> list(bool)"),
    ("list_sort", "sort", "list(string).() -> list(string)"),
    ("list_sort", "sort", "list(bytes).() -> list(bytes)"),
    ("list_sort", "sort", "list(duration).() -> list(duration)"),
    ("list_sort", "sort", "list(timestamp).() -> list(timestamp)"),
    ("list_first", "first", "list(A).() -> optional(A)"),
    ("list_last", "last", "list(A).() -> optional(A)"),
    ("list_sortByAssociatedKeys", "@sortByAssociatedKeys", "list(A).(list(B)) -> list(A)"),
    ("optional_list_unwrap", "unwrapOpt", "list(optional(A)).() -> list(A)"),
];

/// Overloads by function name.
pub(crate) static FUNCTIONS: LazyLock<HashMap<&'static str, Vec<Overload>>> = LazyLock::new(|| {
    let mut out: HashMap<&'static str, Vec<Overload>> = HashMap::new();
    for (id, name, sig) in DECLS {
        out.entry(name).or_default().push(parse_signature(id, sig));
    }
    out
});

/// Names that resolve to type values (`int`, `list`, …) when used as identifiers.
pub(crate) fn type_ident(name: &str) -> Option<Type> {
    if name != "null"
        && let Some(t) = primitive(name)
    {
        return Some(t);
    }
    Some(match name {
        "null_type" => Type::Null,
        "list" => Type::List(Box::new(Type::Dyn)),
        "map" => Type::Map(Box::new(Type::Dyn), Box::new(Type::Dyn)),
        "type" => Type::Meta(Box::new(Type::Dyn)),
        "optional_type" => Type::Optional(Box::new(Type::Dyn)),
        "net.IP" => Type::Opaque("net.IP"),
        "net.CIDR" => Type::Opaque("net.CIDR"),
        "kubernetes.URL" => Type::Opaque("kubernetes.URL"),
        "kubernetes.Quantity" => Type::Opaque("kubernetes.Quantity"),
        "kubernetes.Semver" => Type::Opaque("kubernetes.Semver"),
        "google.protobuf.Duration" => Type::Duration,
        "google.protobuf.Timestamp" => Type::Timestamp,
        _ => return None,
    })
}

/// The primitive types by their CEL names.
fn primitive(name: &str) -> Option<Type> {
    Some(match name {
        "bool" => Type::Bool,
        "int" => Type::Int,
        "uint" => Type::Uint,
        "double" => Type::Double,
        "string" => Type::String,
        "bytes" => Type::Bytes,
        "null" => Type::Null,
        _ => return None,
    })
}

fn parse_signature(id: &'static str, sig: &'static str) -> Overload {
    let (args, result) = sig.split_once(" -> ").expect("signature has ' -> '");
    let (member, receiver, args) = match args.split_once(".(") {
        Some((receiver, rest)) => (true, Some(receiver), rest.strip_suffix(')').expect("closing parenthesis")),
        None => (false, None, args.strip_prefix('(').and_then(|a| a.strip_suffix(')')).expect("parenthesised")),
    };
    let mut params: Vec<Type> = receiver.into_iter().map(parse_type).collect();
    params.extend(split_top_level(args).into_iter().filter(|a| !a.is_empty()).map(parse_type));
    Overload { id, member, params, result: parse_type(result) }
}

/// Splits `a, list(b), map(c, d)` at the commas outside parentheses.
fn split_top_level(s: &'static str) -> Vec<&'static str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(s[start..].trim());
    out
}

fn parse_type(s: &'static str) -> Type {
    let s = s.trim();
    if let Some((head, inner)) = s.split_once('(') {
        let inner = inner.strip_suffix(')').expect("closing parenthesis");
        let parts: Vec<Type> = split_top_level(inner).into_iter().map(parse_type).collect();
        let one = || Box::new(parts[0].clone());
        return match head {
            "list" => Type::List(one()),
            "optional" => Type::Optional(one()),
            "type" => Type::Meta(one()),
            "map" => Type::Map(one(), Box::new(parts[1].clone())),
            other => panic!("unknown type constructor {other}"),
        };
    }
    if let Some(t) = primitive(s) {
        return t;
    }
    match s {
        "dyn" => Type::Dyn,
        "free" => Type::Free,
        "duration" => Type::Duration,
        "timestamp" => Type::Timestamp,
        "URL" => Type::Opaque("kubernetes.URL"),
        "IP" => Type::Opaque("net.IP"),
        "CIDR" => Type::Opaque("net.CIDR"),
        "Quantity" => Type::Opaque("kubernetes.Quantity"),
        "Semver" => Type::Opaque("kubernetes.Semver"),
        "Format" => Type::Opaque("kubernetes.NamedFormat"),
        "A" => Type::Param("A"),
        "B" => Type::Param("B"),
        "K" => Type::Param("K"),
        "V" => Type::Param("V"),
        other => panic!("unknown type {other}"),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_signature_parses() {
        let count: usize = super::FUNCTIONS.values().map(Vec::len).sum();
        assert_eq!(count, super::DECLS.len());
        let join = &super::FUNCTIONS["join"][1];
        assert!(join.member);
        assert_eq!(join.params.len(), 2);
        assert_eq!(join.result.to_string(), "string");
    }
}
