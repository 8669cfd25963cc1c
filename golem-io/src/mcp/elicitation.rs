//! Elicitation, form mode (SPEC MCP-14): the server asks the user for a
//! few values through the client. The client declares the capability only
//! when the application installs a handler
//! ([`ClientOptions::on_elicitation`](crate::mcp::ClientOptions::on_elicitation));
//! without one — or for modes it does not speak — the request is declined.
//! An accepted answer gets the schema's defaults for every field it leaves
//! out (SEP-1034).

use serde_json::{json, Map, Value};
use std::sync::Arc;

/// What the server asks for.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ElicitationRequest {
    /// What to tell the user.
    pub message: String,
    /// The `requestedSchema`: a flat object schema of primitive fields,
    /// each possibly with a `default`.
    pub schema: Value,
}

impl ElicitationRequest {
    pub(crate) fn from_params(params: &Value) -> ElicitationRequest {
        ElicitationRequest {
            message: params.get("message").and_then(Value::as_str).unwrap_or_default().to_string(),
            schema: params.get("requestedSchema").cloned().unwrap_or_else(|| json!({"type": "object"})),
        }
    }

    /// The schema's default for each field that has one, to pre-fill a form.
    ///
    /// ```
    /// use golem_io::mcp::ElicitationRequest;
    /// use serde_json::json;
    ///
    /// let request = ElicitationRequest::new("Who are you?", json!({"type": "object",
    ///     "properties": {"name": {"type": "string", "default": "Ada"}, "age": {"type": "integer"}}}));
    /// assert_eq!(request.defaults().get("name"), Some(&json!("Ada")));
    /// assert!(request.defaults().get("age").is_none());
    /// ```
    pub fn defaults(&self) -> Map<String, Value> {
        let Some(properties) = self.schema.get("properties").and_then(Value::as_object) else { return Map::new() };
        properties.iter().filter_map(|(name, field)| Some((name.clone(), field.get("default")?.clone()))).collect()
    }

    /// A request (for tests of a handler).
    pub fn new(message: impl Into<String>, schema: Value) -> ElicitationRequest {
        ElicitationRequest { message: message.into(), schema }
    }
}

/// The user's answer.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ElicitationResponse {
    /// The user submitted these values (fields left out get the schema's
    /// defaults).
    Accept(Map<String, Value>),
    /// The user said no.
    Decline,
    /// The user dismissed the question without choosing.
    Cancel,
}

/// The application's elicitation handler.
pub(crate) type ElicitationHandler = Arc<dyn Fn(&ElicitationRequest) -> ElicitationResponse + Send + Sync>;

/// The capability the client declares with a handler installed.
pub(crate) fn capability() -> Value {
    json!({"form": {}})
}

/// True for a request this client can put to its handler: form mode (the
/// default when `mode` is absent).
pub(crate) fn is_form(params: &Value) -> bool {
    matches!(params.get("mode").and_then(Value::as_str), None | Some("form"))
}

/// The `elicitation/create` result for `response` to `request`.
pub(crate) fn result(request: &ElicitationRequest, response: ElicitationResponse) -> Value {
    match response {
        ElicitationResponse::Accept(mut content) => {
            for (name, default) in request.defaults() {
                content.entry(name).or_insert(default);
            }
            json!({"action": "accept", "content": content})
        }
        ElicitationResponse::Decline => declined(),
        ElicitationResponse::Cancel => json!({"action": "cancel"}),
    }
}

/// The answer without a handler.
pub(crate) fn declined() -> Value {
    json!({"action": "decline"})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepted_answers_get_the_defaults_they_leave_out() {
        let request = ElicitationRequest::from_params(&json!({"message": "who?", "requestedSchema": {
            "type": "object",
            "properties": {"name": {"type": "string", "default": "John Doe"}, "age": {"type": "integer", "default": 30},
                           "note": {"type": "string"}}}}));
        let mut given = Map::new();
        given.insert("name".into(), json!("Ada"));
        let answer = result(&request, ElicitationResponse::Accept(given));
        assert_eq!(answer, json!({"action": "accept", "content": {"name": "Ada", "age": 30}}));
        assert_eq!(result(&request, ElicitationResponse::Decline), json!({"action": "decline"}));
        assert_eq!(result(&request, ElicitationResponse::Cancel), json!({"action": "cancel"}));
        assert!(is_form(&json!({})) && is_form(&json!({"mode": "form"})) && !is_form(&json!({"mode": "url"})));
    }
}
