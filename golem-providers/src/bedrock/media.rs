//! Images, documents and video as Converse content blocks (SPEC
//! MM-01..04): inline bytes, or an S3 location (`s3://bucket/key` as the
//! part's URL) — Bedrock fetches no other URLs — and no audio. Video is
//! Nova's (`mp4`, `mov`, `mkv`, `webm`, `flv`, `mpeg`, `wmv`, `3gp`). A
//! part that cannot be carried is refused with an error naming it and a
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
    let source = if !part.data.is_empty() {
        json!({"bytes": base64::engine::general_purpose::STANDARD.encode(&part.data)})
    } else if part.url.starts_with("s3://") {
        json!({"s3Location": {"uri": part.url}})
    } else {
        return Err(unsupported(
            &format!("{what} by URL"),
            "Bedrock takes media as bytes or an s3:// location only; fetch it and send the bytes as data",
        ));
    };
    // A part by location may leave its type to the object's extension.
    let media_type = match part.media_type.as_str() {
        "" => by_extension(&part.url),
        given => given,
    };
    match part.kind {
        PartKind::Image => {
            let format = format(image_format(media_type), &what, part, "png, jpeg, gif and webp images")?;
            Ok(json!({"image": {"format": format, "source": source}}))
        }
        PartKind::Document => {
            let takes = "pdf, csv, doc, docx, xls, xlsx, html, txt and md documents";
            let format = format(document_format(media_type), &what, part, takes)?;
            Ok(json!({"document": {"format": format, "name": format!("doc-{message}-{index}"), "source": source}}))
        }
        PartKind::Video => {
            let takes = "mp4, mov, mkv, webm, flv, mpeg, wmv and 3gp video (Amazon Nova)";
            let format = format(video_format(media_type), &what, part, takes)?;
            Ok(json!({"video": {"format": format, "source": source}}))
        }
        PartKind::Audio => Err(unsupported(&what, "Bedrock Converse takes no audio; transcribe it and send the text")),
    }
}

/// Whether a content block is a video: Converse refuses one inside a tool
/// result, so it follows the result in the same user turn (recorded: the
/// API answers 400 to one inside).
pub(crate) fn is_video(block: &Value) -> bool {
    block.get("video").is_some()
}

/// The media type an S3 object's extension implies, empty when unknown.
fn by_extension(url: &str) -> &'static str {
    let extension = url.rsplit('/').next().and_then(|name| name.rsplit_once('.')).map(|(_, e)| e.to_ascii_lowercase());
    match extension.as_deref() {
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("gif") => "image/gif",
        Some("webp") => "image/webp",
        Some("pdf") => "application/pdf",
        Some("csv") => "text/csv",
        Some("txt") => "text/plain",
        Some("md") => "text/markdown",
        Some("html") => "text/html",
        Some("docx") => "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        Some("xlsx") => "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        Some("mp4") => "video/mp4",
        Some("mov") => "video/quicktime",
        Some("mkv") => "video/x-matroska",
        Some("webm") => "video/webm",
        _ => "",
    }
}

/// The `format` of a video (Nova).
fn video_format(media_type: &str) -> Option<&'static str> {
    match essence(media_type).as_str() {
        "video/mp4" => Some("mp4"),
        "video/quicktime" => Some("mov"),
        "video/x-matroska" => Some("mkv"),
        "video/webm" => Some("webm"),
        "video/x-flv" => Some("flv"),
        "video/mpeg" => Some("mpeg"),
        "video/x-ms-wmv" => Some("wmv"),
        "video/3gpp" => Some("three_gp"),
        _ => None,
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
