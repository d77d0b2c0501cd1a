//! Costs and type errors measured on kube-apiserver (cel-cost-and-types.md §5.7, §6 and §7).

use serde_json::{Value, json};

use super::{check, cost, decl, parse, types::Type, validate};

/// `(estimated cost, checker errors)` of `rule` on a node with `schema`.
fn compile(schema: Value, rule: &str) -> (u64, Vec<String>) {
    let decl = decl::declare(schema.as_object().unwrap(), false, "selfType").unwrap();
    let (parsed, _) = parse(rule).unwrap();
    let this = decl.cel_type();
    let vars = check::Variables { this: this.clone(), old_self: this };
    let checked = check::check(&parsed, &vars);
    let mut errors: Vec<String> = checked.errors.iter().map(|(_, m)| m.clone()).collect();
    if errors.is_empty() {
        let mut problems = Vec::new();
        validate::validate(&parsed, &checked, &mut problems);
        errors.extend(problems.into_iter().map(|p| match p {
            validate::Problem::Issue(_, m) | validate::Problem::Instantiation(m) => m,
        }));
    }
    (cost::estimate(&parsed, &checked, &decl).0.max, errors)
}

fn cost_of(schema: Value, rule: &str) -> u64 {
    let (cost, errors) = compile(schema, rule);
    assert!(errors.is_empty(), "{rule}: {errors:?}");
    cost
}

#[test]
fn parses() {
    assert!(parse("self.a <= self.b && has(self.c)").is_ok());
    assert!(parse("self.?a.orValue(1) > 0").is_ok());
    assert!(parse("self.x.all(i, i.y > 0)").is_ok());
    assert!(parse("self.a >").is_err());
    assert!(parse("has(self)").is_err());
}

#[test]
fn measured_costs() {
    let attempts = json!({"type": "object", "properties": {"attempts": {"type": "integer"}}});
    assert_eq!(cost_of(attempts.clone(), "self.attempts < 10"), 3);
    assert_eq!(cost_of(attempts.clone(), "'invalid: ' + string(self.attempts) != ''"), 1_844_674_407_370_955_267);
    let s10 = json!({"type": "string", "maxLength": 10});
    assert_eq!(cost_of(s10.clone(), "self.contains('test')"), 5);
    assert_eq!(cost_of(s10.clone(), "self.size() < 5"), 3);
    assert_eq!(cost_of(s10, "self.lowerAscii() == 'a'"), 6);
    assert_eq!(cost_of(json!({"type": "string", "enum": ["abc", "de"]}), "self.matches('^[a-z]+$')"), 3);
    let list = json!({"type": "array", "maxItems": 10, "items": {"type": "string", "maxLength": 5}});
    for (rule, cost) in [
        ("self.isSorted()", 31),
        ("self.indexOf('a') >= 0", 32),
        ("'a' in self", 11),
        ("self.exists(x, x == 'a')", 62),
        ("sets.contains(self, ['a'])", 22),
        ("self.join(',').size() < 100", 24),
        ("self.map(x, x + 'y').size() > 0", 174),
        ("self.filter(x, x == 'a').size() > 0", 164),
    ] {
        assert_eq!(cost_of(list.clone(), rule), cost, "{rule}");
    }
    let map = json!({"type": "object", "additionalProperties": {"type": "string", "maxLength": 1}});
    assert_eq!(cost_of(map, "self.all(k, k.matches('^a+$'))"), 1_966_077);
    let date_time = json!({"type": "string", "format": "date-time"});
    assert_eq!(cost_of(date_time, "string(self).matches('Z$')"), 1_844_674_407_370_955_266);
    let unbounded = json!({"type": "array", "items": {"type": "string"}});
    assert_eq!(cost_of(unbounded.clone(), "self.all(x, true)"), 3_145_727);
    assert_eq!(cost_of(unbounded, "self.all(x, self.exists_one(y, y == x))"), 345_880_409_621_712_077);
    let bounded = json!({"type": "array", "maxItems": 100, "items": {"type": "string", "maxLength": 64}});
    assert_eq!(cost_of(bounded, "self.all(x, self.exists_one(y, y == x))"), 300_602);
    let s64 = json!({"type": "string", "maxLength": 64});
    assert_eq!(cost_of(s64.clone(), "self.matches('^[a-z]+$')"), 53);
    assert_eq!(cost_of(s64, "matches(self, '^[a-z]+$')"), 53);
}

#[test]
fn measured_type_errors() {
    let obj = json!({"type": "object", "properties": {
        "name": {"type": "string"},
        "items": {"type": "array", "items": {"type": "object", "properties": {"n": {"type": "integer"}}}},
        "tmpl": {"type": "object", "properties": {"metadata": {"type": "object"}}},
        "namespace": {"type": "string"},
        "opt": {"type": "string", "nullable": true},
    }});
    let errors = |rule: &str| compile(obj.clone(), rule).1;
    assert_eq!(errors("self.items.all(t, t.nope > 0)"), ["undefined field 'nope'"]);
    assert_eq!(errors("has(self.tmpl.metadata.foo)"), ["undefined field 'foo'"]);
    assert_eq!(errors("self.namespace == 'a' && self.__namespace__ == 'a'"), Vec::<String>::new());
    assert_eq!(errors("self.opt == null"), ["found no matching overload for '_==_' applied to '(string, null)'"]);
    assert_eq!(
        errors("self.name.startsWith(1)"),
        ["found no matching overload for 'startsWith' applied to 'string.(int)'"]
    );
    assert_eq!(errors("self.name.foo == 1"), ["type 'string' does not support field selection"]);
    assert_eq!(
        errors("self.items.size().all(x, true)"),
        ["expression of type 'int' cannot be range of a comprehension (must be list, map, or dynamic)"]
    );
    assert_eq!(errors("[1, 'a'].size() > 0"), ["expected type 'int' but found 'string'"]);
    assert_eq!(errors("nope > 0"), ["undeclared reference to 'nope' (in container '')"]);
    assert_eq!(errors("self.items.all(i, v, v.n > i)"), Vec::<String>::new());
    assert_eq!(errors("self.?name.orValue('') == ''"), Vec::<String>::new());
    let (_, e) = compile(json!({"x-kubernetes-int-or-string": true}), "type(self) == int ? self < 5 : self == '5%'");
    assert!(e.is_empty(), "{e:?}");
    let decl = decl::declare(obj.as_object().unwrap(), false, "selfType").unwrap();
    assert!(matches!(decl.cel_type(), Type::Object(_)));
}
