//! Resolving how the final answer is requested: text, native schema, or an
//! output tool (SPEC OUT-03..05, OUT-07), with the decoder that reads it.

use crate::decode::{Decoder, JsonDecoder, SharedDecoder};
use crate::schema::{needs_response_wrapper, schema_for, short_type_name, wrap_in_response};
use golem_core::model::OutputSchema;
use golem_core::{BuildError, Capabilities, OutputMode};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::sync::Arc;

pub use golem_core::texts::{OUTPUT_TOOL_DESCRIPTION, OUTPUT_TOOL_NAME};

/// A JSON schema as given to the builder: a JSON value, or JSON text that is
/// checked at build (not-JSON text is [`BuildError::InvalidOutputSchema`]).
/// Empty text means "no schema", as in the seed.
#[derive(Clone, Debug, PartialEq)]
pub struct RawSchema(Result<Value, String>);

impl RawSchema {
    fn into_value(self) -> Result<Value, BuildError> {
        self.0.map_err(BuildError::InvalidOutputSchema)
    }
}

impl From<Value> for RawSchema {
    fn from(value: Value) -> Self {
        RawSchema(Ok(value))
    }
}

impl From<&str> for RawSchema {
    fn from(text: &str) -> Self {
        if text.trim().is_empty() {
            return RawSchema(Ok(Value::Null));
        }
        RawSchema(serde_json::from_str(text).map_err(|e| e.to_string()))
    }
}

impl From<String> for RawSchema {
    fn from(text: String) -> Self {
        RawSchema::from(text.as_str())
    }
}

impl From<&String> for RawSchema {
    fn from(text: &String) -> Self {
        RawSchema::from(text.as_str())
    }
}

/// What `.output::<T>()` asked for; the mode is chosen at build.
pub(crate) struct TypedOutput<O> {
    name: String,
    schema: Value,
    /// The decoder for the `{"response": T}` form; gone once a custom
    /// decoder replaced the typed one, since it cannot unwrap.
    wrapped: Option<Arc<dyn Decoder<O>>>,
}

impl<O: DeserializeOwned + JsonSchema + 'static> TypedOutput<O> {
    pub(crate) fn of() -> Self {
        TypedOutput {
            name: schema_name::<O>(),
            schema: schema_for::<O>(),
            wrapped: Some(Arc::new(JsonDecoder::<O>::wrapped())),
        }
    }
}

impl<O> TypedOutput<O> {
    pub(crate) fn without_decoder<O2>(self) -> TypedOutput<O2> {
        TypedOutput { name: self.name, schema: self.schema, wrapped: None }
    }
}

/// Providers want schema names matching `^[A-Za-z0-9_-]+$`.
fn schema_name<T>() -> String {
    let name: String =
        short_type_name::<T>().chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect();
    let name = name.trim_matches('_').to_string();
    if name.is_empty() {
        "output".to_string()
    } else {
        name
    }
}

/// The explicit output settings of the builder.
#[derive(Default)]
pub(crate) struct OutputPlan {
    pub(crate) schema: Option<RawSchema>,
    pub(crate) tool: Option<(String, String, RawSchema)>,
}

impl OutputPlan {
    /// The output mode for the machine and the decoder that reads it.
    /// Explicit settings win over the typed output's automatic choice.
    pub(crate) fn resolve<O: 'static, Deps>(
        self,
        typed: Option<TypedOutput<O>>,
        decoder: SharedDecoder<O, Deps>,
        caps: Capabilities,
    ) -> Result<(OutputMode, SharedDecoder<O, Deps>), BuildError> {
        let schema = self.schema.map(RawSchema::into_value).transpose()?.filter(|v| !v.is_null());
        let name = typed.as_ref().map_or_else(|| "output".to_string(), |t| t.name.clone());
        let mode = match (schema, self.tool) {
            (Some(_), Some(_)) => return Err(BuildError::SchemaAndOutputTool),
            (Some(schema), None) => OutputMode::Native { schema: OutputSchema::new(name, schema) },
            (None, Some((name, description, schema))) => {
                OutputMode::Tool { name, description, schema: schema.into_value()? }
            }
            (None, None) => match typed {
                None => OutputMode::Text,
                Some(t) => return t.resolve(decoder, caps),
            },
        };
        Ok((mode, decoder))
    }
}

impl<O> TypedOutput<O> {
    /// Native mode when the models take a schema alongside tools, else the
    /// output tool. Either way a type whose schema is not a plain object
    /// travels as `{"response": T}` and is unwrapped before decoding (SPEC
    /// OUT-03): tool arguments must be an object, and so must OpenAI's
    /// structured-output root. A custom decoder cannot read that wrapper,
    /// so with one such a type is a build error rather than a request the
    /// provider refuses.
    fn resolve<Deps>(
        self,
        decoder: SharedDecoder<O, Deps>,
        caps: Capabilities,
    ) -> Result<(OutputMode, SharedDecoder<O, Deps>), BuildError>
    where
        O: 'static,
    {
        let (schema, decoder) = match self.wrapped {
            _ if !needs_response_wrapper(&self.schema) => (self.schema, decoder),
            Some(wrapped) => (wrap_in_response(self.schema), crate::decode::for_any_deps(wrapped)),
            None => {
                return Err(BuildError::SchemaNotObject(format!(
                    "the output type {} read by a custom decoder (only the typed decoder unwraps {{\"response\": …}})",
                    self.name
                )))
            }
        };
        let mode = if caps.native_schema_with_tools {
            OutputMode::Native { schema: OutputSchema::new(self.name, schema) }
        } else {
            OutputMode::Tool {
                name: OUTPUT_TOOL_NAME.to_string(),
                description: OUTPUT_TOOL_DESCRIPTION.to_string(),
                schema,
            }
        };
        Ok((mode, decoder))
    }
}
