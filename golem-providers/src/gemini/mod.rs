//! Google Gemini (SPEC PROV-GEM, THINK, MM).
//!
//! [`Codec`] is the pure half of the `Gemini` client: it builds the
//! `generateContent` or `streamGenerateContent?alt=sse` request for a
//! golem request, with the API key in the `x-goog-api-key` header (never
//! in the URL, so it never reaches a log line or an error), and decodes
//! JSON bodies, streams and `google.rpc.Status` errors into golem
//! responses or classified errors. Gemini's quirks stay in here: roles
//! `user` and `model`, parts, function calls without ids answered by
//! position, thought signatures on the parts that carried them, and its
//! schema fields.
//!
//! ```
//! use golem_providers::codec::HttpCodec;
//! use golem_providers::gemini::{Codec, Config};
//! use golem_providers::http::HttpResponseHead;
//! use golem_core::model::Request;
//! use golem_core::Message;
//!
//! let codec = Codec::new(Config::builder("gemini-2.5-flash").api_key("AIza-test").build().unwrap());
//! let request = Request::new(vec![Message::user("Say hi")]);
//! let http = codec.encode(&request, true).unwrap();
//! assert_eq!(
//!     http.url,
//!     "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
//! );
//! assert!(http.header("x-goog-api-key").unwrap().is_secret());
//! assert!(!format!("{http:?}").contains("AIza-test"));
//!
//! let body = br#"{"candidates":[{"content":{"role":"model","parts":[{"text":"hi"}]},"finishReason":"STOP"}]}"#;
//! assert_eq!(codec.decode(&request, &HttpResponseHead::new(200, vec![]), body).unwrap().message.content, "hi");
//! ```

mod answer;
mod builtin;
mod config;
mod embed;
mod json_array;
mod media;
mod metadata;
mod request;
mod response;
mod schema;
mod status;
mod stream;
mod tuning;

pub use crate::config::ConfigError;
pub use config::{Config, ConfigBuilder, GeminiOptions, API_VERSION, DEFAULT_BASE_URL, DEFAULT_MODEL, ENV_VARS};
pub use embed::{decode_embed_body, encode_embed_body, task_type, BATCH_LIMIT};
pub use metadata::{finish_reason, usage};
pub use request::{encode_body, encode_count_tokens_body};
pub use response::decode_body;
pub use schema::legacy_schema;
pub use status::{error_from_response, retry_info};
pub use stream::GeminiStream;
pub use tuning::{GeminiExtras, SafetySetting, Thinking, Tuning};

use crate::classify::decode_error;
use crate::codec::{response_turn, HttpCodec, TokenCounting};
use crate::http::{HttpRequest, HttpResponseHead};
use golem_core::builtin::BuiltinSupport;
use golem_core::model::{Capabilities, ModelError, Request, Response};
use serde_json::Value;

/// The codec family stamped on the thinking blocks this codec produced
/// (SPEC MSG-04, THINK-04): only these, and unstamped thought text, are
/// replayed to Gemini.
pub const FAMILY: &str = "gemini";

/// The Gemini codec for one [`Config`].
#[derive(Clone, Debug)]
pub struct Codec {
    config: Config,
}

impl Codec {
    /// The URL of a method on the model — `generateContent`,
    /// `streamGenerateContent`, `countTokens` — without a query.
    pub fn url(&self, method: &str) -> String {
        format!("{}/{API_VERSION}/{}:{method}", self.config.base_url(), self.config.model_path())
    }

    /// The classified error for a non-2xx response (SPEC PROV-GEM-08).
    pub fn error(&self, head: &HttpResponseHead, body: &[u8]) -> ModelError {
        error_from_response(head, body, self.config.api_key())
    }

    fn post(&self, url: String, body: Vec<u8>, stream: bool) -> HttpRequest {
        HttpRequest::post_json(url, body, stream)
            .with_headers(self.config.headers())
            .with_secret("x-goog-api-key", self.config.api_key())
    }
}

impl HttpCodec for Codec {
    type Stream = GeminiStream;

    fn encode(&self, request: &Request, stream: bool) -> Result<HttpRequest, ModelError> {
        let url = if stream { self.url("streamGenerateContent") + "?alt=sse" } else { self.url("generateContent") };
        Ok(self.post(url, encode_body(request, &self.config)?, stream))
    }

    fn decode(&self, request: &Request, head: &HttpResponseHead, body: &[u8]) -> Result<Response, ModelError> {
        decode_body(head, body, response_turn(&request.messages), self.config.api_key())
    }

    fn stream_decoder(&self, request: &Request, head: &HttpResponseHead) -> GeminiStream {
        GeminiStream::new(head, response_turn(&request.messages), self.config.api_key().cloned())
    }

    /// Forced tool choice yes (`mode: ANY`); a native output schema next
    /// to function tools only on Gemini 3 — earlier models refuse it, so
    /// `Auto` output picks tool mode when an agent has tools (SPEC
    /// PROV-GEM-05, OUT-07); Google Search, code execution and URL context
    /// as built-ins.
    fn capabilities(&self) -> Capabilities {
        Capabilities::new()
            .native_schema_with_tools(schema_with_tools(self.config.model()))
            .forced_tool_choice(true)
            .builtin_tools(BuiltinSupport::NONE.web_search(true).code_execution(true).url_context(true))
    }
}

/// Whether `model` takes a response schema together with function tools:
/// Gemini 3 does, earlier models refuse it.
pub(crate) fn schema_with_tools(model: &str) -> bool {
    model.trim_start_matches("models/").starts_with("gemini-3")
}

/// The id of the `n`-th call (1-based) of a response that carries none,
/// `turn` being the assistant messages of the request plus one (SPEC
/// PROV-COMMON-06).
pub(crate) fn call_id(turn: usize, n: usize) -> String {
    format!("call_{turn}_{n}")
}

crate::config::configured!(Codec, GeminiOptions, and new);

impl TokenCounting for Codec {
    /// The request of a `countTokens` call for everything `request` would
    /// send: contents, system instruction, tools (SPEC PROV-GEM-08).
    fn encode_count_tokens(&self, request: &Request) -> Result<HttpRequest, ModelError> {
        Ok(self.post(self.url("countTokens"), encode_count_tokens_body(request, &self.config)?, false))
    }

    /// The token count of a `countTokens` response (`totalTokens`; an
    /// object without it counts zero, as Google's JSON leaves zeros out).
    fn decode_count_tokens(&self, head: &HttpResponseHead, body: &[u8]) -> Result<u64, ModelError> {
        if !head.is_success() {
            return Err(self.error(head, body));
        }
        let value: Value = crate::codec::json::parse_json(body).map_err(|e| {
            decode_error("countTokens body", &format!("invalid JSON: {e}"), true, self.config.api_key())
        })?;
        match value.get("totalTokens") {
            None if value.is_object() => Ok(0),
            Some(count) => count
                .as_u64()
                .ok_or_else(|| decode_error("countTokens body", "totalTokens is not a count", false, None)),
            None => Err(decode_error("countTokens body", "the body is not a JSON object", false, None)),
        }
    }
}
