//! Run configuration: plain, serialisable data validated once at build
//! (SPEC CFG). It is what an event log's header records, so nothing here may
//! be a closure: application code runs in drivers, never in the machine.

use crate::model::OutputSchema;
use crate::tool::{is_valid_tool_name, ToolSpec};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// The wait before a retried model call (SPEC RETRY-02, CFG-06).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", rename_all_fields = "camelCase", tag = "kind")]
pub enum Backoff {
    /// `min(500 ms · 2^(n−1), 30 s)` for the n-th failed attempt.
    Exponential,
    /// A table sampled from a custom function at build: entry `n − 1` is the
    /// wait after failed attempt `n`; past the end the last entry repeats.
    Table {
        /// Waits, in milliseconds on the wire.
        #[serde(with = "crate::time::duration_ms::vec")]
        delays: Vec<Duration>,
    },
}

impl Backoff {
    /// The default exponential wait after failed attempt `attempt` (1-based).
    pub fn exponential(attempt: u32) -> Duration {
        let shift = attempt.saturating_sub(1).min(20);
        let ms = 500u64.saturating_mul(1u64 << shift);
        Duration::from_millis(ms.min(30_000))
    }
}

/// The default ceiling on Retry-After hints ([`RetryPolicy::max_retry_after`]):
/// 10 min, above what providers ask for under ordinary rate limits.
pub const DEFAULT_MAX_RETRY_AFTER: Duration = Duration::from_secs(600);

/// Retry policy for model calls and the correction budgets (SPEC CFG-02).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct RetryPolicy {
    /// Attempts per model call, the first included (≥ 1).
    pub max_attempts: u32,
    /// The wait between attempts.
    pub backoff: Backoff,
    /// Spread waits by up to ±25 %, uniformly, drawn anew at every retry
    /// (SPEC RETRY-02, JIT-01): from the run's own seed
    /// ([`Start::jitter_seed`](crate::machine::Start::jitter_seed), random
    /// bits the driver draws from the OS and the event log records) mixed
    /// with the config seed, so a replayed run waits exactly as long while
    /// two runs never wait in lockstep. See [`crate::jitter`].
    #[serde(default)]
    pub jitter: bool,
    /// With a custom backoff table, still wait at least the Retry-After hint.
    #[serde(default)]
    pub honor_retry_after: bool,
    /// The ceiling on Retry-After hints (SPEC RETRY-03, TIME-02): a hint up
    /// to it is waited in full — unless the wait would outlast the run's
    /// deadline, when the run fails at once with the provider's error
    /// ([`DeclineReason::RetryAfterPastDeadline`](crate::DeclineReason::RetryAfterPastDeadline));
    /// a longer hint is never slept: the next attempt waits the ceiling.
    /// Default [`DEFAULT_MAX_RETRY_AFTER`] (10 min).
    #[serde(with = "crate::time::duration_ms")]
    pub max_retry_after: Duration,
    /// Correctable tool rejections fed back to the model, run-wide.
    pub tool_retries: u32,
    /// Output correction rounds.
    pub output_retries: u32,
    /// Retry (or fall back from) a streamed turn that fails retryably even
    /// after fragments of it reached the caller (SPEC RETRY-06): the caller
    /// is told first with a `turn_discarded` event, so it can clear what it
    /// showed. Off: such a turn is single-attempt, and the declined retry is
    /// reported (a `retry_declined` event, [`RunError::retry_declined`](crate::RunError::retry_declined)).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub discard_and_retry: bool,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 1,
            backoff: Backoff::Exponential,
            jitter: false,
            honor_retry_after: false,
            max_retry_after: DEFAULT_MAX_RETRY_AFTER,
            tool_retries: 0,
            output_retries: 0,
            discard_and_retry: false,
        }
    }
}

impl RetryPolicy {
    /// The default policy (SPEC CFG-02): one attempt, exponential backoff
    /// without jitter, no corrections. Adjust it with the setters:
    /// `RetryPolicy::new().max_attempts(3).tool_retries(1)`.
    pub fn new() -> Self {
        RetryPolicy::default()
    }

    /// Builder-style: attempts per model call, the first included (≥ 1).
    pub fn max_attempts(mut self, attempts: u32) -> Self {
        self.max_attempts = attempts;
        self
    }

