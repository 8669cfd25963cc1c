//! The bookkeeping both drivers share: taking commands, starting work in
//! the order the machine allows, canceling it, decoding answers, keeping
//! error objects, and draining the machine after each input. A driver adds
//! only a [`Placement`] — where work runs and how the run waits for it.

use super::{action, Action, Attachments, Observers, RunResources, Task, TaskId};
use crate::agent::decode::Decoder;
use crate::record::RecordedMachine;
use crate::results::result::RunOutcome;
use crate::Error;
use golem_core::machine::{Command, DecodeId, Input, ModelCallId, Output};
use golem_core::model::BoxError;
use golem_core::{ModelError, Moment, Response, SubRunUsage};
use std::collections::VecDeque;
use std::sync::Arc;

/// Where a driver runs work. Waiting is the driver's own (blocking or
/// awaiting), so it is not part of the trait.
pub(crate) trait Placement<Deps> {
    /// Start `task`. `alone`: nothing else is pending or in flight, so the
    /// driver may run it where it stands. An answer known at once is
    /// returned; otherwise the work answers through the driver's wait.
    fn launch(&mut self, run: &Arc<RunResources<Deps>>, task: Task, alone: bool) -> Option<Answer>;
    /// Whether work is still running.
    fn busy(&self) -> bool;
    /// Stop the work: it is signalled and abandoned.
    fn cancel(&mut self, id: TaskId);
    /// The driver answered streamed call `id` itself: whatever the call
    /// still sends is dropped, since a second answer would be misuse.
    fn answered(&mut self, id: TaskId);
}

/// A finished unit of work: the input for the machine, and an error object
/// to keep for `RunError::source`.
pub(crate) struct Answer {
    pub(crate) input: Input,
    pub(crate) error: Option<BoxError>,
    /// What a tool call's sub-run spent, fed just before its answer.
    pub(crate) spent: Option<SubRunUsage>,
}

impl Answer {
    /// An answer with nothing to keep.
    pub(crate) fn plain(input: Input) -> Self {
        Answer { input, error: None, spent: None }
    }
}

/// Where the machine stands after a drain.
pub(crate) enum Drained {
    /// It waits for an input, until `deadline` if any.
    Wait(Option<Moment>),
    /// It reached its outcome.
    Done,
}

pub(crate) struct Dispatcher<Deps, O, P> {
    pub(crate) run: Arc<RunResources<Deps>>,
    pub(crate) place: P,
    /// Commanded, not started, in command order.
    pending: VecDeque<Task>,
    /// `ToolStarted` was fed; the body starts next (write-ahead, SPEC LOG-06).
    starting: Option<Task>,
    /// Answers ready to feed, in the order they became available.
    ready: VecDeque<Input>,
    /// The model call whose fragment was fed last: the one a failing delta
    /// callback stops.
    streaming: Option<ModelCallId>,
    kept: Attachments<O>,
}

