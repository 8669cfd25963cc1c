//! The run machine (SPEC MACH): a pure, synchronous state machine.
//!
//! One door in ([`RunMachine::handle_input`]), one door out
//! ([`RunMachine::poll_output`]). After every input, drain outputs until
//! [`Output::Wait`] or [`Output::Done`].

mod io;

pub use io::*;

use crate::config::RunConfig;
use crate::time::Moment;

/// The run machine. See the module docs.
#[derive(Debug)]
pub struct RunMachine {
    config: RunConfig,
    outcome: Option<Outcome>,
    now: Moment,
}

impl RunMachine {
    /// Start a run. Fails with a setup error before any model call.
    pub fn new(config: RunConfig, start: Start, now: Moment) -> Result<RunMachine, SetupError> {
        config.validate()?;
        let _ = start;
        Ok(RunMachine { config, outcome: None, now })
    }

    /// Feed one input.
    pub fn handle_input(&mut self, now: Moment, input: Input) -> Result<(), ApiMisuse> {
        let _ = (&self.config, input);
        self.now = now;
        Ok(())
    }

    /// Take the next output.
    pub fn poll_output(&mut self) -> Output {
        Output::Done
    }

    /// How the run ended, once `Done`.
    pub fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }

    /// Feed one input and drain everything it produced.
    pub fn step(&mut self, now: Moment, input: Input) -> Result<Vec<Output>, ApiMisuse> {
        self.handle_input(now, input)?;
        Ok(self.drain())
    }

    /// Drain outputs up to and including the next `Wait` or `Done`.
    pub fn drain(&mut self) -> Vec<Output> {
        let mut out = Vec::new();
        loop {
            let o = self.poll_output();
            let last = matches!(o, Output::Wait { .. } | Output::Done);
            out.push(o);
            if last {
                return out;
            }
        }
    }
}
