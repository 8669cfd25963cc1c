//! What one family's API takes: the ranges it documents and the request
//! field of each shared setting.

use super::TuningError;
use std::fmt;

/// The ranges and request fields of one family's API.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct Limits {
    /// The provider, as errors name it.
    pub provider: &'static str,
    /// The highest temperature the API takes (the lowest is 0).
    pub max_temperature: f64,
    /// True where a stop sequence of whitespace only is refused, not just
    /// an empty one (Anthropic).
    pub stop_needs_text: bool,
    /// The request field of each shared setting.
    pub names: WireNames,
}

/// The request field of each shared setting; `None` where the API takes no
/// such field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct WireNames {
    /// The temperature.
    pub temperature: &'static str,
    /// top_p.
    pub top_p: &'static str,
    /// top_k.
    pub top_k: Option<&'static str>,
    /// The output-token limit.
    pub max_tokens: &'static str,
    /// The stop sequences (`None` where the API takes none: OpenAI's
    /// Responses API).
    pub stop: Option<&'static str>,
    /// The seed.
    pub seed: Option<&'static str>,
}

impl Limits {
    /// The limits of `provider`, whose temperature runs from 0 to
    /// `max_temperature` and whose fields are `names`.
    pub const fn new(provider: &'static str, max_temperature: f64, names: WireNames) -> Self {
        Limits { provider, max_temperature, stop_needs_text: false, names }
    }

    /// Builder-style: stop sequences of whitespace only are refused too.
    pub const fn stop_needs_text(mut self) -> Self {
        self.stop_needs_text = true;
        self
    }
}

impl WireNames {
    /// The field names for temperature, top_p, the output-token limit and
    /// the stop sequences; no top_k, no seed.
    pub const fn new(
        temperature: &'static str,
        top_p: &'static str,
        max_tokens: &'static str,
        stop: &'static str,
    ) -> Self {
        WireNames { temperature, top_p, top_k: None, max_tokens, stop: Some(stop), seed: None }
    }

    /// Builder-style: the API takes no stop sequences.
    pub const fn no_stop(mut self) -> Self {
        self.stop = None;
        self
    }

    /// Builder-style: the API takes top_k, as `name`.
    pub const fn top_k(mut self, name: &'static str) -> Self {
        self.top_k = Some(name);
        self
    }

    /// Builder-style: the API takes a seed, as `name`.
    pub const fn seed(mut self, name: &'static str) -> Self {
        self.seed = Some(name);
        self
    }
}

/// One family's own tuning fields, and the [`Limits`] of its API.
pub trait Extras: Clone + fmt::Debug + Default + PartialEq + Send + Sync + 'static {
    /// The ranges and request fields of the family's API.
    const LIMITS: Limits;

    /// Check the family's own fields (the shared ones are checked before).
    fn check(&self) -> Result<(), TuningError> {
        Ok(())
    }
}

/// `value` within `[min, max]` and finite, when set: for a family's own
/// fields in [`Extras::check`].
pub fn range(field: &'static str, value: Option<f64>, min: f64, max: f64) -> Result<(), TuningError> {
    match value {
        Some(v) if !(v.is_finite() && (min..=max).contains(&v)) => {
            Err(TuningError::OutOfRange { field, value: v, min, max })
        }
        _ => Ok(()),
    }
}

/// Printable, non-empty text, when set: for a family's own fields in
/// [`Extras::check`].
pub fn text(field: &'static str, value: Option<&str>) -> Result<(), TuningError> {
    match value {
        Some(v) if v.trim().is_empty() || v.chars().any(char::is_control) => {
            Err(TuningError::InvalidText { field, value: v.to_string() })
        }
        _ => Ok(()),
    }
}

pub(super) fn at_least_one(field: &'static str, value: Option<u32>) -> Result<(), TuningError> {
    if value == Some(0) {
        return Err(TuningError::Zero { field });
    }
    Ok(())
}

/// A set field the API has no name for is refused.
pub(super) fn unless_taken(
    field: &'static str,
    set: bool,
    name: Option<&str>,
    provider: &'static str,
) -> Result<(), TuningError> {
    if set && name.is_none() {
        return Err(TuningError::NotTaken { field, provider });
    }
    Ok(())
}
