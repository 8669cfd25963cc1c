//! Images and documents as Messages content blocks (SPEC MM-01..04):
//! images by URL or as base64 (jpeg, png, gif, webp), PDFs by URL or as
//! base64, plain text documents inline. Audio and video are refused with
//! an error naming the part and a fix, never dropped.

use crate::blocks::{essence, part_label};
use crate::classify::{encode_error, unsupported};
use base64::Engine as _;
use golem_core::message::{Part, PartKind};
use golem_core::model::ModelError;
use serde_json::{json, Value};

/// The content block for `part`, the `index`-th of golem message `message`.
pub(crate) fn block(part: &Part, message: usize, index: usize) -> Result<Value, ModelError> {
    let what = part_label(message, index, part.kind);
    part.validate().map_err(|e| encode_error(&format!("{what}: {e}")))?;
    let kind = match part.kind {
        PartKind::Image => "image",
        PartKind::Document => "document",
        PartKind::Audio | PartKind::Video => return Err(unsupported(
            &what,
            "Anthropic takes images and PDF or text documents only; transcribe audio or send video frames as images",
        )),
    };
    let (media_type, data) = if !part.data.is_empty() {
        (essence(&part.media_type), base64::engine::general_purpose::STANDARD.encode(&part.data))
    } else if let Some(rest) = part.url.strip_prefix("data:") {
        let (head, data) = rest
            .split_once(',')
            .filter(|(head, _)| head.ends_with(";base64"))
            .ok_or_else(|| encode_error(&format!("{what}: a data: URL must be base64 (data:<type>;base64,<data>)")))?;
        let declared = head.trim_end_matches(";base64");
        (essence(if declared.is_empty() { &part.media_type } else { declared }), data.to_string())
    } else {
        // The API fetches the URL itself; its type is the server's business.
        return Ok(json!({"type": kind, "source": {"type": "url", "url": part.url}}));
    };
    let source = match (part.kind, media_type.as_str()) {
        (PartKind::Image, "image/jpeg" | "image/png" | "image/gif" | "image/webp") => {
            json!({"type": "base64", "media_type": media_type, "data": data})
        }
        (PartKind::Image, "image/jpg") => json!({"type": "base64", "media_type": "image/jpeg", "data": data}),
        (PartKind::Document, "application/pdf") => {
            json!({"type": "base64", "media_type": media_type, "data": data})
        }
        (PartKind::Document, "text/plain") => {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(&data)
                .map_err(|e| encode_error(&format!("{what}: invalid base64: {e}")))?;
            let text = String::from_utf8(bytes).map_err(|_| encode_error(&format!("{what}: text is not UTF-8")))?;
            json!({"type": "text", "media_type": "text/plain", "data": text})
        }
        (PartKind::Image, other) => {
            return Err(unsupported(
                &format!("{what} of type {other:?}"),
                "Anthropic takes jpeg, png, gif and webp images; convert the image to one of those",
            ))
        }
        (_, other) => {
            return Err(unsupported(
                &format!("{what} of type {other:?}"),
                "Anthropic takes PDF and plain-text documents; convert it to PDF or send its text",
            ))
        }
    };
    Ok(json!({"type": kind, "source": source}))
}
