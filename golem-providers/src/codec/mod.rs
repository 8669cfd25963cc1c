//! The seam between codecs and transports.
//!
//! A transport is generic over [`HttpCodec`]: it asks the codec for an
//! [`HttpRequest`], sends it, and hands back what arrived. For a plain call
//! that is the response head and the whole body ([`HttpCodec::decode`]); for
//! a streamed call the transport creates a [`StreamDecoder`] once the head
//! is in, feeds it each chunk as it arrives, forwards every [`Delta`] it
//! yields to the caller's sink, and finally asks it for the authoritative
//! [`Response`] (SPEC MODEL-04).
//!
//! ```
//! use golem_providers::codec::{HttpCodec, StreamDecoder};
//! use golem_providers::http::HttpResponseHead;
//! use golem_core::model::{Delta, ModelError, Request, Response};
//!
//! /// What a transport's streaming call does with a codec, minus the socket.
//! fn stream_call<C: HttpCodec>(
//!     codec: &C,
//!     request: &Request,
//!     head: HttpResponseHead,
//!     chunks: &[&[u8]],
//!     sink: &mut dyn FnMut(Delta),
//! ) -> Result<Response, ModelError> {
//!     let http = codec.encode(request, true)?;
//!     let _http = codec.authorize(http, std::time::SystemTime::now())?; // the transport sends this
//!     if !head.is_success() {
//!         let body: Vec<u8> = chunks.concat(); // read the error body whole
//!         return codec.decode(request, &head, &body);
//!     }
//!     let mut decoder = codec.stream_decoder(request, &head);
//!     for chunk in chunks {
//!         decoder.feed(chunk);
//!         while let Some(delta) = decoder.next_delta() {
//!             sink(delta?);
//!         }
//!     }
//!     decoder.end();
//!     while let Some(delta) = decoder.next_delta() {
//!         sink(delta?);
//!     }
//!     decoder.finish()
//! }
//! # let _ = stream_call::<golem_providers::openai::Codec>;
//! ```

use crate::http::{HttpRequest, HttpResponseHead};
use golem_core::embed::{EmbedRequest, Embeddings};
use golem_core::message::{Message, Role};
use golem_core::model::{Capabilities, Delta, ModelError, Request, Response};
use std::time::SystemTime;

/// A provider's pure half: request building, response parsing, stream
/// parsing and failure classification. Implementations never do I/O, read
/// the environment or a clock.
pub trait HttpCodec: Send + Sync {
    /// The incremental stream parser this codec uses.
    type Stream: StreamDecoder;

    /// Build the HTTP request for `request`, streamed or not. Errors are of
    /// kind `Encode` or `Unsupported` and are never retryable.
    fn encode(&self, request: &Request, stream: bool) -> Result<HttpRequest, ModelError>;

    /// The last step before sending, for what needs the wall clock or
    /// fresh credentials (SigV4 signs the request with both). The client
    /// calls it once per attempt, after [`Self::encode`], with its clock
    /// reading `now`; the default sends the request as encoded. An error
    /// here (no credentials) fails the attempt before anything is sent.
    fn authorize(&self, request: HttpRequest, now: SystemTime) -> Result<HttpRequest, ModelError> {
        let _ = now;
        Ok(request)
    }

    /// Decode a whole response. A non-2xx `head` yields the classified
    /// error; so does a 2xx body that cannot be decoded. `request` is the
    /// one that was encoded: codecs need it to synthesize missing call ids
    /// deterministically (SPEC PROV-COMMON-06).
    fn decode(&self, request: &Request, head: &HttpResponseHead, body: &[u8]) -> Result<Response, ModelError>;

    /// A stream parser for a 2xx streamed response. (For any other status,
    /// read the body whole and call [`Self::decode`], which classifies it.)
    fn stream_decoder(&self, request: &Request, head: &HttpResponseHead) -> Self::Stream;

    /// What the configured provider supports (SPEC MODEL-03).
    fn capabilities(&self) -> Capabilities;
}

/// An incremental stream parser: `feed` bytes, drain `next_delta`, call
/// `end` at the end of the body, drain again, then `finish`.
///
/// The same bytes give the same deltas and the same response however they
/// are split into chunks (SPEC STREAM-06), and the deltas, assembled by
/// [`golem_core::stream::StreamAssembler`], equal the message of the
/// response `finish` returns (SPEC STREAM-05, MODEL-04).
pub trait StreamDecoder: Send {
    /// Take the next chunk of the body. Parsing happens in
    /// [`Self::next_delta`].
    fn feed(&mut self, chunk: &[u8]);