    /// Builder-style: the wait between attempts.
    pub fn backoff(mut self, backoff: Backoff) -> Self {
        self.backoff = backoff;
        self
    }

    /// Builder-style: spread waits by up to ±25 % (seeded).
    pub fn jitter(mut self, jitter: bool) -> Self {
        self.jitter = jitter;
        self
    }

    /// Builder-style: with a custom backoff table, still wait at least the
    /// Retry-After hint.
    pub fn honor_retry_after(mut self, honor: bool) -> Self {
        self.honor_retry_after = honor;
        self
    }

    /// Builder-style: the ceiling on Retry-After hints (SPEC TIME-02); see
    /// [`RetryPolicy::max_retry_after`].
    pub fn max_retry_after(mut self, max: Duration) -> Self {
        self.max_retry_after = max;
        self
    }

    /// Builder-style: correctable tool rejections fed back, run-wide.
    pub fn tool_retries(mut self, retries: u32) -> Self {
        self.tool_retries = retries;
        self
    }

    /// Builder-style: output correction rounds.
    pub fn output_retries(mut self, retries: u32) -> Self {
        self.output_retries = retries;
        self
    }

    /// Builder-style: retry streamed turns even after fragments reached the
    /// caller, announcing each discarded turn first (SPEC RETRY-06).
    pub fn discard_and_retry(mut self, discard: bool) -> Self {
        self.discard_and_retry = discard;
        self
    }

    /// The wait after failed attempt `attempt` (1-based) given the
    /// provider's Retry-After `hint`: the rule the run machine applies
    /// between model-call attempts (SPEC RETRY-02, RETRY-03), for callers
    /// that retry outside a run (the embedding clients). `seed` spreads the
    /// wait when [`jitter`](Self::jitter) is on; without jitter it is
    /// ignored.
    ///
    /// ```
    /// use golem_core::RetryPolicy;
    /// use std::time::Duration;
    ///
    /// let policy = RetryPolicy::new().max_attempts(3);
    /// assert_eq!(policy.delay(1, None, 0), Duration::from_millis(500));
    /// assert_eq!(policy.delay(2, Some(Duration::from_secs(3)), 0), Duration::from_secs(3));
    /// assert_eq!(policy.delay(1, Some(Duration::from_secs(900)), 0), Duration::from_secs(600));
    /// ```
    pub fn delay(&self, attempt: u32, hint: Option<Duration>, seed: u64) -> Duration {
        self.delay_in_run(crate::jitter::Source::Seed(seed), u64::from(attempt), attempt, hint).0
    }

    /// [`delay`](Self::delay) inside a run: `draw` numbers the run's
    /// retries so each gets its own jitter from the run's jitter `source`
    /// (see [`jitter`](crate::jitter)). Also says whether the provider's
    /// hint set the wait: a hinted wait is never cut short by golem (SPEC
    /// TIME-02).
    pub(crate) fn delay_in_run(
        &self,
        source: crate::jitter::Source,
        draw: u64,
        attempt: u32,
        hint: Option<Duration>,
    ) -> (Duration, bool) {
        let (base, hint_counts) = match &self.backoff {
            Backoff::Exponential => (Backoff::exponential(attempt), true),
            Backoff::Table { delays } => {
                let idx = usize::try_from(attempt.saturating_sub(1)).unwrap_or(usize::MAX);
                let d = delays.get(idx).or(delays.last()).copied().unwrap_or(Duration::ZERO);
                (d, self.honor_retry_after)
            }
        };
        let base = if self.jitter && !base.is_zero() {
            // ±25 %: factor in [0.75, 1.25).
            base.mul_f64(0.75 + source.unit(draw) * 0.5)
        } else {
            base
        };
        match hint {
            // A hint above the ceiling is never slept: wait the ceiling
            // (SPEC RETRY-03, TIME-02).
            Some(h) if hint_counts && h > self.max_retry_after => (self.max_retry_after, true),
            Some(h) if hint_counts && h >= base => (h, true),
            _ => (base, false),
        }
    }

