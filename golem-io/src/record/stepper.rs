//! The machine as both drivers step it, with optional recording.

use super::Recorder;
use crate::Error;
use golem_core::machine::{Command, DecodeId, Input, Outcome, Output};
use golem_core::{Moment, Response, RunMachine};
use std::collections::VecDeque;

/// The machine plus, when recording, the outputs drained ahead so each
/// input's line carries the digest of what it produced.
pub(crate) struct RecordedMachine<'a> {
    /// Boxed apart from the driver's own state (issue 37): together they
    /// made one allocation over a kilobyte per run, which glibc serves from
    /// its slow path (consolidating every small free chunk first) while
    /// two smaller ones come from its per-size caches.
    machine: Box<RunMachine>,
    /// Boxed, like the tracer: most runs have neither, and a run's size
    /// counts when thousands are in flight.
    recorder: Option<Box<Recorder<'a>>>,
    buffered: VecDeque<Output>,
    ended: bool,
    /// The run's spans (SPEC OBS-01): built here, from what the machine
    /// consumes and produces, so both drivers trace alike.
    #[cfg(feature = "tracing")]
    tracer: Option<Box<crate::observe::RunTracer>>,
}

impl<'a> RecordedMachine<'a> {
    pub(crate) fn new(machine: Box<RunMachine>, recorder: Option<Recorder<'a>>) -> Self {
        RecordedMachine {
            machine,
            recorder: recorder.map(Box::new),
            buffered: VecDeque::new(),
            ended: false,
            #[cfg(feature = "tracing")]
            tracer: None,
        }
    }

    /// Trace the run from here on, its timeline starting at `clock`;
    /// `muted` until [`go_live`](Self::go_live) when the run replays what
    /// a process before this one traced already (a durable run).
    #[cfg(feature = "tracing")]
    pub(crate) fn traced(
        mut self,
        settings: &std::sync::Arc<crate::observe::TraceSettings>,
        clock: crate::observe::TraceClock,
        muted: bool,
    ) -> Self {
        use crate::observe::RunTracer;
        let (run_id, conversation_id) = (self.machine.run_id(), self.machine.conversation_id());
        let start = if muted { RunTracer::start_muted } else { RunTracer::start };
        self.tracer = start(std::sync::Arc::clone(settings), clock, run_id, conversation_id).map(Box::new);
        self
    }

    /// From here on the run's traffic is its first real execution: a muted
    /// trace opens its spans and traces on.
    #[cfg(feature = "restate")]
    pub(crate) fn go_live(&mut self) {
        #[cfg(feature = "tracing")]
        if let Some(tracer) = &mut self.tracer {
            tracer.go_live();
        }
    }

    /// A logged run that had reached its outcome when its process died
    /// (SPEC LOG-05): nothing is left to do but write the end marker, unless
    /// `marked` says it is on disk already. A completed run's accepted
    /// `answer` is handed to the driver to decode again — the log holds the
    /// response, not the typed value — so its result carries its output.
    pub(crate) fn finished(
        machine: Box<RunMachine>,
        recorder: Option<Recorder<'a>>,
        marked: bool,
        answer: Option<(DecodeId, Response)>,
    ) -> Self {
        let buffered = answer
            .map(|(id, response)| Output::Command(Command::Decode { id, response: Box::new(response) }))
            .into_iter();
        RecordedMachine {
            machine,
            recorder: recorder.map(Box::new),
            buffered: buffered.collect(),
            ended: marked,
            #[cfg(feature = "tracing")]
            tracer: None,
        }
    }

    /// No one hears the run's events — neither a log nor a trace here, nor
    /// (the caller says) an observer or a delta callback: the machine
    /// stops building outputs for them (issue 37).
    pub(crate) fn mute_events_if_unheard(&mut self, observed: bool) {
        #[cfg(feature = "tracing")]
        let traced = self.tracer.is_some();
        #[cfg(not(feature = "tracing"))]
        let traced = false;
        if !observed && !traced && self.recorder.is_none() {
            self.machine.mute_events();
        }
    }

    /// The run's ids as the machine holds them (given, minted, or the log's).
    pub(crate) fn ids(&self) -> crate::run::ids::RunIds {
        crate::run::ids::RunIds::new(self.machine.run_id().clone(), self.machine.conversation_id().clone())
    }

    /// What the run's limits leave for a sub-run starting now.
    pub(crate) fn limits_left(&self) -> golem_core::UsageLimits {
        self.machine.limits_left()
    }

    /// The next output (SPEC MACH-01: drained until `Wait` or `Done`).
    pub(crate) fn poll(&mut self) -> Output {
        let output = self.buffered.pop_front().unwrap_or_else(|| self.machine.poll_output());
        #[cfg(feature = "tracing")]
        self.trace(&output);
        output
    }

    #[cfg(feature = "tracing")]
    fn trace(&mut self, output: &Output) {
        if matches!(output, Output::Done) {
            if let (Some(tracer), Some(outcome)) = (self.tracer.take(), self.machine.outcome()) {
                tracer.finish(Some(outcome));
            }
        } else if let Some(tracer) = &mut self.tracer {
            tracer.output(output);
        }
    }

    /// Feed one input at `now`; when recording, write it (flushed) before
    /// anything it caused can run.
    pub(crate) fn feed(&mut self, now: Moment, input: Input) -> Result<(), Error> {
        #[cfg(feature = "tracing")]
        if let Some(tracer) = &mut self.tracer {
            tracer.input(now, &input);
        }
        let Some(recorder) = &mut self.recorder else {
            return self.machine.handle_input(now, input).map_err(Error::Misuse);
        };
        self.machine.handle_input(now, input.clone()).map_err(Error::Misuse)?;
        let outputs = self.machine.drain();
        recorder.input(now, &input, &outputs)?;
        self.buffered.extend(outputs);
        Ok(())
    }

    /// The outcome, once `Done` was polled; the end marker is written once.
    pub(crate) fn outcome(&mut self) -> Result<Option<&Outcome>, Error> {
        if let (Some(recorder), Some(outcome), false) = (&mut self.recorder, self.machine.outcome(), self.ended) {
            self.ended = true;
            recorder.end(self.machine.now(), outcome)?;
        }
        Ok(self.machine.outcome())
    }

    /// The outcome, taken out of the finished run (the end marker written
    /// first): the driver hands it to the caller without copying the
    /// run's history.
    pub(crate) fn into_outcome(mut self) -> Result<Option<Outcome>, Error> {
        self.outcome()?;
        Ok((*self.machine).into_outcome())
    }
}
