//! Schemas for the legacy fields `parameters` and `responseSchema` (SPEC
//! OUT-08, PROV-GEM-02).
//!
//! By default Gemini gets every schema unchanged, as JSON Schema, in
//! `parametersJsonSchema` and `responseJsonSchema`. The legacy fields take
//! an OpenAPI 3.0 subset instead; when a config opts into them, a schema
//! is checked against that subset and refused — naming the keyword and
//! where it sits — if it uses anything the subset cannot express. The one
//! rewrite is faithful: `"type": [T, "null"]` becomes `"type": T,
//! "nullable": true`. Nothing is removed.

use serde_json::{Map, Value};

/// The keywords of the legacy `Schema` object.
const KEYWORDS: [&str; 22] = [
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "anyOf",
    "propertyOrdering",
    "default",
    "items",
    "minimum",
    "maximum",
];

/// `schema` in the legacy subset, or why it cannot be: the first keyword
/// the subset lacks, with its JSON Pointer.
///
/// ```
/// use golem_providers::gemini::legacy_schema;
/// use serde_json::json;
///
/// let schema = json!({"type": "object", "properties": {"note": {"type": ["string", "null"]}}});
/// assert_eq!(
///     legacy_schema(&schema).unwrap(),
///     json!({"type": "object", "properties": {"note": {"type": "string", "nullable": true}}})
/// );
/// let closed = json!({"type": "object", "additionalProperties": false});
/// assert_eq!(legacy_schema(&closed).unwrap_err(), "keyword additionalProperties at / is not in Gemini's legacy schema subset");
/// ```
pub fn legacy_schema(schema: &Value) -> Result<Value, String> {
    convert(schema, "")
}

fn convert(schema: &Value, at: &str) -> Result<Value, String> {
    let Value::Object(fields) = schema else {
        return Err(format!("the schema at {} is not an object", pointer(at)));
    };
    let mut out = Map::new();
    for (keyword, value) in fields {
        let here = format!("{at}/{}", escape(keyword));
        match keyword.as_str() {
            "type" => convert_type(value, &here, &mut out)?,
            "properties" => {
                let Value::Object(properties) = value else {
                    return Err(format!("properties at {} is not an object", pointer(&here)));
                };
                let mut converted = Map::new();
                for (name, property) in properties {
                    converted.insert(name.clone(), convert(property, &format!("{here}/{}", escape(name)))?);
                }
                out.insert(keyword.clone(), Value::Object(converted));
            }
            "items" => {
                out.insert(keyword.clone(), convert(value, &here)?);
            }
            "anyOf" => {
                let Value::Array(options) = value else {
                    return Err(format!("anyOf at {} is not an array", pointer(&here)));
                };
                let converted = options
                    .iter()
                    .enumerate()
                    .map(|(n, option)| convert(option, &format!("{here}/{n}")))
                    .collect::<Result<Vec<_>, _>>()?;
                out.insert(keyword.clone(), Value::Array(converted));
            }
            known if KEYWORDS.contains(&known) => {
                out.insert(keyword.clone(), value.clone());
            }
            unknown => {
                return Err(format!("keyword {unknown} at {} is not in Gemini's legacy schema subset", pointer(at)));
            }
        }
    }
    Ok(Value::Object(out))
}

/// `type` as one name; `[T, "null"]` (either order) as `T` plus
/// `nullable`.
fn convert_type(value: &Value, at: &str, out: &mut Map<String, Value>) -> Result<(), String> {
    match value {
        Value::String(_) => {
            out.insert("type".into(), value.clone());
            Ok(())
        }
        Value::Array(names) => {
            let non_null: Vec<&Value> = names.iter().filter(|n| n.as_str() != Some("null")).collect();
            match (non_null.as_slice(), names.len()) {
                ([single], 2) if single.is_string() => {
                    out.insert("type".into(), (*single).clone());
                    out.insert("nullable".into(), Value::Bool(true));
                    Ok(())
                }
                ([single], 1) if single.is_string() => {
                    out.insert("type".into(), (*single).clone());
                    Ok(())
                }
                _ => Err(format!(
                    "type {value} at {} has no legacy form (only one type, optionally with \"null\")",
                    pointer(at)
                )),
            }
        }
        _ => Err(format!("type at {} is neither a name nor a list of names", pointer(at))),
    }
}

fn pointer(at: &str) -> &str {
    if at.is_empty() {
        "/"
    } else {
        at
    }
}

/// JSON Pointer escaping of one reference token.
fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}
