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

/// Bedrock's own request settings beside the shared inference fields: a
/// guardrail (`guardrailConfig`) and the latency profile
/// (`performanceConfig`).
///
/// ```
/// use golem_providers::bedrock::{Guardrail, Tuning};
///
/// let tuning = Tuning::new().guardrail(Guardrail::new("xbgw7g293v7o", "DRAFT").trace("enabled")).latency("optimized");
/// assert!(tuning.validate().is_ok());
/// assert!(Tuning::new().latency(" ").validate().is_err());
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct BedrockExtras {
    /// The guardrail every call is checked against.
    pub guardrail: Option<Guardrail>,
    /// `performanceConfig.latency`: `optimized` for latency-optimized
    /// inference where the model offers it, `standard` otherwise.
    pub latency: Option<String>,
}

impl Extras for BedrockExtras {
    const LIMITS: Limits =
        Limits::new("Bedrock", 1.0, WireNames::new("temperature", "topP", "maxTokens", "stopSequences"));

    fn check(&self) -> Result<(), tuning::TuningError> {
        tuning::text("latency", self.latency.as_deref())?;
        if let Some(guardrail) = &self.guardrail {
            tuning::text("guardrail identifier", Some(&guardrail.identifier))?;
            tuning::text("guardrail version", Some(&guardrail.version))?;
            tuning::text("guardrail trace", guardrail.trace.as_deref())?;
        }
        Ok(())
    }
}

impl Tuning {
    crate::macros::setters! {
        /// Check every call against a guardrail (`guardrailConfig`).
        fn guardrail(value: Guardrail) => extras.guardrail = Some(value);
        /// The latency profile (`performanceConfig.latency`: `optimized` or `standard`).
        fn latency(value: impl Into<String>) => extras.latency = Some(value.into());
    }
}

/// A Bedrock guardrail: its identifier and version, and whether the answer
/// carries its trace.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Guardrail {
    /// The guardrail's identifier (or ARN).
    pub identifier: String,
    /// Its version (`DRAFT` or a number).
    pub version: String,
    /// `enabled`, `enabled_full` or `disabled`; unset leaves the API's default.
    pub trace: Option<String>,
}

impl Guardrail {
    /// The guardrail `identifier` at `version`.
    pub fn new(identifier: impl Into<String>, version: impl Into<String>) -> Self {
        Guardrail { identifier: identifier.into(), version: version.into(), trace: None }
    }

    /// Builder-style: the trace setting.
    pub fn trace(mut self, trace: impl Into<String>) -> Self {
        self.trace = Some(trace.into());
        self
    }

    /// The `guardrailConfig` object.
    pub(crate) fn wire(&self) -> serde_json::Value {
        let mut config = serde_json::json!({"guardrailIdentifier": self.identifier, "guardrailVersion": self.version});
        if let Some(trace) = &self.trace {
            config["trace"] = serde_json::Value::from(trace.as_str());
        }
        config
    }
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
