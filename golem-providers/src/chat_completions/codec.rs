//! The Chat Completions codec, one for every family that speaks the format
//! (OpenAI and its compatible services, Azure OpenAI): only where requests
//! go, how they authenticate and whether the body names the model differ,
//! and a [`ChatFamily`] says those.

use super::request::{encode_body_reusing, EncodeCache};
use super::{decode_body, error as wire_error, ChatStream, DecodeContext, Dialect};
use crate::codec::HttpCodec;
use crate::config::{Config, Configured, Options};
use crate::http::{HeaderValue, HttpRequest, HttpResponseHead};
use crate::secret::Secret;
use golem_core::model::{Capabilities, ModelError, Request, Response};

/// A family speaking Chat Completions: its config's [`Options`] say where
/// its requests go.
pub trait ChatFamily: Options<Codec = ChatCodec<Self>, Extras = super::ChatExtras> + PartialEq {
    /// Where every request goes and its credential header, from `config`
    /// (built once per codec, not per request).
    fn endpoint(config: &Config<Self>) -> Endpoint;

    /// Whether the body names the model (Azure's deployment URL does
    /// instead).
    fn names_model() -> bool;

    /// The dialect in force.
    fn dialect(config: &Config<Self>) -> &Dialect;

    /// Where embeddings requests go and their shape (SPEC EXTRA-02); an
    /// `Unsupported` error for a service without an embeddings endpoint.
    fn embed_route(config: &Config<Self>) -> Result<EmbedRoute, ModelError>;
}

/// Where a family's `/embeddings` requests go and how their body is shaped.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct EmbedRoute {
    /// The URL, query included.
    pub url: String,
    /// The `model` the body names; `None` where the URL names a deployment.
    pub model: Option<String>,
    /// Ask for `encoding_format: base64` (little-endian `f32`s: a fifth of
    /// the bytes of decimal text) rather than the default floats.
    pub base64: bool,
}

impl EmbedRoute {
    /// Requests to `url` naming `model` in the body, vectors as floats.
    pub fn new(url: String, model: Option<String>) -> Self {
        EmbedRoute { url, model, base64: false }
    }

    /// Builder-style: ask for base64 vectors.
    pub fn with_base64(mut self, base64: bool) -> Self {
        self.base64 = base64;
        self
    }
}

/// Where every request of a codec goes, and the header that
/// authenticates it.
#[derive(Clone, Debug, PartialEq)]
pub struct Endpoint {
    url: String,
    auth: Option<(&'static str, Secret)>,
}

impl Endpoint {
    /// Requests to `url`, with `auth` (a header name and its secret value)
    /// when there is a credential.
    pub fn new(url: String, auth: Option<(&'static str, Secret)>) -> Self {
        Endpoint { url, auth }
    }
}

/// The Chat Completions codec for one family's [`Config`].
#[derive(Clone, Debug, PartialEq)]
pub struct ChatCodec<O: ChatFamily> {
    config: Config<O>,
    /// The encoded beginnings of recent histories and the last tool set
    /// (issue 20); shared by clones, ignored by equality.
    cache: EncodeCache,
    /// What every request carries, built once from `config`.
    endpoint: Endpoint,
}

impl<O: ChatFamily> ChatCodec<O> {
    /// A codec for `config`.
    pub fn new(config: Config<O>) -> Self {
        let endpoint = O::endpoint(&config);
        ChatCodec { config, cache: EncodeCache::default(), endpoint }
    }

    /// The configuration.
    pub fn config(&self) -> &Config<O> {
        &self.config
    }

    /// A JSON POST to `url` with the codec's credential and the config's
    /// extra headers.
    pub(super) fn post(&self, url: String, body: Vec<u8>, stream: bool) -> HttpRequest {
        let mut http = HttpRequest::post_json(url, body, stream);
        if let Some((name, value)) = &self.endpoint.auth {
            http = http.with_header(*name, HeaderValue::Secret(value.clone()));
        }
        http.with_headers(self.config.headers())
    }

    /// The classified error for a non-2xx response (SPEC PROV-COMMON-04).
    pub fn error(&self, head: &HttpResponseHead, body: &[u8]) -> ModelError {
        wire_error::from_response(head, body, self.config.api_key())
    }
}

impl<O: ChatFamily> HttpCodec for ChatCodec<O> {
    type Stream = ChatStream;

    /// The body reuses the bytes the cache holds for the beginning of the
    /// history; the URL and the credential are the codec's, the extra
    /// headers the config's.
    fn encode(&self, request: &Request, stream: bool) -> Result<HttpRequest, ModelError> {
        let config = &self.config;
        let model = O::names_model().then(|| config.model());
        let body = encode_body_reusing(request, model, config.tuning(), O::dialect(config), stream, &self.cache)?;
        Ok(self.post(self.endpoint.url.clone(), body, stream))
    }

    fn decode(&self, request: &Request, head: &HttpResponseHead, body: &[u8]) -> Result<Response, ModelError> {
        decode_body(head, body, &DecodeContext::for_request(request, self.config.api_key()))
    }

    fn stream_decoder(&self, request: &Request, head: &HttpResponseHead) -> ChatStream {
        let turn = DecodeContext::for_request(request, None).turn;
        ChatStream::new(head, turn, self.config.api_key().cloned())
    }

    fn capabilities(&self) -> Capabilities {
        let search = super::builtin::searches(self.config.model());
        O::dialect(&self.config)
            .capabilities()
            .builtin_tools(golem_core::builtin::BuiltinSupport::NONE.web_search(search))
    }
}

impl<O: ChatFamily> Configured for ChatCodec<O> {
    type Options = O;

    fn with_config(config: Config<O>) -> Self {
        ChatCodec::new(config)
    }

    fn config(&self) -> &Config<O> {
        &self.config
    }
}
