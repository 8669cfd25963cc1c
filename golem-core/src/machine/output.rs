//! Decoding the final answer and correction rounds (SPEC OUT-01, OUT-05,
//! OUT-06, RUN-11).

use super::ids::{Answer, IdKind};
use super::vocabulary::{ApiMisuse, Command, DecodeId, Outcome, Verdict};
use super::{Phase, RunMachine};
use crate::error::{Cause, DecodeFailure, Stage};
use crate::event::EventKind;
use crate::message::{FinishReason, Message, Usage};
use crate::model::Response;
use crate::texts;

/// The decoder is judging the response of message `message`.
#[derive(Debug)]
pub(crate) struct Decoding {
    pub(crate) id: DecodeId,
    message: usize,
    /// In tool mode: the output call's index within the message's calls.
    output_call: Option<usize>,
    /// The answer's usage and finish reason: with the message (still in the
    /// history) they make the response again when a crash loses the verdict,
    /// so no copy of it is kept meanwhile (issue 37).
    usage: Usage,
    finish_reason: FinishReason,
    /// The provider stopped the answer at its output-token limit (finish
    /// reason `length`), so a refusal is most likely the cut, not the model.
    cut_off: bool,
}

impl RunMachine {
    pub(super) fn decode_text(&mut self, message: usize, usage: Usage, finish_reason: FinishReason) {
        self.request_decode(message, None, usage, finish_reason);
    }

    /// Tool mode: the output call's raw arguments are the content to decode.
    /// The decoder sees finish reason `tool_call` (SPEC OUT-05); whether the
    /// provider cut the arguments off is remembered from `finish_reason`.
    pub(super) fn decode_output_call(
        &mut self,
        message: usize,
        call: usize,
        usage: Usage,
        finish_reason: FinishReason,
    ) {
        self.request_decode(message, Some(call), usage, finish_reason);
    }

    fn request_decode(
        &mut self,
        message: usize,
        output_call: Option<usize>,
        usage: Usage,
        finish_reason: FinishReason,
    ) {
        let id = DecodeId(self.ids.mint(IdKind::Decode));
        let cut_off = finish_reason == FinishReason::Length;
        let decoding = Decoding { id, message, output_call, usage, finish_reason, cut_off };
        let response = Box::new(self.decoded_response(&decoding));
        self.phase = Phase::Decoding(Box::new(decoding));
        self.command(Command::Decode { id, response });
    }

    /// What the decoder judges: the answer as it came; in tool mode, the
    /// output call's raw arguments as its content and finish reason
    /// `tool_call` (SPEC OUT-05).
    fn decoded_response(&self, decoding: &Decoding) -> Response {
        let mut message = self.ev.messages[decoding.message].clone();
        let Some(call) = decoding.output_call else {
            return Response { message, usage: decoding.usage, finish_reason: decoding.finish_reason };
        };
        message.content = message.tool_calls[call].args.as_str().to_string();
        Response { message, usage: decoding.usage, finish_reason: FinishReason::ToolCall }
    }

    pub(super) fn on_decoded(&mut self, id: DecodeId, verdict: Verdict) -> Result<(), ApiMisuse> {
        if self.ids.answer(IdKind::Decode, id.0)? == Answer::Late {
            self.late_result("decode", id.0);
            return Ok(());
        }
        let Phase::Decoding(decoding) = std::mem::replace(&mut self.phase, Phase::Done) else {
            return Ok(());
        };
        // A refused answer the provider cut off at its token limit: the
        // failure says so, and a correction asks for a shorter answer. A
        // second cut in a row ends the run — asking again would most likely
        // be cut at the same limit, spending the budget on nothing.
        let cut_off = decoding.cut_off;
        let repeated_cut = cut_off && self.last_answer_cut_off;
        self.last_answer_cut_off = cut_off;
        match verdict {
            Verdict::Accepted => {
                self.close_output_call(&decoding, texts::OUTPUT_RECORDED.to_string());
                let summary = self.ev.summary();
                self.finish(Outcome::Completed { summary, decode: id });
            }
            Verdict::Rejected { reason }
                if self.output_corrections < self.cfg.retry.output_retries && !repeated_cut =>
            {
                self.output_corrections += 1;
                let shown = if cut_off { texts::cut_off(&reason) } else { reason.clone() };
                self.emit(EventKind::OutputRejected { round: self.output_corrections, reason: shown });
                let tool = self.cfg.output_tool_name().unwrap_or_default().to_string();
                match (decoding.output_call, cut_off) {
                    (None, false) => self.ev.add(Message::user(texts::output_rejected(&reason))),
                    (None, true) => self.ev.add(Message::user(texts::output_cut_off(&reason))),
                    (Some(_), false) => self.close_output_call(&decoding, texts::output_tool_rejected(&reason, &tool)),
                    (Some(_), true) => self.close_output_call(&decoding, texts::output_tool_cut_off(&reason, &tool)),
                }
                self.turn = 0;
                self.begin_turn();
            }
            Verdict::Rejected { reason } => {
                let attempts = self.output_corrections + 1;
                let message = if cut_off { texts::cut_off(&reason) } else { reason };
                self.fail(Stage::Decode, Cause::Decode(DecodeFailure { message, attempts, fatal: false }));
            }
            Verdict::Fatal { message } => {
                let message = if cut_off { texts::cut_off(&message) } else { message };
                self.fail(Stage::Decode, Cause::Decode(DecodeFailure { message, attempts: 1, fatal: true }));
            }
        }
        Ok(())
    }

    /// In tool mode, answer every call of the final turn so the conversation
    /// keeps its call/result pairing: the output call gets `content`, calls
    /// co-emitted with it the interrupted result (SPEC OUT-05).
    fn close_output_call(&mut self, decoding: &Decoding, content: String) {
        let Some(output_call) = decoding.output_call else { return };
        let calls = self.ev.messages[decoding.message].tool_calls.clone();
        for (index, call) in calls.iter().enumerate() {
            let text = if index == output_call { content.clone() } else { texts::INTERRUPTED_RESULT.to_string() };
            self.ev.add(Message::tool_result(call.id.clone(), call.name.clone(), text));
        }
    }
}

impl RunMachine {
    /// After a crash the decoder's verdict is lost: ask again under a new id.
    pub(super) fn recover_decode(&mut self) {
        let Phase::Decoding(decoding) = &self.phase else { return };
        let response = Box::new(self.decoded_response(decoding));
        let old = decoding.id;
        let id = DecodeId(self.ids.mint(IdKind::Decode));
        if let Phase::Decoding(decoding) = &mut self.phase {
            decoding.id = id;
        }
        self.ids.abandon(old.0);
        self.command(Command::Decode { id, response });
    }
}
