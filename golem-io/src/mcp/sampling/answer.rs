//! A golem [`Response`] as the `CreateMessageResult` the server gets: the
//! assistant's text (cut at the first stop sequence) or, with no text, its
//! first inline image; the model's name; why it stopped.

use crate::{FinishReason, PartKind, Response};
use base64::Engine as _;
use serde_json::{json, Value};

/// The result for `response` from model `model`, given the request's stop
/// sequences; an error when the answer holds nothing to send.
pub(super) fn create_message_result(response: &Response, model: &str, stops: &[String]) -> Result<Value, String> {
    let text = &response.message.content;
    let cut = stops.iter().filter(|s| !s.is_empty()).filter_map(|s| text.find(s.as_str())).min();
    let content = match (cut, text.is_empty()) {
        (Some(at), _) => json!({"type": "text", "text": &text[..at]}),
        (None, false) => json!({"type": "text", "text": text}),
        (None, true) => image(response).ok_or("the model answered with no text")?,
    };
    let mut result = json!({"role": "assistant", "content": content, "model": model});
    let reason = match (cut, response.finish_reason) {
        (Some(_), _) => Some("stopSequence"),
        (None, FinishReason::Stop) => Some("endTurn"),
        (None, FinishReason::Length) => Some("maxTokens"),
        (None, FinishReason::ToolCall) => Some("toolUse"),
        (None, FinishReason::ContentFilter) => Some("contentFilter"),
        _ => None,
    };
    if let Some(reason) = reason {
        result["stopReason"] = json!(reason);
    }
    Ok(result)
}

/// The answer's first inline image, as MCP image content.
fn image(response: &Response) -> Option<Value> {
    let part = response.message.parts.iter().find(|p| p.kind == PartKind::Image && !p.data.is_empty())?;
    let data = base64::engine::general_purpose::STANDARD.encode(&part.data);
    Some(json!({"type": "image", "data": data, "mimeType": part.media_type}))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Message, Part};

    #[test]
    fn mcp_18_answers_carry_text_model_and_stop_reason() {
        let result = create_message_result(&Response::text("Paris."), "m-1", &[]).unwrap();
        assert_eq!(
            result,
            json!({"role": "assistant", "content": {"type": "text", "text": "Paris."}, "model": "m-1",
                   "stopReason": "endTurn"})
        );
        let mut long = Response::text("and so on");
        long.finish_reason = FinishReason::Length;
        assert_eq!(create_message_result(&long, "m", &[]).unwrap()["stopReason"], "maxTokens");
        let stops = ["STOP".to_string(), "##".to_string()];
        let cut = create_message_result(&Response::text("one ## two STOP three"), "m", &stops).unwrap();
        assert_eq!((cut["content"]["text"].as_str(), cut["stopReason"].as_str()), (Some("one "), Some("stopSequence")));
        let unknown = Response::new(Message::assistant("hm"));
        assert!(create_message_result(&unknown, "m", &[]).unwrap().get("stopReason").is_none());
    }

    #[test]
    fn mcp_18_an_image_answer_goes_back_as_image_content_and_nothing_is_an_error() {
        let picture =
            Response::new(Message::assistant("").with_parts(vec![Part::image_data("image/png", vec![1u8, 2])]));
        let result = create_message_result(&picture, "m", &[]).unwrap();
        assert_eq!(result["content"], json!({"type": "image", "data": "AQI=", "mimeType": "image/png"}));
        assert!(create_message_result(&Response::new(Message::assistant("")), "m", &[]).is_err());
    }
}
