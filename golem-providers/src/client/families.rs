//! The clients users name: one alias of [`Client`] per wire family. Each
//! is built the same way — `builder()`, `from_env()`, `new(config)` — by
//! the generic constructors (`client/mod.rs`); only the family's settings
//! differ.

use super::Client;

/// An OpenAI or OpenAI-compatible chat-completions client.
///
/// `OpenAi::builder()` builds one for OpenAI unless
/// [`preset`](crate::config::Builder::preset) or `base_url` says
/// otherwise; a model is required, a key only where the preset's own
/// service needs one. Nothing is read from the environment (`from_env`
/// and [`OpenAi::preset`] do that: the model from `OPENAI_MODEL`, default
/// [`DEFAULT_OPENAI_MODEL`](crate::openai::DEFAULT_OPENAI_MODEL), the base
/// URL from `OPENAI_BASE_URL`, the key from `OPENAI_API_KEY` — required
/// for OpenAI itself, optional once the base URL points elsewhere).
///
/// ```
/// use golem_providers::openai::Preset;
/// use golem_providers::OpenAi;
///
/// let openai = OpenAi::builder().model("gpt-4o-mini").api_key("sk-test").build()?;
/// assert_eq!(openai.config().base_url(), "https://api.openai.com/v1");
///
/// // Any OpenAI-compatible server; it decides whether it wants a key.
/// let vllm = OpenAi::builder().model("qwen2.5").base_url("http://gpu-box:8000/v1").build()?;
/// assert!(vllm.config().api_key().is_none());
///
/// // A preset brings its base URL, key rule and dialect.
/// let groq = OpenAi::builder().preset(Preset::groq()).model("llama-3.3-70b-versatile").api_key("gsk-test").build()?;
/// assert_eq!(groq.config().base_url(), "https://api.groq.com/openai/v1");
///
/// // OpenAI itself still needs its key.
/// assert!(OpenAi::builder().model("gpt-4o-mini").build().is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[cfg(feature = "openai")]
pub type OpenAi = Client<crate::openai::Codec>;

/// An Azure OpenAI deployment client (SPEC PROV-AZ-01): endpoint,
/// deployment, api-version and a credential are all required — Azure has
/// no defaults for them. `from_env()` reads `AZURE_OPENAI_ENDPOINT`,
/// `AZURE_OPENAI_DEPLOYMENT`, `AZURE_OPENAI_API_VERSION` and
/// `AZURE_OPENAI_API_KEY`.
///
/// ```
/// use golem_providers::AzureOpenAi;
///
/// let azure = AzureOpenAi::builder()
///     .endpoint("https://example.openai.azure.com")
///     .deployment("gpt-4o")
///     .api_version("2024-12-01-preview")
///     .api_key("azure-test-key")
///     .build()?;
/// assert_eq!(azure.config().deployment(), "gpt-4o");
/// assert!(AzureOpenAi::builder().endpoint("https://example.openai.azure.com").build().is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[cfg(feature = "azure")]
pub type AzureOpenAi = Client<crate::azure::Codec>;

/// An AWS Bedrock Converse client (SigV4-signed, event-stream streaming;
/// SPEC PROV-BR-01): region, model and credentials are required.
/// `from_env()` reads `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and
/// `AWS_SESSION_TOKEN` (optional), `AWS_REGION` (else
/// `AWS_DEFAULT_REGION`), `BEDROCK_MODEL`, and `BEDROCK_BASE_URL` for
/// another endpoint (optional). Nothing else of the AWS credential chain
/// is read: no profiles, no SSO, no metadata service — give the builder's
/// `credentials_provider` a provider for those. Token counting:
/// `count_tokens`.
///
/// ```
/// use golem_providers::sigv4::Credentials;
/// use golem_providers::Bedrock;
///
/// let model = Bedrock::builder()
///     .region("us-west-2")
///     .model("us.anthropic.claude-sonnet-4-20250514-v1:0")
///     .credentials(Credentials::new("AKIDEXAMPLE", "secret").with_session_token("token"))
///     .read_timeout(std::time::Duration::from_secs(120))
///     .build()
///     .unwrap();
/// assert_eq!(model.config().base_url(), "https://bedrock-runtime.us-west-2.amazonaws.com");
/// assert!(Bedrock::builder().region("us-west-2").build().is_err(), "no model, no credentials");
/// ```
#[cfg(feature = "bedrock")]
pub type Bedrock = Client<crate::bedrock::Codec>;

