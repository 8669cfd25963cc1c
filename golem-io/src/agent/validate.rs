//! Output validators: checks on a decoded output beyond what its schema
//! says, each able to send the model back with a reason (SPEC OUT-01;
//! issue 31). They run in the driver after the decoder, so a rejection is
//! an ordinary decoder verdict to the machine: charged to the output
//! correction budget, shown to the model, recorded in the log.

use super::decode::{DecodeError, Decoder, SharedDecoder};
use crate::run::context::RunContext;
use golem_core::Response;
use std::sync::Arc;

/// A check on a decoded output: `Ok(())` accepts it, a
/// [`DecodeError::Retry`] sends the model back with the reason, a
/// [`DecodeError::Fatal`] fails the run at the decode stage.
pub(crate) type Check<O, Deps> = Arc<dyn Fn(&RunContext<Deps>, &O) -> Result<(), DecodeError> + Send + Sync>;

/// `inner`'s output, accepted only when `check` accepts it.
pub(crate) struct Validated<O, Deps> {
    pub(crate) inner: SharedDecoder<O, Deps>,
    pub(crate) check: Check<O, Deps>,
}

impl<O, Deps> Decoder<O, Deps> for Validated<O, Deps> {
    fn decode(&self, ctx: &RunContext<Deps>, response: &Response) -> Result<O, DecodeError> {
        let output = self.inner.decode(ctx, response)?;
        (self.check)(ctx, &output)?;
        Ok(output)
    }
}
