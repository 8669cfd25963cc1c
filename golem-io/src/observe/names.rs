//! The low-cardinality names traces and reports give golem's enums.

use golem_core::ModelError;
#[cfg(feature = "tracing")]
use golem_core::Stage;

/// A model failure's `error.type`: golem's low-cardinality kind of it.
pub(crate) fn model_error_type(error: &ModelError) -> &'static str {
    use golem_core::ModelErrorKind as K;
    match error.kind {
        K::Api => "api",
        K::Auth => "auth",
        K::Transport => "transport",
        K::Decode => "decode",
        K::Encode => "encode",
        K::Unsupported => "unsupported",
        K::Timeout => "timeout",
        K::Truncated => "truncated",
        K::Canceled => "canceled",
        K::SinkAborted => "sink_aborted",
        _ => "other",
    }
}

#[cfg(feature = "tracing")]
pub(crate) fn stage_name(stage: Stage) -> &'static str {
    match stage {
        Stage::Model => "model",
        Stage::Decode => "decode",
        Stage::Tool => "tool",
        Stage::Loop => "loop",
        Stage::Usage => "usage",
        Stage::Canceled => "canceled",
    }
}

pub(crate) fn finish_reason(reason: golem_core::FinishReason) -> &'static str {
    use golem_core::FinishReason as F;
    match reason {
        F::Stop => "stop",
        F::Length => "length",
        F::ToolCall => "tool_call",
        F::ContentFilter => "content_filter",
        F::Other => "other",
        _ => "unknown",
    }
}
