//! From response chunks to deltas (SPEC PROV-GEM-06/07, THINK-01,
//! STREAM-05).
//!
//! A Gemini stream is a sequence of whole `GenerateContentResponse`
//! objects and a plain response is just one of them, so both paths run
//! the same [`Answer`]: each chunk's first candidate gives its parts, in
//! order, as the deltas a stream yields, and the core assembler builds
//! the message from them either way.
//!
//! - A thought part (`thought: true`) is thinking text. Contiguous thought
//!   parts form one block; a signature ends its block, so text after it
//!   opens the next one. A signature on an empty thought part signs the
//!   open block.
//! - A function call arrives whole: one tool-call delta with its name, its
//!   full arguments and the signature on its part. Calls without the
//!   API's `id` get `call_<turn>_<n>` (PROV-COMMON-06).
//! - Every text part is content, concatenated (STREAM-05).
//! - A signature on a text part (Gemini 3 puts one on an answer's last
//!   part) has no text of its own to sign, and a golem thinking block is
//!   text *or* opaque data: it is kept as an opaque (redacted) block
//!   stamped `gemini`, which the request codec sends back on the turn's
//!   text part, where it came from.
//! - Anything else (executable code, inline media in an answer) is
//!   skipped (PROV-COMMON-03).

use super::call_id;
use super::metadata::{finish_reason, usage};
use super::status::in_band;
use crate::classify::decode_error;
use crate::http::HttpResponseHead;
use crate::secret::Secret;
use golem_core::message::{FinishReason, Usage};
use golem_core::model::{Delta, ModelError};
use serde_json::Value;

/// What the chunks of one answer said so far.
#[derive(Debug)]
pub(crate) struct Answer {
    turn: usize,
    /// Thinking blocks opened (the next block's index).
    blocks: u32,
    /// The thought block still taking text, if any.
    open_thought: Option<u32>,
    /// Grounding metadata already kept (streams repeat it).
    metadata: Vec<String>,
    /// Function calls seen (the next call's index).
    calls: u32,
    /// The usage of the last chunk that reported one.
    pub(crate) usage: Usage,
    /// The first candidate's finish reason, once a chunk gave one.
    pub(crate) finish: Option<FinishReason>,
    /// A chunk had a first candidate.
    pub(crate) answered: bool,
    /// Chunks read.
    pub(crate) chunks: usize,
}

impl Answer {
    /// An answer to a request with `turn - 1` assistant messages.
    pub(crate) fn new(turn: usize) -> Self {
        Answer {
            turn,
            blocks: 0,
            open_thought: None,
            metadata: Vec::new(),
            calls: 0,
            usage: Usage::default(),
            finish: None,
            answered: false,
            chunks: 0,
        }
    }

    /// Read one chunk, appending its deltas to `out`. An `error` chunk is
    /// the provider's error, classified; a chunk that says the prompt was
    /// blocked is a decode error carrying the block reason.
    pub(crate) fn chunk(
        &mut self,
        chunk: &Value,
        head: &HttpResponseHead,
        key: Option<&Secret>,
        out: &mut Vec<Delta>,
    ) -> Result<(), ModelError> {
        self.chunks += 1;
        if !chunk.is_object() {
            return Err(decode_error("response chunk", "a chunk is not a JSON object", true, key));
        }
        if let Some(error) = chunk.get("error").filter(|e| e.is_object()) {
            return Err(in_band(head, error, key));
        }
        if let Some(reported) = chunk.get("usageMetadata").filter(|u| u.is_object()) {
            self.usage = usage(reported);
        }
        let candidates = chunk.get("candidates").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        // The first candidate wins (PROV-COMMON-03): with several, each chunk
        // may hold any of them, so pick index 0 rather than position 0.
        let Some(candidate) = candidates.iter().find(|c| c.get("index").and_then(Value::as_u64).is_none_or(|i| i == 0))
        else {
            return match blocked(chunk) {
                Some(reason) => Err(decode_error("response", &no_candidates(Some(&reason)), false, key)),
                None => Ok(()),
            };
        };
        self.answered = true;
        let parts =
            candidate.pointer("/content/parts").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        for part in parts {
            self.part(part, out);
        }
        super::builtin::metadata(candidate, &mut self.metadata, out);
        if let Some(reason) = candidate.get("finishReason").and_then(Value::as_str).filter(|r| !r.is_empty()) {
            self.finish = Some(finish_reason(Some(reason)));
        }
        Ok(())
    }

