//! A `sampling/createMessage` request read into golem's words: its
//! messages as golem [`Message`]s (text, images, audio), the rest as typed
//! fields, and the golem [`Request`] a model is sent. Anything malformed is
//! a reason the server reads, never a panic.

use crate::{Message, Part, PartKind, Request};
use base64::Engine as _;
use serde_json::Value;

/// What the server wants the model to do, as the approval hook and the
/// model chooser see it.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct SamplingRequest {
    /// The conversation, user and assistant turns (system prompt apart).
    pub messages: Vec<Message>,
    /// The server's system prompt, when given.
    pub system_prompt: Option<String>,
    /// The most tokens to generate: the server's `maxTokens`, capped by the
    /// client's [`Sampling::max_tokens`](crate::mcp::Sampling::max_tokens).
    pub max_tokens: u32,
    /// What the server asked for, before the cap.
    pub requested_max_tokens: u64,
    /// The temperature, when the server named one.
    pub temperature: Option<f64>,
    /// Where to stop; the client also cuts the answer at the first one.
    pub stop_sequences: Vec<String>,
    /// Which model the server would like (a hint, never binding).
    pub preferences: ModelPreferences,
    /// `includeContext` (`none`, `thisServer`, `allServers`), when given;
    /// this client adds no context of its own.
    pub include_context: Option<String>,
    /// The server's `metadata`, as sent.
    pub metadata: Option<Value>,
}

/// The server's model preferences: name hints, in order, and how much it
/// cares for cost, speed and intelligence (each 0 to 1, when given).
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct ModelPreferences {
    /// Model names or families, best first (`claude-3-5-sonnet`, `gpt-4o`…).
    pub hints: Vec<String>,
    /// How much low cost matters.
    pub cost_priority: Option<f64>,
    /// How much low latency matters.
    pub speed_priority: Option<f64>,
    /// How much capability matters.
    pub intelligence_priority: Option<f64>,
}

impl SamplingRequest {
    /// Read the params of a `sampling/createMessage` request, with the
    /// client's cap on `maxTokens`; the error says what is wrong.
    pub(crate) fn from_params(params: &Value, cap: u32) -> Result<SamplingRequest, String> {
        if params.get("tools").is_some_and(|t| !t.is_null()) {
            return Err("tools in sampling are not offered by this client".into());
        }
        let raw = params.get("messages").and_then(Value::as_array).ok_or("no messages array")?;
        let messages = raw.iter().enumerate().map(|(n, m)| message(m).map_err(|e| format!("message {n}: {e}")));
        let messages = messages.collect::<Result<Vec<_>, _>>()?;
        let requested =
            params.get("maxTokens").and_then(Value::as_u64).ok_or("maxTokens must be a positive integer")?;
        if requested == 0 {
            return Err("maxTokens must be a positive integer".into());
        }
        let text = |key: &str| params.get(key).and_then(Value::as_str).map(str::to_string);
        let stop_sequences = match params.get("stopSequences") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .map(|s| s.as_str().map(str::to_string).ok_or("a stop sequence that is not a string"))
                .collect::<Result<_, _>>()?,
            Some(_) => return Err("stopSequences must be an array of strings".into()),
        };
        Ok(SamplingRequest {
            messages,
            system_prompt: text("systemPrompt").filter(|s| !s.is_empty()),
            max_tokens: u32::try_from(requested).unwrap_or(u32::MAX).min(cap),
            requested_max_tokens: requested,
            temperature: params.get("temperature").and_then(Value::as_f64),
            stop_sequences,
            preferences: preferences(params.get("modelPreferences")),
            include_context: text("includeContext"),
            metadata: params.get("metadata").filter(|m| !m.is_null()).cloned(),
        })
    }

    /// The golem request a model is sent: the system prompt first, then
    /// the conversation.
    pub fn to_request(&self) -> Request {
        let mut messages = Vec::with_capacity(self.messages.len() + 1);
        messages.extend(self.system_prompt.as_deref().map(Message::system));
        messages.extend(self.messages.iter().cloned());
        Request::new(messages)
    }
}

/// One `SamplingMessage`: a role and one content block or a list of them.
fn message(value: &Value) -> Result<Message, String> {
    let blocks = match value.get("content") {
        Some(Value::Array(blocks)) => blocks.iter().collect(),
        Some(block @ Value::Object(_)) => vec![block],
        _ => return Err("no content".into()),
    };
    let mut text = Vec::new();
    let mut parts = Vec::new();
    for block in blocks {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => text.push(block.get("text").and_then(Value::as_str).ok_or("a text block without text")?),
            Some("image") => parts.push(media(block, PartKind::Image)?),
            Some("audio") => parts.push(media(block, PartKind::Audio)?),
            Some(other) => return Err(format!("{other:?} content is not supported")),
            None => return Err("a content block without a type".into()),
        }
    }
    let text = text.join("\n");
    let message = match value.get("role").and_then(Value::as_str) {
        Some("user") => Message::user(text),
        Some("assistant") => Message::assistant(text),
        _ => return Err("the role must be user or assistant".into()),
    };
    Ok(if parts.is_empty() { message } else { message.with_parts(parts) })
}

