//! Sample values for JSON schemas, so [`TestModel`](super::TestModel) can
//! call any tool and answer any output schema without a hand-written script.

use serde_json::{Map, Number, Value};
use std::cell::Cell;

/// Nesting beyond this yields `null`: recursive `$ref`s must end somewhere.
const MAX_DEPTH: usize = 16;

/// From this depth on only what validity demands is produced (required
/// properties, `minItems` elements), so recursive schemas such as trees
/// bottom out in valid leaves instead of in `null`s.
const SOFT_DEPTH: usize = 8;

/// Work units (one per value, one per string character) a single sample may
/// spend; bounds time and memory on hostile `minItems`/`minLength` values.
const BUDGET: usize = 100_000;

/// The most elements one array gets, whatever `minItems` says.
const MAX_ITEMS: usize = 64;

/// Keywords that do not constrain values: a `$ref` beside only these is
/// followed without building a merged schema.
const ANNOTATIONS: &[&str] = &[
    "title",
    "description",
    "$comment",
    "$schema",
    "$id",
    "$defs",
    "definitions",
    "deprecated",
    "readOnly",
    "writeOnly",
];

/// A value that satisfies `schema` in the common cases (draft 2020-12 as
/// schemars 1.x writes it, and the older drafts' spellings).
///
/// Preference: `const`, then `enum` (its first non-null value), `default`,
/// `examples[0]`, then a value built from the type: `$ref`s (`#`, `#/$defs/…`,
/// `#/definitions/…`, any JSON pointer into the root), `allOf` (merged),
/// `anyOf`/`oneOf` (the first branch that is not just `null`, so `Option<T>`
/// yields a `T`), type arrays (the first non-null type), every property of an
/// object, `max(minItems, 1)` array elements, strings of `minLength` (or one)
/// `a`s or an example of a known `format`, and numbers inside
/// `minimum`/`maximum`/exclusive bounds honouring `multipleOf` where it can.
/// `pattern`, `uniqueItems`, `not` and conditionals are not honoured.
///
/// Never panics; anything it cannot make sense of, nesting beyond 16 levels
/// and work beyond a fixed budget become `null`.
///
/// ```
/// use golem_core::testing::sample_for_schema;
/// use serde_json::json;
///
/// let schema = json!({
///     "type": "object",
///     "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1}},
///     "required": ["city"]
/// });
/// assert_eq!(sample_for_schema(&schema), json!({"city": "a", "days": 1}));
/// ```
pub fn sample_for_schema(schema: &Value) -> Value {
    Sampler { root: schema, budget: Cell::new(BUDGET) }.sample(schema, 0)
}

struct Sampler<'a> {
    root: &'a Value,
    budget: Cell<usize>,
}

impl<'a> Sampler<'a> {
    /// Spend `n` units; false once the budget is gone.
    fn spend(&self, n: usize) -> bool {
        let left = self.budget.get();
        self.budget.set(left.saturating_sub(n));
        left >= n
    }

    fn sample(&self, schema: &Value, depth: usize) -> Value {
        if depth > MAX_DEPTH || !self.spend(1) {
            return Value::Null;
        }
        let Value::Object(obj) = schema else {
            // `true`, `false` and non-schemas: null is as good as anything.
            return Value::Null;
        };
        if let Some(value) = literal(obj) {
            return value;
        }
        if let Some(next) = self.expand(obj) {
            return match next {
                Expanded::Target(target) => self.sample(target, depth + 1),
                Expanded::Merged(merged) => self.sample(&Value::Object(merged), depth + 1),
            };
        }
        match schema_type(obj) {
            Some("null") | None => Value::Null,
            Some("boolean") => Value::Bool(true),
            Some("string") => self.string(obj),
            Some("integer") => number(obj, true),
            Some("number") => number(obj, false),
            Some("array") => self.array(obj, depth),
            Some("object") => self.object(obj, depth),
            Some(_) => Value::Null,
        }
    }

