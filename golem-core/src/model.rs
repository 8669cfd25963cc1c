//! The model port (SPEC MODEL): what providers, fakes and users implement.
//!
//! [`Model`] is the blocking form and [`AsyncModel`] the async one. Both are
//! object safe and `Send + Sync`, so a fallback chain can mix models of any
//! kind. Streaming is a trait of its own: a model that streams implements
//! [`StreamingModel`] (or [`AsyncStreamingModel`]) *instead of* `Model`
//! (`AsyncModel`), and is a `Model` through a blanket impl that reports its
//! streaming face — so a model streams exactly when it implements streaming.

use crate::message::{FinishReason, Message, Usage};
use crate::tool::ToolDefinition;
use serde::{Deserialize, Serialize};
use std::error::Error as StdError;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

mod port;

pub use port::{AsyncModel, AsyncStreamingModel, DeltaSink, Model, StreamingModel};

/// A boxed error that can cross threads.
pub type BoxError = Box<dyn StdError + Send + Sync + 'static>;

/// A boxed `Send` future, the return type of the async traits.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The JSON schema the final answer must follow (native structured output).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct OutputSchema {
    /// A name for the schema (providers want one); `output` when unnamed.
    pub name: String,
    /// The JSON Schema document (an object).
    pub schema: serde_json::Value,
}

impl OutputSchema {
    /// A schema document under `name`.
    pub fn new(name: impl Into<String>, schema: serde_json::Value) -> Self {
        OutputSchema { name: name.into(), schema }
    }
}

/// A tool choice sent on the wire (SPEC TOOL-11); only ever set under
/// forced tool choice.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WireToolChoice {
    /// The model must call this tool.
    Tool(String),
    /// The model chooses.
    Auto,
}

/// One model request, provider-neutral.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Request {
    /// The conversation so far, shared: a run hands every call the
    /// history it keeps rather than a copy, and appends to it again (copy on
    /// write, [`Arc::make_mut`]) once the call has let go. A model that
    /// edits the history it was sent gets its own copy the same way.
    pub messages: Arc<Vec<Message>>,
    /// The tools the model may call, in advertisement order.
    pub tools: Arc<Vec<ToolDefinition>>,
    /// Native structured-output schema, when the run uses native mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Arc<OutputSchema>>,
    /// The provider's own tools the model may use, in declaration order; a
    /// codec refuses one its family cannot run before sending anything.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub builtin_tools: Arc<Vec<crate::builtin::BuiltinTool>>,
    /// A provider-native tool choice (forced choice only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<WireToolChoice>,
    /// How long the caller waits for this call, counted from when it is
    /// made. Drivers set it only for a model whose capabilities say it
    /// [honours timeouts](Capabilities::honours_timeout): such a model
    /// gives up by then with a [`ModelErrorKind::Timeout`] error, so the
    /// blocking driver can make the call on its own thread instead of
    /// watching it from another, and the async driver arms no timer for a
    /// plain call. Not part of the conversation, so never serialized.
    #[serde(skip)]
    pub timeout: Option<Duration>,
}

impl Request {
    /// A request with the given messages (a `Vec<Message>`, or a history
    /// already shared) and nothing else.
    pub fn new(messages: impl Into<Arc<Vec<Message>>>) -> Self {
        Request {
            messages: messages.into(),
            tools: Arc::new(Vec::new()),
            builtin_tools: Arc::new(Vec::new()),
            output_schema: None,
            tool_choice: None,
            timeout: None,
        }
    }

    /// The history to edit: this request's own copy, made on the first
    /// edit if the history is still shared with the run or another request.
    ///
    /// ```
    /// use golem_core::{Message, Request};
    ///
    /// let sent = Request::new(vec![Message::user("Hi")]);
    /// let mut edited = sent.clone();
    /// edited.messages_mut().push(Message::assistant("Hello"));
    /// assert_eq!((sent.messages.len(), edited.messages.len()), (1, 2));
    /// ```
    pub fn messages_mut(&mut self) -> &mut Vec<Message> {
        Arc::make_mut(&mut self.messages)
    }

    /// Builder-style: how long the caller waits for this call (see
    /// [`Request::timeout`]).
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Builder-style: the tools the model may call, in advertisement order.
    pub fn with_tools(mut self, tools: impl Into<Arc<Vec<ToolDefinition>>>) -> Self {
        self.tools = tools.into();
        self
    }

