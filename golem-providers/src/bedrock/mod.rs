//! AWS Bedrock Converse (SPEC PROV-BR, THINK, MM).
//!
//! [`Codec`] is the pure half of the `Bedrock` client: it builds the
//! Converse or ConverseStream request for a golem request, signs it with
//! SigV4 for the `bedrock` service ([`Codec::sign`], given credentials and
//! the time), and decodes JSON bodies, event streams and errors into golem
//! responses or classified errors. It reads no clock and no environment:
//! the client hands it the wall clock, and credentials come from the
//! configured [`CredentialsProvider`].
//!
//! Amazon Nova's system tools (web grounding, the code interpreter) are
//! declared built-ins. What they leave in an answer is kept as provider
//! parts: the server `toolUse` and typed `toolResult` (replayed as they
//! came), and grounding's `citationsContent` blocks as `Metadata` parts
//! named `citations` with raw `{"citations":[…]}`, the same whether the
//! answer was streamed or not, and never sent back.
//!
//! ```
//! use golem_providers::bedrock::{Codec, Config};
//! use golem_providers::codec::HttpCodec;
//! use golem_providers::http::HttpResponseHead;
//! use golem_providers::sigv4::Credentials;
//! use golem_core::model::Request;
//! use golem_core::Message;
//! use std::time::{Duration, UNIX_EPOCH};
//!
//! let credentials = Credentials::new("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY");
//! let config = Config::builder("us-east-1", "us.amazon.nova-micro-v1:0").credentials(credentials.clone()).build().unwrap();
//! let codec = Codec::new(config);
//! let request = Request::new(vec![Message::user("Say hi")]);
//! let http = codec.encode(&request, false).unwrap();
//! assert_eq!(http.url, "https://bedrock-runtime.us-east-1.amazonaws.com/model/us.amazon.nova-micro-v1%3A0/converse");
//!
//! // The client signs with the wall clock just before sending.
//! let signed = codec.sign(http, &credentials, UNIX_EPOCH + Duration::from_secs(1_750_000_000)).unwrap();
//! assert!(signed.header("authorization").unwrap().expose().starts_with("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20250615/us-east-1/bedrock/aws4_request"));
//!
//! let body = br#"{"output":{"message":{"role":"assistant","content":[{"text":"hi"}]}},"stopReason":"end_turn","usage":{}}"#;
//! assert_eq!(codec.decode(&request, &HttpResponseHead::new(200, vec![]), body).unwrap().message.content, "hi");
//! ```

mod builtin;
mod cache;
mod config;
mod credentials;
mod embed;
mod media;
mod request;
mod response;
mod stream;
mod tuning;

pub use crate::config::{ConfigError, Thinking};
pub use cache::{caches_by_default, MAX_CACHE_POINTS};
pub use config::{BedrockOptions, Config, ConfigBuilder, ENV_VARS, REQUIRED_ENV_VARS, SERVICE};
pub use credentials::{CredentialsError, CredentialsProvider};
pub use embed::{cohere_input_type, decode_embed_body, encode_embed_body, EmbedModel, COHERE_BATCH_LIMIT};
pub use request::{encode_body, encode_count_tokens_body};
use response::scrubbed;
pub use response::{content_deltas, decode_body, error_from_response, finish_reason, usage};
pub use stream::{exception_status, ConverseStream};
pub use tuning::{BedrockExtras, CachePoint, CacheTtl, Guardrail, Tuning};

use crate::classify::decode_error;
use crate::codec::{response_turn, HttpCodec, TokenCounting};
use crate::http::{HeaderValue, HttpRequest, HttpResponseHead, Method};
use crate::percent;
use crate::sigv4::{self, Credentials, SigningParams};
use golem_core::model::{Capabilities, ModelError, ModelErrorKind, Request, Response};
use std::time::SystemTime;

/// The codec family stamped on the thinking blocks this codec produced
/// (SPEC MSG-04, THINK-04): only these, and unstamped signed blocks, are
/// replayed to Bedrock.
pub const FAMILY: &str = "bedrock";

/// The Bedrock Converse codec for one [`Config`].
#[derive(Clone, Debug)]
pub struct Codec {
    config: Config,
}

impl Codec {
    /// The URL of an operation on the model — `converse`,
    /// `converse-stream` or `count-tokens` — with the model id
    /// percent-encoded as one path segment (`:` → `%3A`, `/` → `%2F`).
    pub fn url(&self, operation: &str) -> String {
        format!("{}/model/{}/{operation}", self.config.base_url(), percent::encode(self.config.model()))
    }

