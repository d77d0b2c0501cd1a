//! The CEL type checker, as cel-go's `checker` runs it for a CRD rule: every identifier,
//! field, call and literal gets a type; undeclared names, undefined fields, calls with no
//! matching overload, non-collection comprehension ranges and mixed list or map literals are
//! errors with cel-go's wording, placed where cel-go places them (the `.` of a selection, the
//! `(` of a call, the operator of an operation).
//!
//! Field lookups follow the API server's type provider: a field named by a reserved word may
//! be written plain (`self.namespace`) as well as escaped (`self.__namespace__`), as servers
//! with compatibility version 1.31 or later accept.

use std::collections::{HashMap, HashSet};

use cel::common::ast::{EntryExpr, Expr, IdedExpr, LiteralValue};

use super::escape::RESERVED;
use super::library::{FUNCTIONS, Overload, type_ident};
use super::types::{Bindings, Type, assignable, substitute};

/// The checker's result for one expression.
#[derive(Debug, Default)]
pub(crate) struct Checked {
    /// The type of every node, by expression id.
    pub(crate) types: HashMap<u64, Type>,
    /// The overloads a call node resolved to, by expression id.
    pub(crate) overloads: HashMap<u64, Vec<&'static str>>,
    /// Calls the checker resolved as a namespaced function (`optional.of`, `sets.contains`):
    /// their target is part of the name, not a value.
    pub(crate) qualified: HashMap<u64, String>,
    /// Expressions already checked ahead of their place (a `map` step's element), by id.
    pub(crate) checked_ahead: HashSet<u64>,
    /// Calls that are comprehension macros the parser left unexpanded (two-variable forms,
    /// `sortBy`, `optMap`), by expression id.
    pub(crate) macros: HashSet<u64>,
    /// `(expression id, message)`, in the order found.
    pub(crate) errors: Vec<(u64, String)>,
}

/// The variables a rule sees: `self`, and `oldSelf` (optional when `optionalOldSelf` is set).
pub(crate) struct Variables {
    pub(crate) this: Type,
    pub(crate) old_self: Type,
}

/// Type-checks `e`.
pub(crate) fn check(e: &IdedExpr, vars: &Variables) -> Checked {
    let mut c = Checker { vars, scopes: Vec::new(), out: Checked::default() };
    c.check(e);
    c.out
}

/// Protobuf's well-known types other than `Duration` and `Timestamp`.
const WELL_KNOWN: &[&str] = &[
    "Any",
    "Value",
    "Struct",
    "ListValue",
    "BoolValue",
    "BytesValue",
    "DoubleValue",
    "FloatValue",
    "Int32Value",
    "Int64Value",
    "StringValue",
    "UInt32Value",
    "UInt64Value",
];

/// The comprehension macros the parser leaves as calls: the two-variable forms (Kubernetes
/// 1.32+) and the lists extension's `sortBy`.
fn two_variable_macro(name: &str, args: usize) -> bool {
    matches!(
        (name, args),
        ("all" | "exists" | "existsOne" | "exists_one", 3)
            | ("transformList" | "transformMap" | "transformMapEntry", 3 | 4)
            | ("sortBy" | "optMap" | "optFlatMap", 2)
    )
}

struct Checker<'v> {
    vars: &'v Variables,
    scopes: Vec<(String, Type)>,
    out: Checked,
}