    fn part(&mut self, part: &Value, out: &mut Vec<Delta>) {
        let text = part.get("text").and_then(Value::as_str).unwrap_or_default();
        let signature = part.get("thoughtSignature").and_then(Value::as_str).unwrap_or_default();
        if part.get("thought").and_then(Value::as_bool) == Some(true) {
            self.thought(text, signature, out);
            return;
        }
        if let Some(kept) = super::builtin::part(part) {
            // A built-in's code or result, its signature inside it.
            self.open_thought = None;
            out.push(kept);
            return;
        }
        if let Some(call) = part.get("functionCall").filter(|c| c.is_object()) {
            self.open_thought = None;
            let index = self.calls;
            self.calls = self.calls.saturating_add(1);
            let id = match call.get("id").and_then(Value::as_str) {
                Some(id) if !id.is_empty() => id.to_string(),
                _ => call_id(self.turn, usize::try_from(index).unwrap_or(usize::MAX).saturating_add(1)),
            };
            out.push(Delta::ToolCall {
                index,
                id,
                name: call.get("name").and_then(Value::as_str).unwrap_or_default().to_string(),
                args: arguments(call.get("args")),
                signature: signature.to_string(),
            });
            return;
        }
        // An empty text part without a signature is padding (streams end
        // with one): it carries nothing and interrupts nothing.
        if !text.is_empty() || !signature.is_empty() || part.get("text").is_none() {
            self.open_thought = None;
        }
        if !text.is_empty() {
            out.push(Delta::text(text));
        }
        if !signature.is_empty() {
            let index = self.open_block();
            out.push(opaque(index, signature));
        }
    }

    fn thought(&mut self, text: &str, signature: &str, out: &mut Vec<Delta>) {
        if !text.is_empty() {
            let index = match self.open_thought {
                Some(index) => index,
                None => {
                    let index = self.open_block();
                    self.open_thought = Some(index);
                    index
                }
            };
            out.push(Delta::Thinking {
                index,
                text: text.to_string(),
                signature: String::new(),
                redacted: String::new(),
            });
            if !signature.is_empty() {
                out.push(signed(index, signature));
                self.open_thought = None;
            }
        } else if !signature.is_empty() {
            match self.open_thought.take() {
                Some(index) => out.push(signed(index, signature)),
                None => {
                    let index = self.open_block();
                    out.push(opaque(index, signature));
                }
            }
        }
    }

    fn open_block(&mut self) -> u32 {
        let index = self.blocks;
        self.blocks = self.blocks.saturating_add(1);
        index
    }

    /// The finish reason to report: a candidate with function calls
    /// reports `tool_call` (PROV-GEM-06), unless it was stopped for
    /// length or content.
    pub(crate) fn finish_reason(&self) -> FinishReason {
        match self.finish.unwrap_or_default() {
            FinishReason::Stop | FinishReason::Other | FinishReason::Unknown if self.calls > 0 => {
                FinishReason::ToolCall
            }
            reason => reason,
        }
    }
}

/// The message of a response without candidates: Gemini's `promptFeedback`
/// says why, when it says anything.
pub(crate) fn no_candidates(reason: Option<&str>) -> String {
    match reason {
        Some(reason) => format!("the response has no candidates: the prompt was blocked ({reason})"),
        None => "the response has no candidates".to_string(),
    }
}

/// `promptFeedback.blockReason`, with its message when there is one.
pub(crate) fn blocked(chunk: &Value) -> Option<String> {
    let feedback = chunk.get("promptFeedback")?;
    let reason = feedback.get("blockReason").and_then(Value::as_str).filter(|r| !r.is_empty())?;
    match feedback.get("blockReasonMessage").and_then(Value::as_str).filter(|m| !m.is_empty()) {
        Some(message) => Some(format!("blockReason {reason}: {message}")),
        None => Some(format!("blockReason {reason}")),
    }
}

/// A call's `args` as raw JSON text: an object as is, nothing as `{}`.
fn arguments(args: Option<&Value>) -> String {
    match args {
        None | Some(Value::Null) => "{}".to_string(),
        Some(Value::String(text)) if text.trim().is_empty() => "{}".to_string(),
        Some(Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
    }
}

fn signed(index: u32, signature: &str) -> Delta {
    Delta::Thinking { index, text: String::new(), signature: signature.to_string(), redacted: String::new() }
}

fn opaque(index: u32, signature: &str) -> Delta {
    Delta::Thinking { index, text: String::new(), signature: String::new(), redacted: signature.to_string() }
}
