//! Inference settings (SPEC PROV-BR-03, PROV-COMMON-02, THINK-02): the
//! `inferenceConfig` fields, thinking, effort and prompt-cache points.
//!
//! Every field is optional and stays off the wire while unset (`0.0` is a
//! real temperature). Ranges are checked once, when the config is built.

use crate::tuning::{self, Extras, Limits, WireNames};

/// The `inferenceConfig` fields: the shared ones ([`crate::tuning`]),
/// `maxTokens`, temperature and top_p in [0, 1], `stopSequences`; no top_k
/// and no seed (those are model-specific fields on Bedrock).
///
/// ```
/// use golem_providers::bedrock::Tuning;
///
/// let tuning = Tuning::new().temperature(0.2).max_tokens(2048).stop("END");
/// assert!(tuning.validate().is_ok());
/// assert!(Tuning::new().temperature(1.5).validate().is_err()); // Bedrock takes [0, 1]
/// ```
pub type Tuning = tuning::Tuning<BedrockExtras>;

/// Bedrock's tuning rules; Converse has no inference fields beyond the
/// shared ones.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct BedrockExtras {}

impl Extras for BedrockExtras {
    const LIMITS: Limits =
        Limits::new("Bedrock", 1.0, WireNames::new("temperature", "topP", "maxTokens", "stopSequences"));
}

/// How long a prompt-cache entry lives (`cachePoint.ttl`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CacheTtl {
    /// `5m`.
    FiveMinutes,
    /// `1h`.
    OneHour,
}

/// Prompt caching (SPEC PROV-BR-03): `cachePoint` blocks after the tools,
/// the system texts and the conversation's frontier as it moves (where
/// exactly: [`MAX_CACHE_POINTS`](super::MAX_CACHE_POINTS)'s module), on by
/// default for Claude and Nova.
///
/// ```
/// use golem_providers::bedrock::{CachePoint, CacheTtl};
/// let cache = CachePoint::new().ttl(CacheTtl::OneHour);
/// assert_eq!(cache.wire(), serde_json::json!({"cachePoint": {"type": "default", "ttl": "1h"}}));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CachePoint {
    ttl: Option<CacheTtl>,
}

impl CachePoint {
    /// A default cache point (the model's TTL).
    pub fn new() -> Self {
        CachePoint::default()
    }

    /// Builder-style: an explicit TTL.
    pub fn ttl(mut self, ttl: CacheTtl) -> Self {
        self.ttl = Some(ttl);
        self
    }

    /// The content block.
    pub fn wire(&self) -> serde_json::Value {
        let mut point = serde_json::json!({"type": "default"});
        if let Some(ttl) = self.ttl {
            point["ttl"] = serde_json::Value::from(match ttl {
                CacheTtl::FiveMinutes => "5m",
                CacheTtl::OneHour => "1h",
            });
        }
        serde_json::json!({ "cachePoint": point })
    }
}
