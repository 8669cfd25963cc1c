//! What a stream decoder keeps besides its wire state.

use super::outbox::Outbox;
use crate::classify::{decode_error, scrub_error, with_request_id};
use crate::http::HttpResponseHead;
use crate::secret::Secret;
use golem_core::model::{Delta, ModelError};
use golem_core::stream::StreamAssembler;

/// A stream's books: the core assembler every delta passes (so its bounds
/// hold and the response is what the deltas assemble to), the deltas and
/// the error not yet handed out, the response head (for request ids) and
/// the secrets no error may show.
#[derive(Debug)]
pub struct Book {
    pub(crate) assembler: StreamAssembler,
    out: Outbox,
    head: HttpResponseHead,
    secrets: Vec<Secret>,
    pub(crate) ended: bool,
}

impl Book {
    /// Books for a 2xx stream with `head` of codec family `family` (stamped
    /// on its thinking blocks), scrubbing `secrets` from every error.
    pub fn new(head: &HttpResponseHead, family: &'static str, secrets: impl IntoIterator<Item = Secret>) -> Self {
        Book {
            assembler: StreamAssembler::new().with_provider(family),
            out: Outbox::default(),
            head: head.clone(),
            secrets: secrets.into_iter().collect(),
            ended: false,
        }
    }

    /// Check `delta` against the assembler's bounds, then queue it; a
    /// delta out of bounds is a decode error at `stage`.
    pub fn emit(&mut self, delta: Delta, stage: &str) -> Result<(), ModelError> {
        self.assembler.push(&delta).map_err(|e| decode_error(stage, &e.to_string(), false, None))?;
        self.out.push(delta);
        Ok(())
    }

    /// True once the body ended: an event cut there is a truncation, not
    /// damage.
    pub fn ended(&self) -> bool {
        self.ended
    }

    /// The response head.
    pub fn head(&self) -> &HttpResponseHead {
        &self.head
    }

    /// A whole body's JSON (as `T`, borrowing from `body` where it can):
    /// JSON that does not parse is a retryable decode error, damage a new
    /// attempt may not repeat.
    #[cfg(any(feature = "anthropic", feature = "gemini", feature = "bedrock", feature = "responses"))]
    pub(crate) fn json<'b, T: serde::Deserialize<'b>>(&self, body: &'b [u8]) -> Result<T, ModelError> {
        crate::codec::json::parse_json(body)
            .map_err(|e| self.stamp(decode_error("response body", &format!("invalid JSON: {e}"), true, None)))
    }

    /// The response a whole body's `deltas` assemble to — the same
    /// assembler a stream's deltas pass, so a plain and a streamed turn of
    /// one answer cannot drift apart.
    #[cfg(any(feature = "anthropic", feature = "gemini", feature = "bedrock", feature = "responses"))]
    pub(crate) fn whole(
        mut self,
        deltas: impl IntoIterator<Item = Delta>,
        outcome: super::Outcome,
    ) -> Result<golem_core::model::Response, ModelError> {
        for delta in deltas {
            if let Err(e) = self.assembler.push_owned(delta) {
                return Err(self.stamp(decode_error("response body", &e.to_string(), false, None)));
            }
        }
        Ok(golem_core::model::Response::new(self.assembler.finish())
            .with_usage(outcome.usage)
            .with_finish_reason(outcome.finish_reason))
    }

    /// `error` with the response's request id and every secret scrubbed
    /// from its texts (SPEC ERR-06). Every error a stream ends with passes
    /// here.
    pub fn stamp(&self, error: ModelError) -> ModelError {
        let error = with_request_id(error, &self.head, None);
        if self.secrets.is_empty() {
            return error;
        }
        scrub_error(error, |text| self.secrets.iter().fold(text.to_string(), |text, secret| secret.scrub(&text)))
    }

    /// Fail the stream; the first error stands.
    pub(crate) fn fail(&mut self, error: ModelError) {
        let error = self.stamp(error);
        self.out.fail(error);
    }

    pub(crate) fn wants_more(&self) -> bool {
        self.out.wants_more()
    }

    pub(crate) fn failed(&self) -> bool {
        self.out.failed()
    }

    pub(crate) fn next(&mut self) -> Option<Result<Delta, ModelError>> {
        self.out.next()
    }

    pub(crate) fn discard(&mut self) -> bool {
        self.out.discard()
    }

    pub(crate) fn take_error(&mut self) -> Option<ModelError> {
        self.out.take_error()
    }
}
