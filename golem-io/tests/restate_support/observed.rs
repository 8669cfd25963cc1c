//! What a service child's observers and tracing subscriber saw, written
//! to files as it happens (the child may be killed the next instant), and
//! what a run's own event log says happened — to compare the two.

use super::service::{hold, note, wall_ms};
use golem_io::restate::DurableEvent;
use serde_json::Value;
use std::path::Path;

/// An observer for `DurableAgents::observer`: each event as a JSON line in
/// `events-<key>`, with the wall-clock time it was heard (`ms`). With
/// `hold-observer` present it blocks, the first time, on a `tool_end` —
/// after the tool's answer is journaled and before the run ends.
pub fn observer(dir: &Path) -> impl Fn(&DurableEvent<'_>) + Send + Sync + 'static {
    let dir = dir.to_path_buf();
    move |e: &DurableEvent<'_>| {
        let mut line = serde_json::to_value(e.event).unwrap();
        line["ms"] = Value::from(u64::try_from(wall_ms()).unwrap_or(u64::MAX));
        line["agent"] = Value::from(e.agent);
        note(&dir, &format!("events-{}", e.key), &line.to_string());
        if line["event"] == "tool_end" {
            hold(&dir, "observer");
        }
    }
}

/// The events the observer heard for run `key`, in order.
pub fn observed(dir: &Path, key: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(dir.join(format!("events-{key}"))).unwrap_or_default();
    text.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// The events a run's golem log replays to, as JSON.
pub fn logged(log: &str) -> Vec<Value> {
    let log = golem_core::log::EventLog::parse(log).unwrap();
    let replayed = golem_core::log::replay(&log).unwrap();
    replayed
        .outputs
        .iter()
        .flatten()
        .filter_map(|o| match o {
            golem_core::machine::Output::Event(e) => Some(serde_json::to_value(e).unwrap()),
            _ => None,
        })
        .collect()
}

/// An event without what differs between two runs of the same scenario:
/// the run's ids and when it was heard.
pub fn comparable(event: &Value) -> Value {
    let mut event = event.clone();
    if let Some(fields) = event.as_object_mut() {
        for key in ["runId", "conversationId", "ms", "agent"] {
            fields.remove(key);
        }
    }
    event
}

#[cfg(feature = "tracing")]
pub use spans::{closed_spans, outline, SpanFile};

#[cfg(feature = "tracing")]
mod spans {
    use super::super::service::note;
    use serde_json::{json, Value};
    use std::collections::BTreeMap;
    use std::path::{Path, PathBuf};
    use tracing::field::{Field, Visit};
    use tracing::span::{Attributes, Id, Record};
    use tracing_subscriber::layer::Context;
    use tracing_subscriber::registry::LookupSpan;

    /// A `tracing` layer that writes each of golem's spans as it closes —
    /// its name, its parent's name and its fields — as a JSON line to a
    /// file. Other spans (the SDK's, HTTP/2's) are not golem's to compare.
    pub struct SpanFile {
        pub path: PathBuf,
    }

    struct Fields(BTreeMap<String, String>);

    impl Visit for Fields {
        fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
            self.0.insert(field.name().to_string(), format!("{value:?}"));
        }

        fn record_str(&mut self, field: &Field, value: &str) {
            self.0.insert(field.name().to_string(), value.to_string());
        }
    }

    impl<S: tracing::Subscriber + for<'a> LookupSpan<'a>> tracing_subscriber::Layer<S> for SpanFile {
        fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
            if attrs.metadata().target() != "golem" {
                return;
            }
            let mut fields = Fields(BTreeMap::new());
            attrs.record(&mut fields);
            if let Some(span) = ctx.span(id) {
                span.extensions_mut().insert(fields);
            }
        }

        fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
            if let Some(span) = ctx.span(id) {
                if let Some(fields) = span.extensions_mut().get_mut::<Fields>() {
                    values.record(fields);
                }
            }
        }

        /// golem's metrics are events (SPEC OBS-04): written too, as
        /// spans named `metric`.
        fn on_event(&self, event: &tracing::Event<'_>, _: Context<'_, S>) {
            if event.metadata().target() != "golem::metrics" {
                return;
            }
            let mut fields = Fields(BTreeMap::new());
            event.record(&mut fields);
            self.write(&json!({"name": "metric", "parent": null, "fields": fields.0}));
        }

        fn on_close(&self, id: Id, ctx: Context<'_, S>) {
            let Some(span) = ctx.span(&id) else { return };
            let Some(fields) = span.extensions().get::<Fields>().map(|f| f.0.clone()) else { return };
            let parent = span.parent().map(|p| p.name().to_string());
            self.write(&json!({"name": span.name(), "parent": parent, "fields": fields}));
        }
    }

    impl SpanFile {
        fn write(&self, line: &Value) {
            let (dir, file) = (self.path.parent().unwrap(), self.path.file_name().unwrap().to_str().unwrap());
            note(dir, file, &line.to_string());
        }
    }

    /// The spans (and metrics) written to `path`, in the order they closed.
    pub fn closed_spans(path: &Path) -> Vec<Value> {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        text.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
    }

    /// The spans without what differs between two runs of one scenario:
    /// ids and times.
    pub fn outline(spans: &[Value]) -> Vec<Value> {
        spans
            .iter()
            .map(|span| {
                let mut span = span.clone();
                if let Some(fields) = span["fields"].as_object_mut() {
                    fields.retain(|k, _| {
                        !(k.ends_with("_unix_nano") || k == "golem.run.id" || k == "gen_ai.conversation.id")
                    });
                    // How long a call took is the run's own.
                    if let Some(seconds) = fields.get_mut("histogram.gen_ai.client.operation.duration") {
                        *seconds = Value::from("…");
                    }
                }
                span
            })
            .collect()
    }
}
