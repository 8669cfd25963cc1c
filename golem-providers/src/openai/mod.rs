//! OpenAI and the OpenAI-compatible services (SPEC PROV-OAI).
//!
//! [`Codec`] is the pure half of the client: it turns a golem request into
//! an [`HttpRequest`](crate::http::HttpRequest), and response bytes — whole or streamed — into a golem
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

use crate::chat_completions::ChatCodec;

/// The OpenAI-compatible codec for one [`Config`]: the shared Chat
/// Completions codec over [`OpenAiOptions`].
pub type Codec = ChatCodec<OpenAiOptions>;