    /// The recommended preset: 4 attempts with jittered exponential backoff,
    /// streamed turns discarded and retried like plain ones (SPEC RETRY-06),
    /// 2 tool corrections and 1 output correction. It bounds attempts, not
    /// time: [`RunConfig::production`] adds the deadlines.
    ///
    /// ```
    /// use golem_core::RetryPolicy;
    ///
    /// let policy = RetryPolicy::recommended();
    /// assert_eq!((policy.max_attempts, policy.jitter, policy.discard_and_retry), (4, true, true));
    /// ```
    pub fn recommended() -> Self {
        RetryPolicy {
            max_attempts: 4,
            jitter: true,
            tool_retries: 2,
            output_retries: 1,
            discard_and_retry: true,
            ..RetryPolicy::default()
        }
    }
}

/// How the final answer is requested and read (SPEC OUT).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", rename_all_fields = "camelCase", tag = "mode")]
pub enum OutputMode {
    /// Free text, decoded by the driver's decoder.
    Text,
    /// A JSON schema sent natively with every request.
    Native {
        /// The schema and its name.
        schema: OutputSchema,
    },
    /// A synthesized output tool the model calls with the answer.
    Tool {
        /// The output tool's name.
        name: String,
        /// Its description (may be empty).
        #[serde(default)]
        description: String,
        /// Its parameter schema (an object).
        schema: serde_json::Value,
    },
}

/// Restricting or forcing the tool the model uses (SPEC TOOL-11).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", rename_all_fields = "camelCase", tag = "kind", content = "name")]
pub enum ToolChoice {
    /// Advertise only this tool (plus the output tool).
    Restrict(String),
    /// Also force the provider to call it until it has been called once.
    Force(String),
}

impl ToolChoice {
    /// The chosen tool's name.
    pub fn name(&self) -> &str {
        match self {
            ToolChoice::Restrict(n) | ToolChoice::Force(n) => n,
        }
    }
}

/// Usage bounds (SPEC USAGE-03). `None` is unbounded; `Some(0)` is a real bound.
///
/// ```
/// use golem_core::UsageLimits;
///
/// let limits = UsageLimits::new().total_tokens(1000).requests(5);
/// assert_eq!((limits.total_tokens, limits.requests, limits.tool_calls), (Some(1000), Some(5), None));
/// ```
///
/// `#[non_exhaustive]`, so bounds added later (cost, per-request tokens)
/// break no code; a struct literal does not compile:
///
/// ```compile_fail
/// let limits = golem_core::UsageLimits {
///     input_tokens: None,
///     output_tokens: None,
///     total_tokens: Some(1000),
///     requests: None,
///     tool_calls: None,
/// };
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct UsageLimits {
    /// Cumulative input tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    /// Cumulative output tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    /// Cumulative input + output tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_tokens: Option<u64>,
    /// Provider calls, failed attempts and fallback members included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests: Option<u64>,
    /// Tool dispatches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_calls: Option<u64>,
    /// Estimated cost in millionths of a US dollar (SPEC USAGE-03,
    /// USAGE-07), priced by [`RunConfig::prices`]; whole micro-dollars keep
    /// the bound exact and the error's numbers integers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_micro_usd: Option<u64>,
}

impl UsageLimits {
    /// No bounds; add them with the setters:
    /// `UsageLimits::new().total_tokens(1000).requests(5)`.
    pub const fn new() -> Self {
        UsageLimits {
            input_tokens: None,
            output_tokens: None,
            total_tokens: None,
            requests: None,
            tool_calls: None,
            cost_micro_usd: None,
        }
    }

    /// Builder-style: bound cumulative input tokens.
    pub const fn input_tokens(mut self, limit: u64) -> Self {
        self.input_tokens = Some(limit);
        self
    }

    /// Builder-style: bound cumulative output tokens.
    pub const fn output_tokens(mut self, limit: u64) -> Self {
        self.output_tokens = Some(limit);
        self
    }

    /// Builder-style: bound cumulative input + output tokens.
    pub const fn total_tokens(mut self, limit: u64) -> Self {
        self.total_tokens = Some(limit);
        self
    }

    /// Builder-style: bound provider calls (failed attempts and fallback
    /// members included).
    pub const fn requests(mut self, limit: u64) -> Self {
        self.requests = Some(limit);
        self
    }

    /// Builder-style: bound tool dispatches; `0` allows none.
    pub const fn tool_calls(mut self, limit: u64) -> Self {
        self.tool_calls = Some(limit);
        self
    }

