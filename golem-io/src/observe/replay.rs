//! Re-emitting a logged run's trace (SPEC OBS-03).

use super::settings::TraceSettings;
use super::tracer::{RunTracer, TraceClock};
use golem_core::log::{replay, EventLog, ReplayError};
use golem_core::machine::Output;
use golem_core::Moment;
use std::sync::Arc;

/// Emit the spans and metrics of the run `log` recorded, as the live run
/// emitted them: the same tree, the same attributes, and the log's times in
/// `golem.start_time_unix_nano` / `golem.end_time_unix_nano`. Needs no
/// model and no tools; a log whose replay diverges emits nothing and says
/// where. A log of a run that had not finished (a crash) ends its root span
/// with `golem.outcome = "unfinished"`.
///
/// ```
/// use golem_core::testing::ScriptedModel;
/// use golem_io::observe::{trace_log, TraceSettings};
/// use golem_io::Agent;
///
/// let agent = Agent::<()>::builder(ScriptedModel::new().text("hi")).build()?;
/// let mut log = Vec::new();
/// agent.run_with(()).prompt("hello").record(&mut log).call()?;
/// let log = golem_core::log::EventLog::read_bytes(&log)?.log;
/// trace_log(&log, &TraceSettings::new())?; // spans go to the current subscriber
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn trace_log(log: &EventLog, settings: &TraceSettings) -> Result<(), ReplayError> {
    let replayed = replay(log)?;
    let header = &log.header;
    let epoch = Moment::from_nanos(header.epoch);
    let clock = TraceClock { epoch, unix_ms: header.started_at_unix_ms };
    let machine_start = header.machine_start();
    let Some(mut tracer) =
        RunTracer::start(Arc::new(settings.clone()), clock, &machine_start.run_id, &machine_start.conversation_id)
    else {
        return Ok(());
    };
    let mut outputs = replayed.outputs.iter();
    // The first drain precedes every record, unless the header says the
    // first record (a cancellation) came before it; then it is empty.
    if let Some(first) = outputs.next() {
        feed(&mut tracer, first);
    }
    for (record, produced) in log.records.iter().filter(|r| r.input.is_some()).zip(outputs) {
        if let Some(input) = &record.input {
            tracer.input(log.moment(record.at), input);
        }
        feed(&mut tracer, produced);
    }
    tracer.finish(replayed.machine.outcome());
    Ok(())
}

fn feed(tracer: &mut RunTracer, outputs: &[Output]) {
    for output in outputs.iter().filter(|o| !matches!(o, Output::Done)) {
        tracer.output(output);
    }
}
