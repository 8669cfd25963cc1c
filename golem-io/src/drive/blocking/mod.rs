//! The blocking driver (SPEC DRV-01, DRV-02): std threads, no async runtime.
//!
//! The loop only executes what the machine commands and feeds back what
//! happened, stamped with the clock's `now`. It never retries, sleeps on its
//! own account, times out or reorders: when the machine says `Wait` it blocks
//! until in-flight work answers or the machine's deadline passes. The
//! bookkeeping is `dispatch`'s; this room only places work (`threads`).

mod job;
mod pool;
mod threads;

use crate::drive::dispatch::{Drained, InlineStream, Opened, RunSetup};
use crate::results::result::RunOutcome;
use crate::Error;
use std::sync::Arc;
use threads::Threads;

/// Run `run` to its outcome on the calling thread.
pub(crate) fn drive<Deps, O>(run: RunSetup<'_, Deps, O>) -> Result<RunOutcome<O>, Error>
where
    Deps: Send + Sync + 'static,
{
    let Opened { mut machine, mut next, mut carried, mut work, mut observers, decoder } = run.open(Threads::new)?;
    let clock = Arc::clone(&work.run.clock);
    loop {
        match work.advance(&mut machine, next.take(), &mut carried, &mut observers, decoder)? {
            Drained::Wait(deadline) => {
                // A streamed call on this thread feeds the machine itself.
                let mut here = InlineStream::new(&mut machine, &mut observers, clock.as_ref(), &mut carried);
                let input = work.next_input(deadline, &mut here);
                here.finish()?;
                next = Some(input?);
            }
            Drained::Done => return work.finish(machine),
        }
    }
}