    /// Sign `http` with `credentials` at `now` (SigV4, service `bedrock`,
    /// the configured region; SPEC PROV-BR-02). Pure: the same inputs give
    /// the same signature.
    pub fn sign(
        &self,
        http: HttpRequest,
        credentials: &Credentials,
        now: SystemTime,
    ) -> Result<HttpRequest, ModelError> {
        let params = SigningParams::new(credentials, self.config.region(), SERVICE, now);
        sigv4::sign_http(http, &params)
            .map_err(|e| ModelError::new(ModelErrorKind::Encode, format!("cannot sign the request: {e}")))
    }

    /// The classified error for a non-2xx response (SPEC PROV-BR-06).
    pub fn error(&self, head: &HttpResponseHead, body: &[u8]) -> ModelError {
        error_from_response(head, body, self.current_credentials().as_ref())
    }

    /// The provider's credentials for scrubbing error texts; none when it
    /// has none to give (then there is nothing of them to scrub either).
    fn current_credentials(&self) -> Option<Credentials> {
        self.config.credentials().credentials().ok()
    }
}

impl HttpCodec for Codec {
    type Stream = ConverseStream;

    fn encode(&self, request: &Request, stream: bool) -> Result<HttpRequest, ModelError> {
        let operation = if stream { "converse-stream" } else { "converse" };
        Ok(json_post(self.url(operation), encode_body(request, &self.config)?, stream, &self.config))
    }

    fn authorize(&self, request: HttpRequest, now: SystemTime) -> Result<HttpRequest, ModelError> {
        let credentials = self
            .config
            .credentials()
            .credentials()
            .map_err(|e| ModelError::new(ModelErrorKind::Auth, e.to_string()).with_retryable(e.is_retryable()))?;
        self.sign(request, &credentials, now)
    }

    fn decode(&self, request: &Request, head: &HttpResponseHead, body: &[u8]) -> Result<Response, ModelError> {
        // Credentials are fetched only for an error, to scrub every text of
        // it — a 2xx body that fails to decode still carries a request id.
        decode_body(head, body, response_turn(&request.messages), None)
            .map_err(|error| scrubbed(error, self.current_credentials().as_ref()))
    }

    fn stream_decoder(&self, request: &Request, head: &HttpResponseHead) -> ConverseStream {
        ConverseStream::new(head, response_turn(&request.messages), self.current_credentials())
    }

    fn capabilities(&self) -> Capabilities {
        let system_tools = builtin::has_system_tools(self.config.model());
        Capabilities::new()
            .native_schema_with_tools(true)
            .forced_tool_choice(self.config.sends_tool_choice())
            .builtin_tools(
                golem_core::builtin::BuiltinSupport::NONE.web_search(system_tools).code_execution(system_tools),
            )
    }
}

fn json_post(url: String, body: Vec<u8>, stream: bool, config: &Config) -> HttpRequest {
    let accept = if stream { "application/vnd.amazon.eventstream" } else { "application/json" };
    HttpRequest::new(Method::Post, url)
        .with_header("content-type", HeaderValue::Plain("application/json".into()))
        .with_header("accept", HeaderValue::Plain(accept.into()))
        .with_headers(config.headers())
        .with_body(body)
}

/// The id of the `n`-th call (1-based) of a response that carries none,
/// `turn` being the assistant messages of the request plus one (SPEC
/// PROV-COMMON-06).
pub(crate) fn call_id(turn: usize, n: usize) -> String {
    format!("call_{turn}_{n}")
}

crate::config::configured!(Codec, BedrockOptions, and new);

impl TokenCounting for Codec {
    /// The unsigned request of a `count-tokens` call for `request`'s
    /// messages, system texts and tools (SPEC PROV-BR-06).
    fn encode_count_tokens(&self, request: &Request) -> Result<HttpRequest, ModelError> {
        Ok(json_post(self.url("count-tokens"), encode_count_tokens_body(request, &self.config)?, false, &self.config))
    }

    /// The input-token count of a `count-tokens` response.
    fn decode_count_tokens(&self, head: &HttpResponseHead, body: &[u8]) -> Result<u64, ModelError> {
        if !head.is_success() {
            return Err(self.error(head, body));
        }
        crate::codec::json::parse_json::<serde_json::Value>(body)
            .ok()
            .and_then(|v| v.get("inputTokens").and_then(serde_json::Value::as_u64))
            .ok_or_else(|| decode_error("count-tokens body", "no inputTokens count", true, None))
    }
}