    /// Builder-style: the provider's own tools the model may use.
    pub fn with_builtin_tools(mut self, tools: impl Into<Arc<Vec<crate::builtin::BuiltinTool>>>) -> Self {
        self.builtin_tools = tools.into();
        self
    }

    /// Builder-style: a native structured-output schema.
    pub fn with_output_schema(mut self, schema: OutputSchema) -> Self {
        self.output_schema = Some(Arc::new(schema));
        self
    }

    /// Builder-style: a provider-native tool choice.
    pub fn with_tool_choice(mut self, choice: WireToolChoice) -> Self {
        self.tool_choice = Some(choice);
        self
    }
}

/// One model response.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Response {
    /// The assistant message.
    pub message: Message,
    /// Tokens this call consumed.
    #[serde(default)]
    pub usage: Usage,
    /// Why generation stopped.
    #[serde(default)]
    pub finish_reason: FinishReason,
}

impl Response {
    /// A response carrying `message`, with no usage and an unknown finish reason.
    pub fn new(message: Message) -> Self {
        Response { message, usage: Usage::default(), finish_reason: FinishReason::Unknown }
    }

    /// An assistant text answer.
    pub fn text(content: impl Into<String>) -> Self {
        Response { finish_reason: FinishReason::Stop, ..Response::new(Message::assistant(content)) }
    }

    /// An assistant turn requesting tool calls.
    pub fn tool_calls(calls: Vec<crate::message::ToolCall>) -> Self {
        Response { finish_reason: FinishReason::ToolCall, ..Response::new(Message::assistant_calls(calls)) }
    }

    /// Builder-style: set usage.
    pub fn with_usage(mut self, usage: Usage) -> Self {
        self.usage = usage;
        self
    }

    /// Builder-style: set the finish reason.
    pub fn with_finish_reason(mut self, finish_reason: FinishReason) -> Self {
        self.finish_reason = finish_reason;
        self
    }
}

/// What kind of failure a [`ModelError`] is (SPEC PROV-COMMON-04).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ModelErrorKind {
    /// The provider answered with an error status.
    Api,
    /// The provider refused the credentials (401/403).
    Auth,
    /// The connection failed.
    Transport,
    /// The response could not be decoded.
    Decode,
    /// The request could not be encoded.
    Encode,
    /// The request holds content this provider cannot take.
    Unsupported,
    /// The call took too long.
    Timeout,
    /// The stream ended before its terminal marker.
    Truncated,
    /// The call was canceled.
    Canceled,
    /// The stream sink stopped the call.
    SinkAborted,
    /// Anything else (fakes, user models).
    Other,
}

/// A classified model failure. It is plain data so it can be logged and
/// replayed; the original error object, when there is one, rides along as
/// [`ModelError::source`] and is not serialised.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ModelError {
    /// The classification.
    pub kind: ModelErrorKind,
    /// A human-readable description (never holds secrets).
    pub message: String,
    /// Whether another attempt may succeed (SPEC PROV-COMMON-05).
    #[serde(default)]
    pub retryable: bool,
    /// The provider's Retry-After hint.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "crate::time::duration_ms::option")]
    pub retry_after: Option<Duration>,
    /// HTTP status, when there was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// The provider's error code, when given.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub code: String,
    /// The provider's request id, when given.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub request_id: String,
    /// The original error, kept by the driver for `source()` chains.
    #[serde(skip)]
    pub source: Option<Arc<dyn StdError + Send + Sync + 'static>>,
}

impl PartialEq for ModelError {
    fn eq(&self, other: &Self) -> bool {
        self.kind == other.kind
            && self.message == other.message
            && self.retryable == other.retryable
            && self.retry_after == other.retry_after
            && self.status == other.status
            && self.code == other.code
            && self.request_id == other.request_id
    }
}

impl std::fmt::Display for ModelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // A code that only repeats the status (Azure's "429") adds nothing.
        match self.status {
            Some(status) if self.code.is_empty() || self.code == status.to_string() => {
                write!(f, "{} (status {status})", self.message)
            }
            Some(status) => write!(f, "{} (status {status}, {})", self.message, self.code),
            None => f.write_str(&self.message),
        }
    }
}

