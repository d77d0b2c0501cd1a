//! The static cost estimate of a checked rule, as kube-apiserver computes it when a CRD is
//! written: cel-go's `checker/cost.go` over the checked expression, with the Kubernetes
//! library estimator (k8s.io/apiserver `pkg/cel/library/cost.go`) and a size estimator that
//! reads `maxLength`, `maxItems`, `maxProperties` and `enum` bounds from the schema
//! (apiextensions `schema/cel/compilation.go`). Only the estimate's maximum is enforced.
//!
//! Sizes travel by *path*: `self.spec.items` is the path `self, spec, items`, an index or a
//! comprehension variable appends `@items`, `@values`, `@keys` or `@indices`, and the size of a
//! path is the `MaxElements` of the schema node it reaches from the rule's node.

use std::collections::{BTreeSet, HashMap};

use cel::common::ast::{EntryExpr, Expr, IdedExpr, LiteralValue};

use super::check::Checked;
use super::types::Decl;
use super::types::Type;

/// A `{min, max}` range of costs or sizes; arithmetic saturates at `u64::MAX`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Range {
    pub(crate) min: u64,
    pub(crate) max: u64,
}

const UNKNOWN: Range = Range { min: 0, max: u64::MAX };
const ONE: Range = Range { min: 1, max: 1 };
/// `StringTraversalCostFactor`.
const TRAVERSAL: f64 = 0.1;
/// `RegexStringLengthCostFactor`.
const REGEX: f64 = 0.25;

impl Range {
    fn fixed(v: u64) -> Range {
        Range { min: v, max: v }
    }

    fn add(self, o: Range) -> Range {
        Range { min: self.min.saturating_add(o.min), max: self.max.saturating_add(o.max) }
    }

    fn mul(self, o: Range) -> Range {
        Range { min: self.min.saturating_mul(o.min), max: self.max.saturating_mul(o.max) }
    }

    fn union(self, o: Range) -> Range {
        Range { min: self.min.min(o.min), max: self.max.max(o.max) }
    }

    /// `MultiplyByCostFactor`: `ceil(x × factor)` in `f64`, saturating the way Go does.
    fn factor(self, f: f64) -> Range {
        Range { min: by_factor(self.min, f), max: by_factor(self.max, f) }
    }
}

fn by_factor(x: u64, y: f64) -> u64 {
    let xf = x as f64;
    if xf > 0.0 && y > 0.0 && xf > u64::MAX as f64 / y {
        return u64::MAX;
    }
    let ceil = (xf * y).ceil();
    if ceil >= 18_446_744_073_709_551_616.0 { u64::MAX } else { ceil as u64 }
}