impl Checker<'_> {
    fn check(&mut self, e: &IdedExpr) -> Type {
        if self.out.checked_ahead.contains(&e.id)
            && let Some(t) = self.out.types.get(&e.id)
        {
            return t.clone();
        }
        let t = match &e.expr {
            Expr::Literal(lit) => literal_type(lit),
            Expr::Ident(name) => self.ident(e.id, name),
            Expr::Select(s)
                if !s.test
                    && let Some((name, t)) = self.qualified_type(e) =>
            {
                self.out.qualified.insert(e.id, name);
                Type::Meta(Box::new(t))
            }
            Expr::Select(s) => {
                let operand = self.check(&s.operand);
                let field = self.select(e.id, &operand, &s.field);
                if s.test { Type::Bool } else { field }
            }
            Expr::Call(call) => self.call(e, call),
            Expr::Comprehension(comp) => self.comprehension(e.id, comp),
            Expr::List(list) => {
                let mut elem: Option<Type> = None;
                for (i, item) in list.elements.iter().enumerate() {
                    let mut t = self.check(item);
                    if list.optional_indices.contains(&i) {
                        t = match t {
                            Type::Optional(inner) => *inner,
                            other => other,
                        };
                    }
                    elem = Some(join(elem, t));
                }
                Type::List(Box::new(elem.unwrap_or(Type::Free)))
            }
            Expr::Map(map) => {
                let (mut key, mut value): (Option<Type>, Option<Type>) = (None, None);
                for entry in &map.entries {
                    if let EntryExpr::MapEntry(me) = &entry.expr {
                        let k = self.check(&me.key);
                        key = Some(join(key, k));
                        let mut v = self.check(&me.value);
                        if me.optional
                            && let Type::Optional(inner) = v
                        {
                            v = *inner;
                        }
                        value = Some(join(value, v));
                    }
                }
                Type::Map(Box::new(key.unwrap_or(Type::Free)), Box::new(value.unwrap_or(Type::Free)))
            }
            Expr::Struct(s) => {
                self.error(e.id, format!("undeclared reference to '{}' (in container '')", s.type_name));
                Type::Error
            }
            Expr::Unspecified => Type::Error,
        };
        self.out.types.insert(e.id, t.clone());
        t
    }

    /// A comprehension the parser expanded (`all`, `exists`, `exists_one`, `map`, `filter`).
    fn comprehension(&mut self, id: u64, comp: &cel::common::ast::ComprehensionExpr) -> Type {
        let range = self.check(&comp.iter_range);
        if comp.iter_var == "__result__" {
            self.error(id, "iteration variable overwrites accumulator variable".into());
        }
        let (var, (first, second)) = self.range_vars(comp.iter_range.id, &range);
        let mut accu = self.check(&comp.accu_init);
        let bound = match &comp.iter_var2 {
            Some(name2) => {
                self.scopes.push((comp.iter_var.clone(), first));
                self.scopes.push((name2.clone(), second));
                2
            }
            None => {
                self.scopes.push((comp.iter_var.clone(), var));
                1
            }
        };
        // `[]` accumulates `acc + [x]`: its element type is that of `x` (cel-go gives the
        // literal a type parameter the step binds).
        let empty_list = matches!(&comp.accu_init.expr, Expr::List(l) if l.elements.is_empty());
        if empty_list && let Some(x) = appended(&comp.loop_step, &comp.accu_var) {
            self.scopes.push((comp.accu_var.clone(), accu.clone()));
            accu = Type::List(Box::new(self.check(x)));
            self.scopes.pop();
            // Checked once: nested `map`s would otherwise be checked twice per level.
            self.out.checked_ahead.insert(x.id);
        }
        self.scopes.push((comp.accu_var.clone(), accu));
        self.check(&comp.loop_cond);
        self.check(&comp.loop_step);
        let accu = self.scopes.pop().map(|(_, t)| t).unwrap_or(Type::Dyn);
        for _ in 0..bound {
            self.scopes.pop();
        }
        self.scopes.push((comp.accu_var.clone(), accu));
        let result = self.check(&comp.result);
        self.scopes.pop();
        result
    }

    fn error(&mut self, id: u64, message: String) {
        self.out.errors.push((id, message));
    }

    fn lookup(&self, name: &str) -> Option<Type> {
        if let Some((_, t)) = self.scopes.iter().rev().find(|(n, _)| n == name) {
            return Some(t.clone());
        }
        match name {
            "self" => Some(self.vars.this.clone()),
            "oldSelf" => Some(self.vars.old_self.clone()),
            _ => None,
        }
    }

    fn ident(&mut self, id: u64, written: &str) -> Type {
        // `.self`: a name from the root scope.
        let name = written.strip_prefix('.').unwrap_or(written);
        if let Some(t) = self.lookup(name) {
            return t;
        }
        if let Some(t) = type_ident(name) {
            return Type::Meta(Box::new(t));
        }
        let name = written;
        self.error(id, format!("undeclared reference to '{name}' (in container '')"));
        Type::Error
    }

    /// The type of `operand.field`.
    fn select(&mut self, id: u64, operand: &Type, field: &str) -> Type {
        match operand {
            // Selecting on an optional value gives an optional (cel-go's optional chaining).
            Type::Optional(inner) => {
                let t = self.select(id, inner, field);
                if t == Type::Error { t } else { Type::Optional(Box::new(t)) }
            }
            Type::Object(obj) => {
                let decl = obj
                    .0
                    .field(field)
                    .or_else(|| RESERVED.contains(&field).then(|| obj.0.field(&format!("__{field}__"))).flatten());
                match decl {
                    Some(d) => d.cel_type(),
                    None => {
                        self.error(id, format!("undefined field '{field}'"));
                        Type::Error
                    }
                }
            }
            Type::Map(_, value) => (**value).clone(),
            t if t.is_dyn() => Type::Dyn,
            // The Kubernetes library's object types have no fields the checker can resolve.
            Type::Opaque(
                name @ ("kubernetes.URL" | "kubernetes.Quantity" | "kubernetes.Semver" | "kubernetes.NamedFormat"),
            ) => {
                self.error(id, format!("unexpected failed resolution of '{name}'"));
                Type::Error
            }
            other => {
                self.error(id, format!("type '{other}' does not support field selection"));
                Type::Error
            }
        }
    }

    /// The iteration variable types for a range: one-variable, then two-variable.
    fn range_vars(&mut self, id: u64, range: &Type) -> (Type, (Type, Type)) {
        match range {
            Type::List(e) => ((**e).clone(), (Type::Int, (**e).clone())),
            Type::Map(k, v) => ((**k).clone(), ((**k).clone(), (**v).clone())),
            t if t.is_dyn() => (Type::Dyn, (Type::Dyn, Type::Dyn)),
            other => {
                self.error(
                    id,
                    format!(
                        "expression of type '{other}' cannot be range of a comprehension (must be list, map, or dynamic)"
                    ),
                );
                (Type::Dyn, (Type::Dyn, Type::Dyn))
            }
        }
    }

    fn call(&mut self, e: &IdedExpr, call: &cel::common::ast::CallExpr) -> Type {
        let name = call.func_name.as_str();
        if name == "_?._" {
            let operand = self.check(&call.args[0]);
            self.check(&call.args[1]);
            let field = match &call.args[1].expr {
                Expr::Literal(LiteralValue::String(s)) => s.inner().to_string(),
                _ => String::new(),
            };
            let inner = match operand {
                Type::Optional(t) => *t,
                t => t,
            };
            let t = self.select(e.id, &inner, &field);
            self.out.overloads.insert(e.id, vec!["select_optional_field"]);
            return if t == Type::Error { t } else { Type::Optional(Box::new(t)) };
        }
        let bound_variables = if matches!(name, "sortBy" | "optMap" | "optFlatMap") { 1 } else { 2 };
        if let Some(target) = &call.target
            && two_variable_macro(name, call.args.len())
            && call.args[..bound_variables].iter().all(|a| matches!(a.expr, Expr::Ident(_)))
        {
            self.out.macros.insert(e.id);
            return self.macro_call(e.id, target, name, &call.args);
        }
        // `ns.fn(...)`: a namespaced function when `ns` is not a variable.
        if let Some(target) = &call.target
            && let Expr::Ident(ns) = &target.expr
            && self.lookup(ns).is_none()
        {
            let qualified = format!("{ns}.{name}");
            if FUNCTIONS.contains_key(qualified.as_str()) {
                self.out.qualified.insert(e.id, qualified.clone());
                let args: Vec<Type> = call.args.iter().map(|a| self.check(a)).collect();
                return self.resolve(e.id, &qualified, false, args);
            }
        }
        if matches!(name, "_&&_" | "_||_") && call.target.is_none() {
            for a in &call.args {
                let t = self.check(a);
                self.expect_bool(a.id, &t);
            }
            let id = if name == "_&&_" { "logical_and" } else { "logical_or" };
            self.out.overloads.insert(e.id, vec![id]);
            return Type::Bool;
        }
        let mut args = Vec::new();
        if let Some(target) = &call.target {
            args.push(self.check(target));
        }
        args.extend(call.args.iter().map(|a| self.check(a)));
        // Indexing an optional list or map gives an optional.
        if matches!(name, "_[_]" | "_[?_]")
            && let Some(Type::Optional(inner)) = args.first().cloned()
        {
            args[0] = *inner;
            let t = self.resolve(e.id, name, false, args);
            // The index of an optional has no schema path: cel-go resolves it to the optional
            // overloads, which the size estimate does not follow.
            if let Some(ids) = self.out.overloads.get_mut(&e.id) {
                for id in ids.iter_mut() {
                    *id = match *id {
                        "index_list" => "optional_list_index",
                        "index_map" => "optional_map_index",
                        other => other,
                    };
                }
            }
            return match t {
                Type::Error | Type::Optional(_) => t,
                t => Type::Optional(Box::new(t)),
            };
        }
        self.resolve(e.id, name, call.target.is_some(), args)
    }

    /// cel-go's check of a logical operand: `expected type 'bool' but found 'int'`.
    fn expect_bool(&mut self, id: u64, t: &Type) {
        if *t != Type::Bool && !t.is_dyn() {
            self.error(id, format!("expected type 'bool' but found '{t}'"));
        }
    }

    /// `google.protobuf.Duration` and other dotted type names, when the first name is no
    /// variable.
    fn qualified_type(&self, e: &IdedExpr) -> Option<(String, Type)> {
        let mut parts = Vec::new();
        let mut cur = e;
        loop {
            match &cur.expr {
                Expr::Select(s) if !s.test => {
                    parts.push(s.field.as_str());
                    cur = &s.operand;
                }
                Expr::Ident(root) => {
                    if self.lookup(root).is_some() {
                        return None;
                    }
                    parts.push(root.as_str());
                    break;
                }
                _ => return None,
            }
        }
        parts.reverse();
        let name = parts.join(".");
        match type_ident(&name) {
            Some(t) => Some((name, t)),
            // Other well-known protobuf types check, but the program cannot be built with them.
            None if name.strip_prefix("google.protobuf.").is_some_and(|t| WELL_KNOWN.contains(&t)) => {
                Some((name, Type::Dyn))
            }
            None => None,
        }
    }

    /// Picks the overloads of `name` that accept `args` (the receiver first for member calls).
    fn resolve(&mut self, id: u64, name: &str, member: bool, args: Vec<Type>) -> Type {
        let Some(overloads) = FUNCTIONS.get(name).map(|v| v.as_slice()).or(extra_overloads(name)) else {
            self.error(id, format!("undeclared reference to '{name}' (in container '')"));
            return Type::Error;
        };
        let mut results: Vec<Type> = Vec::new();
        let mut ids = Vec::new();
        for o in overloads.iter().filter(|o| o.member == member && o.params.len() == args.len()) {
            let mut b = Bindings::new();
            if o.params.iter().zip(&args).all(|(p, a)| assignable(p, a, &mut b)) {
                ids.push(o.id);
                results.push(substitute(&o.result, &b));
            }
        }
        if results.is_empty() {
            let shown: Vec<String> = args.iter().map(ToString::to_string).collect();
            let applied = if member {
                format!("{}.({})", shown[0], shown[1..].join(", "))
            } else {
                format!("({})", shown.join(", "))
            };
            self.error(id, format!("found no matching overload for '{name}' applied to '{applied}'"));
            return Type::Error;
        }
        self.out.overloads.insert(id, ids);
        let first = results[0].clone();
        if results.iter().all(|r| *r == first) { first } else { Type::Dyn }
    }

    /// The comprehension macros the parser does not expand.
    fn macro_call(&mut self, id: u64, target: &IdedExpr, name: &str, args: &[IdedExpr]) -> Type {
        let range = self.check(target);
        let var = |a: &IdedExpr| match &a.expr {
            Expr::Ident(n) => n.clone(),
            _ => String::new(),
        };
        if matches!(name, "optMap" | "optFlatMap") {
            let inner = match &range {
                Type::Optional(t) => (**t).clone(),
                _ => Type::Dyn,
            };
            self.scopes.push((var(&args[0]), inner));
            let t = self.check(&args[1]);
            self.scopes.pop();
            return if name == "optMap" { Type::Optional(Box::new(t)) } else { t };
        }
        let (single, (first, second)) = self.range_vars(target.id, &range);
        if name == "sortBy" {
            self.scopes.push((var(&args[0]), single));
            let key = self.check(&args[1]);
            self.scopes.pop();
            let comparable = [
                Type::Int,
                Type::Uint,
                Type::Double,
                Type::Bool,
                Type::String,
                Type::Bytes,
                Type::Duration,
                Type::Timestamp,
            ];
            if !key.is_dyn() && !comparable.contains(&key) {
                self.error(
                    id,
                    format!(
                        "found no matching overload for '@sortByAssociatedKeys' applied to '{range}.(list({key}))'"
                    ),
                );
                return Type::Error;
            }
            return range;
        }
        if var(&args[0]) == var(&args[1]) {
            self.error(args[1].id, format!("duplicate variable name: {}", var(&args[1])));
            return Type::Error;
        }
        self.scopes.push((var(&args[0]), first.clone()));
        self.scopes.push((var(&args[1]), second));
        let mut last = Type::Dyn;
        let mut bad_filter = None;
        let body = &args[2..];
        for (i, a) in body.iter().enumerate() {
            last = self.check(a);
            let is_filter = i + 1 < body.len();
            if is_filter && last != Type::Bool && !last.is_dyn() {
                bad_filter = Some(last.clone());
            } else if matches!(name, "all" | "exists") {
                self.expect_bool(a.id, &last);
            } else if matches!(name, "existsOne" | "exists_one") && last != Type::Bool && !last.is_dyn() {
                self.error(a.id, format!("found no matching overload for '_?_:_' applied to '({last}, int, int)'"));
            }
        }
        self.scopes.pop();
        self.scopes.pop();
        let result = match name {
            "transformList" => Type::List(Box::new(last)),
            "transformMap" => Type::Map(Box::new(first), Box::new(last)),
            "transformMapEntry" => match last {
                m @ Type::Map(..) => m,
                t if t.is_dyn() => Type::Map(Box::new(Type::Dyn), Box::new(Type::Dyn)),
                t => {
                    self.error(
                        id,
                        format!("found no matching overload for 'cel.@mapInsert' applied to '(map(dyn, dyn), {t})'"),
                    );
                    return Type::Error;
                }
            },
            _ => Type::Bool,
        };
        // The filter of a four-argument transform guards `p ? insert : acc`.
        if let Some(filter) = bad_filter {
            self.error(
                id,
                format!("found no matching overload for '_?_:_' applied to '({filter}, {result}, {result})'"),
            );
            return Type::Error;
        }
        result
    }
}

