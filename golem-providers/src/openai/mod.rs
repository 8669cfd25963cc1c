//! OpenAI and the OpenAI-compatible services (SPEC PROV-OAI).
//!
//! [`Codec`] is the pure half of the client: it turns a golem request into
//! an [`HttpRequest`], and response bytes — whole or streamed — into a golem
//! response or a classified error. The wire format itself lives in
//! [`crate::chat_completions`]; this module adds the URL, the bearer key and
//! the named [`Preset`]s.
//!
//! ```
//! use golem_providers::codec::HttpCodec;
//! use golem_providers::http::HttpResponseHead;
//! use golem_providers::openai::{Codec, Config, Preset};
//! use golem_core::model::Request;
//! use golem_core::Message;
//!
//! let codec = Codec::new(Config::builder(Preset::openai(), "gpt-4o-mini").api_key("sk-test").build().unwrap());
//! let request = Request::new(vec![Message::user("Say hi")]);
//! let http = codec.encode(&request, false).unwrap();
//! assert_eq!(http.url, "https://api.openai.com/v1/chat/completions");
//!
//! // …the transport sends `http` and reads the answer…
//! let head = HttpResponseHead::new(200, vec![]);
//! let body = br#"{"choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}"#;
//! assert_eq!(codec.decode(&request, &head, body).unwrap().message.content, "hi");
//! ```

mod config;
mod presets;
mod request;

pub use crate::chat_completions::{ChatExtras, ChatStream, Tuning};
pub use crate::config::ConfigError;
pub use config::{Config, ConfigBuilder, OpenAiOptions, DEFAULT_OPENAI_MODEL};
pub use presets::{KeyRule, Preset};

use crate::chat_completions::request::EncodeCache;
use crate::chat_completions::{decode_body, error as wire_error, DecodeContext};
use crate::codec::HttpCodec;
use crate::http::{HttpRequest, HttpResponseHead};
use golem_core::model::{Capabilities, ModelError, Request, Response};

/// The OpenAI-compatible codec for one [`Config`].
#[derive(Clone, Debug, PartialEq)]
pub struct Codec {
    config: Config,
    /// The encoded beginnings of recent histories and the last tool set
    /// (issue 20); shared by clones, ignored by equality.
    cache: EncodeCache,
    /// What every request carries, built once from `config`.
    fixed: request::Fixed,
}

impl Codec {
    /// A codec for `config`.
    pub fn new(config: Config) -> Self {
        let fixed = request::Fixed::of(&config);
        Codec { config, cache: EncodeCache::default(), fixed }
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The classified error for a non-2xx response (SPEC PROV-COMMON-04).
    pub fn error(&self, head: &HttpResponseHead, body: &[u8]) -> ModelError {
        wire_error::from_response(head, body, self.config.api_key())
    }
}

impl HttpCodec for Codec {
    type Stream = ChatStream;

    fn encode(&self, request: &Request, stream: bool) -> Result<HttpRequest, ModelError> {
        request::encode(&self.config, &self.fixed, &self.cache, request, stream)
    }

    fn decode(&self, request: &Request, head: &HttpResponseHead, body: &[u8]) -> Result<Response, ModelError> {
        decode_body(head, body, &DecodeContext::for_request(request, self.config.api_key()))
    }

    fn stream_decoder(&self, request: &Request, head: &HttpResponseHead) -> ChatStream {
        let turn = DecodeContext::for_request(request, None).turn;
        ChatStream::new(head, turn, self.config.api_key().cloned())
    }

    fn capabilities(&self) -> Capabilities {
        self.config.dialect().capabilities()
    }
}

crate::config::configured!(Codec, OpenAiOptions);
