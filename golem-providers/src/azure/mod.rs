//! Azure OpenAI deployments (SPEC PROV-AZ-01).
//!
//! Same wire format as OpenAI — streams, errors, usage, finish reasons,
//! tool choice, structured output, media and tool-result framing all come
//! from [`crate::chat_completions`] — with a deployment URL, a required
//! api-version and an `api-key` header (or an Entra ID bearer token).
//!
//! ```
//! use golem_providers::azure::{Codec, Config};
//! use golem_providers::codec::HttpCodec;
//! use golem_core::model::Request;
//! use golem_core::Message;
//!
//! let config = Config::builder("https://example.openai.azure.com", "gpt-4o", "2024-12-01-preview")
//!     .api_key("azure-test-key")
//!     .build()
//!     .unwrap();
//! let http = Codec::new(config).encode(&Request::new(vec![Message::user("hi")]), false).unwrap();
//! assert_eq!(
//!     http.url,
//!     "https://example.openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2024-12-01-preview"
//! );
//! assert_eq!(http.header("api-key").map(|v| v.expose()), Some("azure-test-key"));
//! ```

mod config;
mod request;

pub use crate::chat_completions::{ChatExtras, ChatStream, Tuning};
pub use crate::config::ConfigError;
pub use config::{Auth, AzureOptions, Config, ConfigBuilder, ENV_VARS};
pub use request::url;

use crate::chat_completions::request::EncodeCache;
use crate::chat_completions::{decode_body, error as wire_error, DecodeContext};
use crate::codec::HttpCodec;
use crate::http::{HttpRequest, HttpResponseHead};
use golem_core::model::{Capabilities, ModelError, Request, Response};

/// The Azure OpenAI codec for one [`Config`].
#[derive(Clone, Debug, PartialEq)]
pub struct Codec {
    config: Config,
    /// The encoded beginnings of recent histories and the last tool set
    /// (issue 20); shared by clones, ignored by equality.
    cache: EncodeCache,
}

impl Codec {
    /// A codec for `config`.
    pub fn new(config: Config) -> Self {
        Codec { config, cache: EncodeCache::default() }
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The classified error for a non-2xx response (SPEC PROV-COMMON-04).
    pub fn error(&self, head: &HttpResponseHead, body: &[u8]) -> ModelError {
        wire_error::from_response(head, body, self.config.secret())
    }
}

impl HttpCodec for Codec {
    type Stream = ChatStream;

    fn encode(&self, request: &Request, stream: bool) -> Result<HttpRequest, ModelError> {
        request::encode(&self.config, &self.cache, request, stream)
    }

    fn decode(&self, request: &Request, head: &HttpResponseHead, body: &[u8]) -> Result<Response, ModelError> {
        decode_body(head, body, &DecodeContext::for_request(request, self.config.secret()))
    }

    fn stream_decoder(&self, request: &Request, head: &HttpResponseHead) -> ChatStream {
        let turn = DecodeContext::for_request(request, None).turn;
        ChatStream::new(head, turn, self.config.secret().cloned())
    }

    fn capabilities(&self) -> Capabilities {
        self.config.dialect().capabilities()
    }
}

crate::config::configured!(Codec, AzureOptions);
