//! The GenAI client metrics (SPEC OBS-04), as `tracing` events.
//!
//! Each model call emits `gen_ai.client.operation.duration` (seconds) once
//! and `gen_ai.client.token.usage` once per token type, as events whose
//! `histogram.`-prefixed field is the measurement and whose other fields
//! are its attributes — the shape `tracing-opentelemetry`'s `MetricsLayer`
//! turns into OpenTelemetry histograms. Events keep golem off the
//! OpenTelemetry API: a program that wants metrics adds that layer, one
//! that does not pays an event callsite check per call.

use super::settings::ModelInfo;
use golem_core::Usage;

/// The metric events of one finished model call that took `seconds` on the
/// run's timeline.
pub(crate) fn model_call(info: Option<&ModelInfo>, usage: &Usage, seconds: f64, error_type: Option<&str>) {
    let provider = info.map(ModelInfo::provider);
    let model = info.map(ModelInfo::model);
    tracing::event!(
        target: "golem::metrics",
        parent: None,
        tracing::Level::INFO,
        histogram.gen_ai.client.operation.duration = seconds,
        gen_ai.operation.name = "chat",
        gen_ai.provider.name = provider,
        gen_ai.request.model = model,
        error.type = error_type,
    );
    // The conventions record token usage of successful calls only.
    if error_type.is_some() {
        return;
    }
    for (kind, tokens) in [("input", usage.input_tokens), ("output", usage.output_tokens)] {
        tracing::event!(
            target: "golem::metrics",
            parent: None,
            tracing::Level::INFO,
            histogram.gen_ai.client.token.usage = tokens,
            gen_ai.token.type = kind,
            gen_ai.operation.name = "chat",
            gen_ai.provider.name = provider,
            gen_ai.request.model = model,
        );
    }
}