impl StdError for ModelError {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        self.source.as_deref().map(|e| e as &(dyn StdError + 'static))
    }
}

impl ModelError {
    /// An error of `kind` with `message`; retryability follows the kind
    /// (transport faults, timeouts and truncation are retryable).
    pub fn new(kind: ModelErrorKind, message: impl Into<String>) -> Self {
        let retryable = matches!(kind, ModelErrorKind::Transport | ModelErrorKind::Timeout | ModelErrorKind::Truncated);
        ModelError {
            kind,
            message: message.into(),
            retryable,
            retry_after: None,
            status: None,
            code: String::new(),
            request_id: String::new(),
            source: None,
        }
    }

    /// An API error with an HTTP status; retryable for 408, 429 and 5xx.
    pub fn api(status: u16, message: impl Into<String>) -> Self {
        let kind = if status == 401 || status == 403 { ModelErrorKind::Auth } else { ModelErrorKind::Api };
        ModelError {
            status: Some(status),
            retryable: status == 408 || status == 429 || status >= 500,
            ..ModelError::new(kind, message)
        }
    }

    /// A retryable transport fault.
    pub fn transport(message: impl Into<String>) -> Self {
        ModelError::new(ModelErrorKind::Transport, message)
    }

    /// A timeout (retryable).
    pub fn timeout(message: impl Into<String>) -> Self {
        ModelError::new(ModelErrorKind::Timeout, message)
    }

    /// A fatal error of kind `Other`.
    pub fn other(message: impl Into<String>) -> Self {
        ModelError::new(ModelErrorKind::Other, message)
    }

    /// The error a model reports for streaming when it cannot stream.
    pub fn streaming_unsupported() -> Self {
        ModelError::new(ModelErrorKind::Unsupported, "this model does not support streaming")
    }

    /// The error a streaming model returns when its sink stopped the call
    /// (SPEC STREAM-02); the sink's error is kept as the source.
    pub fn sink_aborted(error: BoxError) -> Self {
        ModelError::new(ModelErrorKind::SinkAborted, format!("the stream sink stopped the call: {error}"))
            .with_source(error)
    }

    /// Builder-style: override retryability.
    pub fn with_retryable(mut self, retryable: bool) -> Self {
        self.retryable = retryable;
        self
    }

    /// Builder-style: attach a Retry-After hint.
    pub fn with_retry_after(mut self, hint: Duration) -> Self {
        self.retry_after = Some(hint);
        self
    }

    /// Builder-style: attach the provider's error code.
    pub fn with_code(mut self, code: impl Into<String>) -> Self {
        self.code = code.into();
        self
    }

    /// Builder-style: attach the original error.
    pub fn with_source(mut self, source: impl Into<BoxError>) -> Self {
        self.source = Some(Arc::from(source.into()));
        self
    }
}

/// Provider codes that mean the account is out of credit or quota:
/// OpenAI (and Azure) `insufficient_quota`, `billing_hard_limit_reached`
/// and `billing_not_active`; Bedrock's `ServiceQuotaExceededException`.
const QUOTA_CODES: [&str; 4] =
    ["insufficient_quota", "billing_hard_limit_reached", "billing_not_active", "servicequotaexceededexception"];

/// Message fragments (lowercase) that mean the same where the provider
/// gives no specific code: Anthropic answers an empty balance with a 400
/// `invalid_request_error` saying so.
const QUOTA_MESSAGES: [&str; 1] = ["credit balance is too low"];

/// Provider codes that mean "too many requests, slow down": OpenAI
/// `rate_limit_exceeded`, Anthropic `rate_limit_error`, Bedrock
/// `ThrottlingException`, Gemini `RESOURCE_EXHAUSTED`.
const RATE_LIMIT_CODES: [&str; 5] =
    ["rate_limit_exceeded", "rate_limit_error", "throttlingexception", "resource_exhausted", "too_many_requests"];

/// Provider codes for a prompt longer than the model's context window.
const CONTEXT_CODES: [&str; 2] = ["context_length_exceeded", "model_context_window_exceeded"];

/// Message fragments (lowercase) for the same, from providers that send
/// only a generic code: OpenAI-compatible servers (vLLM, DeepSeek, Mistral:
/// "maximum context length"), Anthropic ("prompt is too long"), Bedrock
/// ("input is too long", "too many input tokens"), Gemini ("the input
/// token count … exceeds the maximum").
const CONTEXT_MESSAGES: [&str; 6] = [
    "maximum context length",
    "context length exceeded",
    "prompt is too long",
    "input is too long",
    "too many input tokens",
    "input token count",
];

/// What kind of trouble a provider error reports, read from its status,
/// code and message — plain data every codec fills, so the predicates also
/// work on errors replayed from a log or built by hand.
impl ModelError {
    /// True when the account is out of credit or quota, so waiting and
    /// retrying cannot help: OpenAI's 429 `insufficient_quota` (also
    /// `billing_hard_limit_reached`, `billing_not_active`), Anthropic's
    /// "credit balance is too low", Bedrock's
    /// `ServiceQuotaExceededException`. Codes compare case-insensitively.
    /// The codecs mark such errors not retryable (SPEC PROV-COMMON-05).
    ///
    /// Gemini reports per-minute limits and exhausted quotas alike as
    /// `RESOURCE_EXHAUSTED`; that counts as [rate limiting](Self::is_rate_limited).
    ///
    /// ```
    /// use golem_core::model::ModelError;
    ///
    /// let empty = ModelError::api(429, "You exceeded your current quota").with_code("insufficient_quota");
    /// assert!(empty.is_quota_exhausted());
    /// assert!(!empty.is_rate_limited());
    /// ```
    pub fn is_quota_exhausted(&self) -> bool {
        self.is_provider_error() && (code_in(&self.code, &QUOTA_CODES) || message_has(&self.message, &QUOTA_MESSAGES))
    }