impl<Deps: Send + Sync + 'static, O, P: Placement<Deps>> Dispatcher<Deps, O, P> {
    /// `first`: an input to feed before any work starts (a cancellation
    /// that came before the run).
    pub(crate) fn new(run: RunResources<Deps>, place: P, first: Option<Input>) -> Self {
        Dispatcher {
            run: Arc::new(run),
            place,
            pending: VecDeque::new(),
            starting: None,
            ready: first.into_iter().collect(),
            streaming: None,
            kept: Attachments::new(),
        }
    }

    /// Feed `input`, if any, then carry out what the machine asks until it
    /// waits or is done (SPEC MACH-01), starting with the outputs a call
    /// streamed on the driver's thread left in `carried`. Commands only
    /// queue work; nothing starts until the machine waits.
    pub(crate) fn advance(
        &mut self,
        machine: &mut RecordedMachine<'_>,
        input: Option<Input>,
        carried: &mut VecDeque<Output>,
        observers: &mut Observers<'_>,
        decoder: &dyn Decoder<O, Deps>,
    ) -> Result<Drained, Error> {
        if let Some(input) = input {
            if let Input::ModelDelta { id, .. } = &input {
                self.streaming = Some(*id);
            }
            machine.feed(self.run.clock.now(), input)?;
        }
        loop {
            match carried.pop_front().unwrap_or_else(|| machine.poll()) {
                Output::Command(Command::Decode { id, response }) => self.decode(decoder, id, &response),
                Output::Command(command) => self.accept(command, machine),
                Output::Event(event) => {
                    if let Err(error) = observers.event(&event) {
                        self.abort_stream(error);
                    }
                }
                Output::Wait { deadline, .. } => return Ok(Drained::Wait(deadline)),
                Output::Done => return Ok(Drained::Done),
            }
        }
    }

    /// The run's result from the machine's outcome.
    pub(crate) fn finish(&mut self, machine: RecordedMachine<'_>) -> Result<RunOutcome<O>, Error> {
        std::mem::replace(&mut self.kept, Attachments::new()).finish(machine.into_outcome()?)
    }

    fn accept(&mut self, command: Command, machine: &RecordedMachine<'_>) {
        match action(command, || machine.limits_left()) {
            Action::Start(task) => self.pending.push_back(task),
            Action::Cancel(id) => self.cancel(id),
            Action::Ignore => {}
        }
    }

    /// Canceled work is never answered: unstarted work is forgotten,
    /// running work is stopped.
    fn cancel(&mut self, id: TaskId) {
        self.pending.retain(|t| t.id() != id);
        if self.starting.as_ref().is_some_and(|t| t.id() == id) {
            self.starting = None;
        }
        self.place.cancel(id);
    }

    /// The delta callback failed: the streamed call ends now with the
    /// callback's error as a sink abort (SPEC STREAM-02), fed before
    /// anything else, and the model is told to stop.
    fn abort_stream(&mut self, error: BoxError) {
        let Some(id) = self.streaming.take() else { return };
        self.cancel(TaskId::Model(id));
        self.place.answered(TaskId::Model(id));
        self.ready.retain(|input| !answers_model_call(input, id));
        self.ready.push_front(Input::ModelFinished { id, result: Err(ModelError::sink_aborted(error)) });
    }

    /// Run the decoder now (quick, local application code) and queue its
    /// verdict.
    fn decode(&mut self, decoder: &dyn Decoder<O, Deps>, id: DecodeId, response: &Response) {
        let verdict = self.kept.decode(decoder, &self.run.ctx, id, response);
        self.make_ready(Input::Decoded { id, verdict });
    }

    /// An input available without waiting, if any: a ready answer or the
    /// start of the next tool, launching work as the machine's order
    /// allows. `None`: the driver waits.
    pub(crate) fn ready_input(&mut self) -> Option<Input> {
        loop {
            if let Some(task) = self.starting.take() {
                self.launch(task);
            }
            if let Some(input) = self.ready.pop_front() {
                return Some(input);
            }
            let task = self.pending.pop_front()?;
            match task.id() {
                // The ledger hears of a tool before its body starts (SPEC LOG-06).
                TaskId::Tool(id) => {
                    self.starting = Some(task);
                    return Some(Input::ToolStarted { id });
                }
                TaskId::Model(_) => self.launch(task),
            }
        }
    }

    fn launch(&mut self, task: Task) {
        let alone = self.pending.is_empty() && !self.place.busy();
        if let Some(answer) = self.place.launch(&self.run, task, alone) {
            self.arrived(answer);
        }
    }

    /// Queue an input that arrived while waiting (a streamed fragment).
    #[cfg(feature = "async")]
    pub(crate) fn queue(&mut self, input: Input) {
        self.make_ready(input);
    }

    /// The next input once `answer` arrived while nothing was ready: the
    /// answer itself when nothing must go before it, without a trip
    /// through the ready queue (issue 37: with many runs in flight each
    /// run's state is cold when its answer comes, and the queue's buffer
    /// and the two 240-byte moves were cache misses of their own).
    #[cfg(feature = "async")]
    pub(crate) fn arrived_next(&mut self, answer: Answer) -> Input {
        let plain = answer.error.is_none() && answer.spent.is_none();
        if plain && self.ready.is_empty() && self.starting.is_none() {
            return answer.input;
        }
        self.arrived(answer);
        self.ready_input().unwrap_or(Input::Tick)
    }

    /// Queue an answer, keeping a tool's error object for `RunError::source`
    /// under the machine id its failure will quote.
    pub(crate) fn arrived(&mut self, Answer { input, error, spent }: Answer) {
        if let Input::ToolFinished { id, .. } = &input {
            if let Some(error) = error {
                self.kept.tool_error(*id, error);
            }
            if let Some(spent) = spent {
                self.make_ready(Input::SubRunSpent { id: *id, spent });
            }
        }
        self.make_ready(input);
    }

    /// Queue `input` behind the ready ones. The queue rarely holds more
    /// than one or two: its first buffer has room for two, not the four a
    /// first push makes (issue 37: 4 × 264 bytes is an allocation past
    /// glibc's per-size caches, kept for the run).
    fn make_ready(&mut self, input: Input) {
        if self.ready.capacity() == 0 {
            self.ready.reserve_exact(2);
        }
        self.ready.push_back(input);
    }
}

/// True when `input` is a fragment or the answer of model call `id`.
fn answers_model_call(input: &Input, id: ModelCallId) -> bool {
    matches!(input, Input::ModelDelta { id: i, .. } | Input::ModelFinished { id: i, .. } if *i == id)
}
