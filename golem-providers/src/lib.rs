//! # golem-providers
//!
//! Model providers for golem, each split into a pure **codec** and a
//! **transport** (DESIGN "Codecs are pure").
//!
//! **In scope here:** the codecs — turning a [`golem_core::model::Request`]
//! into an [`http::HttpRequest`], and response bytes, whole or streamed,
//! into a [`golem_core::model::Response`], [`golem_core::model::Delta`]s or
//! a classified [`golem_core::model::ModelError`] — plus the pieces they
//! share: HTTP as plain data, an SSE decoder, Retry-After and HTTP-date
//! parsing, failure classification and a redacting [`Secret`].
//!
//! **Not in scope of the codecs:** I/O. No codec opens a socket, reads
//! the environment or a clock; the [`transport`]s move the bytes and pass
//! in whatever the outside world knows (the response head, the wall clock).
//!
//! **Clients:** [`OpenAi`], [`AzureOpenAi`], [`OpenAiResponses`] and [`Bedrock`] (see
//! [`client`]) glue a codec to a blocking and an async transport and
//! implement golem's `Model` and `AsyncModel`, streaming included (per
//! the features below). `OpenAi` and `AzureOpenAi` are made by one builder ([`ClientBuilder`]: `OpenAi::builder()
//! .model(..).api_key(..).base_url(..).build()?`) that also takes the
//! transport settings ([`TransportConfig`], a [`Proxy`]); `from_env()` is
//! the short form that reads the environment. `Bedrock::builder()` takes
//! region, model and credentials (or a credentials provider) and the same
//! transport settings; [`Gemini`]`::builder()` and [`Anthropic`]`::builder()`
//! a model and an API key.
//!
//! Providers: [`openai`] (OpenAI and the OpenAI-compatible presets) and
//! [`azure`] (Azure OpenAI deployments), both speaking the
//! [`chat_completions`] wire format, [`responses`] (OpenAI's Responses API
//! on OpenAI, Azure and compatible servers: the [`OpenAiResponses`]
//! client), [`bedrock`] (AWS Bedrock
//! Converse, on [`sigv4`] signing and the [`eventstream`] decoder), and
//! [`gemini`] (Google Gemini `generateContent`), and [`anthropic`]
//! (Anthropic Messages, thinking with signatures).
//!
//! **Cargo features.** Each names a capability and only adds (SPEC
//! ARCH-04); all are on by default. The shared pieces (HTTP as data, SSE,
//! Retry-After, classification, [`Secret`]) are always compiled, and the
//! codecs are pure: `--no-default-features --features openai` builds the
//! OpenAI codec with no I/O dependency at all.
//!
//! | feature | adds |
//! |---|---|
//! | `openai` | the [`openai`] codec and its presets, the [`OpenAi`] client (with a transport feature) |
//! | `anthropic` | the [`anthropic`] codec, the [`Anthropic`] client (with a transport feature) |
//! | `azure` | the [`azure`] codec, the [`AzureOpenAi`] client (with a transport feature) |
//! | `bedrock` | the [`bedrock`] codec, [`sigv4`] and [`eventstream`] (sha2, hmac, crc32fast), the [`Bedrock`] client (with a transport feature) |
//! | `gemini` | the [`gemini`] codec, the [`Gemini`] client (with a transport feature) |
//! | `responses` | the [`responses`] codec (OpenAI's Responses API), the [`OpenAiResponses`] client (with a transport feature) |
//! | `blocking` | [`transport::Transport`], [`transport::UreqTransport`] (ureq, rustls), and the clients' `Model` impl |
//! | `async` | [`transport::AsyncTransport`], [`transport::AsyncIoTransport`] (ureq-proto over async-io, futures-rustls), and the clients' `AsyncModel` impl |
//!
//! [`chat_completions`] comes with `openai`, `azure` or `responses`. [`Client`] exists with
//! either transport feature and implements each model trait whose transport
//! is compiled in; with both it offers each face from the other, so both of
//! golem's drivers call it natively.
//!
//! ```
//! use golem_providers::codec::{HttpCodec, StreamDecoder};
//! use golem_providers::http::HttpResponseHead;
//! use golem_providers::openai::{Codec, Config, Preset};
//! use golem_core::model::Request;
//! use golem_core::Message;
//!
//! let codec = Codec::new(Config::builder(Preset::ollama(), "llama3.2").build().unwrap());
//! let request = Request::new(vec![Message::user("hi")]);
//! let http = codec.encode(&request, true).unwrap();
//! assert!(http.header("authorization").is_none()); // local preset, no key
//!
//! let mut stream = codec.stream_decoder(&request, &HttpResponseHead::new(200, vec![]));
//! stream.feed(b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hello\"},\"finish_reason\":\"stop\"}]}\n\n");
//! stream.feed(b"data: [DONE]\n\n");
//! stream.end();
//! while let Some(delta) = stream.next_delta() {
//!     println!("{:?}", delta.unwrap());
//! }
//! assert_eq!(stream.finish().unwrap().message.content, "hello");
//! ```
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]