/// An image or audio block: base64 data and its media type.
fn media(block: &Value, kind: PartKind) -> Result<Part, String> {
    let mime =
        block.get("mimeType").and_then(Value::as_str).filter(|m| !m.is_empty()).ok_or("media without a mimeType")?;
    let data = block.get("data").and_then(Value::as_str).ok_or("media without data")?;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data)
        .map_err(|_| "media data that is not base64".to_string())?;
    Ok(Part::from_data(kind, mime, bytes))
}

fn preferences(value: Option<&Value>) -> ModelPreferences {
    let Some(value) = value else { return ModelPreferences::default() };
    let priority = |key: &str| value.get(key).and_then(Value::as_f64).filter(|p| (0.0..=1.0).contains(p));
    let hints = value.get("hints").and_then(Value::as_array).into_iter().flatten();
    ModelPreferences {
        hints: hints.filter_map(|h| h.get("name").and_then(Value::as_str)).map(str::to_string).collect(),
        cost_priority: priority("costPriority"),
        speed_priority: priority("speedPriority"),
        intelligence_priority: priority("intelligencePriority"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Role;
    use serde_json::json;

    #[test]
    fn mcp_18_requests_map_to_golem_messages_with_the_cap_applied() {
        let params = json!({
            "messages": [
                {"role": "user", "content": {"type": "text", "text": "What is this?"}},
                {"role": "user", "content": [{"type": "image", "data": "iVBORw0=", "mimeType": "image/png"},
                                             {"type": "text", "text": "and this"}]},
                {"role": "assistant", "content": {"type": "text", "text": "A pixel."}}
            ],
            "systemPrompt": "Be brief.", "maxTokens": 100_000, "temperature": 0.3, "stopSequences": ["END"],
            "modelPreferences": {"hints": [{"name": "claude"}, {"x": 1}], "speedPriority": 0.9, "costPriority": 7},
            "includeContext": "thisServer"
        });
        let request = SamplingRequest::from_params(&params, 512).unwrap();
        assert_eq!((request.max_tokens, request.requested_max_tokens), (512, 100_000));
        assert_eq!(request.temperature, Some(0.3));
        assert_eq!(request.stop_sequences, ["END"]);
        assert_eq!(request.preferences.hints, ["claude"]);
        assert_eq!((request.preferences.speed_priority, request.preferences.cost_priority), (Some(0.9), None));
        let golem = request.to_request();
        let roles: Vec<Role> = golem.messages.iter().map(|m| m.role).collect();
        assert_eq!(roles, [Role::System, Role::User, Role::User, Role::Assistant]);
        assert_eq!(golem.messages[0].content, "Be brief.");
        assert_eq!(golem.messages[2].content, "and this");
        assert_eq!(golem.messages[2].parts[0].media_type, "image/png");
        assert_eq!(&golem.messages[2].parts[0].data[..4], b"\x89PNG");
    }

    #[test]
    fn mcp_18_malformed_requests_say_what_is_wrong() {
        let base = json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 10});
        assert!(SamplingRequest::from_params(&base, 10).is_ok());
        let broken = |edit: &dyn Fn(&mut Value)| {
            let mut params = base.clone();
            edit(&mut params);
            SamplingRequest::from_params(&params, 10).unwrap_err()
        };
        assert!(broken(&|p| p["maxTokens"] = json!(0)).contains("maxTokens"));
        assert!(broken(&|p| p["maxTokens"] = json!("ten")).contains("maxTokens"));
        assert!(broken(&|p| p["messages"] = json!({})).contains("messages"));
        assert!(broken(&|p| p["messages"][0]["role"] = json!("system")).contains("role"));
        assert!(broken(&|p| p["messages"][0]["content"] = json!({"type": "video"})).contains("not supported"));
        let bad_image = json!({"type": "image", "data": "***", "mimeType": "image/png"});
        assert!(broken(&|p| p["messages"][0]["content"] = bad_image.clone()).contains("base64"));
        assert!(broken(&|p| p["tools"] = json!([])).contains("tools"));
        assert!(broken(&|p| p["stopSequences"] = json!([1])).contains("stop sequence"));
    }
}
