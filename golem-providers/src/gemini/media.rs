//! Images, documents, audio and video as Gemini parts (SPEC MM-01..03):
//! inline bytes as `inlineData {mimeType, data}`, URLs as `fileData
//! {fileUri, mimeType}` — every kind either way, since Gemini takes them
//! all. A `data:` URL goes inline, as the API fetches no `data:` URIs. A
//! malformed part is refused with an error naming it, never dropped.

use crate::classify::encode_error;
use base64::Engine as _;
use golem_core::message::Part;
use golem_core::model::ModelError;
use serde_json::{json, Map, Value};

/// The wire part for `part`, the `index`-th of golem message `message`.
pub(crate) fn part(part: &Part, message: usize, index: usize) -> Result<Value, ModelError> {
    let what = || format!("message {message} part {index} ({})", format!("{:?}", part.kind).to_ascii_lowercase());
    part.validate().map_err(|e| encode_error(&format!("{}: {e}", what())))?;
    if !part.data.is_empty() {
        let data = base64::engine::general_purpose::STANDARD.encode(&part.data);
        return Ok(inline(&part.media_type, &data));
    }
    if let Some(rest) = part.url.strip_prefix("data:") {
        let (head, data) = rest.split_once(',').filter(|(head, _)| head.ends_with(";base64")).ok_or_else(|| {
            encode_error(&format!("{}: a data: URL must be base64 (data:<type>;base64,<data>)", what()))
        })?;
        let media_type = head.trim_end_matches(";base64");
        let media_type = if media_type.is_empty() { part.media_type.as_str() } else { media_type };
        return Ok(inline(media_type, data));
    }
    let mut file = Map::new();
    file.insert("fileUri".into(), part.url.as_str().into());
    if !part.media_type.is_empty() {
        file.insert("mimeType".into(), part.media_type.as_str().into());
    }
    Ok(json!({ "fileData": file }))
}

fn inline(media_type: &str, data: &str) -> Value {
    json!({"inlineData": {"mimeType": media_type, "data": data}})
}
