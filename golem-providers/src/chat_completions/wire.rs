//! The request body's shape, as borrowed serde structs: encoding writes
//! straight from the golem request into JSON without cloning messages.

use serde::Serialize;
use serde_json::Value;
use std::borrow::Cow;

/// The body's fields after `model` and `messages`, in wire order: the
/// encoder writes those two itself (the messages partly from reused bytes)
/// and continues with these.
#[derive(Serialize)]
pub(crate) struct BodyRest<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parallel_tool_calls: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_format: Option<ResponseFormat<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_completion_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning_effort: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop: Option<&'a [String]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub presence_penalty: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frequency_penalty: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub service_tier: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub web_search_options: Option<Value>,
    pub stream: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream_options: Option<StreamOptions>,
}

#[derive(Serialize)]
pub(crate) struct StreamOptions {
    pub include_usage: bool,
}

#[derive(Serialize)]
pub(crate) struct ResponseFormat<'a> {
    #[serde(rename = "type")]
    pub kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub json_schema: Option<JsonSchema<'a>>,
}

#[derive(Serialize)]
pub(crate) struct JsonSchema<'a> {
    pub name: String,
    pub strict: bool,
    pub schema: &'a Value,
}

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

#[derive(Serialize)]
pub(crate) struct WireMessage<'a> {
    pub role: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<Content<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<WireCall<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<Cow<'a, str>>,
}

impl<'a> WireMessage<'a> {
    pub fn new(role: &'static str, content: Option<Content<'a>>) -> Self {
        WireMessage { role, content, tool_calls: Vec::new(), tool_call_id: None }
    }
}

#[derive(Serialize)]
#[serde(untagged)]
pub(crate) enum Content<'a> {
    Text(Cow<'a, str>),
    Parts(Vec<WirePart<'a>>),
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

#[derive(Serialize)]
pub(crate) struct WireCall<'a> {
    pub id: Cow<'a, str>,
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub function: WireCallFunction<'a>,
}

#[derive(Serialize)]
pub(crate) struct WireCallFunction<'a> {
    pub name: &'a str,
    pub arguments: String,
}
