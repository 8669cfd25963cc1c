//! Gathering what the builder was told about the final answer for golem-core
//! to choose its mode ([`golem_core::output::choose`]; SPEC OUT-03..05,
//! OUT-07), and pairing the choice with the decoder that reads it.

use crate::agent::decode::{Decoder, JsonDecoder, SharedDecoder};
use crate::tool::schema::{schema_for, short_type_name};
use golem_core::output::{choose, OutputRequest, TypedSchema};
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
    /// The output mode for the machine and the decoder that reads it: the
    /// typed decoder that unwraps `{"response": T}` when golem-core wrapped
    /// the schema, else `decoder`.
    pub(crate) fn resolve<O: 'static, Deps>(
        self,
        typed: Option<TypedOutput<O>>,
        decoder: SharedDecoder<O, Deps>,
        caps: Capabilities,
    ) -> Result<(OutputMode, SharedDecoder<O, Deps>), BuildError> {
        let mut request = OutputRequest::default();
        if let Some(schema) = self.schema {
            request = request.with_schema(schema.into_value()?);
        }
        if let Some((name, description, schema)) = self.tool {
            request = request.with_tool(name, description, schema.into_value()?);
        }
        let (typed, wrapped) = match typed {
            Some(t) => (Some(TypedSchema::new(t.name, t.schema, t.wrapped.is_some())), t.wrapped),
            None => (None, None),
        };
        request.typed = typed;
        let choice = choose(request, caps)?;
        let decoder = match wrapped.filter(|_| choice.wrapped) {
            Some(wrapped) => crate::agent::decode::for_any_deps(wrapped),
            None => decoder,
        };
        Ok((choice.mode, decoder))
    }
}