#[cfg(any(
    feature = "openai",
    feature = "azure",
    feature = "bedrock",
    feature = "gemini",
    feature = "anthropic",
    feature = "responses",
    feature = "blocking",
    feature = "async"
))]
mod macros;

#[cfg(feature = "anthropic")]
pub mod anthropic;
#[cfg(feature = "azure")]
pub mod azure;
#[cfg(feature = "bedrock")]
pub mod bedrock;
#[cfg(any(
    feature = "openai",
    feature = "azure",
    feature = "bedrock",
    feature = "gemini",
    feature = "anthropic",
    feature = "responses"
))]
mod blocks;
#[cfg(any(feature = "openai", feature = "azure", feature = "responses"))]
pub mod chat_completions;
pub mod classify;
pub mod codec;
#[cfg(any(
    feature = "openai",
    feature = "azure",
    feature = "bedrock",
    feature = "gemini",
    feature = "anthropic",
    feature = "responses"
))]
pub mod config;
#[cfg(any(
    feature = "openai",
    feature = "azure",
    feature = "bedrock",
    feature = "gemini",
    feature = "anthropic",
    feature = "responses"
))]
pub mod decoder;
// The codecs that reuse encoded history prefixes (issue 20).
#[cfg(any(feature = "openai", feature = "azure", feature = "responses"))]
mod encoded_prefix;
#[cfg(feature = "bedrock")]
pub mod eventstream;
pub mod framing;
pub mod fuzzing;
#[cfg(feature = "gemini")]
pub mod gemini;
pub mod http;
pub mod http_date;
#[cfg(feature = "openai")]
pub mod openai;
pub mod percent;
#[cfg(feature = "responses")]
pub mod responses;
pub mod retry_after;
pub mod secret;
#[cfg(feature = "bedrock")]
pub mod sigv4;
pub mod sse;
#[cfg(any(
    feature = "openai",
    feature = "azure",
    feature = "bedrock",
    feature = "gemini",
    feature = "anthropic",
    feature = "responses"
))]
pub mod tuning;

#[cfg(any(feature = "openai", feature = "azure", feature = "responses"))]
pub use chat_completions::Tuning;
pub use codec::{EmbedCodec, HttpCodec, StreamDecoder, TokenCounting};
#[cfg(any(
    feature = "openai",
    feature = "azure",
    feature = "bedrock",
    feature = "gemini",
    feature = "anthropic",
    feature = "responses"
))]
pub use config::ConfigError;
pub use secret::Secret;
#[cfg(any(feature = "blocking", feature = "async"))]
pub mod client;
#[cfg(any(feature = "blocking", feature = "async"))]
pub mod transport;
#[cfg(all(feature = "anthropic", any(feature = "blocking", feature = "async")))]
pub use client::Anthropic;
#[cfg(all(feature = "azure", any(feature = "blocking", feature = "async")))]
pub use client::AzureOpenAi;
#[cfg(all(feature = "bedrock", any(feature = "blocking", feature = "async")))]
pub use client::Bedrock;
#[cfg(any(feature = "blocking", feature = "async"))]
pub use client::Client;
#[cfg(all(
    any(feature = "blocking", feature = "async"),
    any(
        feature = "openai",
        feature = "azure",
        feature = "bedrock",
        feature = "gemini",
        feature = "anthropic",
        feature = "responses"
    )
))]
pub use client::ClientBuilder;
#[cfg(all(feature = "gemini", any(feature = "blocking", feature = "async")))]
pub use client::Gemini;
#[cfg(all(feature = "openai", any(feature = "blocking", feature = "async")))]
pub use client::OpenAi;
#[cfg(all(feature = "responses", any(feature = "blocking", feature = "async")))]
pub use client::OpenAiResponses;
#[cfg(any(feature = "blocking", feature = "async"))]
pub use transport::{Proxy, TransportConfig};
