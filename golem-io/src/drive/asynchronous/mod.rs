//! The async driver (SPEC DRV-01, DRV-03): executor-independent, built on
//! async-io, futures-lite and the `blocking` thread pool.
//!
//! The run is one future. It spawns nothing: model and tool futures are
//! polled inside it, the machine's deadlines are `async_io::Timer`s (served
//! by async-io's own reactor, so they fire under any executor, tokio
//! included) or, for a plain call to a model that stops by its request's
//! timeout, the model's own, and blocking models or tools run on the
//! `blocking` pool. So it
//! works under `smol::block_on`, `async_io::block_on`,
//! `futures::executor::block_on` or inside a tokio runtime, with no hidden
//! global runtime. Dropping the future cancels the run at once (SPEC
//! DRV-05).
//!
//! The loop is the blocking driver's, awaiting where that one blocks; the
//! bookkeeping is `dispatch`'s, and this room only places work (`futures`).

mod futures;
pub(crate) mod in_flight;

use crate::drive::dispatch::{Drained, Opened, RunSetup};
use crate::results::result::RunOutcome;
use crate::Error;
use futures::Futures;

/// Run `run` to its outcome. The setup comes boxed so the future holds a
/// pointer, not the setup, for the whole run.
pub(crate) async fn drive<Deps, O>(run: Box<RunSetup<'_, Deps, O>>) -> Result<RunOutcome<O>, Error>
where
    Deps: Send + Sync + 'static,
{
    let Opened { mut machine, next, mut carried, mut work, mut observers, decoder } = run.open(Futures::new)?;
    let mut drained = work.advance(&mut machine, next, &mut carried, &mut observers, decoder)?;
    loop {
        let deadline = match drained {
            Drained::Wait(deadline) => deadline,
            Drained::Done => return work.finish(machine),
        };
        // Declared after the await, the input never takes room in the
        // run's future: it goes from the wait to the machine on the stack
        // (issue 37: with many runs in flight the future is cold, and each
        // 264-byte input written to it was a cache miss of its own).
        let input = work.next_input(deadline).await?;
        drained = work.advance(&mut machine, Some(input), &mut carried, &mut observers, decoder)?;
    }
}