/// An Anthropic Messages client (SSE streaming, thinking with signatures;
/// SPEC PROV-ANT-01): a model and (at Anthropic's endpoint) a key are
/// required. `from_env()` reads the key from `ANTHROPIC_API_KEY`, the
/// model from `ANTHROPIC_MODEL` (default
/// [`crate::anthropic::DEFAULT_MODEL`]) and `ANTHROPIC_BASE_URL` for an
/// Anthropic-compatible server (optional; away from Anthropic's endpoint
/// the key is optional too). Token counting: `count_tokens`.
///
/// ```
/// use golem_providers::anthropic::{Thinking, Tuning};
/// use golem_providers::Anthropic;
///
/// let model = Anthropic::builder()
///     .model("claude-sonnet-4-5")
///     .api_key("sk-ant-test")
///     .tuning(Tuning::new().max_tokens(8192))
///     .thinking(Thinking::Enabled { budget_tokens: 4096 })
///     .read_timeout(std::time::Duration::from_secs(300))
///     .build()
///     .unwrap();
/// assert_eq!(model.config().base_url(), "https://api.anthropic.com");
/// assert!(Anthropic::builder().model("claude-sonnet-4-5").build().is_err(), "no key");
/// let small = Anthropic::builder().model("m").api_key("k").thinking(Thinking::Enabled { budget_tokens: 100 });
/// assert!(small.build().is_err(), "a budget below 1024");
/// ```
#[cfg(feature = "anthropic")]
pub type Anthropic = Client<crate::anthropic::Codec>;

/// A Google Gemini client (`generateContent`, SSE streaming; SPEC
/// PROV-GEM-01): a model and (at Google's endpoint) a key are required.
/// `from_env()` reads the key from `GEMINI_API_KEY`, else
/// `GOOGLE_API_KEY`; the model from `GEMINI_MODEL` (default
/// [`crate::gemini::DEFAULT_MODEL`]); `GEMINI_BASE_URL` for another
/// endpoint (optional; away from Google's the key is optional too). Token
/// counting: `count_tokens`.
///
/// ```
/// use golem_providers::gemini::{Thinking, Tuning};
/// use golem_providers::Gemini;
///
/// let model = Gemini::builder()
///     .model("gemini-2.5-flash")
///     .api_key("AIza-test")
///     .tuning(Tuning::new().temperature(0.2))
///     .thinking(Thinking::new().include_thoughts(true))
///     .read_timeout(std::time::Duration::from_secs(120))
///     .build()
///     .unwrap();
/// assert_eq!(model.config().base_url(), "https://generativelanguage.googleapis.com");
/// assert!(Gemini::builder().model("gemini-2.5-flash").build().is_err(), "no key");
/// ```
#[cfg(feature = "gemini")]
pub type Gemini = Client<crate::gemini::Codec>;

/// An OpenAI Responses API client (`/responses`, typed SSE events;
/// reasoning carried from turn to turn): OpenAI by default, an Azure
/// OpenAI resource with [`azure_endpoint`](crate::config::Builder::azure_endpoint),
/// any server that serves `/v1/responses` with `base_url`. A model is
/// required, a key at OpenAI's endpoint and Azure's. `from_env()` reads
/// what [`OpenAi`]'s does: `OPENAI_API_KEY`, `OPENAI_MODEL` (default
/// [`crate::responses::DEFAULT_MODEL`]) and `OPENAI_BASE_URL` — so an
/// agent moves between the two APIs by its client line alone.
///
/// ```
/// use golem_providers::responses::Tuning;
/// use golem_providers::OpenAiResponses;
///
/// let model = OpenAiResponses::builder()
///     .model("gpt-5-mini")
///     .api_key("sk-test")
///     .tuning(Tuning::new().reasoning_effort("medium").reasoning_summary("auto"))
///     .build()?;
/// assert_eq!(model.config().url(), "https://api.openai.com/v1/responses");
///
/// // Azure OpenAI: the deployment is the model.
/// let azure = OpenAiResponses::builder()
///     .azure_endpoint("https://example.openai.azure.com")
///     .model("gpt-5-nano")
///     .api_key("azure-key")
///     .build()?;
/// assert_eq!(azure.config().url(), "https://example.openai.azure.com/openai/v1/responses");
///
/// // A local server; it decides whether it wants a key.
/// let local = OpenAiResponses::builder().model("gpt-oss-20b").base_url("http://localhost:8000/v1").build()?;
/// assert!(local.config().api_key().is_none());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[cfg(feature = "responses")]
pub type OpenAiResponses = Client<crate::responses::Codec>;
