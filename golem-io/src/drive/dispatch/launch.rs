//! Everything a driver needs to run one run, resolved by the run builder.

use super::{Dispatcher, Observers, Placement, RunResources};
use crate::agent::decode::Decoder;
use crate::agent::AgentInner;
use crate::record::{RecordedMachine, Recorder};
use crate::run::cancel::CancellationToken;
use crate::run::clock::Clock;
use crate::tool::sub_run_event::SubRunSink;
use crate::Error;
use golem_core::log::LogHeader;
use golem_core::machine::{DecodeId, Input, Start};
use golem_core::{Response, RunMachine};
use std::io::Write;
use std::sync::Arc;

/// How the run begins. One per run, moved once: the size difference
/// between its variants costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Origin {
    /// A new run from its processed start.
    Fresh(Start),
    /// A crashed run replayed from its log: continue it (SPEC LOG-05). The
    /// clock already continues the log's timeline.
    Continue {
        /// The replayed machine.
        machine: Box<RunMachine>,
        /// The log's header, for appending records.
        header: Box<LogHeader>,
        /// The log has its end marker.
        marked: bool,
        /// A completed run's accepted answer, to decode again.
        answer: Option<Box<(DecodeId, Response)>>,
    },
}

/// Where a run's log goes.
pub(crate) type LogOut<'a> = Box<dyn Write + Send + 'a>;

/// One run, ready for a driver: the agent, the run's deps, how it begins,
/// who listens (to it and to its delegated sub-runs), its clock, its
/// caller's cancellation and its log.
pub(crate) struct RunSetup<'a, Deps, O> {
    pub(crate) agent: &'a AgentInner<Deps, O>,
    pub(crate) deps: Arc<Deps>,
    pub(crate) begin: Origin,
    pub(crate) observers: Observers<'a>,
    /// Where delegation tools forward their sub-runs' events; `None` when
    /// nobody listens.
    pub(crate) sub_events: Option<SubRunSink>,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) cancel: Option<CancellationToken>,
    pub(crate) log: Option<LogOut<'a>>,
}

/// A run opened for a driver: its machine, the input to feed first, the
/// dispatcher with the driver's placement, and who listens.
pub(crate) struct Opened<'a, Deps, O, P> {
    pub(crate) machine: RecordedMachine<'a>,
    pub(crate) next: Option<Input>,
    /// Outputs a call streamed on the driver's thread left for the loop
    /// (see `InlineStream`); the async driver never has any.
    pub(crate) carried: std::collections::VecDeque<golem_core::machine::Output>,
    pub(crate) work: Dispatcher<Deps, O, P>,
    pub(crate) observers: Observers<'a>,
    pub(crate) decoder: &'a dyn Decoder<O, Deps>,
}

impl<'a, Deps: Send + Sync + 'static, O> RunSetup<'a, Deps, O> {
    /// Start the machine and set up a dispatcher with the placement `place`
    /// makes from the caller's token and the run's configuration (it also
    /// says what to feed first if the token already fired).
    pub(crate) fn open<P: Placement<Deps>>(
        self,
        place: impl FnOnce(Option<CancellationToken>, &golem_core::RunConfig) -> (P, Option<Input>),
    ) -> Result<Opened<'a, Deps, O, P>, Error> {
        let RunSetup { agent, deps, begin, observers, sub_events, clock, cancel, log } = self;
        let start = match &begin {
            Origin::Fresh(start) => start,
            Origin::Continue { header, .. } => &header.start,
        };
        // Approved calls are keyed by the run that paused on them (SPEC PAUSE-01).
        let paused_by = crate::run::ids::RunIds::default().resuming(start).paused_by;
        let (mut machine, next) =
            start_machine(&agent.config, begin, clock.as_ref(), log, cancel.as_ref(), &agent.trace)?;
        machine.mute_events_if_unheard(observers.any());
        let ids = crate::run::ids::RunIds { paused_by, ..machine.ids() };
        let resources = RunResources::new(agent, deps, clock, ids, sub_events);
        let (place, first) = place(cancel, &agent.config);
        let work = Dispatcher::new(resources, place, first);
        let carried = std::collections::VecDeque::new();
        Ok(Opened { machine, next, carried, work, observers, decoder: agent.decoder.as_ref() })
    }
}

/// Create (or take over) the machine, open the log, and say which input, if
/// any, goes in before the first drain: a cancellation that came before the
/// run (so it makes no request), or the recovery of a continued run.
fn start_machine<'a>(
    config: &golem_core::machine::PreparedConfig,
    begin: Origin,
    clock: &dyn Clock,
    log: Option<LogOut<'a>>,
    cancel: Option<&CancellationToken>,
    trace: &std::sync::Arc<crate::observe::TraceSettings>,
) -> Result<(RecordedMachine<'a>, Option<Input>), Error> {
    let canceled = cancel.filter(|t| t.is_canceled()).map(|t| super::caller_cancel(&t.after_turn_flag()));
    match begin {
        Origin::Fresh(start) => {
            let now = clock.now();
            // One wall-clock reading for the log and the trace, so a
            // replayed trace carries the live one's timestamps.
            let started_at_unix_ms = unix_ms();
            // The header copies the start only when there is a log.
            let header = log.is_some().then(|| {
                let mut header = LogHeader::new(config.config().clone(), start.clone());
                header.epoch = now.as_nanos();
                header.started_at_unix_ms = started_at_unix_ms;
                header.fed_before_start = canceled.is_some();
                header.agent = trace.name().unwrap_or_default().to_string();
                header
            });
            // A run that cannot start leaves no log behind.
            let machine = Box::new(RunMachine::new(config.clone(), start, now)?);
            let recorder = match (log, header) {
                (Some(out), Some(header)) => Some(Recorder::new(out, header, true)?),
                _ => None,
            };
            let stepper = RecordedMachine::new(machine, recorder);
            #[cfg(feature = "tracing")]
            let stepper = {
                let clock = crate::observe::TraceClock { epoch: now, unix_ms: started_at_unix_ms };
                stepper.traced(trace, clock, false)
            };
            Ok((stepper, canceled))
        }
        Origin::Continue { machine, header, marked, answer } => {
            #[cfg(feature = "tracing")]
            let clock = crate::observe::TraceClock {
                epoch: golem_core::Moment::from_nanos(header.epoch),
                unix_ms: header.started_at_unix_ms,
            };
            let recorder = match log {
                Some(out) => Some(Recorder::new(out, *header, false)?),
                None => None,
            };
            if machine.is_done() {
                // The run had reached its outcome: nothing was in flight.
                return Ok((RecordedMachine::finished(machine, recorder, marked, answer.map(|a| *a)), None));
            }
            // Whatever was in flight died with the old process.
            let stepper = RecordedMachine::new(machine, recorder);
            #[cfg(feature = "tracing")]
            let stepper = stepper.traced(trace, clock, false);
            Ok((stepper, Some(canceled.unwrap_or(Input::Recover))))
        }
    }
}

fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}
