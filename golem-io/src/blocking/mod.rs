//! The blocking driver (SPEC DRV-01, DRV-02): std threads, no async runtime.
//!
//! The loop only executes what the machine commands and feeds back what
//! happened, stamped with the clock's `now`. It never retries, sleeps on its
//! own account, times out or reorders: when the machine says `Wait` it blocks
//! until in-flight work answers or the machine's deadline passes.

mod execute;
mod kept;
mod work;

pub(crate) use execute::Panicked;

use crate::agent::{AgentInner, Observer};
use crate::clock::Clock;
use crate::context::CancellationToken;
use crate::result::RunResult;
use crate::Error;
use golem_core::machine::{Command, Output, Start};
use golem_core::{RunEvent, RunMachine};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use work::Executor;

/// Run `agent` from `start` to its outcome on the calling thread.
pub(crate) fn drive<Deps, O>(
    agent: &AgentInner<Deps, O>,
    deps: Arc<Deps>,
    start: Start,
    run_observers: &[Observer],
    clock: Arc<dyn Clock>,
    cancel: Option<CancellationToken>,
) -> Result<RunResult<O>, Error>
where
    Deps: Send + Sync + 'static,
{
    let mut machine = RunMachine::new(agent.config.clone(), start, clock.now())?;
    let mut work = Executor::new(Arc::clone(&agent.models), Arc::clone(&agent.tools), deps, Arc::clone(&clock), cancel);
    loop {
        // After every input, drain until Wait or Done (SPEC MACH-01).
        let deadline = loop {
            match machine.poll_output() {
                Output::Command(Command::Decode { id, response }) => work.decode(agent.decoder.as_ref(), id, &response),
                Output::Command(command) => work.accept(command),
                Output::Event(event) => observe(&agent.observers, run_observers, &event),
                Output::Wait { deadline, .. } => break deadline,
                Output::Done => return work.finish(machine.outcome()),
            }
        };
        let input = work.next_input(deadline)?;
        machine.handle_input(clock.now(), input).map_err(Error::Misuse)?;
    }
}

/// Agent-scoped observers first, then run-scoped (SPEC EVT-03). Observers
/// cannot fail a run, so a panicking one is contained and skipped.
fn observe(agent: &[Observer], run: &[Observer], event: &RunEvent) {
    for observer in agent.iter().chain(run) {
        let _ = catch_unwind(AssertUnwindSafe(|| observer(event)));
    }
}