    /// True when the provider asks us to slow down: status 429, or a
    /// rate-limit code without a status (an error inside a stream) —
    /// OpenAI `rate_limit_exceeded`, Anthropic `rate_limit_error`, Bedrock
    /// `ThrottlingException`, Gemini `RESOURCE_EXHAUSTED` — unless the
    /// account is [out of quota](Self::is_quota_exhausted). Such errors
    /// are retryable and usually carry a Retry-After hint. Overload
    /// (Anthropic's 529, a 503) is not rate limiting: it is the service's
    /// state, not ours.
    ///
    /// ```
    /// use golem_core::model::ModelError;
    ///
    /// let slow_down = ModelError::api(429, "Rate limit reached").with_code("rate_limit_exceeded");
    /// assert!(slow_down.is_rate_limited() && slow_down.retryable);
    /// ```
    pub fn is_rate_limited(&self) -> bool {
        self.is_provider_error()
            && !self.is_quota_exhausted()
            && (self.status == Some(429) || code_in(&self.code, &RATE_LIMIT_CODES))
    }

    /// True when the request did not fit the model's context window:
    /// OpenAI and Azure `context_length_exceeded`, or a message saying so
    /// where the code is generic — "maximum context length" (vLLM,
    /// DeepSeek, Mistral and other OpenAI-compatible servers), "prompt is
    /// too long" (Anthropic), "input is too long" / "too many input
    /// tokens" (Bedrock), "input token count … exceeds" (Gemini). Never
    /// retryable: the same request fails the same way; trim the history
    /// ([`crate::history`]) and ask again.
    ///
    /// ```
    /// use golem_core::model::ModelError;
    ///
    /// let long = ModelError::api(400, "prompt is too long: 208310 tokens > 200000 maximum")
    ///     .with_code("invalid_request_error");
    /// assert!(long.is_context_overflow());
    /// ```
    pub fn is_context_overflow(&self) -> bool {
        self.is_provider_error()
            && self.status != Some(429)
            && (code_in(&self.code, &CONTEXT_CODES) || message_has(&self.message, &CONTEXT_MESSAGES))
    }

