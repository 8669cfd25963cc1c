//! Non-text parts on the wire (SPEC MM-02, MM-03): images by URL or as
//! `data:` URLs, inline PDFs as `file` parts, inline wav/mp3 as
//! `input_audio`. Anything else is refused with an error that names the part
//! and a fix (SPEC MM-01) — a part is never dropped silently.

use super::wire::{FileData, ImageUrl, InputAudio, WirePart};
use super::Dialect;
use crate::blocks::{essence, part_label};
use crate::classify::{encode_error, unsupported};
use base64::Engine as _;
use golem_core::message::{Part, PartKind};
use golem_core::model::ModelError;
use std::borrow::Cow;

/// Where a part sits in the request, for error messages and file names.
#[derive(Clone, Copy)]
pub(crate) struct Location {
    /// Index of the golem message holding the part.
    pub message: usize,
    /// Index of the part within that message.
    pub part: usize,
}

impl Location {
    fn describe(self, kind: PartKind) -> String {
        part_label(self.message, self.part, kind)
    }
}

/// The wire form of `part`.
pub(crate) fn part<'a>(part: &'a Part, dialect: &Dialect, at: Location) -> Result<WirePart<'a>, ModelError> {
    part.validate().map_err(|e| encode_error(&format!("{}: {e}", at.describe(part.kind))))?;
    let what = at.describe(part.kind);
    let inline = !part.data.is_empty();
    match part.kind {
        PartKind::Image if !dialect.images => Err(unsupported(
            &what,
            "this service is configured without image input; remove the image or pick a preset that accepts images",
        )),
        PartKind::Image if inline => Ok(WirePart::ImageUrl { image_url: ImageUrl { url: Cow::Owned(data_url(part)) } }),
        PartKind::Image => Ok(WirePart::ImageUrl { image_url: ImageUrl { url: Cow::Borrowed(&part.url) } }),
        PartKind::Document if !inline => Err(unsupported(
            &what,
            "Chat Completions takes documents inline only; fetch the PDF and send its bytes as data",
        )),
        PartKind::Document if essence(&part.media_type) == "application/pdf" => Ok(WirePart::File {
            file: FileData { filename: format!("doc-{}-{}.pdf", at.message, at.part), file_data: data_url(part) },
        }),
        PartKind::Document => Err(unsupported(
            &format!("{what} of type {:?}", part.media_type),
            "Chat Completions takes PDF documents only; convert it to PDF or send its text",
        )),
        PartKind::Audio if !inline => Err(unsupported(
            &what,
            "Chat Completions takes audio inline only; fetch the audio and send its bytes as data",
        )),
        PartKind::Audio => match audio_format(&part.media_type) {
            Some(format) => Ok(WirePart::InputAudio { input_audio: InputAudio { data: base64(&part.data), format } }),
            None => Err(unsupported(
                &format!("{what} of type {:?}", part.media_type),
                "Chat Completions takes wav or mp3 audio only; convert it to one of those",
            )),
        },
        PartKind::Video => Err(unsupported(
            &what,
            "Chat Completions has no video input; send frames as images, or use a provider that accepts video (Gemini)",
        )),
    }
}

/// The `input_audio` format for a media type: `wav` for audio/wav, x-wav
/// and wave; `mp3` for audio/mpeg and audio/mp3 (SPEC MM-03).
pub(crate) fn audio_format(media_type: &str) -> Option<&'static str> {
    match essence(media_type).as_str() {
        "audio/wav" | "audio/x-wav" | "audio/wave" => Some("wav"),
        "audio/mpeg" | "audio/mp3" => Some("mp3"),
        _ => None,
    }
}

fn data_url(part: &Part) -> String {
    format!("data:{};base64,{}", part.media_type, base64(&part.data))
}

fn base64(data: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(data)
}