    /// Rewrite a schema with `$ref`, `allOf`, `anyOf` or `oneOf` into one
    /// without that keyword; one keyword per step, so each step counts
    /// against the depth limit and reference cycles terminate.
    fn expand(&self, obj: &Map<String, Value>) -> Option<Expanded<'a>> {
        if let Some(target) = obj.get("$ref").and_then(Value::as_str).and_then(|r| self.resolve(r)) {
            if obj.keys().all(|k| k == "$ref" || ANNOTATIONS.contains(&k.as_str())) {
                return Some(Expanded::Target(target));
            }
            let mut merged = without(obj, "$ref");
            if let Value::Object(target) = target {
                self.spend(target.len());
                merge_into(&mut merged, target);
            }
            return Some(Expanded::Merged(merged));
        }
        if let Some(Value::Array(parts)) = obj.get("allOf") {
            let mut merged = without(obj, "allOf");
            for part in parts {
                if let Value::Object(part) = self.follow(part) {
                    self.spend(part.len());
                    merge_into(&mut merged, part);
                }
            }
            return Some(Expanded::Merged(merged));
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = obj.get(key) {
                let mut merged = without(obj, key);
                let chosen = branches.iter().map(|b| self.follow(b)).find(|b| !is_null_schema(b));
                if let Some(Value::Object(branch)) = chosen.or_else(|| branches.first()) {
                    self.spend(branch.len());
                    merge_into(&mut merged, branch);
                }
                return Some(Expanded::Merged(merged));
            }
        }
        None
    }

    /// A JSON pointer reference into the root schema (`#`, `#/$defs/X`, …).
    fn resolve(&self, reference: &str) -> Option<&'a Value> {
        let pointer = reference.strip_prefix('#')?;
        if pointer.is_empty() {
            Some(self.root)
        } else {
            self.root.pointer(pointer)
        }
    }

    /// Follow plain `$ref`s (a reference beside annotations only), a bounded
    /// number of times, so a combinator sees what its branches really are.
    fn follow<'s>(&self, mut schema: &'s Value) -> &'s Value
    where
        'a: 's,
    {
        for _ in 0..MAX_DEPTH {
            let Value::Object(obj) = schema else { break };
            let plain = obj.keys().all(|k| k == "$ref" || ANNOTATIONS.contains(&k.as_str()));
            match obj.get("$ref").and_then(Value::as_str).and_then(|r| self.resolve(r)) {
                Some(target) if plain => schema = target,
                _ => break,
            }
        }
        schema
    }

    fn string(&self, obj: &Map<String, Value>) -> Value {
        let min = count_keyword(obj, "minLength").unwrap_or(0);
        let max = count_keyword(obj, "maxLength");
        let fits = |n: usize| n >= min && max.is_none_or(|m| n <= m);
        if let Some(example) = obj.get("format").and_then(Value::as_str).and_then(format_example) {
            let n = example.chars().count();
            if fits(n) && self.spend(n) {
                return Value::String(example.to_string());
            }
        }
        let mut len = min.max(1);
        if let Some(m) = max {
            len = len.min(m);
        }
        // Out of budget, a too-short string beats an unbounded allocation.
        let len = len.min(self.budget.get());
        self.spend(len);
        Value::String("a".repeat(len))
    }

    fn array(&self, obj: &Map<String, Value>, depth: usize) -> Value {
        let min = count_keyword(obj, "minItems").unwrap_or(0);
        let max = count_keyword(obj, "maxItems");
        // Tuples: 2020-12 `prefixItems`, or the older array form of `items`.
        let (prefix, rest): (&[Value], Option<&Value>) = match (obj.get("prefixItems"), obj.get("items")) {
            (Some(Value::Array(prefix)), items) => (prefix, items),
            (_, Some(Value::Array(prefix))) => (prefix, obj.get("additionalItems")),
            (_, items) => (&[], items),
        };
        let wanted = if depth >= SOFT_DEPTH { min } else { min.max(1) };
        let mut n = wanted.max(prefix.len());
        if let Some(m) = max {
            n = n.min(m);
        }
        if rest == Some(&Value::Bool(false)) {
            n = n.min(prefix.len());
        }
        let n = n.min(MAX_ITEMS);
        let items = (0..n).map(|i| prefix.get(i).or(rest).map_or(Value::Null, |s| self.sample(s, depth + 1))).collect();
        Value::Array(items)
    }

    fn object(&self, obj: &Map<String, Value>, depth: usize) -> Value {
        let required: Vec<&str> =
            obj.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
        let mut out = Map::new();
        if let Some(Value::Object(properties)) = obj.get("properties") {
            for (name, schema) in properties {
                if depth >= SOFT_DEPTH && !required.contains(&name.as_str()) {
                    continue;
                }
                out.insert(name.clone(), self.sample(schema, depth + 1));
            }
        }
        // Required names without a property schema take the schema of
        // additional properties, if any.
        for name in required {
            if !out.contains_key(name) {
                let value = obj.get("additionalProperties").map_or(Value::Null, |s| self.sample(s, depth + 1));
                out.insert(name.to_string(), value);
            }
        }
        Value::Object(out)
    }
}

