//! Images and documents as Converse content blocks (SPEC MM-01..04):
//! inline bytes only — Bedrock takes no URLs (S3 locations aside, which a
//! golem part cannot name) — and no audio or video through this codec.
//! A part that cannot be carried is refused with an error naming it and a
//! fix, never dropped.

use crate::blocks::{essence, part_label};
use crate::classify::{encode_error, unsupported};
use base64::Engine as _;
use golem_core::message::{Part, PartKind};
use golem_core::model::ModelError;
use serde_json::{json, Value};

/// The content block for `part`, the `part`-th of golem message `message`.
/// Document names are `doc-<message>-<part>`, unique within a request as
/// Bedrock requires (SPEC MM-03).
pub(crate) fn block(part: &Part, message: usize, index: usize) -> Result<Value, ModelError> {
    let what = part_label(message, index, part.kind);
    part.validate().map_err(|e| encode_error(&format!("{what}: {e}")))?;
    if part.data.is_empty() {
        return Err(unsupported(
            &format!("{what} by URL"),
            "Bedrock takes media as bytes only; fetch it and send the bytes as data",
        ));
    }
    let bytes = base64::engine::general_purpose::STANDARD.encode(&part.data);
    match part.kind {
        PartKind::Image => {
            let format = format(image_format(&part.media_type), &what, part, "png, jpeg, gif and webp images")?;
            Ok(json!({"image": {"format": format, "source": {"bytes": bytes}}}))
        }
        PartKind::Document => {
            let takes = "pdf, csv, doc, docx, xls, xlsx, html, txt and md documents";
            let format = format(document_format(&part.media_type), &what, part, takes)?;
            Ok(json!({"document": {"format": format, "name": format!("doc-{message}-{index}"), "source": {"bytes": bytes}}}))
        }
        PartKind::Audio | PartKind::Video => Err(unsupported(
            &what,
            "Bedrock Converse through golem takes images and documents only; transcribe audio or send video frames as images",
        )),
    }
}

/// The `format` of an image: its media subtype (SPEC MM-02).
fn image_format(media_type: &str) -> Option<&'static str> {
    match essence(media_type).as_str() {
        "image/png" => Some("png"),
        "image/jpeg" | "image/jpg" => Some("jpeg"),
        "image/gif" => Some("gif"),
        "image/webp" => Some("webp"),
        _ => None,
    }
}

/// The `format` of a document (SPEC MM-03).
fn document_format(media_type: &str) -> Option<&'static str> {
    match essence(media_type).as_str() {
        "application/pdf" => Some("pdf"),
        "text/csv" => Some("csv"),
        "application/msword" => Some("doc"),
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document" => Some("docx"),
        "application/vnd.ms-excel" => Some("xls"),
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" => Some("xlsx"),
        "text/html" => Some("html"),
        "text/plain" => Some("txt"),
        "text/markdown" | "text/x-markdown" => Some("md"),
        _ => None,
    }
}

/// The format Bedrock names a part's media type with, or the refusal
/// saying what it `takes`.
fn format(found: Option<&'static str>, what: &str, part: &Part, takes: &str) -> Result<&'static str, ModelError> {
    found.ok_or_else(|| {
        let hint = match part.kind {
            PartKind::Image => format!("Bedrock takes {takes}; convert the image to one of those"),
            _ => format!("Bedrock takes {takes}; convert it or send its text"),
        };
        unsupported(&format!("{what} of type {:?}", part.media_type), &hint)
    })
}