    /// Builder-style: bound the estimated cost, in US dollars (rounded to
    /// the micro-dollar; a negative or non-finite bound allows nothing). It
    /// needs a price for every model of the chain ([`RunConfig::prices`]),
    /// else the configuration does not validate. Checked after every
    /// response, like tokens (SPEC USAGE-04); the error reports
    /// micro-dollars: `run exceeded the cost (micro-USD) limit of 10000 (used 10450)`.
    ///
    /// ```
    /// use golem_core::UsageLimits;
    ///
    /// assert_eq!(UsageLimits::new().cost_usd(0.25).cost_micro_usd, Some(250_000));
    /// ```
    pub fn cost_usd(mut self, limit: f64) -> Self {
        let micro = if limit.is_finite() && limit > 0.0 { (limit * 1e6).round() } else { 0.0 };
        // Saturating float-to-int: a bound past u64 is no bound in practice.
        self.cost_micro_usd = Some(micro as u64);
        self
    }

    /// The tighter of `self` and `other` in every dimension: a bound either
    /// sets, the smaller where both do.
    ///
    /// ```
    /// use golem_core::UsageLimits;
    ///
    /// let own = UsageLimits::new().total_tokens(1000).requests(5);
    /// let left = UsageLimits::new().total_tokens(300);
    /// assert_eq!(own.within(&left), UsageLimits::new().total_tokens(300).requests(5));
    /// ```
    pub fn within(self, other: &UsageLimits) -> UsageLimits {
        let min = |a: Option<u64>, b: Option<u64>| match (a, b) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        UsageLimits {
            input_tokens: min(self.input_tokens, other.input_tokens),
            output_tokens: min(self.output_tokens, other.output_tokens),
            total_tokens: min(self.total_tokens, other.total_tokens),
            requests: min(self.requests, other.requests),
            tool_calls: min(self.tool_calls, other.tool_calls),
            cost_micro_usd: min(self.cost_micro_usd, other.cost_micro_usd),
        }
    }
}

/// The whole configuration of a run as the machine sees it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct RunConfig {
    /// Model turns per run, across correction rounds (≥ 1).
    pub max_iterations: u32,
    /// Retries and correction budgets.
    pub retry: RetryPolicy,
    /// Models in the fallback chain (≥ 1; the first is the primary).
    pub models: u32,
    /// Registered tools, in registration order.
    pub tools: Vec<ToolSpec>,
    /// The provider's own tools (web search, code execution, …) the model
    /// may use, in declaration order; the provider runs them, golem never
    /// does.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub builtin_tools: Vec<crate::builtin::BuiltinTool>,
    /// Default tool deadline.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "crate::time::duration_ms::option")]
    pub tool_timeout: Option<Duration>,
    /// Run a batch's independent calls concurrently.
    #[serde(default)]
    pub parallel_tools: bool,
    /// At most this many calls of a group in flight at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_concurrency: Option<u32>,
    /// Tool restriction or forcing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    /// How the final answer is produced.
    pub output: OutputMode,
    /// Usage bounds.
    #[serde(default)]
    pub limits: UsageLimits,
    /// Deadline of each model call as a whole, streamed or not (the
    /// optional total, SPEC TIME-01).
    #[serde(default, skip_serializing_if = "Option::is_none", with = "crate::time::duration_ms::option")]
    pub model_deadline: Option<Duration>,
    /// How long a model call may take to its first chunk (SPEC TIME-01): a
    /// streamed call's first delta, a plain call's answer — its first and
    /// only chunk, so for plain calls this bounds the whole call. Over it,
    /// the call is abandoned as a retryable timeout.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "crate::time::duration_ms::option")]
    pub first_chunk_timeout: Option<Duration>,
    /// How long a streamed call may stay silent between chunks (SPEC
    /// TIME-01). A stream that keeps producing is never cut by it, however
    /// long it runs; one silent past it is abandoned as a retryable timeout.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "crate::time::duration_ms::option")]
    pub idle_timeout: Option<Duration>,
    /// Deadline of the whole run.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "crate::time::duration_ms::option")]
    pub run_deadline: Option<Duration>,
    /// What each fallback member's tokens cost, by member (SPEC USAGE-07);
    /// empty when nothing is priced. The run's cost is the sum over members
    /// of each one's usage priced at its rate.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prices: Vec<Option<crate::price::Price>>,
    /// Seed mixed into every run's jitter. Each run also draws a seed of
    /// its own (SPEC RETRY-02, JIT-01), so this seed alone never makes runs
    /// wait alike — unless [`fixed_seed`](Self::fixed_seed) is set.
    #[serde(default)]
    pub seed: u64,
    /// The largest tool result the model is shown, in bytes of text (SPEC
    /// CAP-01); a tool's own [`ToolSpec::max_result_bytes`] overrides it.
    /// A longer result is cut (at a character boundary) and ends with a
    /// note saying so, which the `tool_end` event and the history carry.
    /// Default [`DEFAULT_MAX_TOOL_BYTES`] (1 MiB); `None` (and logs written
    /// before caps): no cap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tool_result_bytes: Option<u64>,
    /// The largest tool arguments a call may carry, in bytes (SPEC CAP-01);
    /// a tool's own [`ToolSpec::max_args_bytes`] overrides it. Larger
    /// arguments are a correctable rejection: the model is told to send
    /// less, charged to the tool-correction budget. Default
    /// [`DEFAULT_MAX_TOOL_BYTES`]; `None`: no cap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tool_args_bytes: Option<u64>,
    /// Draw jitter from [`seed`](Self::seed) alone, ignoring each run's own
    /// seed: every run waits exactly alike (SPEC JIT-01). For tests; what an
    /// agent's `.seed(n)` sets.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fixed_seed: bool,
}

