//! Output schemas adapted to Chat Completions (SPEC OUT-08, PROV-OAI-04).
//!
//! OpenAI's strict structured outputs guarantee a schema-conforming answer,
//! but accept only a subset of JSON Schema: an object root (not `anyOf`),
//! every object closing its properties (`additionalProperties: false`) and
//! requiring all of them, and only the keywords and string formats its
//! structured-output guide lists (`oneOf`, `allOf`, `not`, `default`,
//! `minLength` and schemars' `int32`-style formats are not among them).
//! Sending `strict: true` for any other schema is a 400, and rewriting the
//! schema to fit would change its meaning, so strictness is decided, never
//! forced: `strict: true` exactly when the schema already qualifies; else
//! `strict: false`, which takes any schema with an object root (golem-io
//! wraps other roots as `{"response": T}`, SPEC OUT-03).

use serde_json::{Map, Value};

/// Nesting deeper than this is not inspected; such a schema is reported
/// non-strict, which is always safe (the service then just doesn't enforce
/// it). Bounds the recursion on hostile or generated schemas.
const MAX_DEPTH: usize = 64;

/// The keywords strict mode accepts. Anything else makes a schema
/// non-strict rather than risk the 400 an unknown keyword draws.
const STRICT_KEYWORDS: [&str; 21] = [
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "anyOf",
    "enum",
    "$ref",
    "$defs",
    "definitions",
    "description",
    "title",
    "pattern",
    "format",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "minItems",
    "maxItems",
];

/// The string formats strict mode accepts; others ("uri", schemars'
/// "int32", "uint64", "double" …) are refused with a 400.
const STRICT_FORMATS: [&str; 9] =
    ["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"];

/// True when OpenAI's strict mode takes `schema` as is (SPEC OUT-08): an
/// object root without `anyOf`, every object schema inside with
/// `additionalProperties: false` and all its properties in `required`, and
/// only supported keywords and formats.
///
/// ```
/// use golem_providers::chat_completions::schema::is_strict_compatible;
/// use serde_json::json;
///
/// let closed = json!({"type": "object", "properties": {"a": {"type": "string"}},
///                     "required": ["a"], "additionalProperties": false});
/// assert!(is_strict_compatible(&closed));
/// let open = json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]});
/// assert!(!is_strict_compatible(&open));
/// let list = json!({"type": "array", "items": {"type": "string"}});
/// assert!(!is_strict_compatible(&list), "the root must be an object");
/// ```
pub fn is_strict_compatible(schema: &Value) -> bool {
    let root_is_object = schema.get("type").and_then(Value::as_str) == Some("object") && schema.get("anyOf").is_none();
    root_is_object && strict(schema, 0)
}

fn strict(schema: &Value, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    let Value::Object(node) = schema else {
        // `true`/`false` schemas and non-schemas hold no objects.
        return true;
    };
    if is_object_schema(node) && !closed_and_required(node) {
        return false;
    }
    let child = |v: &Value| strict(v, depth + 1);
    let each_value = |v: &Value| match v {
        Value::Object(map) => map.values().all(child),
        _ => false,
    };
    let each_item = |v: &Value| match v {
        Value::Array(items) => items.iter().all(child),
        _ => false,
    };
    node.iter().all(|(keyword, value)| match keyword.as_str() {
        "properties" | "$defs" | "definitions" => each_value(value),
        "anyOf" => each_item(value),
        // A tuple's `items` array is not in the subset.
        "items" => value.is_object() && child(value),
        "additionalProperties" => child(value),
        "format" => value.as_str().is_some_and(|f| STRICT_FORMATS.contains(&f)),
        other => STRICT_KEYWORDS.contains(&other),
    })
}

fn is_object_schema(node: &Map<String, Value>) -> bool {
    match node.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(types)) => types.iter().any(|t| t == "object"),
        _ => node.contains_key("properties"),
    }
}

fn closed_and_required(node: &Map<String, Value>) -> bool {
    if node.get("additionalProperties") != Some(&Value::Bool(false)) || node.contains_key("patternProperties") {
        return false;
    }
    let Some(properties) = node.get("properties") else {
        return true;
    };
    let Value::Object(properties) = properties else {
        return false;
    };
    let required: Vec<&str> = match node.get("required") {
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        None => Vec::new(),
        Some(_) => return false,
    };
    properties.keys().all(|name| required.contains(&name.as_str()))
}

/// A schema name the API accepts (`^[A-Za-z0-9_-]{1,64}$`): other
/// characters become `_`, long names are cut, and an empty name is
/// `output` (SPEC PROV-OAI-04).
///
/// ```
/// use golem_providers::chat_completions::schema::wire_name;
/// assert_eq!(wire_name(""), "output");
/// assert_eq!(wire_name("my::Forecast"), "my__Forecast");
/// ```
pub fn wire_name(name: &str) -> String {
    if name.is_empty() {
        return "output".to_string();
    }
    name.chars().take(64).map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).collect()
}