enum Expanded<'a> {
    /// Follow a reference into the root schema as is.
    Target(&'a Value),
    /// Sample a schema built from pieces.
    Merged(Map<String, Value>),
}

/// `const`, then `enum`, `default`, `examples`: the schema's own words.
fn literal(obj: &Map<String, Value>) -> Option<Value> {
    if let Some(value) = obj.get("const") {
        return Some(value.clone());
    }
    if let Some(Value::Array(values)) = obj.get("enum") {
        if let Some(value) = values.iter().find(|v| !v.is_null()).or_else(|| values.first()) {
            return Some(value.clone());
        }
    }
    if let Some(value) = obj.get("default") {
        return Some(value.clone());
    }
    match obj.get("examples") {
        Some(Value::Array(examples)) => examples.first().cloned(),
        _ => None,
    }
}

/// The type to build: the declared one (the first non-null of a list), or
/// one inferred from type-specific keywords when none is declared.
fn schema_type(obj: &Map<String, Value>) -> Option<&str> {
    match obj.get("type") {
        Some(Value::String(t)) => return Some(t),
        Some(Value::Array(types)) => {
            let mut names = types.iter().filter_map(Value::as_str);
            return names.clone().find(|t| *t != "null").or_else(|| names.next());
        }
        _ => {}
    }
    let has = |keys: &[&str]| keys.iter().any(|k| obj.contains_key(*k));
    if has(&["properties", "required", "additionalProperties", "patternProperties"]) {
        Some("object")
    } else if has(&["items", "prefixItems", "minItems", "maxItems"]) {
        Some("array")
    } else if has(&["minLength", "maxLength", "pattern", "format"]) {
        Some("string")
    } else if has(&["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"]) {
        Some("number")
    } else {
        None
    }
}

/// A branch that only admits `null` (or nothing): skipped when choosing.
fn is_null_schema(schema: &Value) -> bool {
    match schema {
        Value::Bool(b) => !b,
        Value::Object(obj) => match obj.get("type") {
            Some(Value::String(t)) => t == "null",
            Some(Value::Array(types)) => types.iter().all(|t| t == "null"),
            _ => obj.get("const") == Some(&Value::Null) || obj.get("enum") == Some(&Value::Array(vec![Value::Null])),
        },
        _ => false,
    }
}

/// A non-negative count keyword (`minLength`, `minItems`, …); integral
/// floats such as `3.0` count, anything else is ignored.
fn count_keyword(obj: &Map<String, Value>, key: &str) -> Option<usize> {
    let value = obj.get(key)?;
    if let Some(n) = value.as_u64() {
        return Some(usize::try_from(n).unwrap_or(usize::MAX));
    }
    // `as` saturates, which is what an absurd count deserves.
    value.as_f64().filter(|f| f.is_finite() && *f >= 0.0).map(|f| f as usize)
}

