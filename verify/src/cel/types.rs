//! CEL types as the checker uses them, printed the way cel-go prints them in its messages
//! (`checker/format.go`): `list(string)`, `map(string, int)`, `optional_type(int)`,
//! `duration`, `null`, an object's type name; and the declarations of schema nodes that object
//! types point to.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::Arc;

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
    /// The element type of an empty literal (`[]`, `{}`, `optional.none()`): a type variable
    /// that takes the type of whatever it is combined with, as in cel-go.
    Free,
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
            Type::Dyn | Type::Param(_) | Type::Free => f.write_str("dyn"),
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

    /// Whether an empty literal's type variable is still in `self`.
    pub(crate) fn has_free(&self) -> bool {
        match self {
            Type::Free => true,
            Type::List(e) | Type::Optional(e) | Type::Meta(e) => e.has_free(),
            Type::Map(k, v) => k.has_free() || v.has_free(),
            _ => false,
        }
    }

    /// Equal, where an empty literal's type variable equals anything (cel-go's
    /// `IsEquivalentType` after the checker bound the variable).
    pub(crate) fn equivalent(&self, other: &Type) -> bool {
        match (self, other) {
            (Type::Free, _) | (_, Type::Free) => true,
            (Type::List(a), Type::List(b))
            | (Type::Optional(a), Type::Optional(b))
            | (Type::Meta(a), Type::Meta(b)) => a.equivalent(b),
            (Type::Map(ak, av), Type::Map(bk, bv)) => ak.equivalent(bk) && av.equivalent(bv),
            _ => self == other,
        }
    }

    /// Types `null` may stand for: objects, timestamps, durations, optionals and the
    /// Kubernetes library's object types (cel-go's nullable kinds).
    fn nullable(&self) -> bool {
        matches!(
            self,
            Type::Object(_)
                | Type::Timestamp
                | Type::Duration
                | Type::Optional(_)
                | Type::Opaque(
                    "kubernetes.URL" | "kubernetes.Quantity" | "kubernetes.Semver" | "kubernetes.NamedFormat"
                )
        )
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
/// `formal`'s parameters (cel-go `isAssignable`): `dyn` and errors match anything, `null`
/// matches the nullable types, and a parameter met twice takes the more general of the two
/// types, except that an empty literal's type variable gives way to what it meets.
pub(crate) fn assignable(formal: &Type, actual: &Type, b: &mut Bindings) -> bool {
    if let Type::Param(p) = formal {
        let Some(bound) = b.get(p).cloned() else {
            b.insert(p, actual.clone());
            return true;
        };
        let fits = |a: &Type, b: &Type| assignable(a, b, &mut Bindings::new());
        let more_specific = bound.has_free() && !actual.has_free() && fits(&bound, actual);
        let more_general = actual.is_dyn() && !bound.is_dyn();
        if more_specific || more_general {
            b.insert(p, actual.clone());
            return true;
        }
        if bound.is_dyn() || fits(&bound, actual) {
            return true;
        }
        if fits(actual, &bound) {
            b.insert(p, actual.clone());
            return true;
        }
        return false;
    }
    if matches!(formal, Type::Free) || matches!(actual, Type::Free) {
        bind_all(formal, b);
        return true;
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
        (f, Type::Null) if f.nullable() => true,
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

/// One schema node's CEL declaration.
#[derive(Debug)]
pub(crate) struct Decl {
    pub(crate) kind: DeclKind,
    /// The smallest JSON a value of this node serialises to, in bytes (`MinSerializedSize`).
    pub(crate) min_size: u64,
    /// The most characters, bytes, items or properties a value can have (`MaxElements`); 0 for
    /// scalars and objects.
    pub(crate) max_elements: u64,
    /// The keyword that would bound the node (`maxLength`, `maxItems`, `maxProperties`) when
    /// `max_elements` is the 3 MiB default rather than a bound the schema gives.
    pub(crate) unbounded: Option<&'static str>,
    /// Where the node is, relative to the node the declarations start from
    /// (`.properties[targets].items`).
    pub(crate) location: String,
}

/// What a node holds.
#[derive(Debug)]
pub(crate) enum DeclKind {
    /// `bool`, `int`, `double`, `string`, `bytes`, `duration`, `timestamp` or `dyn`.
    Scalar(Type),
    List(Arc<Decl>),
    /// `map(string, V)`.
    Map(Arc<Decl>),
    /// An object type named `name` (`selfType.spec.template`), fields keyed by escaped name.
    Object {
        name: String,
        fields: BTreeMap<String, Arc<Decl>>,
    },
}

impl Decl {
    /// The CEL type of a value of this node.
    pub(crate) fn cel_type(self: &Arc<Self>) -> Type {
        match &self.kind {
            DeclKind::Scalar(t) => t.clone(),
            DeclKind::List(elem) => Type::List(Box::new(elem.cel_type())),
            DeclKind::Map(value) => Type::Map(Box::new(Type::String), Box::new(value.cel_type())),
            DeclKind::Object { .. } => Type::Object(ObjectRef(self.clone())),
        }
    }

    /// The object's name, for objects.
    pub(crate) fn object_name(&self) -> Option<&str> {
        match &self.kind {
            DeclKind::Object { name, .. } => Some(name),
            _ => None,
        }
    }

    /// The declaration of an object field, by escaped name.
    pub(crate) fn field(&self, name: &str) -> Option<&Arc<Decl>> {
        match &self.kind {
            DeclKind::Object { fields, .. } => fields.get(name),
            _ => None,
        }
    }

    /// The element declaration of a list, or the value declaration of a map.
    pub(crate) fn element(&self) -> Option<&Arc<Decl>> {
        match &self.kind {
            DeclKind::List(e) | DeclKind::Map(e) => Some(e),
            _ => None,
        }
    }
}
