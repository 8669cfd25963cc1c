//! A model that exercises every tool and answers from the schemas alone
//! (SPEC TEST): the quickest smoke test of an agent's wiring.

use super::sample_for_schema;
use super::scripted::{DEFAULT_CHUNK_SIZE, FAKE_CAPABILITIES};
use crate::message::{FinishReason, Message, Role, ToolArgs, ToolCall, Usage};
use crate::model::{AsyncModel, Capabilities, DeltaSink, ModelError, Request, Response, StreamingModel};
use crate::stream::stream_response;
use crate::tool::ToolDefinition;

/// The answer text of a [`TestModel`] unless configured otherwise.
pub const DEFAULT_ANSWER: &str = "test answer";

/// A model that calls every tool it is offered with arguments generated from
/// each tool's schema ([`sample_for_schema`]), then answers with
/// schema-valid output.
///
/// It decides from the request alone, so one instance serves any number of
/// concurrent runs:
///
/// - **Calling turn** — the last message is not a tool result and some
///   advertised tool is callable (every tool, or those named by
///   [`call_tools`](Self::call_tools), never the output tool): one assistant
///   message calling each callable tool once, ids `test_call_<n>` numbered
///   after the calls already in the conversation (so `test_call_1`, … on a
///   fresh run).
/// - **Answer turn** — otherwise: a call to the output tool with sample
///   arguments when [`with_output_tool`](Self::with_output_tool) names an
///   advertised tool; else the request's `output_schema` sampled as JSON
///   content; else the [`answer_text`](Self::answer_text).
///
/// A rejection shown as a tool message (a tool's or the output tool's) gets
/// another answer turn; a text-mode rejection is a user message, so the
/// tools are called once more before answering again.
///
/// Usage is deterministic: input tokens are the characters of the request's
/// contents and arguments over four, output tokens those of the answer, each
/// rounded up and at least 1.
///
/// ```
/// use golem_core::model::{Model, Request};
/// use golem_core::testing::TestModel;
/// use golem_core::tool::ToolDefinition;
/// use golem_core::Message;
/// use serde_json::json;
/// use std::sync::Arc;
///
/// let weather = ToolDefinition::new(
///     "weather",
///     "",
///     json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
/// );
/// let mut request = Request::new(vec![Message::user("weather?")]);
/// request.tools = Arc::new(vec![weather]);
/// let calls = TestModel::new().generate(&request).unwrap().message.tool_calls;
/// assert_eq!((calls[0].id.as_str(), calls[0].args.as_str()), ("test_call_1", r#"{"city":"a"}"#));
///
/// request.messages_mut().push(Message::assistant_calls(calls));
/// request.messages_mut().push(Message::tool_result("test_call_1", "weather", "sunny"));
/// assert_eq!(TestModel::new().generate(&request).unwrap().message.content, "test answer");
/// ```
#[derive(Clone, Debug)]
pub struct TestModel {
    output_tool: Option<String>,
    call_tools: Option<Vec<String>>,
    answer_text: String,
    chunk_size: usize,
    capabilities: Capabilities,
}

impl Default for TestModel {
    fn default() -> Self {
        TestModel {
            output_tool: None,
            call_tools: None,
            answer_text: DEFAULT_ANSWER.to_string(),
            chunk_size: DEFAULT_CHUNK_SIZE,
            capabilities: FAKE_CAPABILITIES,
        }
    }
}

impl TestModel {
    /// A model that calls every tool, then answers [`DEFAULT_ANSWER`] (or a
    /// sample of the output schema).
    pub fn new() -> Self {
        TestModel::default()
    }

    /// Builder-style: `name` is the output tool — never called in the calling
    /// turn, called with sample arguments to answer.
    pub fn with_output_tool(mut self, name: impl Into<String>) -> Self {
        self.output_tool = Some(name.into());
        self
    }

    /// Builder-style: call only these tools (advertised ones, in
    /// advertisement order) in the calling turn; an empty list calls none.
    pub fn call_tools<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.call_tools = Some(names.into_iter().map(Into::into).collect());
        self
    }

    /// Builder-style: the text of a plain answer.
    pub fn answer_text(mut self, text: impl Into<String>) -> Self {
        self.answer_text = text.into();
        self
    }

    /// Builder-style: stream in pieces of `chars` characters (0: whole).
    pub fn chunk_size(mut self, chars: usize) -> Self {
        self.chunk_size = chars;
        self
    }

    /// Builder-style: report `capabilities` (default: none; every fake streams).
    pub fn with_capabilities(mut self, capabilities: Capabilities) -> Self {
        self.capabilities = capabilities;
        self
    }

    /// The response to `request` (never an error).
    fn respond(&self, request: &Request) -> Response {
        let answering = request.messages.last().is_some_and(|m| m.role == Role::Tool);
        let callable: Vec<&ToolDefinition> =
            if answering { Vec::new() } else { request.tools.iter().filter(|t| self.is_callable(&t.name)).collect() };
        let output_tool = self.output_tool.as_deref().and_then(|name| request.tools.iter().find(|t| t.name == name));
        let earlier_calls: usize = request.messages.iter().map(|m| m.tool_calls.len()).sum();
        let call = |(i, tool): (usize, &&ToolDefinition)| {
            ToolCall::new(format!("test_call_{}", earlier_calls + i + 1), tool.name.clone(), sample_args(tool))
        };
        let message = if !callable.is_empty() {
            Message::assistant_calls(callable.iter().enumerate().map(call).collect())
        } else if let Some(tool) = output_tool {
            Message::assistant_calls(vec![call((0, &tool))])
        } else if let Some(schema) = &request.output_schema {
            Message::assistant(sample_for_schema(&schema.schema).to_string())
        } else {
            Message::assistant(self.answer_text.clone())
        };
        let finish_reason = if message.tool_calls.is_empty() { FinishReason::Stop } else { FinishReason::ToolCall };
        let input: usize = request.messages.iter().map(message_chars).sum();
        let usage = Usage::new(tokens(input), tokens(message_chars(&message)));
        Response { message, usage, finish_reason }
    }

    fn is_callable(&self, name: &str) -> bool {
        self.output_tool.as_deref() != Some(name)
            && self.call_tools.as_ref().is_none_or(|names| names.iter().any(|n| n == name))
    }
}

/// Arguments for `tool`: a sample of its schema, or `{}` when the schema
/// does not describe an object (tools only ever take objects).
fn sample_args(tool: &ToolDefinition) -> ToolArgs {
    match sample_for_schema(&tool.parameters) {
        value @ serde_json::Value::Object(_) => ToolArgs::from_value(&value),
        _ => ToolArgs::new("{}"),
    }
}

fn message_chars(message: &Message) -> usize {
    message.content.chars().count() + message.tool_calls.iter().map(|c| c.args.as_str().chars().count()).sum::<usize>()
}

/// A rough four-characters-per-token count, never zero.
fn tokens(chars: usize) -> u64 {
    u64::try_from(chars.div_ceil(4).max(1)).unwrap_or(u64::MAX)
}

impl StreamingModel for TestModel {
    fn generate(&self, request: &Request) -> Result<Response, ModelError> {
        Ok(self.respond(request))
    }

    fn stream(&self, request: &Request, sink: &mut dyn DeltaSink) -> Result<Response, ModelError> {
        stream_response(self.respond(request), self.chunk_size, sink)
    }

    fn capabilities(&self) -> Capabilities {
        self.capabilities
    }

    fn as_async(&self) -> Option<&dyn AsyncModel> {
        Some(self)
    }
}

super::async_via_blocking!(TestModel);