/// The estimated cost of `e`, checked as `checked`, for a rule on the node declared `root`, and
/// the unbounded nodes (location relative to `root`, keyword) whose size it assumed.
pub(crate) fn estimate(e: &IdedExpr, checked: &Checked, root: &Decl) -> (Range, BTreeSet<(String, &'static str)>) {
    estimate_with(e, checked, root, UNKNOWN)
}

/// [`estimate`], with `unknown` as the size of a value whose size the schema does not give
/// (`string(x)`, a list a rule builds); the API server takes it as unbounded.
pub(crate) fn estimate_with(
    e: &IdedExpr,
    checked: &Checked,
    root: &Decl,
    unknown: Range,
) -> (Range, BTreeSet<(String, &'static str)>) {
    let mut c = Coster {
        checked,
        root,
        unknown,
        paths: HashMap::new(),
        sizes: HashMap::new(),
        locals: Vec::new(),
        unbounded: BTreeSet::new(),
    };
    let cost = c.cost(e);
    (cost, c.unbounded)
}

struct Local {
    name: String,
    path: Option<Vec<String>>,
    size: Option<Range>,
}

struct Coster<'a> {
    checked: &'a Checked,
    root: &'a Decl,
    /// The size of a value of unknown size.
    unknown: Range,
    paths: HashMap<u64, Vec<String>>,
    sizes: HashMap<u64, Range>,
    locals: Vec<Local>,
    unbounded: BTreeSet<(String, &'static str)>,
}

impl Coster<'_> {
    fn ty(&self, e: &IdedExpr) -> Option<&Type> {
        self.checked.types.get(&e.id)
    }

    fn local(&self, name: &str) -> Option<&Local> {
        self.locals.iter().rev().find(|l| l.name == name)
    }

    fn path(&self, e: &IdedExpr) -> Option<Vec<String>> {
        if let Expr::Ident(name) = &e.expr
            && let Some(l) = self.local(name)
        {
            return l.path.clone();
        }
        self.paths.get(&e.id).cloned()
    }

    /// The path handed to estimators: accumulator variables have none.
    fn node_path(&self, e: &IdedExpr) -> Option<Vec<String>> {
        self.path(e).filter(|p| !p.first().is_some_and(|f| f == "@result" || f == "@__result__"))
    }

    /// The schema bound at `path` (its first element is the variable, skipped).
    fn estimate_size(&mut self, path: &[String]) -> Option<Range> {
        if path.is_empty() {
            return None;
        }
        let mut node = self.root;
        for step in &path[1..] {
            node = match step.as_str() {
                "@items" | "@values" => node.element()?,
                // Map keys are the shared `string` declaration, whose size is 0.
                "@keys" if matches!(node.kind, super::types::DeclKind::Map(_)) => return Some(Range::fixed(0)),
                "@keys" => return None,
                other => node.field(other)?,
            };
        }
        if let Some(keyword) = node.unbounded {
            self.unbounded.insert((node.location.clone(), keyword));
        }
        Some(Range { min: 0, max: node.max_elements })
    }

    fn compute_size(&mut self, e: &IdedExpr) -> Option<Range> {
        if let Some(s) = self.sizes.get(&e.id) {
            return Some(*s);
        }
        if let Some(s) = literal_size(e) {
            return Some(s);
        }
        if let Some(path) = self.path(e)
            && let Some(s) = self.estimate_size(&path)
        {
            self.sizes.insert(e.id, s);
            return Some(s);
        }
        if self.ty(e).is_some_and(Type::is_sized_scalar) {
            return Some(ONE);
        }
        if let Expr::Ident(name) = &e.expr {
            return self.local(name).and_then(|l| l.size);
        }
        None
    }

    fn size(&mut self, e: &IdedExpr) -> Range {
        self.compute_size(e).unwrap_or(self.unknown)
    }

    /// The size an estimator sees for a node: computed, else from its path.
    fn node_size(&mut self, e: &IdedExpr) -> Range {
        if let Some(s) = self.compute_size(e) {
            return s;
        }
        self.node_path(e).and_then(|p| self.estimate_size(&p)).unwrap_or(self.unknown)
    }

    fn cost(&mut self, e: &IdedExpr) -> Range {
        match &e.expr {
            Expr::Literal(_) | Expr::Unspecified => Range::default(),
            Expr::Ident(name) => {
                let path = match self.local(name) {
                    Some(l) => l.path.clone(),
                    None => Some(vec![name.clone()]),
                };
                if let Some(p) = path {
                    self.paths.insert(e.id, p);
                }
                ONE
            }
            // A dotted type name (`google.protobuf.Duration`) is one identifier to cel-go.
            Expr::Select(_) if self.checked.qualified.contains_key(&e.id) => {
                self.paths.insert(e.id, vec![self.checked.qualified[&e.id].clone()]);
                ONE
            }
            Expr::Select(s) => {
                let operand = self.cost(&s.operand);
                if s.test {
                    return operand;
                }
                let extra = match self.ty(&s.operand) {
                    Some(Type::Map(..) | Type::Object(_) | Type::Param(_)) => ONE,
                    _ => Range::default(),
                };
                let mut p = self.path(&s.operand).unwrap_or_default();
                p.push(s.field.clone());
                self.paths.insert(e.id, p);
                operand.add(extra)
            }
            Expr::Call(call) => self.call(e, call),
            Expr::List(list) => {
                let mut sum = Range::default();
                for item in &list.elements {
                    sum = sum.add(self.cost(item));
                }
                sum.add(Range::fixed(10))
            }
            Expr::Map(map) => {
                let mut sum = Range::default();
                for entry in &map.entries {
                    if let EntryExpr::MapEntry(me) = &entry.expr {
                        sum = sum.add(self.cost(&me.key)).add(self.cost(&me.value));
                    }
                }
                sum.add(Range::fixed(30))
            }
            Expr::Struct(s) => {
                let mut sum = Range::default();
                for entry in &s.entries {
                    if let EntryExpr::StructField(f) = &entry.expr {
                        sum = sum.add(self.cost(&f.value));
                    }
                }
                sum.add(Range::fixed(40))
            }
            Expr::Comprehension(comp) => {
                let mut sum = self.cost(&comp.iter_range).add(self.cost(&comp.accu_init));
                let accu_size = self.compute_size(&comp.accu_init);
                let accu_path = self.path(&comp.accu_init);
                self.locals.push(Local { name: comp.accu_var.clone(), path: accu_path, size: accu_size });
                let is_list = matches!(self.ty(&comp.iter_range), Some(Type::List(_)));
                let range_path = self.path(&comp.iter_range).unwrap_or_default();
                let sub = |s: &str| {
                    let mut p = range_path.clone();
                    p.push(s.to_string());
                    Some(p)
                };
                let pushed = match &comp.iter_var2 {
                    Some(second) => {
                        let key = sub(if is_list { "@indices" } else { "@keys" });
                        let value = sub(if is_list { "@items" } else { "@values" });
                        self.locals.push(Local { name: comp.iter_var.clone(), path: key, size: None });
                        self.locals.push(Local { name: second.clone(), path: value, size: None });
                        2
                    }
                    None => {
                        let p = sub(if is_list { "@items" } else { "@keys" });
                        self.locals.push(Local { name: comp.iter_var.clone(), path: p, size: None });
                        1
                    }
                };
                let loop_cost = self.cost(&comp.loop_cond);
                let step_cost = self.cost(&comp.loop_step);
                for _ in 0..pushed {
                    self.locals.pop();
                }
                sum = sum.add(self.cost(&comp.result));
                self.locals.pop();
                let count = self.size(&comp.iter_range);
                sum = sum.add(count.mul(step_cost.add(loop_cost)));
                match &comp.accu_init.expr {
                    Expr::Literal(_) => {
                        if let Some(s) = self.compute_size(&comp.accu_init) {
                            self.sizes.insert(e.id, s);
                        }
                    }
                    Expr::List(_) | Expr::Map(_) => {
                        self.sizes.insert(e.id, count);
                    }
                    _ => {}
                }
                sum
            }
        }
    }

    fn call(&mut self, e: &IdedExpr, call: &cel::common::ast::CallExpr) -> Range {
        if call.func_name == "dyn" && call.args.len() == 1 {
            let arg = self.cost(&call.args[0]);
            if let Some(s) = self.compute_size(&call.args[0]) {
                self.sizes.insert(e.id, s);
            }
            return ONE.add(arg);
        }
        if self.checked.macros.contains(&e.id)
            && let Some(target) = &call.target
        {
            return self.macro_cost(e, target, &call.func_name, &call.args);
        }
        let arg_costs: Vec<Range> = call.args.iter().map(|a| self.cost(a)).collect();
        let Some(overloads) = self.checked.overloads.get(&e.id).cloned() else {
            return Range::default();
        };
        let qualified = self.checked.qualified.get(&e.id).cloned();
        let mut sum = Range::default();
        let target = match (&call.target, &qualified) {
            (Some(t), None) => {
                sum = sum.add(self.cost(t));
                Some(t.as_ref())
            }
            _ => None,
        };
        let function = qualified.as_deref().unwrap_or(&call.func_name);
        let mut fn_cost = Range { min: u64::MAX, max: 0 };
        let mut result_size: Option<Range> = None;
        for id in &overloads {
            let (cost, size) = self.function_cost(function, id, target, &call.args, &arg_costs);
            fn_cost = fn_cost.union(cost);
            if let Some(s) = size {
                result_size = Some(result_size.map_or(s, |r| r.union(s)));
            }
            if matches!(*id, "index_list" | "index_map") && !call.args.is_empty() {
                let mut p = self.path(&call.args[0]).unwrap_or_default();
                p.push(if *id == "index_list" { "@items" } else { "@values" }.to_string());
                self.paths.insert(e.id, p);
                result_size = None;
            }
            if result_size.is_none() {
                result_size = self.compute_size(e);
            }
        }
        if let Some(s) = result_size {
            self.sizes.insert(e.id, s);
        }
        sum.add(fn_cost)
    }

    /// The unexpanded comprehension macros, priced as cel-go prices their expansions: the
    /// range, a fixed part, and per element the loop condition and step.
    fn macro_cost(&mut self, e: &IdedExpr, target: &IdedExpr, name: &str, args: &[IdedExpr]) -> Range {
        let range_cost = self.cost(target);
        let is_list = matches!(self.ty(target), Some(Type::List(_)));
        let range_path = self.path(target).unwrap_or_default();
        let sub = |s: &str| {
            let mut p = range_path.clone();
            p.push(s.to_string());
            Some(p)
        };
        let var = |a: &IdedExpr| match &a.expr {
            Expr::Ident(n) => n.clone(),
            _ => String::new(),
        };
        let vars = match (name, args.len()) {
            ("sortBy", _) => vec![(var(&args[0]), sub(if is_list { "@items" } else { "@keys" }))],
            // Bound to `t.value()`, a call: no path.
            ("optMap" | "optFlatMap", _) => vec![(var(&args[0]), None)],
            _ => vec![
                (var(&args[0]), sub(if is_list { "@indices" } else { "@keys" })),
                (var(&args[1]), sub(if is_list { "@items" } else { "@values" })),
            ],
        };
        let bound = vars.len();
        for (name, path) in vars {
            self.locals.push(Local { name, path, size: None });
        }
        let body: Vec<Range> = args[bound..].iter().map(|a| self.cost(a)).collect();
        for _ in 0..bound {
            self.locals.pop();
        }
        let n = self.size(target);
        let body_sum = body.iter().fold(Range::default(), |a, c| a.add(*c));
        // (fixed cost, per-element cost) of each expansion; see cel-cost-and-types.md §5.4.
        let (fixed, per) = match name {
            "all" => (1, body_sum.add(Range::fixed(3))),
            "exists" => (1, body_sum.add(Range::fixed(4))),
            "existsOne" | "exists_one" => (2, body_sum.add(Range::fixed(2))),
            // `acc + [f]`, under the filter when there is one.
            "transformList" => (11, body_sum.add(Range::fixed(12))),
            // `@mapInsert(acc, k, f)` into a `{}` accumulator.
            "transformMap" => (31, body_sum.add(Range::fixed(3))),
            // `@mapInsert(acc, {k: v})`.
            "transformMapEntry" => (31, body_sum.add(Range::fixed(2))),
            "sortBy" => {
                // `cel.bind(@__sortBy_input__, target,
                //   @__sortBy_input__.@sortByAssociatedKeys(@__sortBy_input__.map(e, key)))`:
                // the bind's empty range, the input twice, the keys' map, then the sort.
                // cel-go's sort estimators give the sorted list the size n² (not n).
                self.sizes.insert(e.id, n.mul(n));
                let strings = matches!(self.checked.types.get(&args[1].id), Some(Type::String | Type::Bytes));
                let factor = if strings { 2.1 } else { 2.0 };
                let sort = n.mul(n).factor(factor).add(ONE).add(Range::fixed(10));
                let keys = Range::fixed(1 + 11).add(n.mul(body_sum.add(Range::fixed(12))));
                return range_cost.add(Range::fixed(10 + 1)).add(keys).add(sort);
            }
            // `t.hasValue() ? optional.of(cel.bind(v, t.value(), f)) : optional.none()`.
            "optMap" => return range_cost.add(range_cost).add(Range::fixed(13)).add(body_sum),
            // `t.hasValue() ? cel.bind(v, t.value(), f) : optional.none()`.
            "optFlatMap" => return range_cost.add(range_cost).add(Range::fixed(12)).add(body_sum),
            _ => return range_cost.add(body_sum),
        };
        if matches!(name, "transformList" | "transformMap" | "transformMapEntry") {
            self.sizes.insert(e.id, n);
        }
        range_cost.add(Range::fixed(fixed)).add(n.mul(per))
    }

    /// One overload's cost, plus its arguments' costs, and the size of its result when known.
    fn function_cost(
        &mut self,
        function: &str,
        id: &str,
        target: Option<&IdedExpr>,
        args: &[IdedExpr],
        arg_costs: &[Range],
    ) -> (Range, Option<Range>) {
        let arg_sum = arg_costs.iter().fold(Range::default(), |a, c| a.add(*c));
        // Extension libraries' own estimators (cel-go ext.Sets, ext.Lists), by overload id.
        if let Some((cost, size)) = self.extension_cost(id, target, args) {
            return (cost.add(arg_sum), size);
        }
        // The Kubernetes library estimator, by function name.
        if let Some((cost, size)) = self.kubernetes_cost(function, id, target, args) {
            return (cost.add(arg_sum), size);
        }
        match id {
            "string_format" if target.is_some() => {
                let t = self.size(target.unwrap());
                return (t.factor(TRAVERSAL).add(arg_sum), None);
            }
            "string_to_bytes" if args.len() == 1 => {
                let s = self.size(&args[0]);
                return (s.factor(TRAVERSAL).add(arg_sum), Some(Range { min: s.min, max: s.max.saturating_mul(4) }));
            }
            "bytes_to_string" if args.len() == 1 => {
                let s = self.size(&args[0]);
                return (s.factor(TRAVERSAL).add(arg_sum), Some(Range { min: s.min / 4, max: s.max }));
            }
            "strings_quote" if args.len() == 1 => {
                let s = self.size(&args[0]);
                let size = Range { min: s.min.saturating_add(2), max: s.max.saturating_mul(2).saturating_add(2) };
                return (s.factor(TRAVERSAL).add(arg_sum), Some(size));
            }
            "starts_with_string" | "ends_with_string" if args.len() == 1 => {
                return (self.size(&args[0]).factor(TRAVERSAL).add(arg_sum), None);
            }
            "in_list" if args.len() == 2 => return (self.size(&args[1]).factor(1.0).add(arg_sum), None),
            "matches_string" | "matches" => {
                // The receiver form, and on Kubernetes 1.37 (cel-go 0.29) the global form too.
                let (text, regex) = match target {
                    Some(t) if args.len() == 1 => (t, &args[0]),
                    None if args.len() == 2 => (&args[0], &args[1]),
                    _ => return (ONE.add(arg_sum), None),
                };
                let text = self.size(text).add(ONE).factor(TRAVERSAL);
                let regex = self.size(regex).factor(REGEX);
                return (text.mul(regex).add(arg_sum), None);
            }
            "contains_string" if target.is_some() && args.len() == 1 => {
                let text = self.size(target.unwrap()).factor(TRAVERSAL);
                let sub = self.size(&args[0]).factor(TRAVERSAL);
                return (text.mul(sub).add(arg_sum), None);
            }
            "logical_and" | "logical_or" => {
                let (l, r) = (arg_costs[0], arg_costs[1]);
                return (Range { min: l.min, max: l.add(r).max }, None);
            }
            "conditional" => {
                let size = self.size(&args[1]).union(self.size(&args[2]));
                return (arg_costs[0].add(arg_costs[1].union(arg_costs[2])), Some(size));
            }
            "add_string" | "add_bytes" | "add_list" if args.len() == 2 => {
                let size = self.size(&args[0]).add(self.size(&args[1]));
                let cost = if id == "add_list" { ONE } else { size.factor(TRAVERSAL) };
                return (cost.add(arg_sum), Some(size));
            }
            _ => {}
        }
        let comparison = matches!(id, "equals" | "not_equals")
            || (id.ends_with("_string") || id.ends_with("_bytes"))
                && ["less_", "greater_", "less_equals_", "greater_equals_"].iter().any(|p| id.starts_with(p));
        if comparison && args.len() == 2 {
            let (l, r) = (self.size(&args[0]), self.size(&args[1]));
            let smallest = l.max.min(r.max);
            let range = Range { min: u64::from(smallest > 0), max: smallest };
            return (range.factor(TRAVERSAL).add(arg_sum), None);
        }
        (ONE.add(arg_sum), None)
    }

    /// cel-go's ext.Sets and ext.Lists estimators.
    fn extension_cost(
        &mut self,
        id: &str,
        target: Option<&IdedExpr>,
        args: &[IdedExpr],
    ) -> Option<(Range, Option<Range>)> {
        let allocating = |factor: f64, size: Range| (size.factor(factor).add(ONE).add(Range::fixed(10)), Some(size));
        match id {
            "list_sets_contains_list" | "list_sets_intersects_list" | "list_sets_equivalent_list"
                if args.len() == 2 =>
            {
                let factor = if id == "list_sets_equivalent_list" { 2.0 } else { 1.0 };
                let (a, b) = (self.node_size(&args[0]), self.node_size(&args[1]));
                Some((a.mul(b).factor(factor).add(ONE), None))
            }
            "list_slice" => {
                let size = self.node_size(target?);
                let start = uint_literal(&args[0]).unwrap_or(0);
                let end = uint_literal(&args[1]).unwrap_or(size.max);
                Some(allocating(1.0, Range::fixed(end.wrapping_sub(start))))
            }
            "lists_range" => Some(allocating(1.0, Range::fixed(uint_literal(&args[0]).unwrap_or(u64::MAX)))),
            "list_reverse" => {
                let size = self.node_size(target?);
                Some(allocating(1.0, size))
            }
            "list_flatten" | "list_flatten_int" => {
                let depth = args.first().map_or(1, |a| uint_literal(a).unwrap_or(u64::MAX));
                let size = self.node_size(target?);
                Some(allocating(depth as f64, size))
            }
            "list_distinct" => {
                let size = self.node_size(target?);
                Some(allocating(2.0, size.mul(size)))
            }
            "list_sort" => {
                let t = target?;
                let size = self.node_size(t);
                let strings = matches!(self.ty(t), Some(Type::List(e)) if matches!(**e, Type::String | Type::Bytes));
                Some(allocating(if strings { 2.1 } else { 2.0 }, size.mul(size)))
            }
            _ => None,
        }
    }

    /// k8s.io/apiserver `library.CostEstimator.EstimateCallCost`, matched by function name.
    fn kubernetes_cost(
        &mut self,
        function: &str,
        id: &str,
        target: Option<&IdedExpr>,
        args: &[IdedExpr],
    ) -> Option<(Range, Option<Range>)> {
        let nominal = Some((ONE, None));
        match function {
            "isSorted" | "sum" | "max" | "min" | "indexOf" | "lastIndexOf" => {
                let t = target?;
                let list_size = self.node_size(t);
                match self.ty(t).cloned() {
                    Some(Type::List(elem)) => {
                        let mut el = ONE;
                        if matches!(*elem, Type::String | Type::Bytes) {
                            let mut p = self.node_path(t);
                            if let Some(p) = &mut p {
                                p.push("@items".into());
                            }
                            let s = p.and_then(|p| self.estimate_size(&p)).unwrap_or(self.unknown);
                            el = el.add(s.factor(TRAVERSAL));
                        }
                        Some((list_size.mul(el), None))
                    }
                    _ => Some((list_size.factor(TRAVERSAL), None)),
                }
            }
            "url" if args.len() == 1 => {
                let s = self.node_size(&args[0]);
                Some((s.factor(TRAVERSAL), Some(s)))
            }
            "lowerAscii" | "upperAscii" | "substring" | "trim" => {
                let s = self.node_size(target?);
                Some((s.factor(TRAVERSAL), Some(s)))
            }
            "replace" if target.is_some() && args.len() >= 2 => {
                let s = self.node_size(target?);
                let from = self.node_size(&args[0]);
                let with = self.node_size(&args[1]);
                let (mut count, mut kept) = (Range::default(), Range::default());
                if from.min == 0 {
                    count.max = if s.max < u64::MAX { s.max + 1 } else { s.max };
                    kept.max = s.max;
                } else if with.max <= from.min {
                    kept.max = s.max;
                } else {
                    count.max = (s.max as f64 / from.min as f64).ceil() as u64;
                }
                if from.max == 0 {
                    count.min = if s.min < u64::MAX { s.min + 1 } else { s.min };
                    kept.min = s.min;
                } else if from.max <= with.min {
                    kept.min = s.min;
                } else {
                    count.min = (s.min as f64 / from.max as f64).ceil() as u64;
                }
                Some((s.factor(2.0 * TRAVERSAL), Some(count.mul(with).add(kept))))
            }
            "split" => {
                let s = self.node_size(target?);
                let max = args.get(1).and_then(int_literal).map_or(s.max, |i| i as u64);
                Some((s.factor(2.0 * TRAVERSAL), Some(Range { min: 0, max })))
            }
            "join" => {
                let t = target?;
                let list = self.node_size(t);
                let mut p = self.node_path(t);
                if let Some(p) = &mut p {
                    p.push("@items".into());
                }
                let elem = p.and_then(|p| self.estimate_size(&p)).unwrap_or(self.unknown);
                let mut size = list.mul(elem);
                if let Some(sep) = args.first() {
                    let sep = self.node_size(sep);
                    let seps = Range { min: list.min.saturating_sub(1), max: list.max.saturating_sub(1) };
                    size = size.add(sep.mul(seps));
                }
                Some((size.factor(TRAVERSAL), Some(size)))
            }
            "find" | "findAll" if target.is_some() && !args.is_empty() => {
                let s = self.node_size(target?);
                let text = s.add(ONE).factor(TRAVERSAL);
                let regex = self.node_size(&args[0]).factor(REGEX);
                Some((text.mul(regex), Some(Range { min: 0, max: s.max })))
            }
            "cidr" | "isIP" | "isCIDR" | "quantity" | "isQuantity" | "semver" | "isSemver" if !args.is_empty() => {
                Some((self.node_size(&args[0]).factor(TRAVERSAL), None))
            }
            "ip" => {
                if id == "cidr_ip" {
                    return nominal;
                }
                Some((self.node_size(args.first()?).factor(TRAVERSAL), None))
            }
            "ip.isCanonical" => Some((self.node_size(args.first()?).factor(2.0 * TRAVERSAL), None)),
            "masked"
            | "prefixLength"
            | "family"
            | "isUnspecified"
            | "isLoopback"
            | "isLinkLocalMulticast"
            | "isLinkLocalUnicast"
            | "isGlobalUnicast" => nominal,
            "containsIP" | "containsCIDR" if !args.is_empty() => {
                let sz = Range { min: 4, max: 16 };
                let mut cost = sz.add(sz).factor(TRAVERSAL);
                if function == "containsCIDR" {
                    cost = cost.add(sz.factor(TRAVERSAL)).add(ONE);
                }
                if matches!(id, "cidr_contains_ip_string" | "cidr_contains_cidr_string") {
                    cost = cost.add(self.node_size(&args[0]).factor(TRAVERSAL));
                }
                Some((cost, None))
            }
            "validate" if !args.is_empty() => {
                Some((self.node_size(&args[0]).factor(TRAVERSAL).factor(128.0 * REGEX), None))
            }
            "format.named" | "sign" | "asInteger" | "isInteger" | "asApproximateFloat" | "isGreaterThan"
            | "isLessThan" | "compareTo" | "add" | "sub" | "major" | "minor" | "patch" | "getScheme"
            | "getHostname" | "getHost" | "getPort" | "getEscapedPath" | "getQuery" => nominal,
            "_==_" if args.len() == 2 => {
                let (l, r) = (self.ty(&args[0]).cloned(), self.ty(&args[1]).cloned());
                match (l, r) {
                    (Some(Type::Opaque(a)), Some(Type::Opaque(b))) if a == b => match a {
                        "net.IP" | "net.CIDR" | "kubernetes.Quantity" | "kubernetes.Semver" => nominal,
                        "kubernetes.NamedFormat" => Some((Range { min: 1, max: 64 }.factor(TRAVERSAL), None)),
                        "kubernetes.URL" => {
                            let s = self.compute_size(&args[1]).unwrap_or(ONE);
                            Some((Range { min: 1, max: s.max }.factor(TRAVERSAL), None))
                        }
                        _ => None,
                    },
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

fn literal_size(e: &IdedExpr) -> Option<Range> {
    let v = match &e.expr {
        Expr::Literal(LiteralValue::String(s)) => s.inner().chars().count() as u64,
        Expr::Literal(LiteralValue::Bytes(b)) => b.inner().len() as u64,
        Expr::Literal(_) => 1,
        Expr::List(l) => l.elements.len() as u64,
        Expr::Map(m) => m.entries.len() as u64,
        _ => return None,
    };
    Some(Range::fixed(v))
}

fn int_literal(e: &IdedExpr) -> Option<i64> {
    match &e.expr {
        Expr::Literal(LiteralValue::Int(i)) => Some(*i.inner()),
        _ => None,
    }
}

/// cel-go's `nodeAsUintValue`: an int literal, negative ones as 0; anything else is unknown.
fn uint_literal(e: &IdedExpr) -> Option<u64> {
    match &e.expr {
        Expr::Literal(LiteralValue::Int(i)) => Some((*i.inner()).max(0) as u64),
        _ => None,
    }
}