/// The default caps on a tool result's and a tool call's arguments' bytes
/// ([`RunConfig::max_tool_result_bytes`], [`RunConfig::max_tool_args_bytes`]):
/// 1 MiB, far above what a model can use, far below what exhausts a machine.
pub const DEFAULT_MAX_TOOL_BYTES: u64 = 1 << 20;

/// The production preset's bound on each model call as a whole
/// ([`RunConfig::production`]): far above any real answer, a backstop only.
pub const PRODUCTION_MODEL_DEADLINE: Duration = Duration::from_secs(30 * 60);

/// The production preset's bound on a model call's first chunk
/// ([`RunConfig::first_chunk_timeout`]; a plain call's whole answer).
pub const PRODUCTION_FIRST_CHUNK_TIMEOUT: Duration = Duration::from_secs(120);

/// The production preset's bound on silence between a stream's chunks
/// ([`RunConfig::idle_timeout`]).
pub const PRODUCTION_IDLE_TIMEOUT: Duration = Duration::from_secs(60);

/// The production preset's bound on each run ([`RunConfig::production`]).
pub const PRODUCTION_RUN_DEADLINE: Duration = Duration::from_secs(60 * 60);

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            max_iterations: 10,
            retry: RetryPolicy::default(),
            models: 1,
            tools: Vec::new(),
            builtin_tools: Vec::new(),
            tool_timeout: None,
            parallel_tools: false,
            max_concurrency: None,
            tool_choice: None,
            output: OutputMode::Text,
            limits: UsageLimits::default(),
            model_deadline: Some(Duration::from_secs(300)),
            first_chunk_timeout: None,
            idle_timeout: None,
            run_deadline: None,
            prices: Vec::new(),
            seed: 0,
            max_tool_result_bytes: Some(DEFAULT_MAX_TOOL_BYTES),
            max_tool_args_bytes: Some(DEFAULT_MAX_TOOL_BYTES),
            fixed_seed: false,
        }
    }
}

impl RunConfig {
    /// Fallback member `member`'s price, when it has one.
    pub fn price(&self, member: u32) -> Option<crate::price::Price> {
        self.prices.get(usize::try_from(member).ok()?).copied().flatten()
    }

    /// The estimated cost in US dollars of `usage` per member (index =
    /// member); `None` unless every member that reported usage has a price.
    pub fn cost(&self, usage_by_member: &[crate::message::Usage]) -> Option<f64> {
        let mut total = None;
        for (member, usage) in usage_by_member.iter().enumerate() {
            match self.price(u32::try_from(member).ok()?) {
                Some(price) => *total.get_or_insert(0.0) += price.cost(usage),
                None if *usage == crate::message::Usage::default() => {}
                None => return None,
            }
        }
        total
    }