/// Ordering operators, generated: every orderable type with itself, and the numeric types
/// with each other (cross-type numeric comparisons, Kubernetes 1.28+).
fn extra_overloads(name: &str) -> Option<&'static [Overload]> {
    static ORDERING: std::sync::LazyLock<HashMap<&'static str, Vec<Overload>>> = std::sync::LazyLock::new(|| {
        let ops = [("_<_", "less"), ("_<=_", "less_equals"), ("_>_", "greater"), ("_>=_", "greater_equals")];
        let same = [
            (Type::Bool, "bool"),
            (Type::Int, "int64"),
            (Type::Uint, "uint64"),
            (Type::Double, "double"),
            (Type::String, "string"),
            (Type::Bytes, "bytes"),
            (Type::Timestamp, "timestamp"),
            (Type::Duration, "duration"),
        ];
        let numeric = [(Type::Int, "int64"), (Type::Uint, "uint64"), (Type::Double, "double")];
        let mut out: HashMap<&'static str, Vec<Overload>> = HashMap::new();
        for (op, prefix) in ops {
            let list = out.entry(op).or_default();
            for (t, suffix) in &same {
                let id: &'static str = Box::leak(format!("{prefix}_{suffix}").into_boxed_str());
                list.push(Overload { id, member: false, params: vec![t.clone(), t.clone()], result: Type::Bool });
            }
            for (a, an) in &numeric {
                for (b, bn) in &numeric {
                    if a != b {
                        let id: &'static str = Box::leak(format!("{prefix}_{an}_{bn}").into_boxed_str());
                        list.push(Overload {
                            id,
                            member: false,
                            params: vec![a.clone(), b.clone()],
                            result: Type::Bool,
                        });
                    }
                }
            }
        }
        out
    });
    ORDERING.get(name).map(Vec::as_slice)
}

