//! The named OpenAI-compatible services (SPEC PROV-OAI-08).
//!
//! A preset is data: where the service lives, which environment variable
//! holds its key, and what it supports. Flags follow the SPEC rule — taken
//! from recorded traffic where there is some, else "supported" — except
//! forced tool choice, which is off without a recording (only OpenAI has
//! one), so the restriction of advertised tools applies alone there
//! (SPEC TOOL-11).

use crate::chat_completions::{Dialect, IdRule, MaxTokensField};

/// Whether a service needs an API key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KeyRule {
    /// A key is required; configs without one are refused.
    Required,
    /// A key is sent when configured (vLLM started with `--api-key`).
    Optional,
    /// Local servers: no key by default; one is sent if configured anyway.
    None,
}

/// One OpenAI-compatible service.
///
/// ```
/// use golem_providers::openai::Preset;
///
/// let groq = Preset::groq();
/// assert_eq!(groq.base_url, "https://api.groq.com/openai/v1");
/// assert_eq!(groq.key_env, Some("GROQ_API_KEY"));
/// assert!(!groq.dialect.tool_choice); // no recording: not forced
/// assert_eq!(Preset::all().len(), 14);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Preset {
    /// A short name (`openai`, `groq`, …).
    pub name: &'static str,
    /// The default base URL, without a trailing slash.
    pub base_url: &'static str,
    /// The environment variable `from_env` reads the key from.
    pub key_env: Option<&'static str>,
    /// Whether a key is needed.
    pub key: KeyRule,
    /// What the service supports and its quirks.
    pub dialect: Dialect,
}

/// Everything supported except forced tool choice, `max_tokens`, ids
/// verbatim: the default for services without recorded traffic.
const COMPATIBLE: Dialect = Dialect {
    tools: true,
    tool_choice: false,
    json_schema: true,
    stream_usage: true,
    images: true,
    max_tokens_field: MaxTokensField::MaxTokens,
    id_rule: IdRule::Verbatim,
};

const fn hosted(name: &'static str, base_url: &'static str, key_env: &'static str) -> Preset {
    Preset { name, base_url, key_env: Some(key_env), key: KeyRule::Required, dialect: COMPATIBLE }
}

impl Preset {
    /// OpenAI (the default): `max_completion_tokens`, forced tool choice
    /// (recorded).
    pub const fn openai() -> Preset {
        Preset {
            name: "openai",
            base_url: "https://api.openai.com/v1",
            key_env: Some("OPENAI_API_KEY"),
            key: KeyRule::Required,
            dialect: Dialect::FULL,
        }
    }

    /// Groq.
    pub const fn groq() -> Preset {
        hosted("groq", "https://api.groq.com/openai/v1", "GROQ_API_KEY")
    }

    /// OpenRouter (reasoning arrives in `reasoning`, which decoding reads).
    pub const fn openrouter() -> Preset {
        hosted("openrouter", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY")
    }

    /// DeepSeek (reasoning is read, never echoed — true of every preset).
    pub const fn deepseek() -> Preset {
        hosted("deepseek", "https://api.deepseek.com/v1", "DEEPSEEK_API_KEY")
    }

    /// Mistral: tool-call ids must be nine alphanumerics, so other ids are
    /// mapped on the wire (SPEC PROV-COMMON-06).
    pub const fn mistral() -> Preset {
        let mut preset = hosted("mistral", "https://api.mistral.ai/v1", "MISTRAL_API_KEY");
        preset.dialect.id_rule = IdRule::Alphanumeric9;
        preset
    }

    /// xAI (Grok).
    pub const fn xai() -> Preset {
        hosted("xai", "https://api.x.ai/v1", "XAI_API_KEY")
    }

    /// Perplexity.
    pub const fn perplexity() -> Preset {
        hosted("perplexity", "https://api.perplexity.ai", "PERPLEXITY_API_KEY")
    }

    /// Cerebras.
    pub const fn cerebras() -> Preset {
        hosted("cerebras", "https://api.cerebras.ai/v1", "CEREBRAS_API_KEY")
    }

    /// Fireworks.
    pub const fn fireworks() -> Preset {
        hosted("fireworks", "https://api.fireworks.ai/inference/v1", "FIREWORKS_API_KEY")
    }

    /// Together.
    pub const fn together() -> Preset {
        hosted("together", "https://api.together.xyz/v1", "TOGETHER_API_KEY")
    }

    /// Cohere's compatibility API.
    pub const fn cohere() -> Preset {
        hosted("cohere", "https://api.cohere.com/compatibility/v1", "COHERE_API_KEY")
    }

    /// vLLM on localhost; a key is sent only when configured.
    pub const fn vllm() -> Preset {
        Preset {
            name: "vllm",
            base_url: "http://localhost:8000/v1",
            key_env: Some("VLLM_API_KEY"),
            key: KeyRule::Optional,
            dialect: COMPATIBLE,
        }
    }

    /// Ollama on localhost, no key (reasoning arrives in `reasoning`).
    pub const fn ollama() -> Preset {
        Preset {
            name: "ollama",
            base_url: "http://localhost:11434/v1",
            key_env: None,
            key: KeyRule::None,
            dialect: COMPATIBLE,
        }
    }

    /// LM Studio on localhost, no key.
    pub const fn lm_studio() -> Preset {
        Preset {
            name: "lmstudio",
            base_url: "http://localhost:1234/v1",
            key_env: None,
            key: KeyRule::None,
            dialect: COMPATIBLE,
        }
    }

    /// Every preset, OpenAI first, in the SPEC table's order.
    pub fn all() -> [Preset; 14] {
        [
            Preset::openai(),
            Preset::groq(),
            Preset::openrouter(),
            Preset::deepseek(),
            Preset::mistral(),
            Preset::xai(),
            Preset::perplexity(),
            Preset::cerebras(),
            Preset::fireworks(),
            Preset::together(),
            Preset::cohere(),
            Preset::vllm(),
            Preset::ollama(),
            Preset::lm_studio(),
        ]
    }

    /// The preset called `name` (as in [`Preset::name`]).
    pub fn by_name(name: &str) -> Option<Preset> {
        Preset::all().into_iter().find(|p| p.name.eq_ignore_ascii_case(name))
    }

    /// Whether the service has an OpenAI-shaped `/embeddings` endpoint
    /// (OpenAI, OpenRouter, Mistral, Fireworks, Together, Cohere's
    /// compatibility API, vLLM, Ollama, LM Studio; a llama.cpp server
    /// started with `--embeddings` is reached through a custom base URL on
    /// the default preset). Groq, DeepSeek, xAI, Perplexity and Cerebras
    /// have none: an embeddings request to them is refused before it is
    /// sent.
    ///
    /// ```
    /// use golem_providers::openai::Preset;
    ///
    /// assert!(Preset::ollama().serves_embeddings());
    /// assert!(!Preset::groq().serves_embeddings());
    /// ```
    pub fn serves_embeddings(&self) -> bool {
        !matches!(self.name, "groq" | "deepseek" | "xai" | "perplexity" | "cerebras")
    }

    /// What a client on this preset reports (SPEC MODEL-03).
    pub fn capabilities(&self) -> golem_core::model::Capabilities {
        self.dialect.capabilities()
    }
}

impl Default for Preset {
    fn default() -> Self {
        Preset::openai()
    }
}
