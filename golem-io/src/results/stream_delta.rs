//! What a streamed run's delta callback receives (SPEC STREAM-01, issue
//! 11): the fragment and where in the run it belongs.

use golem_core::Delta;

/// One streamed fragment as the [delta callback](crate::RunBuilder::on_delta)
/// receives it: the fragment, and the turn, correction round, attempt and
/// fallback member it belongs to — the same numbers the run's events carry.
///
/// A UI separates what a model wrote before calling tools from the final
/// answer by the turn: every turn but the last of a run ends in tool calls
/// (or, across `round`s, in a rejected answer), so when `(round, turn)`
/// changes, the text shown so far was interim; the final answer is the text
/// of the last turn. A fragment of a tool call
/// ([`Delta::ToolCall`]) tells the same thing early: this turn calls tools.
///
/// ```
/// use golem_core::testing::ScriptedModel;
/// use golem_core::ToolCall;
/// use golem_io::{Agent, Tool};
/// use serde_json::json;
///
/// // Says something, calls a tool, then answers.
/// let mut first = golem_core::Response::tool_calls(vec![ToolCall::new("c1", "clock", "{}")]);
/// first.message.content = "Let me check.".into();
/// let model = ScriptedModel::new().respond(first).text("It is noon.");
/// let clock = Tool::new("clock", "The time.", json!({"type": "object"}), |_ctx, _args| Ok("12:00"));
/// let agent = Agent::<()>::builder(model).tool(clock).build()?;
///
/// let mut turns: Vec<(u32, String)> = Vec::new();
/// agent.run_stream((), "time?", |d| {
///     if let Some(text) = d.text() {
///         match turns.last_mut() {
///             Some((turn, shown)) if *turn == d.turn => shown.push_str(text),
///             _ => turns.push((d.turn, text.to_string())),
///         }
///     }
///     Ok(())
/// })?;
/// assert_eq!(turns, vec![(0, "Let me check.".to_string()), (1, "It is noon.".to_string())]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct StreamDelta<'a> {
    /// The fragment.
    pub delta: &'a Delta,
    /// The model turn it belongs to, from 0 within its correction round
    /// (as on run events, SPEC EVT-01).
    pub turn: u32,
    /// The output-correction round: 0 until the decoder first rejects an
    /// answer, then the round that follows (as on `output_rejected`).
    pub round: u32,
    /// The attempt of the turn's model call, from 1.
    pub attempt: u32,
    /// The fallback member streaming it, from 0.
    pub member: u32,
    /// Not a fragment but the discard signal (SPEC RETRY-06): the turn's
    /// call failed after these fragments and is retried (or handed to the
    /// next fallback member) under
    /// [`discard_and_retry`](crate::AgentBuilder::discard_and_retry).
    /// Everything received for this `(round, turn, attempt, member)` is
    /// void — clear what you showed; the turn streams again. `delta` is
    /// then an empty text, so code that only appends text stays correct
    /// but for the stale part.
    pub discarded: bool,
}

/// What a discard signal's `delta` points at.
static NO_TEXT: Delta = Delta::Text { text: String::new() };

impl<'a> StreamDelta<'a> {
    /// The discard signal for the fragments of `(round, turn, attempt,
    /// member)`.
    pub(crate) fn discard(turn: u32, round: u32, attempt: u32, member: u32) -> StreamDelta<'static> {
        StreamDelta { delta: &NO_TEXT, turn, round, attempt, member, discarded: true }
    }

    /// The text of a [`Delta::Text`] fragment; `None` for thinking and
    /// tool-call fragments (and `Some("")` for the discard signal).
    pub fn text(&self) -> Option<&'a str> {
        match self.delta {
            Delta::Text { text } => Some(text),
            _ => None,
        }
    }

    /// True for a fragment of a tool call: the turn calls tools, so its
    /// text is not the final answer.
    pub fn is_tool_call(&self) -> bool {
        matches!(self.delta, Delta::ToolCall { .. })
    }
}