/// A number inside the schema's bounds, near zero.
fn number(obj: &Map<String, Value>, integer: bool) -> Value {
    let finite = |key: &str| obj.get(key).and_then(Value::as_f64).filter(|f| f.is_finite());
    // Bounds as (limit, exclusive). Draft 6+ writes exclusive bounds as
    // numbers; draft 4 as booleans qualifying minimum/maximum.
    let mut lo = finite("minimum").map(|m| (m, obj.get("exclusiveMinimum") == Some(&Value::Bool(true))));
    if let Some(e) = finite("exclusiveMinimum") {
        if lo.is_none_or(|(l, _)| e >= l) {
            lo = Some((e, true));
        }
    }
    let mut hi = finite("maximum").map(|m| (m, obj.get("exclusiveMaximum") == Some(&Value::Bool(true))));
    if let Some(e) = finite("exclusiveMaximum") {
        if hi.is_none_or(|(h, _)| e <= h) {
            hi = Some((e, true));
        }
    }
    let step = finite("multipleOf").filter(|m| *m > 0.0);
    if integer {
        return integer_value(pick_integer(lo, hi, step));
    }
    let inside = |c: f64| {
        lo.is_none_or(|(l, ex)| if ex { c > l } else { c >= l })
            && hi.is_none_or(|(h, ex)| if ex { c < h } else { c <= h })
    };
    let mut c = 0.0_f64;
    if let Some((l, ex)) = lo {
        if !inside(c) {
            c = if ex { l + 1.0 } else { l };
        }
    }
    if let Some((h, ex)) = hi {
        if !inside(c) {
            c = match lo {
                Some((l, _)) => l / 2.0 + h / 2.0,
                None if ex => h - 1.0,
                None => h,
            };
        }
    }
    if let Some(m) = step {
        if let Some(multiple) = [(c / m).ceil() * m, (c / m).floor() * m].into_iter().find(|v| inside(*v)) {
            c = multiple;
        }
    }
    // Integral numbers read better as `1` than `1.0`, and both are numbers.
    if c.fract() == 0.0 && c.abs() < 9.0e15 {
        return integer_value(c);
    }
    Number::from_f64(c).map_or(Value::Null, Value::Number)
}

/// An integer inside the bounds, near zero, a multiple of `step` if one fits.
fn pick_integer(lo: Option<(f64, bool)>, hi: Option<(f64, bool)>, step: Option<f64>) -> f64 {
    let lo = lo.map(|(l, ex)| if ex { l.floor() + 1.0 } else { l.ceil() });
    let hi = hi.map(|(h, ex)| if ex { h.ceil() - 1.0 } else { h.floor() });
    let inside = |c: f64| c.fract() == 0.0 && lo.is_none_or(|l| c >= l) && hi.is_none_or(|h| c <= h);
    let mut c = 0.0_f64;
    if let Some(l) = lo {
        c = c.max(l);
    }
    if let Some(h) = hi {
        c = c.min(h);
    }
    if let Some(m) = step {
        if let Some(multiple) = [(c / m).ceil() * m, (c / m).floor() * m].into_iter().find(|v| inside(*v)) {
            c = multiple;
        }
    }
    c
}

/// An integral `f64` as a JSON integer, or as a float when beyond `i64`.
fn integer_value(c: f64) -> Value {
    if c.is_finite() && c.abs() < 9.2e18 {
        // In range and integral (callers ensure it), so `as` is exact enough.
        Value::Number(Number::from(c as i64))
    } else {
        Number::from_f64(c).map_or(Value::Null, Value::Number)
    }
}

/// A valid example of a well-known string `format`.
fn format_example(format: &str) -> Option<&'static str> {
    Some(match format {
        "date-time" => "2024-01-01T00:00:00Z",
        "date" => "2024-01-01",
        "time" => "00:00:00Z",
        "duration" => "P1D",
        "email" | "idn-email" => "user@example.com",
        "uri" | "iri" | "url" | "uri-reference" | "iri-reference" => "https://example.com/",
        "hostname" | "idn-hostname" => "example.com",
        "ipv4" => "192.0.2.1",
        "ipv6" => "2001:db8::1",
        "uuid" => "00000000-0000-4000-8000-000000000000",
        "json-pointer" => "/a",
        _ => return None,
    })
}

fn without(obj: &Map<String, Value>, key: &str) -> Map<String, Value> {
    obj.iter().filter(|(k, _)| *k != key).map(|(k, v)| (k.clone(), v.clone())).collect()
}

/// Add `from`'s keywords to `into`: properties and required names are
/// unioned, any other keyword `into` already has wins (the outer schema is
/// the more specific one).
fn merge_into(into: &mut Map<String, Value>, from: &Map<String, Value>) {
    for (key, value) in from {
        match (key.as_str(), into.get_mut(key), value) {
            ("properties", Some(Value::Object(have)), Value::Object(add)) => {
                for (name, schema) in add {
                    have.entry(name.clone()).or_insert_with(|| schema.clone());
                }
            }
            ("required", Some(Value::Array(have)), Value::Array(add)) => {
                for name in add {
                    if !have.contains(name) {
                        have.push(name.clone());
                    }
                }
            }
            (_, Some(_), _) => {}
            (_, None, _) => {
                into.insert(key.clone(), value.clone());
            }
        }
    }
}