    /// The body ended (cleanly, as far as the transport knows).
    fn end(&mut self);

    /// The next delta; `None` when more input is needed or the stream is
    /// over. An error is yielded once and is terminal: `finish` returns it
    /// again.
    fn next_delta(&mut self) -> Option<Result<Delta, ModelError>>;

    /// The message assembled so far — partial evidence when the transport
    /// fails mid-stream.
    fn partial(&self) -> Message;

    /// The authoritative response, or why the stream failed: a stream that
    /// ended without its terminal marker is `Truncated` (retryable), never a
    /// success (SPEC STREAM-07). Deltas not yet drained are parsed too, so
    /// the response is complete even if the caller stopped draining.
    fn finish(self) -> Result<Response, ModelError>;
}

/// A codec whose provider counts a request's input tokens without
/// generating anything (Anthropic, Gemini, Bedrock). Every
/// [`Client`](crate::client::Client) over such a codec gets `count_tokens`
/// and `count_tokens_async`.
pub trait TokenCounting: HttpCodec {
    /// The counting request for `request` (authorized afterwards like any
    /// other, see [`HttpCodec::authorize`]).
    fn encode_count_tokens(&self, request: &Request) -> Result<HttpRequest, ModelError>;

    /// The count from a whole response, or the classified error.
    fn decode_count_tokens(&self, head: &HttpResponseHead, body: &[u8]) -> Result<u64, ModelError>;
}

/// A codec whose provider embeds texts (SPEC EXTRA-02): OpenAI and the
/// compatible presets, Azure, Gemini and Bedrock (Titan and Cohere embed
/// models). Every [`Client`](crate::client::Client) over such a codec is a
/// golem [`Embedder`](golem_core::embed::Embedder) and
/// [`AsyncEmbedder`](golem_core::embed::AsyncEmbedder): the client refuses
/// an empty request, splits it to [`Self::embed_batch_limit`], retries
/// each batch and joins the answers.
///
/// ```
/// use golem_providers::codec::EmbedCodec;
/// use golem_providers::http::HttpResponseHead;
/// use golem_providers::openai::{Codec, Config, Preset};
/// use golem_core::embed::EmbedRequest;
///
/// let codec = Codec::new(Config::builder(Preset::openai(), "text-embedding-3-small").api_key("sk-test").build()?);
/// let request = EmbedRequest::documents(["hello"]).with_dimensions(2);
/// let http = codec.encode_embed(&request)?;
/// assert_eq!(http.url, "https://api.openai.com/v1/embeddings");
///
/// let body = br#"{"data":[{"index":0,"embedding":[0.6,0.8]}],"model":"m","usage":{"prompt_tokens":1}}"#;
/// let answer = codec.decode_embed(&request, &HttpResponseHead::new(200, vec![]), body)?;
/// assert_eq!(answer.vectors, [vec![0.6, 0.8]]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait EmbedCodec: HttpCodec {
    /// The most inputs one call may carry: the provider's documented limit
    /// for the configured model (OpenAI 2048, Gemini 100, Cohere 96, Titan
    /// 1).
    fn embed_batch_limit(&self) -> usize;

    /// The request embedding every input of `request` (one batch: at most
    /// [`Self::embed_batch_limit`] inputs), authorized afterwards like any
    /// other (see [`HttpCodec::authorize`]).
    fn encode_embed(&self, request: &EmbedRequest) -> Result<HttpRequest, ModelError>;

    /// The vectors of a whole response to `request`, checked: one per
    /// input, all of one non-zero length (the asked `dimensions`, if any),
    /// finite — anything else is a decode error. A non-2xx `head` yields
    /// the classified error.
    fn decode_embed(
        &self,
        request: &EmbedRequest,
        head: &HttpResponseHead,
        body: &[u8],
    ) -> Result<Embeddings, ModelError>;
}

/// The turn a response to `messages` answers: the assistant messages
/// before it, plus one. Every family numbers the ids it makes up for calls
/// that came without one by it (SPEC PROV-COMMON-06), so a replayed
/// history always gets the same ids.
///
/// ```
/// use golem_core::Message;
/// assert_eq!(golem_providers::codec::response_turn(&[Message::user("hi")]), 1);
/// ```
pub fn response_turn(messages: &[Message]) -> usize {
    messages.iter().filter(|m| m.role == Role::Assistant).count() + 1
}

/// Whole JSON bodies, parsed the cheap way with the same outcome.
#[cfg(any(
    feature = "openai",
    feature = "azure",
    feature = "responses",
    feature = "anthropic",
    feature = "gemini",
    feature = "bedrock"
))]
pub(crate) mod json;