    /// An answer from the provider (status or provider code), not a local
    /// or transport failure whose message might mention tokens by chance.
    fn is_provider_error(&self) -> bool {
        self.kind == ModelErrorKind::Api
    }
}

fn code_in(code: &str, codes: &[&str]) -> bool {
    let code = code.trim();
    codes.iter().any(|c| code.eq_ignore_ascii_case(c))
}

fn message_has(message: &str, fragments: &[&str]) -> bool {
    let message = message.to_ascii_lowercase();
    fragments.iter().any(|f| message.contains(f))
}

/// What a model can do beyond plain generation (SPEC MODEL-03). Streaming
/// is not among them: a model streams exactly when it implements
/// [`StreamingModel`] (or [`AsyncStreamingModel`]), so the two cannot
/// disagree.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Capabilities {
    /// The provider accepts a native output schema alongside tools.
    pub native_schema_with_tools: bool,
    /// The provider can be forced to call a named tool.
    pub forced_tool_choice: bool,
    /// The model stops by [`Request::timeout`] (a provider client on a
    /// transport that turns it into a deadline for the whole exchange), so
    /// a blocking driver calls it on its own thread and the async driver
    /// watches a plain call with no timer. A model that does not say so is
    /// watched from a thread of its own (blocking) or by a timer (async)
    /// whenever a deadline applies. A model with two faces may say it of
    /// one and not the other: each face reports what it does.
    #[serde(default)]
    pub honours_timeout: bool,
    /// The built-in tools the model can run (none unless its client says).
    #[serde(default)]
    pub builtin_tools: crate::builtin::BuiltinSupport,
}

impl Capabilities {
    /// No capabilities: what a custom model reports unless it says
    /// otherwise. Add them with the setters:
    /// `Capabilities::new().native_schema_with_tools(true)`.
    pub const fn new() -> Self {
        Capabilities {
            native_schema_with_tools: false,
            forced_tool_choice: false,
            honours_timeout: false,
            builtin_tools: crate::builtin::BuiltinSupport::NONE,
        }
    }

    /// Builder-style: the provider accepts a native output schema alongside tools.
    pub const fn native_schema_with_tools(mut self, yes: bool) -> Self {
        self.native_schema_with_tools = yes;
        self
    }

    /// Builder-style: the provider can be forced to call a named tool.
    pub const fn forced_tool_choice(mut self, yes: bool) -> Self {
        self.forced_tool_choice = yes;
        self
    }

    /// Builder-style: the model stops by [`Request::timeout`].
    pub const fn honours_timeout(mut self, yes: bool) -> Self {
        self.honours_timeout = yes;
        self
    }

    /// Builder-style: the built-in tools the model can run.
    pub const fn builtin_tools(mut self, support: crate::builtin::BuiltinSupport) -> Self {
        self.builtin_tools = support;
        self
    }

    /// What both `self` and `other` support (a fallback chain's capabilities).
    pub fn intersect(self, other: Capabilities) -> Capabilities {
        Capabilities {
            native_schema_with_tools: self.native_schema_with_tools && other.native_schema_with_tools,
            forced_tool_choice: self.forced_tool_choice && other.forced_tool_choice,
            honours_timeout: self.honours_timeout && other.honours_timeout,
            builtin_tools: self.builtin_tools.intersect(other.builtin_tools),
        }
    }
}

/// One streamed fragment of a model turn (SPEC STREAM-04).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", rename_all_fields = "camelCase", tag = "type")]
#[non_exhaustive]
pub enum Delta {
    /// A piece of the answer text.
    Text {
        /// The fragment.
        text: String,
    },
    /// A piece of a thinking block.
    Thinking {
        /// The block's index within the turn.
        index: u32,
        /// A text fragment.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        text: String,
        /// The block's signature (arrives whole).
        #[serde(default, skip_serializing_if = "String::is_empty")]
        signature: String,
        /// Opaque redacted reasoning data (arrives whole).
        #[serde(default, skip_serializing_if = "String::is_empty")]
        redacted: String,
    },
    /// A piece of a tool call.
    ToolCall {
        /// The call's index within the turn.
        index: u32,
        /// The provider id (first fragment only).
        #[serde(default, skip_serializing_if = "String::is_empty")]
        id: String,
        /// The tool name (first fragment only).
        #[serde(default, skip_serializing_if = "String::is_empty")]
        name: String,
        /// A fragment of the argument text.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        args: String,
        /// An opaque provider signature.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        signature: String,
    },
    /// A whole block of a provider's built-in tool (its call, result or
    /// grounding). It arrives whole; the assembler places it after the
    /// text received so far, whatever its `at` says.
    Provider {
        /// The block.
        part: crate::builtin::ProviderPart,
    },
}

impl Delta {
    /// A text fragment.
    pub fn text(text: impl Into<String>) -> Self {
        Delta::Text { text: text.into() }
    }
}
