//! Anthropic Messages (SPEC PROV-ANT, THINK, MM, USAGE-02).
//!
//! [`Codec`] is the pure half of the `Anthropic` client: it builds the
//! `POST {base}/v1/messages` request for a golem request, with the key in
//! the `x-api-key` header (held as a [`Secret`](crate::Secret), so it never
//! reaches a log line or an error) and `anthropic-version: 2023-06-01`,
//! and decodes JSON bodies, SSE streams and `{"type": "error"}` bodies
//! into golem responses or classified errors. Anthropic's shapes stay in
//! here: typed content blocks, tool results inside user turns, thinking
//! blocks with signatures replayed byte for byte (THINK-01..05), and
//! prompt-cache breakpoints.
//!
//! An answer's text blocks become one message content. Blocks next to
//! each other are joined as they are (citations cut one sentence into
//! several); text that follows a block of another kind — a server tool's
//! call or result, a tool_use, thinking — while text came before starts a
//! new paragraph: `"\n\n"` is put before it unless that text already
//! ends with whitespace or the new text starts with it. Plain and streamed
//! answers are joined alike, provider parts stand before the break, and
//! the break stays in the history, so the next turn replays it inside the
//! later text block.
//!
//! ```
//! use golem_providers::anthropic::{Codec, Config};
//! use golem_providers::codec::HttpCodec;
//! use golem_providers::http::HttpResponseHead;
//! use golem_core::model::Request;
//! use golem_core::Message;
//!
//! let codec = Codec::new(Config::builder("claude-haiku-4-5").api_key("sk-ant-test").build().unwrap());
//! let request = Request::new(vec![Message::user("Say hi")]);
//! let http = codec.encode(&request, true).unwrap();
//! assert_eq!(http.url, "https://api.anthropic.com/v1/messages");
//! assert!(http.header("x-api-key").unwrap().is_secret());
//! assert_eq!(http.header("anthropic-version").unwrap().expose(), "2023-06-01");
//! assert!(!format!("{http:?}").contains("sk-ant-test"));
//!
//! let body = br#"{"type":"message","content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn"}"#;
//! assert_eq!(codec.decode(&request, &HttpResponseHead::new(200, vec![]), body).unwrap().message.content, "hi");
//! ```

mod answer;
mod builtin;
mod cache;
mod config;
mod media;
mod request;
mod response;
mod status;
mod stream;
mod tuning;

pub use crate::config::{ConfigError, Thinking};
pub use answer::finish_reason;
pub use cache::MAX_BREAKPOINTS;
pub use config::{AnthropicOptions, Config, ConfigBuilder, API_VERSION, DEFAULT_BASE_URL, DEFAULT_MODEL, ENV_VARS};
pub use request::{encode_body, encode_count_tokens_body};
pub use response::decode_body;
pub use status::error_from_response;
pub use stream::AnthropicStream;
pub use tuning::{AnthropicExtras, CacheControl, CacheTtl, Tuning, DEFAULT_MAX_TOKENS};

use crate::classify::{decode_error, with_request_id};
use crate::codec::{response_turn, HttpCodec, TokenCounting};
use crate::http::{HeaderValue, HttpRequest, HttpResponseHead};
use golem_core::builtin::BuiltinSupport;
use golem_core::model::{Capabilities, ModelError, Request, Response};
use serde_json::Value;

/// The codec family stamped on the thinking blocks this codec produced
/// (SPEC MSG-04, THINK-04): only these, and signed or redacted blocks of
/// no known family, are replayed to Anthropic.
pub const FAMILY: &str = "anthropic";

/// The Anthropic codec for one [`Config`].
#[derive(Clone, Debug)]
pub struct Codec {
    config: Config,
}

impl Codec {
    /// The URL of an API path such as `/v1/messages`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.config.base_url())
    }

    /// The classified error for a non-2xx response (SPEC PROV-ANT-07).
    pub fn error(&self, head: &HttpResponseHead, body: &[u8]) -> ModelError {
        error_from_response(head, body, self.config.api_key())
    }

    fn post(&self, path: &str, body: Vec<u8>, stream: bool) -> HttpRequest {
        let mut http = HttpRequest::post_json(self.url(path), body, stream)
            .with_header("anthropic-version", HeaderValue::Plain(API_VERSION.into()))
            .with_headers(self.config.headers());
        if !self.config.betas().is_empty() {
            http = http.with_header("anthropic-beta", HeaderValue::Plain(self.config.betas().join(",").into()));
        }
        http.with_secret("x-api-key", self.config.api_key())
    }
}

impl HttpCodec for Codec {
    type Stream = AnthropicStream;

    fn encode(&self, request: &Request, stream: bool) -> Result<HttpRequest, ModelError> {
        Ok(self.post("/v1/messages", encode_body(request, &self.config, stream)?, stream))
    }

    fn decode(&self, request: &Request, head: &HttpResponseHead, body: &[u8]) -> Result<Response, ModelError> {
        decode_body(head, body, response_turn(&request.messages), self.config.api_key())
    }

    fn stream_decoder(&self, request: &Request, head: &HttpResponseHead) -> AnthropicStream {
        AnthropicStream::new(head, response_turn(&request.messages), self.config.api_key().cloned())
    }

    /// A native output schema next to tools yes; forced tool choice only
    /// while thinking is off — the API refuses it with thinking (SPEC
    /// PROV-ANT-04, MODEL-03).
    fn capabilities(&self) -> Capabilities {
        Capabilities::new()
            .native_schema_with_tools(true)
            .forced_tool_choice(!self.config.thinks())
            .builtin_tools(BuiltinSupport::NONE.web_search(true).web_fetch(true).code_execution(true))
    }
}

/// The id of the `n`-th call (1-based) of a response that carries none,
/// `turn` being the assistant messages of the request plus one (SPEC
/// PROV-COMMON-06).
pub(crate) fn call_id(turn: usize, n: usize) -> String {
    format!("toolu_{turn}_{n}")
}

crate::config::configured!(Codec, AnthropicOptions, and new);

impl TokenCounting for Codec {
    /// The request of a `count_tokens` call for everything `request` would
    /// send (SPEC PROV-ANT-07).
    fn encode_count_tokens(&self, request: &Request) -> Result<HttpRequest, ModelError> {
        Ok(self.post("/v1/messages/count_tokens", encode_count_tokens_body(request, &self.config)?, false))
    }

    /// The token count of a `count_tokens` response (`input_tokens`).
    fn decode_count_tokens(&self, head: &HttpResponseHead, body: &[u8]) -> Result<u64, ModelError> {
        let key = self.config.api_key();
        if !head.is_success() {
            return Err(self.error(head, body));
        }
        let fail = |error: ModelError| with_request_id(error, head, key);
        let value: Value = crate::codec::json::parse_json(body)
            .map_err(|e| fail(decode_error("count_tokens body", &format!("invalid JSON: {e}"), true, key)))?;
        value
            .get("input_tokens")
            .and_then(Value::as_u64)
            .ok_or_else(|| fail(decode_error("count_tokens body", "no input_tokens count", false, key)))
    }
}
