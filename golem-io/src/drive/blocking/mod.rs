//! The blocking driver (SPEC DRV-01, DRV-02): std threads, no async runtime.
//!
//! The loop only executes what the machine commands and feeds back what
//! happened, stamped with the clock's `now`. It never retries, sleeps on its
//! own account, times out or reorders: when the machine says `Wait` it blocks
//! until in-flight work answers or the machine's deadline passes.

mod job;
mod pool;
mod work;

use crate::drive::dispatch::{self, InlineStream, RunSetup};
use crate::run::result::RunOutcome;
use crate::Error;
use golem_core::machine::{Command, Output};
use std::collections::VecDeque;
use std::sync::Arc;
use work::Executor;

/// Run `run` to its outcome on the calling thread.
pub(crate) fn drive<Deps, O>(run: RunSetup<'_, Deps, O>) -> Result<RunOutcome<O>, Error>
where
    Deps: Send + Sync + 'static,
{
    let RunSetup { agent, deps, begin, mut observers, sub_events, clock, cancel, log } = run;
    let (mut machine, mut next) =
        dispatch::start_machine(&agent.config, begin, clock.as_ref(), log, cancel.as_ref(), &agent.trace)?;
    let mut work = Executor::new(agent, deps, Arc::clone(&clock), machine.ids(), sub_events, cancel);
    // Outputs a streamed call on this thread left for the loop (see `InlineStream`).
    let mut carried = VecDeque::new();
    loop {
        if let Some(input) = next.take() {
            machine.feed(clock.now(), input)?;
        }
        // After every input, drain until Wait or Done (SPEC MACH-01).
        let deadline = loop {
            match carried.pop_front().unwrap_or_else(|| machine.poll()) {
                Output::Command(Command::Decode { id, response }) => work.decode(agent.decoder.as_ref(), id, &response),
                Output::Command(command) => work.accept(command),
                Output::Event(event) => {
                    if let Err(error) = observers.event(&event) {
                        work.abort_stream(error);
                    }
                }
                Output::Wait { deadline, .. } => break deadline,
                Output::Done => return work.finish(machine.outcome()?),
            }
        };
        let mut here = InlineStream::new(&mut machine, &mut observers, clock.as_ref(), &mut carried);
        let input = work.next_input(deadline, &mut here);
        here.finish()?;
        next = Some(input?);
    }
}
