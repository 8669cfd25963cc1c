//! OpenAI's Responses API (`POST {base}/responses`; SPEC PROV-RESP-01..04): reasoning carried end
//! to end for OpenAI's reasoning models, on OpenAI, on an Azure OpenAI
//! resource (`{endpoint}/openai/v1/responses`) and on OpenAI-compatible
//! servers that serve `/v1/responses` (vLLM, llama.cpp, LiteLLM, …).
//!
//! [`Codec`] is the pure half of the `OpenAiResponses` client. Its shapes
//! stay in here: golem's history as input items ([`encode_body`]), the output
//! items as golem's message ([`decode_body`], [`reasoning_token`]), the typed SSE
//! events ([`ResponsesStream`]), errors as Chat Completions reports them
//! plus the in-band ones ([`error_from_response`]).
//!
//! Reasoning is the point: requests are stateless by default (`store:
//! false`) and ask for the reasoning's `encrypted_content`; each
//! `reasoning` output item comes back as thinking blocks — its summary
//! parts as their texts, the item itself (id, encrypted content) as the
//! first block's signature — and goes back to the API in the next
//! request exactly as it came, so the model does not think everything
//! over again on each tool turn.
//!
//! Built-in tools: a declared web search is the `web_search` tool (allowed
//! domains, an approximate location, the tuning's `search_context_size`),
//! code execution the `code_interpreter` tool; web fetch and URL context
//! are refused at `build`, and so are, when sent, web search options the
//! API has no field for. The items of the service's own tools
//! (`web_search_call`, `file_search_call`, `code_interpreter_call`, …)
//! decode into provider parts, the `message` items into metadata parts
//! beside their text (keeping ids and `url_citation` annotations); both go
//! back to this family only, among the reasoning items in the order they
//! came.
//!
//! ```
//! use golem_providers::codec::HttpCodec;
//! use golem_providers::http::HttpResponseHead;
//! use golem_providers::responses::{Codec, Config};
//! use golem_core::model::Request;
//! use golem_core::Message;
//!
//! let codec = Codec::new(Config::builder("gpt-5-mini").api_key("sk-test").build().unwrap());
//! let request = Request::new(vec![Message::user("Say hi")]);
//! let http = codec.encode(&request, false).unwrap();
//! assert_eq!(http.url, "https://api.openai.com/v1/responses");
//! assert!(http.header("authorization").unwrap().is_secret());
//!
//! let body = br#"{"status": "completed", "output": [
//!     {"type": "reasoning", "id": "rs_1", "encrypted_content": "gAAA", "summary": [{"type": "summary_text", "text": "Greet."}]},
//!     {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "hi"}]}]}"#;
//! let response = codec.decode(&request, &HttpResponseHead::new(200, vec![]), body).unwrap();
//! assert_eq!(response.message.content, "hi");
//! assert_eq!(response.message.thinking[0].text, "Greet.");
//! assert!(response.message.thinking[0].signature.contains("gAAA"));
//! ```

mod builtin;
mod chain;
mod config;
mod error;
mod items;
mod media;
mod replay;
mod request;
mod response;
mod stream;
mod tuning;

pub use crate::config::ConfigError;
pub use config::{Config, ConfigBuilder, ResponsesOptions, DEFAULT_BASE_URL, DEFAULT_MODEL, ENV_VARS};
pub use error::error_from_response;
pub use items::reasoning_token;
pub use request::encode_body;
pub use response::decode_body;
pub use stream::{EventParser, ResponsesStream};
pub use tuning::{ResponsesExtras, Tuning};

use crate::codec::{response_turn, HttpCodec};
use crate::http::{HeaderValue, HttpRequest, HttpResponseHead};
use golem_core::builtin::BuiltinSupport;
use golem_core::model::{Capabilities, ModelError, Request, Response};
use std::sync::Arc;

/// The codec family stamped on the thinking blocks this codec produced
/// (SPEC MSG-04, THINK-04): only these, and blocks of no family that carry
/// an item, go back to the Responses API.
pub const FAMILY: &str = "openai-responses";

/// The Responses codec for one [`Config`].
#[derive(Clone, Debug)]
pub struct Codec {
    config: Config,
    /// The answers decoded, when chaining them (shared by clones).
    chain: chain::Chain,
}

impl Codec {
    /// A codec for `config`.
    pub fn new(config: Config) -> Self {
        Codec { config, chain: chain::Chain::default() }
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The classified error for a non-2xx response.
    pub fn error(&self, head: &HttpResponseHead, body: &[u8]) -> ModelError {
        error_from_response(head, body, self.config.api_key())
    }
}

impl HttpCodec for Codec {
    type Stream = ResponsesStream;

    fn encode(&self, request: &Request, stream: bool) -> Result<HttpRequest, ModelError> {
        let continued = self.config.chains().then(|| self.chain.continued(&request.messages)).flatten();
        let continuing =
            continued.as_ref().map(|(id, from)| request::Continuing { response_id: id.as_str(), from: *from });
        let body = request::encode(request, &self.config, stream, continuing)?;
        let mut http = HttpRequest::post_json(self.config.url(), body, stream);
        if let Some((name, value)) = self.config.auth() {
            http = http.with_header(name, HeaderValue::Secret(value));
        }
        Ok(http.with_headers(self.config.headers()))
    }

    fn decode(&self, request: &Request, head: &HttpResponseHead, body: &[u8]) -> Result<Response, ModelError> {
        if !self.config.chains() {
            return decode_body(head, body, response_turn(&request.messages), self.config.api_key());
        }
        let (response, id) = response::decode(head, body, response_turn(&request.messages), self.config.api_key())?;
        if let Some(id) = id {
            self.chain.remember(&request.messages, response.message.clone(), &id);
        }
        Ok(response)
    }

    fn stream_decoder(&self, request: &Request, head: &HttpResponseHead) -> ResponsesStream {
        let stream = ResponsesStream::new(head, response_turn(&request.messages), self.config.api_key().cloned());
        if !self.config.chains() {
            return stream;
        }
        stream.remembering(self.chain.clone(), Arc::clone(&request.messages))
    }

    /// A native output schema next to tools, and forced tool choice: the
    /// API takes both. Built-ins: web search and code execution (the
    /// `web_search` and `code_interpreter` tools); the API fetches no
    /// pages on its own.
    fn capabilities(&self) -> Capabilities {
        Capabilities::new()
            .native_schema_with_tools(true)
            .forced_tool_choice(true)
            .builtin_tools(BuiltinSupport::NONE.web_search(true).code_execution(true))
    }
}

crate::config::configured!(Codec, ResponsesOptions);
