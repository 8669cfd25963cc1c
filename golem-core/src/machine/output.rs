//! Decoding the final answer and correction rounds (SPEC OUT-01, OUT-05,
//! OUT-06, RUN-11).

use super::ids::{Answer, IdKind};
use super::io::{ApiMisuse, Command, DecodeId, Outcome, Verdict};
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
    /// What the decoder was asked to judge, kept to ask again after a crash.
    response: Response,
}

impl RunMachine {
    pub(super) fn decode_text(&mut self, message: usize, usage: Usage, finish_reason: FinishReason) {
        let response = Response { message: self.ev.messages[message].clone(), usage, finish_reason };
        self.request_decode(message, None, response);
    }

    /// Tool mode: the output call's raw arguments are the content to decode.
    pub(super) fn decode_output_call(&mut self, message: usize, call: usize, usage: Usage) {
        let mut msg = self.ev.messages[message].clone();
        msg.content = msg.tool_calls[call].args.as_str().to_string();
        let response = Response { message: msg, usage, finish_reason: FinishReason::ToolCall };
        self.request_decode(message, Some(call), response);
    }

    fn request_decode(&mut self, message: usize, output_call: Option<usize>, response: Response) {
        let id = DecodeId(self.ids.mint(IdKind::Decode));
        self.phase = Phase::Decoding(Decoding { id, message, output_call, response: response.clone() });
        self.command(Command::Decode { id, response });
    }

    pub(super) fn on_decoded(&mut self, id: DecodeId, verdict: Verdict) -> Result<(), ApiMisuse> {
        if self.ids.answer(IdKind::Decode, id.0)? == Answer::Late {
            self.late_result("decode", id.0);
            return Ok(());
        }
        let Phase::Decoding(decoding) = std::mem::replace(&mut self.phase, Phase::Done) else {
            return Ok(());
        };
        match verdict {
            Verdict::Accepted => {
                self.close_output_call(&decoding, texts::OUTPUT_RECORDED.to_string());
                let summary = self.ev.summary();
                self.finish(Outcome::Completed { summary, decode: id });
            }
            Verdict::Rejected { reason } if self.output_corrections < self.cfg.retry.output_retries => {
                self.output_corrections += 1;
                self.emit(EventKind::OutputRejected { round: self.output_corrections, reason: reason.clone() });
                match decoding.output_call {
                    None => self.ev.add(Message::user(texts::output_rejected(&reason))),
                    Some(_) => {
                        let tool = self.cfg.output_tool_name().unwrap_or_default().to_string();
                        self.close_output_call(&decoding, texts::output_tool_rejected(&reason, &tool));
                    }
                }
                self.turn = 0;
                self.begin_turn();
            }
            Verdict::Rejected { reason } => {
                let attempts = self.output_corrections + 1;
                self.fail(Stage::Decode, Cause::Decode(DecodeFailure { message: reason, attempts, fatal: false }));
            }
            Verdict::Fatal { message } => {
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
        let Phase::Decoding(decoding) = &mut self.phase else { return };
        let old = decoding.id;
        let id = DecodeId(self.ids.mint(IdKind::Decode));
        decoding.id = id;
        let response = decoding.response.clone();
        self.ids.abandon(old.0);
        self.command(Command::Decode { id, response });
    }
}