    /// The production preset (issues 17, 32): the defaults, with
    /// [`RetryPolicy::recommended`]; each model call must reach its first
    /// chunk within [`PRODUCTION_FIRST_CHUNK_TIMEOUT`] (120 s — a plain
    /// call its whole answer) and a stream may stay silent at most
    /// [`PRODUCTION_IDLE_TIMEOUT`] (60 s) between chunks, so a stream that
    /// keeps producing is never cut (SPEC TIME-01); a call as a whole is
    /// bounded by [`PRODUCTION_MODEL_DEADLINE`] (30 min, a backstop) and the
    /// run by [`PRODUCTION_RUN_DEADLINE`] (1 h). A stalled provider then
    /// holds a run for 4 attempts × 120 s plus the backoff between them
    /// (about 8 min). Lower them for interactive use.
    ///
    /// ```
    /// use golem_core::{RetryPolicy, RunConfig};
    /// use std::time::Duration;
    ///
    /// let config = RunConfig::production();
    /// assert_eq!(config.retry, RetryPolicy::recommended());
    /// assert_eq!(config.first_chunk_timeout, Some(Duration::from_secs(120)));
    /// assert_eq!(config.idle_timeout, Some(Duration::from_secs(60)));
    /// assert_eq!(config.model_deadline, Some(Duration::from_secs(30 * 60)));
    /// assert_eq!(config.run_deadline, Some(Duration::from_secs(60 * 60)));
    /// ```
    pub fn production() -> Self {
        RunConfig {
            retry: RetryPolicy::recommended(),
            model_deadline: Some(PRODUCTION_MODEL_DEADLINE),
            first_chunk_timeout: Some(PRODUCTION_FIRST_CHUNK_TIMEOUT),
            idle_timeout: Some(PRODUCTION_IDLE_TIMEOUT),
            run_deadline: Some(PRODUCTION_RUN_DEADLINE),
            ..RunConfig::default()
        }
    }
}

