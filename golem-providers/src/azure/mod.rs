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

use crate::chat_completions::ChatCodec;

/// The Azure OpenAI codec for one [`Config`]: the shared Chat
/// Completions codec over [`AzureOptions`].
pub type Codec = ChatCodec<AzureOptions>;