/// The element type of a literal list or map: the one type all elements share, else `dyn`
/// (mixed literals are reported by the homogeneous-literal validator).
fn join(so_far: Option<Type>, t: Type) -> Type {
    match so_far {
        None => t,
        Some(prev) if prev == t => prev,
        Some(prev) if prev.equivalent(&t) => {
            if prev.has_free() {
                t
            } else {
                prev
            }
        }
        Some(_) => Type::Dyn,
    }
}

/// `x` in a comprehension step `acc + [x]` (possibly under `p ? … : acc`).
fn appended<'e>(step: &'e IdedExpr, accu: &str) -> Option<&'e IdedExpr> {
    let Expr::Call(call) = &step.expr else { return None };
    match call.func_name.as_str() {
        "_+_" if call.args.len() == 2 && matches!(&call.args[0].expr, Expr::Ident(n) if n == accu) => {
            match &call.args[1].expr {
                Expr::List(l) if l.elements.len() == 1 => Some(&l.elements[0]),
                _ => None,
            }
        }
        "_?_:_" if call.args.len() == 3 => appended(&call.args[1], accu),
        _ => None,
    }
}

fn literal_type(lit: &LiteralValue) -> Type {
    match lit {
        LiteralValue::Boolean(_) => Type::Bool,
        LiteralValue::Bytes(_) => Type::Bytes,
        LiteralValue::Double(_) => Type::Double,
        LiteralValue::Int(_) => Type::Int,
        LiteralValue::Null => Type::Null,
        LiteralValue::String(_) => Type::String,
        LiteralValue::UInt(_) => Type::Uint,
    }
}
