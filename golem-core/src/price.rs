//! What tokens cost (SPEC USAGE-07, OBS-05).
//!
//! A [`Price`] turns normalized [`Usage`] into an estimated cost in US
//! dollars. Usage counts cached tokens inside `input_tokens` for every
//! provider (SPEC USAGE-02), so one price applies whichever provider
//! reported the usage.

use crate::message::Usage;
use serde::{Deserialize, Serialize};

/// US dollars per million tokens of each kind.
///
/// ```
/// use golem_core::{Price, Usage};
///
/// // $3 in, $15 out, cached reads at $0.30, cache writes at the input rate.
/// let price = Price::per_million(3.0, 15.0).with_cache_read(0.3);
/// let usage = Usage::new(1_000_000, 100_000).with_cache_read_tokens(400_000);
/// // 600k uncached × $3 + 400k cached × $0.30 + 100k out × $15
/// assert!((price.cost(&usage) - (1.8 + 0.12 + 1.5)).abs() < 1e-9);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Price {
    /// Uncached input tokens.
    pub input: f64,
    /// Output tokens (reasoning included).
    pub output: f64,
    /// Input tokens read from a prompt cache; `0` means the input rate.
    #[serde(default)]
    pub cache_read: f64,
    /// Input tokens written to a prompt cache; `0` means the input rate.
    #[serde(default)]
    pub cache_write: f64,
}

impl Price {
    /// A price of `input` and `output` dollars per million tokens; cached
    /// tokens cost the input rate until set.
    pub const fn per_million(input: f64, output: f64) -> Self {
        Price { input, output, cache_read: 0.0, cache_write: 0.0 }
    }

    /// Builder-style: dollars per million input tokens read from a cache.
    pub const fn with_cache_read(mut self, rate: f64) -> Self {
        self.cache_read = rate;
        self
    }

    /// Builder-style: dollars per million input tokens written to a cache.
    pub const fn with_cache_write(mut self, rate: f64) -> Self {
        self.cache_write = rate;
        self
    }

    /// The estimated cost of `usage` in US dollars:
    /// `(input − cache read − cache write)·in + cache read·cr + cache write·cw + output·out`,
    /// a zero cache rate falling back to the input rate (SPEC USAGE-07).
    /// Rates that are negative or not finite count as zero, so a bad table
    /// entry cannot make a cost negative or NaN.
    pub fn cost(&self, usage: &Usage) -> f64 {
        let rate = |r: f64| if r.is_finite() && r > 0.0 { r } else { 0.0 };
        let (input, output) = (rate(self.input), rate(self.output));
        let cache_read = if rate(self.cache_read) > 0.0 { rate(self.cache_read) } else { input };
        let cache_write = if rate(self.cache_write) > 0.0 { rate(self.cache_write) } else { input };
        // Token counts are far below 2^53, so the conversions are exact.
        let tokens = |n: u64| n as f64;
        (tokens(usage.uncached_input_tokens()) * input
            + tokens(usage.cache_read_tokens) * cache_read
            + tokens(usage.cache_write_tokens) * cache_write
            + tokens(usage.output_tokens) * output)
            / 1_000_000.0
    }
}
