//! The async driver (SPEC DRV-01, DRV-03): executor-independent, built on
//! async-io, futures-lite and the `blocking` thread pool.
//!
//! The run is one future. It spawns nothing: model and tool futures are
//! polled inside it, the machine's deadlines are `async_io::Timer`s (served
//! by async-io's own reactor, so they fire under any executor, tokio
//! included), and blocking models or tools run on the `blocking` pool. So it
//! works under `smol::block_on`, `async_io::block_on`,
//! `futures::executor::block_on` or inside a tokio runtime, with no hidden
//! global runtime. Dropping the future cancels the run at once (SPEC
//! DRV-05).
//!
//! The loop is the blocking driver's, awaiting where that one blocks.

mod executor;
mod in_flight;

use crate::drive::dispatch::{self, RunSetup};
use crate::run::result::RunOutcome;
use crate::Error;
use executor::Executor;
use golem_core::machine::{Command, Output};
use std::sync::Arc;

/// Run `run` to its outcome.
pub(crate) async fn drive<Deps, O>(run: RunSetup<'_, Deps, O>) -> Result<RunOutcome<O>, Error>
where
    Deps: Send + Sync + 'static,
{
    let RunSetup { agent, deps, begin, mut observers, sub_events, clock, cancel, log } = run;
    let (mut machine, mut next) =
        dispatch::start_machine(&agent.config, begin, clock.as_ref(), log, cancel.as_ref(), &agent.trace)?;
    let mut work = Executor::new(agent, deps, Arc::clone(&clock), machine.ids(), sub_events, cancel);
    loop {
        if let Some(input) = next.take() {
            machine.feed(clock.now(), input)?;
        }
        // After every input, drain until Wait or Done (SPEC MACH-01).
        let deadline = loop {
            match machine.poll() {
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
        next = Some(work.next_input(deadline).await?);
    }
}
