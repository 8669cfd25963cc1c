//! JSON schemas derived from Rust types (SPEC TOOL-01, OUT-03).

use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde_json::Value;

/// The schema of `T`, self-contained: subschemas are inlined because several
/// providers (Gemini among them) do not resolve `$ref`, and the `$schema`
/// marker is dropped because providers reject unknown top-level keywords.
pub(crate) fn schema_for<T: JsonSchema>() -> Value {
    let generator = SchemaSettings::draft2020_12().with(|s| s.inline_subschemas = true).into_generator();
    let mut schema = generator.into_root_schema_for::<T>().to_value();
    if let Some(map) = schema.as_object_mut() {
        map.remove("$schema");
    }
    schema
}

/// True when `schema` describes a JSON object (what tool arguments must be).
pub(crate) fn is_object_schema(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
}

/// The schema of a tool's argument type, which providers require to be an
/// object schema: a schema listing properties without saying so gets the
/// `"type": "object"` it implies.
pub(crate) fn object_schema_for<T: JsonSchema>() -> Value {
    let mut schema = schema_for::<T>();
    if !is_object_schema(&schema) && schema.get("properties").is_some() {
        if let Some(map) = schema.as_object_mut() {
            map.insert("type".to_string(), Value::String("object".to_string()));
        }
    }
    schema
}

/// A type's name without module paths: `Vec<my::Weather>` → `Vec<Weather>`.
pub(crate) fn short_type_name<T: ?Sized>() -> String {
    let full = std::any::type_name::<T>();
    let mut out = String::with_capacity(full.len());
    let mut segment = String::new();
    for c in full.chars() {
        if c.is_alphanumeric() || c == '_' || c == ':' {
            segment.push(c);
        } else {
            out.push_str(last_path_segment(&segment));
            segment.clear();
            out.push(c);
        }
    }
    out.push_str(last_path_segment(&segment));
    out
}

fn last_path_segment(path: &str) -> &str {
    path.rsplit("::").next().unwrap_or(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[allow(dead_code)]
    #[derive(JsonSchema)]
    struct Weather {
        city: String,
        celsius: i32,
        detail: Inner,
    }

    #[allow(dead_code)]
    #[derive(JsonSchema)]
    struct Inner {
        wind: u32,
    }

    #[test]
    fn struct_schemas_are_self_contained_objects() {
        let schema = schema_for::<Weather>();
        assert!(is_object_schema(&schema));
        assert!(schema.get("$schema").is_none());
        assert!(schema.get("$defs").is_none(), "{schema}");
        assert_eq!(schema["properties"]["detail"]["type"], "object");
    }

    #[test]
    fn scalars_are_not_object_schemas() {
        assert!(!is_object_schema(&schema_for::<u32>()));
        assert!(!is_object_schema(&schema_for::<Vec<String>>()));
        assert!(is_object_schema(&golem_core::output::wrap_in_response(schema_for::<u32>())));
    }

    #[allow(dead_code)]
    #[derive(JsonSchema)]
    enum Shape {
        Circle { radius: f64 },
        Square { side: f64 },
    }

    #[allow(dead_code)]
    #[derive(JsonSchema)]
    enum Colour {
        Red,
        Green,
    }

    #[test]
    fn only_plain_object_roots_go_unwrapped() {
        use golem_core::output::{needs_response_wrapper, wrap_in_response};
        assert!(!needs_response_wrapper(&schema_for::<Weather>()));
        for schema in [
            schema_for::<u32>(),
            schema_for::<Vec<Weather>>(),
            schema_for::<Shape>(),
            schema_for::<Colour>(),
            schema_for::<Option<Weather>>(),
            schema_for::<Option<u32>>(),
            serde_json::json!({"type": "object", "oneOf": [{"required": ["a"]}, {"required": ["b"]}]}),
        ] {
            assert!(needs_response_wrapper(&schema), "{schema}");
            assert!(!needs_response_wrapper(&wrap_in_response(schema)));
        }
    }

    #[test]
    fn short_names_drop_paths() {
        assert_eq!(short_type_name::<Weather>(), "Weather");
        assert_eq!(short_type_name::<Vec<Weather>>(), "Vec<Weather>");
        assert_eq!(short_type_name::<BTreeMap<String, u8>>(), "BTreeMap<String, u8>");
        assert_eq!(short_type_name::<i32>(), "i32");
    }
}