/// A configuration rule broken at build time (SPEC CFG-03). One variant per rule.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// A cost limit is set, but some model of the fallback chain has no
    /// price, so the run's cost could not be known (SPEC CFG-03).
    #[error("a cost limit needs a price for every model of the chain; {unpriced} have none")]
    CostLimitWithoutPrice {
        /// How many members lack a price.
        unpriced: usize,
    },
    /// `max_iterations` is 0.
    #[error("max iterations must be at least 1")]
    ZeroMaxIterations,
    /// `max_attempts` is 0.
    #[error("max attempts must be at least 1")]
    ZeroMaxAttempts,
    /// The output schema text is not valid JSON.
    #[error("output schema is not valid JSON: {0}")]
    InvalidOutputSchema(String),
    /// Both a native output schema and an output tool were set.
    #[error("output schema and output tool are mutually exclusive")]
    SchemaAndOutputTool,
    /// The output tool's name equals a registered tool's.
    #[error("output tool name {0:?} collides with a registered tool")]
    OutputToolCollision(String),
    /// Two tools share a name.
    #[error("duplicate tool name {0:?}")]
    DuplicateTool(String),
    /// The tool choice names no tool.
    #[error("tool choice is empty")]
    EmptyToolChoice,
    /// The tool choice names an unregistered tool.
    #[error("tool choice {0:?} names no registered tool")]
    UnknownToolChoice(String),
    /// A schema is not a JSON object.
    #[error("the schema of {0} is not a JSON object")]
    SchemaNotObject(String),
    /// The output tool has an empty name.
    #[error("output tool name is empty")]
    EmptyOutputToolName,
    /// A tool name providers would reject.
    #[error("tool name {0:?} must match ^[A-Za-z0-9_-]{{1,64}}$")]
    InvalidToolName(String),
    /// A timeout or deadline of zero (use `None` for no limit).
    #[error("{0} must not be zero; use None for no limit")]
    ZeroDuration(&'static str),
    /// A concurrency cap of zero.
    #[error("max concurrency must be at least 1")]
    ZeroConcurrency,
    /// A fallback chain without an alternate.
    #[error("a fallback chain needs at least one alternate model")]
    EmptyFallback,
    /// No model was configured.
    #[error("at least one model is required")]
    NoModel,
    /// A built-in tool is declared that some model of the chain cannot run.
    #[error("built-in tool {0:?} is not supported by every model of the chain")]
    UnsupportedBuiltin(&'static str),
    /// A built-in tool is declared twice.
    #[error("built-in tool {0:?} is declared twice")]
    DuplicateBuiltin(&'static str),
}

/// A schema for tool arguments: a JSON object whose `type`, when given,
/// is `"object"` — providers reject anything else as parameters.
fn is_object_schema(schema: &serde_json::Value) -> bool {
    match schema.get("type") {
        None => schema.is_object(),
        Some(serde_json::Value::String(t)) => t == "object",
        Some(_) => false,
    }
}

impl RunConfig {
    /// Check every build rule, returning the first broken one.
    pub fn validate(&self) -> Result<(), BuildError> {
        if self.max_iterations == 0 {
            return Err(BuildError::ZeroMaxIterations);
        }
        if self.retry.max_attempts == 0 {
            return Err(BuildError::ZeroMaxAttempts);
        }
        if self.models == 0 {
            return Err(BuildError::NoModel);
        }
        if self.limits.cost_micro_usd.is_some() {
            let priced = (0..self.models).filter(|&m| self.price(m).is_some()).count();
            if priced < self.models as usize {
                return Err(BuildError::CostLimitWithoutPrice { unpriced: self.models as usize - priced });
            }
        }
        let mut builtins = std::collections::BTreeSet::new();
        for tool in &self.builtin_tools {
            if !builtins.insert(tool.name()) {
                return Err(BuildError::DuplicateBuiltin(tool.name()));
            }
        }
        let mut names = std::collections::BTreeSet::new();
        for tool in &self.tools {
            let name = tool.name();
            if !is_valid_tool_name(name) {
                return Err(BuildError::InvalidToolName(name.to_string()));
            }
            if !names.insert(name) {
                return Err(BuildError::DuplicateTool(name.to_string()));
            }
            if !is_object_schema(&tool.definition.parameters) {
                return Err(BuildError::SchemaNotObject(format!("tool {name}")));
            }
            if tool.timeout == Some(Duration::ZERO) {
                return Err(BuildError::ZeroDuration("a tool timeout"));
            }
        }
        match &self.output {
            OutputMode::Text => {}
            OutputMode::Native { schema } => {
                if !schema.schema.is_object() {
                    return Err(BuildError::SchemaNotObject("the output".to_string()));
                }
            }
            OutputMode::Tool { name, schema, .. } => {
                if name.is_empty() {
                    return Err(BuildError::EmptyOutputToolName);
                }
                if !is_valid_tool_name(name) {
                    return Err(BuildError::InvalidToolName(name.clone()));
                }
                if names.contains(name.as_str()) {
                    return Err(BuildError::OutputToolCollision(name.clone()));
                }
                if !is_object_schema(schema) {
                    return Err(BuildError::SchemaNotObject("the output tool".to_string()));
                }
            }
        }
        if let Some(choice) = &self.tool_choice {
            let name = choice.name();
            if name.is_empty() {
                return Err(BuildError::EmptyToolChoice);
            }
            let is_output_tool = matches!(&self.output, OutputMode::Tool { name: n, .. } if n == name);
            if !names.contains(name) && !is_output_tool {
                return Err(BuildError::UnknownToolChoice(name.to_string()));
            }
        }
        for (what, d) in [
            ("the tool timeout", self.tool_timeout),
            ("the model deadline", self.model_deadline),
            ("the first-chunk timeout", self.first_chunk_timeout),
            ("the idle timeout", self.idle_timeout),
            ("the run deadline", self.run_deadline),
        ] {
            if d == Some(Duration::ZERO) {
                return Err(BuildError::ZeroDuration(what));
            }
        }
        if self.max_concurrency == Some(0) {
            return Err(BuildError::ZeroConcurrency);
        }
        Ok(())
    }

    /// The cap on tool `name`'s result bytes: its own, else the run's.
    pub fn result_cap(&self, name: &str) -> Option<u64> {
        self.tool(name).and_then(|t| t.max_result_bytes).or(self.max_tool_result_bytes)
    }

    /// The cap on tool `name`'s argument bytes: its own, else the run's.
    pub fn args_cap(&self, name: &str) -> Option<u64> {
        self.tool(name).and_then(|t| t.max_args_bytes).or(self.max_tool_args_bytes)
    }

    /// The spec of the registered tool `name`.
    pub fn tool(&self, name: &str) -> Option<&ToolSpec> {
        self.tools.iter().find(|t| t.name() == name)
    }

    /// The output tool's name in tool mode.
    pub fn output_tool_name(&self) -> Option<&str> {
        match &self.output {
            OutputMode::Tool { name, .. } => Some(name),
            _ => None,
        }
    }
}
