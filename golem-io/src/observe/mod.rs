//! Watching runs: OpenTelemetry GenAI traces and metrics (feature
//! `tracing`), cost estimates, and a run as one HTML page (SPEC OBS).
//!
//! **Traces.** With the `tracing` feature every run emits `tracing` spans
//! that follow the OpenTelemetry GenAI semantic conventions: one
//! `invoke_agent` span per run, a `chat {model}` span per model-call attempt
//! (retries and fallback members are siblings), an `execute_tool {name}`
//! span per tool execution, with the conventions' attributes
//! (`gen_ai.operation.name`, `gen_ai.provider.name`, `gen_ai.request.model`,
//! `gen_ai.response.finish_reasons`, `gen_ai.usage.input_tokens` /
//! `output_tokens`, `gen_ai.tool.name`, `gen_ai.tool.call.id`,
//! `gen_ai.conversation.id`, `error.type`) and golem's own (`golem.run.id`,
//! `golem.stage`, `golem.attempt`, `golem.turn`, …). Spans set `otel.name`
//! and `otel.kind`, which `tracing-opentelemetry` maps to the OpenTelemetry
//! span name and kind. They are built from the machine's traffic, so both
//! drivers emit the same trace, and `trace_log` (feature `tracing`) re-emits it from a
//! recorded log. Message content is on spans only when
//! [`TraceSettings::record_content`] says so; secrets never reach the
//! machine, so never a span.
//!
//! **Metrics.** `gen_ai.client.operation.duration` and
//! `gen_ai.client.token.usage`, as `tracing` events in the shape
//! `tracing-opentelemetry`'s `MetricsLayer` records as histograms.
//!
//! **Cost.** A [`ModelInfo`] may carry a [`Price`](golem_core::Price); spans
//! then carry `golem.cost_usd`, and the [report](render_html) shows it.
//!
//! **Report.** [`render_html`] turns an event log into one self-contained
//! HTML page (no feature needed).

// Room rule (ARCHITECTURE.md): imports only `run` and golem-core; every
// room above reads its settings.

mod names;
mod report;
mod settings;

#[cfg(feature = "tracing")]
mod metrics;
#[cfg(feature = "tracing")]
mod replay;
#[cfg(feature = "tracing")]
mod tracer;

pub use report::{render_html, ReportError};
pub use settings::{ModelInfo, TraceSettings};

#[cfg(feature = "tracing")]
pub use replay::trace_log;
#[cfg(feature = "tracing")]
pub(crate) use tracer::{RunTracer, TraceClock};
