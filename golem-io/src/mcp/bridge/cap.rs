//! The bound on what one bridged call hands the model (issue 15): a
//! server's text — a result or an `isError` explanation — is cut at
//! [`DEFAULT_MAX_RESULT_BYTES`] unless configured, with a marker saying
//! so; media parts are kept while their bytes fit
//! [`DEFAULT_MAX_MEDIA_BYTES`], and a line names each one dropped.

use crate::tool::{ToolError, ToolResult};
use crate::tools::clip;

/// The text cap of a bridged tool's result unless configured (like web
/// fetch's body cap).
pub const DEFAULT_MAX_RESULT_BYTES: usize = 1 << 20;

/// The cap on the inline media bytes of one result unless configured
/// (OpenAI's limit for one image).
pub const DEFAULT_MAX_MEDIA_BYTES: usize = 20 << 20;

/// The caps of one bridge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Caps {
    pub(super) text: usize,
    pub(super) media: usize,
}

impl Default for Caps {
    fn default() -> Self {
        Caps { text: DEFAULT_MAX_RESULT_BYTES, media: DEFAULT_MAX_MEDIA_BYTES }
    }
}

/// `result` within `caps`.
pub(super) fn cap(result: Result<ToolResult, ToolError>, caps: Caps) -> Result<ToolResult, ToolError> {
    match result {
        Ok(mut result) => {
            let mut notes = Vec::new();
            let mut media = 0usize;
            result.parts.retain(|part| {
                media = media.saturating_add(part.data.len());
                let keep = media <= caps.media;
                if !keep {
                    media -= part.data.len();
                    notes.push(format!(
                        "[mcp: {} content of {} bytes dropped: over the {} byte media cap]",
                        part.media_type,
                        part.data.len(),
                        caps.media
                    ));
                }
                keep
            });
            let mut content = cut(result.content, caps.text);
            for note in notes {
                content.push('\n');
                content.push_str(&note);
            }
            result.content = content;
            Ok(result)
        }
        Err(ToolError::Failed(reason)) => Err(ToolError::Failed(cut(reason, caps.text))),
        Err(ToolError::Reject(reason)) => Err(ToolError::Reject(cut(reason, caps.text))),
        Err(other) => Err(other),
    }
}

/// `text` cut to `max` bytes on a character boundary, with the marker.
fn cut(mut text: String, max: usize) -> String {
    if text.len() > max {
        let kept = clip::prefix(&text, max).len();
        text.truncate(kept);
        text.push_str(&format!("\n\n[mcp: result truncated at {max} bytes]"));
    }
    text
}
