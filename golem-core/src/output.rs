//! Choosing how the final answer is requested (SPEC OUT-03..05, OUT-07):
//! free text, a schema sent natively, or an output tool the model calls —
//! and whether a typed answer travels wrapped as `{"response": T}`. The
//! builders of golem-io gather what the user asked for and ask here; the
//! decision, and its tests, live beside the machine that runs it.
//!
//! ```
//! use golem_core::output::{choose, OutputRequest, TypedSchema};
//! use golem_core::{Capabilities, OutputMode};
//! use serde_json::json;
//!
//! // A `Vec<Item>` answer: not an object, so it is wrapped; the model takes
//! // no schema alongside tools, so it comes through the output tool.
//! let typed = TypedSchema::new("Vec_Item", json!({"type": "array"}), true);
//! let choice = choose(OutputRequest::typed(typed), Capabilities::default()).unwrap();
//! assert!(choice.wrapped);
//! assert!(matches!(choice.mode, OutputMode::Tool { ref name, .. } if name == "final_result"));
//! ```

use crate::config::{BuildError, OutputMode};
use crate::model::{Capabilities, OutputSchema};
use crate::texts::{OUTPUT_TOOL_DESCRIPTION, OUTPUT_TOOL_NAME};
use serde_json::Value;

/// Keywords that make a schema more than a plain object at its root.
/// OpenAI refuses each of them there, for tool parameters and structured
/// output alike ("schema must have type 'object' and not have
/// 'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top level").
const ROOT_COMBINATORS: [&str; 6] = ["anyOf", "oneOf", "allOf", "enum", "not", "const"];

/// The schema of a typed output (`.output::<T>()`), as the driver derived it.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct TypedSchema {
    /// The schema's name for providers (`^[A-Za-z0-9_-]+$`).
    pub name: String,
    /// The type's JSON schema.
    pub schema: Value,
    /// The decoder can read the `{"response": T}` wrapper (the typed one
    /// can; a custom decoder cannot).
    pub unwraps: bool,
}

impl TypedSchema {
    /// A typed output's schema.
    pub fn new(name: impl Into<String>, schema: Value, unwraps: bool) -> Self {
        TypedSchema { name: name.into(), schema, unwraps }
    }
}

/// What the user asked for; explicit settings win over the typed output.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct OutputRequest {
    /// An explicit schema to send natively (`Null` counts as none).
    pub schema: Option<Value>,
    /// An explicit output tool: name, description, parameter schema.
    pub tool: Option<(String, String, Value)>,
    /// The typed output, when there is one.
    pub typed: Option<TypedSchema>,
}

impl OutputRequest {
    /// Only a typed output.
    pub fn typed(typed: TypedSchema) -> Self {
        OutputRequest { typed: Some(typed), ..OutputRequest::default() }
    }

    /// An explicit native schema.
    pub fn with_schema(mut self, schema: Value) -> Self {
        self.schema = Some(schema);
        self
    }

    /// An explicit output tool.
    pub fn with_tool(mut self, name: impl Into<String>, description: impl Into<String>, schema: Value) -> Self {
        self.tool = Some((name.into(), description.into(), schema));
        self
    }
}

/// The choice: the machine's output mode, and whether the answer travels
/// as `{"response": T}` (the decoder must unwrap it).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct OutputChoice {
    /// How the answer is requested.
    pub mode: OutputMode,
    /// The typed answer is wrapped in `{"response": …}`.
    pub wrapped: bool,
}

/// Choose the output mode for `request` on models with `caps` (the fallback
/// chain's common capabilities).
///
/// Explicit settings are taken as given (both at once is an error). A typed
/// output goes natively when the models take a schema alongside tools, else
/// through the output tool; either way a type whose schema is not a plain
/// object travels as `{"response": T}` (SPEC OUT-03) — tool arguments must
/// be an object, and so must OpenAI's structured-output root — which a
/// decoder that cannot unwrap it makes a build error rather than a request
/// the provider refuses.
pub fn choose(request: OutputRequest, caps: Capabilities) -> Result<OutputChoice, BuildError> {
    let explicit = |mode| Ok(OutputChoice { mode, wrapped: false });
    let schema = request.schema.filter(|v| !v.is_null());
    match (schema, request.tool, request.typed) {
        (Some(_), Some(_), _) => Err(BuildError::SchemaAndOutputTool),
        (Some(schema), None, typed) => {
            let name = typed.map_or_else(|| "output".to_string(), |t| t.name);
            explicit(OutputMode::Native { schema: OutputSchema::new(name, schema) })
        }
        (None, Some((name, description, schema)), _) => explicit(OutputMode::Tool { name, description, schema }),
        (None, None, None) => explicit(OutputMode::Text),
        (None, None, Some(typed)) => {
            let wrapped = needs_response_wrapper(&typed.schema);
            if wrapped && !typed.unwraps {
                return Err(BuildError::SchemaNotObject(format!(
                    "the output type {} read by a custom decoder (only the typed decoder unwraps {{\"response\": …}})",
                    typed.name
                )));
            }
            let schema = if wrapped { wrap_in_response(typed.schema) } else { typed.schema };
            let mode = if caps.native_schema_with_tools {
                OutputMode::Native { schema: OutputSchema::new(typed.name, schema) }
            } else {
                OutputMode::Tool {
                    name: OUTPUT_TOOL_NAME.to_string(),
                    description: OUTPUT_TOOL_DESCRIPTION.to_string(),
                    schema,
                }
            };
            Ok(OutputChoice { mode, wrapped })
        }
    }
}

