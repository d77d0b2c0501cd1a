//! CEL types as the checker uses them, printed the way cel-go prints them in its messages
//! (`checker/format.go`): `list(string)`, `map(string, int)`, `optional_type(int)`,
//! `duration`, `null`, an object's type name.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use super::decl::Decl;

/// A CEL type.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Type {
    Bool,
    Int,
    Uint,
    Double,
    String,
    Bytes,
    Null,
    Duration,
    Timestamp,
    Dyn,
    List(Box<Type>),
    Map(Box<Type>, Box<Type>),
    Optional(Box<Type>),
    /// The type of a type value: `type(int)`.
    Meta(Box<Type>),
    /// An object declared by the schema.
    Object(ObjectRef),
    /// A library type such as `kubernetes.URL` or `net.IP`.
    Opaque(&'static str),
    /// A type parameter of an overload signature (`A`, `K`, `V`).
    Param(&'static str),
    /// The type of an expression that already failed to check; like `dyn`, it matches anything,
    /// so one mistake is reported once.
    Error,
}

/// A schema object type; two are the same type when they have the same name.
#[derive(Debug, Clone)]
pub(crate) struct ObjectRef(pub(crate) Arc<Decl>);

impl PartialEq for ObjectRef {
    fn eq(&self, other: &Self) -> bool {
        self.0.object_name() == other.0.object_name()
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Bool => f.write_str("bool"),
            Type::Int => f.write_str("int"),
            Type::Uint => f.write_str("uint"),
            Type::Double => f.write_str("double"),
            Type::String => f.write_str("string"),
            Type::Bytes => f.write_str("bytes"),
            Type::Null => f.write_str("null"),
            Type::Duration => f.write_str("duration"),
            Type::Timestamp => f.write_str("timestamp"),
            Type::Dyn | Type::Param(_) => f.write_str("dyn"),
            Type::Error => f.write_str("!error!"),
            Type::List(e) => write!(f, "list({e})"),
            Type::Map(k, v) => write!(f, "map({k}, {v})"),
            Type::Optional(t) => write!(f, "optional_type({t})"),
            Type::Meta(t) => write!(f, "type({t})"),
            Type::Object(o) => f.write_str(o.0.object_name().unwrap_or("object")),
            Type::Opaque(name) => f.write_str(name),
        }
    }
}

impl Type {
    /// `dyn` or an earlier error: matches anything.
    pub(crate) fn is_dyn(&self) -> bool {
        matches!(self, Type::Dyn | Type::Error)
    }

    /// The scalar types whose values cel-go sizes as 1 (`computeTypeSize`).
    pub(crate) fn is_sized_scalar(&self) -> bool {
        match self {
            Type::Bool | Type::Int | Type::Uint | Type::Double | Type::Duration | Type::Timestamp => true,
            Type::Optional(t) => t.is_sized_scalar(),
            _ => false,
        }
    }
}

/// Type parameter bindings while one overload is matched.
pub(crate) type Bindings = HashMap<&'static str, Type>;

/// Whether a value of type `actual` can be passed where `formal` is expected, binding
/// `formal`'s parameters (cel-go `isAssignable`: `dyn` and errors match anything, `null`
/// matches objects, a parameter takes the first type it meets and then the more general one).
pub(crate) fn assignable(formal: &Type, actual: &Type, b: &mut Bindings) -> bool {
    if let Type::Param(p) = formal {
        return match b.get(p).cloned() {
            None => {
                b.insert(p, actual.clone());
                true
            }
            Some(bound) => {
                if bound.is_dyn() || actual.is_dyn() || assignable(&bound, actual, &mut Bindings::new()) {
                    true
                } else if assignable(actual, &bound, &mut Bindings::new()) {
                    b.insert(p, actual.clone());
                    true
                } else {
                    false
                }
            }
        };
    }
    if formal.is_dyn() || actual.is_dyn() {
        bind_all(formal, b);
        return true;
    }
    match (formal, actual) {
        (Type::List(f), Type::List(a)) | (Type::Optional(f), Type::Optional(a)) => assignable(f, a, b),
        // Type values compare whatever they name: `type(self.p) == int` checks for any `p`.
        (Type::Meta(_), Type::Meta(_)) => true,
        (Type::Map(fk, fv), Type::Map(ak, av)) => assignable(fk, ak, b) && assignable(fv, av, b),
        (Type::Object(_), Type::Null) => true,
        _ => formal == actual,
    }
}

/// Binds every unbound parameter of `t` to `dyn`.
fn bind_all(t: &Type, b: &mut Bindings) {
    match t {
        Type::Param(p) => {
            b.entry(p).or_insert(Type::Dyn);
        }
        Type::List(e) | Type::Optional(e) | Type::Meta(e) => bind_all(e, b),
        Type::Map(k, v) => {
            bind_all(k, b);
            bind_all(v, b);
        }
        _ => {}
    }
}

/// `t` with its parameters replaced by their bindings (unbound ones by `dyn`).
pub(crate) fn substitute(t: &Type, b: &Bindings) -> Type {
    match t {
        Type::Param(p) => b.get(p).cloned().unwrap_or(Type::Dyn),
        Type::List(e) => Type::List(Box::new(substitute(e, b))),
        Type::Optional(e) => Type::Optional(Box::new(substitute(e, b))),
        Type::Meta(e) => Type::Meta(Box::new(substitute(e, b))),
        Type::Map(k, v) => Type::Map(Box::new(substitute(k, b)), Box::new(substitute(v, b))),
        other => other.clone(),
    }
}
