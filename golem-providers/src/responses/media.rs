//! Non-text parts as Responses input content (SPEC MM-01..04): images as
//! `input_image` (a URL or a `data:` URL), documents as `input_file` (a
//! URL, or a PDF inline). Audio and video are refused with an error that
//! names the part and a fix, never dropped.

use crate::blocks::{essence, part_label};
use crate::classify::{encode_error, unsupported};
use base64::Engine as _;
use golem_core::message::{Part, PartKind};
use golem_core::model::ModelError;
use serde_json::{json, Value};

/// The content part for `part`, the `index`-th of golem message `message`.
pub(crate) fn part(part: &Part, message: usize, index: usize) -> Result<Value, ModelError> {
    let what = part_label(message, index, part.kind);
    part.validate().map_err(|e| encode_error(&format!("{what}: {e}")))?;
    let inline = !part.data.is_empty();
    match part.kind {
        PartKind::Image if inline => Ok(json!({"type": "input_image", "image_url": data_url(part)})),
        PartKind::Image => Ok(json!({"type": "input_image", "image_url": part.url})),
        PartKind::Document if !inline => Ok(json!({"type": "input_file", "file_url": part.url})),
        PartKind::Document if essence(&part.media_type) == "application/pdf" => Ok(json!({
            "type": "input_file",
            "filename": format!("doc-{message}-{index}.pdf"),
            "file_data": data_url(part),
        })),
        PartKind::Document => Err(unsupported(
            &format!("{what} of type {:?}", part.media_type),
            "the Responses API takes inline documents as PDF; convert it to PDF, send its text, or give its URL",
        )),
        PartKind::Audio | PartKind::Video => Err(unsupported(
            &what,
            "the Responses API takes images and files only; transcribe audio, send video frames as images, \
             or use a provider that accepts them (Gemini)",
        )),
    }
}

fn data_url(part: &Part) -> String {
    format!("data:{};base64,{}", part.media_type, base64::engine::general_purpose::STANDARD.encode(&part.data))
}