/// True when an output schema must travel as `{"response": <schema>}`:
/// its root is not a plain `"type": "object"` — a list, a scalar, an
/// enum's `oneOf`/`enum`, an `Option`'s `anyOf` or `["object", "null"]`
/// (SPEC OUT-03).
pub fn needs_response_wrapper(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) != Some("object")
        || ROOT_COMBINATORS.iter().any(|keyword| schema.get(keyword).is_some())
}

/// `{"response": <schema>}`: the form of an output type whose schema is
/// not a plain object (SPEC OUT-03), in tool mode and native mode alike.
pub fn wrap_in_response(schema: Value) -> Value {
    serde_json::json!({
        "type": "object",
        "properties": { "response": schema },
        "required": ["response"],
        "additionalProperties": false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn typed(schema: Value, unwraps: bool) -> OutputRequest {
        OutputRequest::typed(TypedSchema::new("T", schema, unwraps))
    }

    fn native() -> Capabilities {
        Capabilities::default().native_schema_with_tools(true)
    }

    #[test]
    fn out_03_typed_objects_go_native_when_the_models_can_else_by_tool() {
        let object = json!({"type": "object", "properties": {"a": {"type": "integer"}}});
        let choice = choose(typed(object.clone(), true), native()).unwrap();
        assert_eq!(choice.mode, OutputMode::Native { schema: OutputSchema::new("T", object.clone()) });
        assert!(!choice.wrapped);
        let choice = choose(typed(object.clone(), true), Capabilities::default()).unwrap();
        assert_eq!(
            choice.mode,
            OutputMode::Tool {
                name: OUTPUT_TOOL_NAME.into(),
                description: OUTPUT_TOOL_DESCRIPTION.into(),
                schema: object
            }
        );
    }

    #[test]
    fn out_03_non_object_roots_are_wrapped_or_refused_for_a_custom_decoder() {
        for schema in [
            json!({"type": "array", "items": {"type": "string"}}),
            json!({"type": "integer"}),
            json!({"oneOf": [{"const": "a"}, {"const": "b"}]}),
            json!({"type": ["object", "null"]}),
            json!({"type": "object", "anyOf": [{"required": ["a"]}, {"required": ["b"]}]}),
        ] {
            let choice = choose(typed(schema.clone(), true), native()).unwrap();
            assert!(choice.wrapped, "{schema}");
            assert_eq!(
                choice.mode,
                OutputMode::Native { schema: OutputSchema::new("T", wrap_in_response(schema.clone())) }
            );
            assert!(!needs_response_wrapper(&wrap_in_response(schema.clone())));
            let refused = choose(typed(schema.clone(), false), native());
            assert!(matches!(refused, Err(BuildError::SchemaNotObject(_))), "{schema}");
        }
    }

    #[test]
    fn out_04_explicit_settings_win_and_exclude_each_other() {
        let object = json!({"type": "object"});
        let explicit = typed(json!({"type": "integer"}), false).with_schema(object.clone());
        let choice = choose(explicit, Capabilities::default()).unwrap();
        assert_eq!(choice.mode, OutputMode::Native { schema: OutputSchema::new("T", object.clone()) });
        assert!(!choice.wrapped, "an explicit schema is the user's, sent as given");
        let tool = OutputRequest::default().with_tool("answer", "The answer.", object.clone());
        let choice = choose(tool.clone(), native()).unwrap();
        assert_eq!(
            choice.mode,
            OutputMode::Tool { name: "answer".into(), description: "The answer.".into(), schema: object.clone() }
        );
        assert_eq!(choose(tool.with_schema(object), native()), Err(BuildError::SchemaAndOutputTool));
        let null_schema = OutputRequest::default().with_schema(Value::Null);
        assert_eq!(choose(null_schema, native()).unwrap().mode, OutputMode::Text);
    }
}
