//! The request body's rarer shapes (tools, media parts), as borrowed serde
//! structs: encoding writes straight from the golem request into JSON
//! without cloning messages. The common messages and the body's fields are
//! written by hand (`body_writer`).

use serde::Serialize;
use serde_json::Value;
use std::borrow::Cow;

#[derive(Serialize)]
pub(crate) struct WireTool<'a> {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub function: WireFunction<'a>,
}

#[derive(Serialize)]
pub(crate) struct WireFunction<'a> {
    pub name: &'a str,
    pub description: &'a str,
    pub parameters: &'a Value,
}

/// A user message with media parts: the `content` array. The common
/// messages are written by hand (`body_writer`).
#[derive(Serialize)]
pub(crate) struct WireMessage<'a> {
    pub role: &'static str,
    pub content: Vec<WirePart<'a>>,
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum WirePart<'a> {
    Text { text: Cow<'a, str> },
    ImageUrl { image_url: ImageUrl<'a> },
    File { file: FileData },
    InputAudio { input_audio: InputAudio },
}

#[derive(Serialize)]
pub(crate) struct ImageUrl<'a> {
    pub url: Cow<'a, str>,
}

#[derive(Serialize)]
pub(crate) struct FileData {
    pub filename: String,
    pub file_data: String,
}

#[derive(Serialize)]
pub(crate) struct InputAudio {
    pub data: String,
    pub format: &'static str,
}
